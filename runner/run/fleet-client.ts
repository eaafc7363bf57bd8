import { writeFile } from 'node:fs/promises';
import { FileMarkers } from '../core/barrier';
import { seriesSettings } from '../core/intervals';
import type { ResolvedMatrix, Step } from '../core/matrix';
import { Progress } from './progress';
import type { StoreTarget } from '../core/target';
import { runDataPrefix } from '../core/vocabulary';
import type { Fixture } from '../core/workload';
import { RUNNER_USER_AGENT } from '../endpoint/access-log';
import { ReferenceStore } from '../endpoint/reference';
import { makeS3Client } from '../endpoint/s3-client';
import type { IntervalRecord } from '../core/interval.generated';
import type { ResultRecord } from '../core/record.generated';
import { findWorkload } from '../workloads';
import { runStep, type FleetMember, type StepEnv } from './step';

/** A fixture the parent wrote, as its clients receive it: where it is and what each object must hash to. */
export interface SharedFixture {
  id: string;
  prefix: string;
  digests: string[];
  crc32s: number[];
}

/**
 * What one client process of `s3ab run --clients` runs (the hidden `s3ab fleet-client`, which
 * reads it as JSON on its standard input: it holds the store's credentials, so it is never a file).
 */
export interface FleetClientSpec {
  step: Step;
  runId: string;
  /** This client's number (1-based): runner id `client-N`. */
  client: number;
  target: StoreTarget;
  /** The parent's host facts (link limit included); runner_id is set to this client's. */
  host: ResultRecord['host'];
  endpointFacts: ResultRecord['endpoint'];
  /** The parent's fixtures of this step's workload: every client reads the same objects. */
  fixtures: SharedFixture[];
  cache: ResolvedMatrix['cache'];
  budgetS: number | null;
  watchdog?: StepEnv['watchdog'];
  seriesIntervalMs: number;
  barrier: Pick<FleetMember, 'leadMs' | 'timeoutMs' | 'pollMs'> & { dir: string };
  /** Where the client writes its records and interval records (JSON lines: {record} or {interval}). */
  out: string;
}

/** One line a client prints on its standard output for the parent: a progress note or a message. */
export type FleetClientLine = { note: string } | { log: string };

/** A fleet client's runner id: its records' host.runner_id, its data prefix and its volume names. */
export const fleetClientId = (client: number) => `client-${client}`;

/** Progress that goes to the parent as JSON lines on stdout (the parent shows client 1's notes). */
class RelayedProgress extends Progress {
  constructor(private readonly send: (line: FleetClientLine) => void) {
    super(1, process.stdout, true);
  }

  override note(text: string): void {
    this.send({ note: text });
  }

  override log(message: string): void {
    this.send({ log: message });
  }
}

/** The fixtures map runStep expects, rebuilt from the parent's: the spec from the workload's parameters, the digests from the parent. */
function fixturesOf(spec: FleetClientSpec): Map<string, Fixture> {
  const fixtures = new Map<string, Fixture>();
  const fixtureSpec = findWorkload(spec.step.workload.name)!.fixture?.(spec.step.workload.params as never);
  for (const f of spec.fixtures) {
    if (fixtureSpec?.id !== f.id) continue;
    fixtures.set(f.id, { spec: fixtureSpec, prefix: f.prefix, digestOf: (i) => f.digests[i], crc32Of: (i) => f.crc32s[i] });
  }
  return fixtures;
}

/**
 * Runs one client's share of a fleet step: its own S3 client or mount (opened by runStep), its own
 * data prefix, the parent's fixtures, the shared start barrier; writes its records and intervals to
 * `spec.out`. The server's access log is the parent's and shared by every client, so requests are
 * not counted here (records say null).
 */
export async function runFleetClient(spec: FleetClientSpec, signal: AbortSignal, send: (line: FleetClientLine) => void): Promise<void> {
  seriesSettings.intervalMs = spec.seriesIntervalMs;
  const runnerId = fleetClientId(spec.client);
  const client = makeS3Client(spec.target, { maxSockets: 32, userAgent: RUNNER_USER_AGENT });
  try {
    const env: StepEnv = {
      target: spec.target, host: { ...spec.host, runner_id: runnerId }, endpointFacts: spec.endpointFacts, runId: spec.runId, runnerId,
      prefix: runDataPrefix(spec.runId, runnerId), reference: new ReferenceStore(client, spec.target.bucket), fixtures: fixturesOf(spec),
      progress: new RelayedProgress(send), signal, cache: spec.cache, budgetS: spec.budgetS, watchdog: spec.watchdog, accessLog: null,
      fleet: {
        client: spec.client, barrier: 'file', markers: new FileMarkers(spec.barrier.dir), clockOffsetMs: null, clockSource: 'one host',
        leadMs: spec.barrier.leadMs, timeoutMs: spec.barrier.timeoutMs, pollMs: spec.barrier.pollMs,
      },
    };
    const intervals: IntervalRecord[] = [];
    const records = await runStep(spec.step, env, intervals);
    await writeFile(spec.out, [...records.map((record) => ({ record })), ...intervals.map((interval) => ({ interval }))].map((l) => JSON.stringify(l)).join('\n') + '\n');
  } finally {
    // The markers stay: a slower client may still be listing them; the parent removes the folder.
    client.destroy();
  }
}
