import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { UserError, errorSummary } from '../core/errors';
import { explain } from '../endpoint/preflight';
import { makeS3Client, PREFLIGHT_BOUNDS_MS } from '../endpoint/s3-client';
import type { StoreTarget } from '../core/target';
import { targetFor } from '../endpoint/target';
import { FLEET_BARRIER } from '../core/barrier';
import { fleetClock } from '../core/clock';
import { expandSteps } from '../core/matrix';
import { fleetRunners } from '../core/shards';
import { fleetDataPrefix, INTERVALS_FOLDER, runDay } from '../core/vocabulary';
import { S3Markers } from '../endpoint/s3-markers';
import { matrixFor } from '../catalog';
import { fleetWaitMs } from './fleet-wait';
import type { FleetRun, RunOutcome } from './options';
import type { FleetMember } from './step';
import { runBenchmark } from '.';
import { TaskCallback } from './task-callback';

export interface ShardOptions {
  matrixFile: string;
  /** The step numbers this runner runs, in run order: its shard of the execution. */
  steps: number[];
  runId: string;
  runnerId?: string;
  /** s3://BUCKET/PREFIX where the records go (PREFIX/dt=DAY/*.jsonl, PREFIX/_runs/*.json). */
  results: string;
  bucket: string;
  region?: string;
  endpoint?: string;
  quiet?: boolean;
  signal?: AbortSignal;
  /** Every step's time budget in seconds, over the matrix's budget_s. */
  stepBudgetS?: number;
  /** This runner's client number in a fleet execution (1-based; layout "fleet"), and where the fleet's barrier markers go (s3://BUCKET/PREFIX; the run id is added). */
  fleet?: { client: number; barrier: string };
}

export interface ShardOutcome {
  run: RunOutcome;
  /** s3:// URLs of the uploaded record files and manifest. */
  uploaded: string[];
  records: number;
}

function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/.*)?$/.exec(url);
  if (!m) throw new UserError(`--results "${url}" is not s3://BUCKET/PREFIX with a valid bucket name`, 'write it as s3://BUCKET/PREFIX, BUCKET 3–63 lower-case letters, digits, dots and hyphens');
  const prefix = (m[2] ?? '/').replace(/^\/+/, '');
  return { bucket: m[1], prefix: prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix };
}

/** The records' destination is checked first: steps must not run only to lose their records. */
async function checkResultsLocation(opts: ShardOptions, resultsTarget: StoreTarget, results: { bucket: string; prefix: string }): Promise<void> {
  const checker = makeS3Client(resultsTarget, { maxSockets: 2, bounds: PREFLIGHT_BOUNDS_MS, maxAttempts: 2 });
  try {
    await checker.send(new ListObjectsV2Command({ Bucket: results.bucket, Prefix: results.prefix, MaxKeys: 1 }));
  } catch (err) {
    const e = explain(err, resultsTarget, opts.endpoint ?? `AWS S3 (${resultsTarget.region})`);
    throw new UserError(`the results location ${opts.results} cannot be reached before the steps: ${e.problem}`, e.fix);
  } finally {
    checker.destroy();
  }
}

/**
 * This runner's steps of a matrix, as the state machine runs them on each runner through SSM: one
 * process prepares once (validation, preflight, link, fixtures) and runs the steps in order — the
 * same code as `s3ab run`, restricted to these steps and to this runner's own prefix. Each step's
 * records are uploaded to the results location as soon as the step ends, the run manifest at the
 * end — all before the command reports success. A failed step is uploaded too (its records
 * flagged), and the command exits non-zero.
 */
export async function runShard(opts: ShardOptions): Promise<ShardOutcome> {
  const results = parseS3Url(opts.results);
  const resultsTarget = targetFor({ endpoint: opts.endpoint, bucket: results.bucket, region: opts.region });
  await checkResultsLocation(opts, resultsTarget, results);
  const fleet = opts.fleet ? await fleetRun(opts, opts.fleet, targetFor({ endpoint: opts.endpoint, bucket: parseS3Url(opts.fleet.barrier).bucket, region: opts.region })) : undefined;
  const scratch = await mkdtemp(join(tmpdir(), 's3ab-step-results-'));
  const client: S3Client = makeS3Client(resultsTarget, { maxSockets: 4 });
  const uploaded: string[] = [];
  let records = 0;
  const day = runDay(opts.runId);
  const upload = async (file: string, key: string, contentType: string) => {
    const body = await readFile(file);
    try {
      await client.send(new PutObjectCommand({ Bucket: results.bucket, Key: key, Body: body, ContentType: contentType }));
    } catch (err) {
      throw new UserError(`${basename(file)} could not be uploaded to ${opts.results}: ${errorSummary(err)}`,
        'check that this runner may s3:PutObject there (the stack grants results/*) and that the bucket exists');
    }
    uploaded.push(`s3://${results.bucket}/${key}`);
    return body;
  };
  try {
    const run = await runBenchmark({
      matrixFile: opts.matrixFile, onlySteps: opts.steps, runId: opts.runId, runnerId: opts.runnerId, stepBudgetS: opts.stepBudgetS,
      resultsDir: scratch, bucket: opts.bucket, endpoint: opts.endpoint, region: opts.region, awsTarget: !opts.endpoint,
      quiet: opts.quiet, signal: opts.signal, fleet: fleet?.run,
      // The interval series: their own table's location, results/intervals/dt=DAY/ (lib/results-catalog.ts).
      onIntervalsFile: async (file) => {
        await upload(file, `${results.prefix}${INTERVALS_FOLDER}/dt=${day}/${basename(file)}`, 'application/x-ndjson');
      },
      onStepFile: async (file) => {
        const body = await upload(file, `${results.prefix}dt=${day}/${basename(file)}`, 'application/x-ndjson');
        records += body.toString('utf8').trim().split('\n').filter(Boolean).length;
      },
    });
    await upload(run.manifestFile, `${results.prefix}_runs/${basename(run.manifestFile)}`, 'application/json');
    return { run, uploaded, records };
  } finally {
    client.destroy();
    fleet?.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * This runner's place in a fleet execution: its barrier (markers under the barrier location's
 * RUNID/), its clock (refused beyond CLOCK_BOUND_MS when the fleet has more than one client), the
 * fleet's size (its matrix's largest `clients`) and shared data prefix.
 */
async function fleetRun(opts: ShardOptions, f: NonNullable<ShardOptions['fleet']>, target: ReturnType<typeof targetFor>): Promise<{ run: FleetRun; close: () => void }> {
  const matrix = matrixFor({ matrixFile: opts.matrixFile });
  const size = fleetRunners(matrix.clients.map((clients) => ({ clients })));
  if (!Number.isInteger(f.client) || f.client < 1 || f.client > size) {
    throw new UserError(`--fleet-client ${f.client} is not a client of this matrix's fleet (clients ${matrix.clients.join(', ')}: 1 to ${size})`, 'the pipeline passes runner index + 1 (ValidateInput\'s shards[i].fleetClient); give 1 to the number of runners');
  }
  const clock = size > 1 ? await fleetClock() : { offsetMs: null, source: 'one host' as const };
  const where = parseS3Url(f.barrier);
  const client = makeS3Client(target, { maxSockets: 2 });
  const member: FleetMember = {
    client: f.client, barrier: 's3', markers: new S3Markers(client, where.bucket, `${where.prefix}${opts.runId}/`),
    clockOffsetMs: clock.offsetMs, clockSource: clock.source, ...FLEET_BARRIER.s3,
    // Client k also waits, at its barriers, for the steps client 1 runs without it.
    timeoutMs: fleetWaitMs(expandSteps(matrix), f.client, opts.stepBudgetS ?? matrix.budgetS, FLEET_BARRIER.s3.timeoutMs),
  };
  return { run: { member, size, sharedPrefix: fleetDataPrefix(opts.runId) }, close: () => client.destroy() };
}

/** How `s3ab step` ends the Step Functions task of its command (the run-step document passes these). */
export interface ShardCallback {
  token: string;
  heartbeatSeconds: number;
  /** Written once the task was ended, so the command's exit trap does not report again. */
  reportedFile?: string;
  /** Written with the success's output before it is sent, so the exit trap can send it if the runner could not. */
  successFile?: string;
}

/**
 * runShard, ending the command's Step Functions task by callback: heartbeats while the steps run,
 * then SendTaskSuccess with the shard's figures when every step completed, or SendTaskFailure —
 * StepsFailed (a step failed; its records are uploaded, flagged), Interrupted, or RunnerError (the
 * shard could not run: the problem and its fix). A complete shard's success is sent with its own
 * retries and is never followed by a failure: when it cannot be sent at all, the command exits
 * non-zero and its exit trap sends the success file's success. When Step Functions says the task is over (its
 * execution ended or timed out), the run is aborted: nobody waits for its results any more.
 */
export async function runShardWithCallback(opts: ShardOptions, callback: ShardCallback, log: (line: string) => void): Promise<ShardOutcome> {
  const abort = new AbortController();
  opts.signal?.addEventListener('abort', () => abort.abort(opts.signal!.reason), { once: true });
  const task = new TaskCallback({
    ...callback, region: opts.region, log,
    onTaskGone: (reason) => { log(`s3ab step: ${reason}; stopping`); abort.abort(new Error(reason)); },
  });
  task.start();
  const who = `runner ${opts.runnerId ?? 'unnamed'}, steps ${opts.steps.join(',')}`;
  try {
    const outcome = await runShard({ ...opts, signal: abort.signal });
    const m = outcome.run.manifest;
    if (m.status === 'complete') {
      await task.succeed({ runner: opts.runnerId ?? null, status: m.status, stepsDone: m.steps_done, stepsTotal: m.steps_total, records: outcome.records, heartbeats: task.heartbeats });
    } else {
      await task.fail(m.status === 'interrupted' ? 'Interrupted' : 'StepsFailed', `${who}: ${m.status} (${m.steps_done} of ${m.steps_total} done, ${m.steps_failed} failed): ${m.problem ?? 'no reason recorded'}`);
    }
    return outcome;
  } catch (err) {
    const what = err instanceof UserError ? `${err.problem} — ${err.fix}` : errorSummary(err, 4000);
    await task.fail('RunnerError', `${who}: ${what}`).catch((e) => log(`s3ab step: could not report the failure to Step Functions (the command's exit trap will): ${errorSummary(e)}`));
    throw err;
  } finally {
    task.destroy();
  }
}
