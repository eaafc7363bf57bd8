import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { arriveAndWait } from '../core/barrier';
import { HashingStream, patternStream } from '../core/data';
import { errorSummary, RunError } from '../core/errors';
import type { ResolvedMatrix } from '../core/matrix';
import type { Progress } from './progress';
import { fixtureDataPrefix } from '../core/vocabulary';
import { fixtureSeed, type Fixture } from '../core/workload';
import type { ReferenceStore } from '../endpoint/reference';
import { findWorkload } from '../workloads';
import { writeFixtures } from './fixtures';
import type { FleetRun } from './options';

/** The barrier rounds around a fleet's shared fixtures: written (client 1 ready), and every client done with them. */
const ROUND = { written: 'fixtures-written', done: 'fleet-done' } as const;

/**
 * A fleet's fixtures, written once and read by every client (the clients read one shared
 * data set): client 1 writes them under the fleet's shared prefix and says so at the barrier; every
 * other client derives the same digests from the deterministic data meanwhile, waits for client 1,
 * then checks that every object is there with its size.
 */
export async function fleetFixtures(fleet: FleetRun, matrix: Pick<ResolvedMatrix, 'workloads'>, reference: ReferenceStore, progress: Progress, signal: AbortSignal): Promise<Map<string, Fixture>> {
  const m = fleet.member;
  if (m.client === 1) {
    const fixtures = await writeFixtures(matrix, reference, fleet.sharedPrefix, progress, signal);
    await m.markers.put(ROUND.written, 1);
    return fixtures;
  }
  const fixtures = new Map<string, Fixture>();
  for (const w of matrix.workloads) {
    const spec = findWorkload(w.name)!.fixture?.(w.params as never);
    if (!spec || fixtures.has(spec.id)) continue;
    progress.log(`deriving the digests of the fleet's fixture ${spec.id} (${spec.count} objects; client 1 writes it)`);
    fixtures.set(spec.id, await describeFixture(spec, fixtureDataPrefix(fleet.sharedPrefix, spec.id), signal));
  }
  progress.log(`waiting for client 1 to write the fleet's fixtures at s3://${reference.bucket}/${fleet.sharedPrefix}`);
  await waitForClient(fleet, ROUND.written, 1, signal);
  for (const f of fixtures.values()) await checkPresent(f, reference);
  return fixtures;
}

/** A fixture's expected digests, from its deterministic data (the objects client 1 writes). */
async function describeFixture(spec: Fixture['spec'], prefix: string, signal: AbortSignal): Promise<Fixture> {
  const digests: string[] = [];
  const crcs: number[] = [];
  for (let i = 0; i < spec.count; i++) {
    const hashing = new HashingStream();
    const sink = new Writable({ write: (_c, _e, done) => done() });
    await pipeline(patternStream(fixtureSeed(spec, i), spec.sizeOf?.(i) ?? spec.size), hashing, sink, { signal });
    digests.push(hashing.digest());
    crcs.push(hashing.crc);
  }
  return { spec, prefix, digestOf: (i) => digests[i], crc32Of: (i) => crcs[i] };
}

/** Every object of the fixture is in the bucket with its size: the measurements then verify their bytes against the digests. */
async function checkPresent(f: Fixture, reference: ReferenceStore): Promise<void> {
  // Keys relative to the fixture's prefix, as ReferenceStore.list gives them.
  const listed = new Map((await reference.list(f.prefix)).map((o) => [o.key, o.size]));
  for (let i = 0; i < f.spec.count; i++) {
    const key = f.spec.keyOf(i);
    const size = f.spec.sizeOf?.(i) ?? f.spec.size;
    if (listed.get(key) !== size) {
      throw new RunError(`the fleet's shared fixture ${f.spec.id} is incomplete: ${f.prefix}${key} is ${listed.has(key) ? `${listed.get(key)} bytes, not ${size}` : 'missing'}`,
        'client 1 failed while writing it (its own log says why); run the execution again');
    }
  }
}

/** Waits until `client`'s marker of `round` is there (not a barrier: this client leaves none). */
async function waitForClient(fleet: FleetRun, round: string, client: number, signal: AbortSignal): Promise<void> {
  const { markers, timeoutMs, pollMs } = fleet.member;
  const deadline = Date.now() + timeoutMs;
  while (!(await markers.list(round)).some((x) => x.client === client)) {
    if (Date.now() > deadline) {
      throw new RunError(`client ${client} of the fleet did not report the shared fixtures written within ${Math.round(timeoutMs / 1000)} s (${markers.where})`,
        'client 1 failed while preparing (its own log says why) or is still setting up; run the execution again');
    }
    await new Promise((r) => setTimeout(r, pollMs));
    signal.throwIfAborted();
  }
}

/**
 * The end of a fleet client's run (`ok`: its steps ran, whatever their status). Every client but 1
 * removes its barrier markers and leaves a "done" marker — it reads the shared fixtures no more;
 * client 1, ok, waits until every client is done, then deletes the shared fixtures (the one
 * deletion) and every marker of the run. What cannot be deleted so (client 1 failed, or a client
 * never reported done) is left to the pipeline's Teardown, which deletes the run's prefixes; the
 * note says so.
 */
export async function finishFleet(fleet: FleetRun, reference: ReferenceStore, progress: Progress, signal: AbortSignal, ok: boolean): Promise<void> {
  const m = fleet.member;
  if (m.client !== 1) {
    await m.markers.removeOwn(m.client);
    await m.markers.put(ROUND.done, m.client);
    return;
  }
  const kept = (why: string) => progress.log(`the fleet's shared fixtures under ${fleet.sharedPrefix} are kept (${why}); the pipeline's Teardown deletes them`);
  if (!ok) {
    await m.markers.removeOwn(1);
    return kept('client 1 did not finish its steps');
  }
  try {
    progress.log(`waiting for the fleet's ${fleet.size} clients to finish before deleting its shared fixtures`);
    await arriveAndWait(m.markers, { clients: fleet.size, client: 1, round: ROUND.done, leadMs: 0, timeoutMs: m.timeoutMs, pollMs: m.pollMs, signal });
  } catch (err) {
    if (signal.aborted) throw err;
    await m.markers.removeOwn(1);
    return kept(errorSummary(err));
  }
  await reference.deletePrefix(fleet.sharedPrefix);
  for (let c = 1; c <= fleet.size; c++) await m.markers.removeOwn(c);
}
