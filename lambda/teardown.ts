import { EC2Client } from '@aws-sdk/client-ec2';
import { GetExecutionHistoryCommand, SFNClient } from '@aws-sdk/client-sfn';
import { DeleteObjectsCommand, ListObjectsV2Command, ListObjectVersionsCommand, S3Client, type ObjectIdentifier } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { DOCS_PREFIX } from '../lib/document-prefixes';
import { runIdOfHistory, STATUS_CHANGE, type ExitedEvent } from '../lib/execution-run';
import { RESULTS_LAYOUT } from '../lib/results-layout';
import { logger, NamedError } from './shared/powertools';
import { findInstances, runnerFilters, terminateInstances } from './shared/runners';
import { env, s3Client } from './shared/s3';
import { isRunId, runDataPrefix, runVolumePrefix } from '../runner/core/vocabulary';

const ec2 = new EC2Client({ maxAttempts: 5 });
const s3 = s3Client();
const sfn = new SFNClient({ maxAttempts: 5 });

/** DeleteObjects takes at most 1,000 keys; ListObjectVersions answers at most 1,000 entries a page. */
export const MAX_KEYS_PER_REQUEST = 1000;
/** DeleteObjects requests in flight at once while the listing goes on. */
export const DELETE_CONCURRENCY = 8;
/** No new request starts later than this before the function's deadline: what is in flight has that long to finish. */
export const STOP_BEFORE_DEADLINE_MS = 5000;
/**
 * A round starts requests for at most this share of the time the invocation has: a round takes
 * about a third of the function's timeout, which leaves the rest as margin for S3 answering
 * slowly (a state's longest run stays within a third of its timeout, as every state's should).
 */
export const ROUND_SHARE_OF_TIMEOUT = 1 / 3;
/** Requests still in flight this long before the deadline are aborted, so the invocation returns instead of timing out. */
export const ABORT_BEFORE_DEADLINE_MS = 1500;
/** Per-key DeleteObjects errors that a later attempt can get past: the key is left for the next pass, not a failure. */
const TRANSIENT_KEY_ERRORS = new Set(['SlowDown', 'InternalError', 'ServiceUnavailable', 'RequestTimeout']);

export interface TeardownEvent { runId?: string }
/** What EventBridge delivers when an execution of the pipeline failed, timed out or was stopped (the rule in lib/teardown-on-failure.ts). */
export interface ExecutionEndedEvent { 'detail-type': string; detail: { executionArn: string; status: string } }
/** History pages read at most to find the run id: ValidateInput exits within the first ten events. */
const HISTORY_PAGES = 3;
export interface TeardownResult {
  /** true once no version is left under any of the run's prefixes; false when the time budget ran out first (invoke again). */
  done: boolean;
  terminated: string[];
  /** Versions and delete markers deleted by this invocation. */
  deletedVersions: number;
  prefixes: string[];
  /** When not done: the s3:// prefixes not yet emptied, one line (the state machine quotes it). */
  left: string;
}
export interface TeardownOptions {
  ec2?: EC2Client;
  s3?: S3Client;
  /** Without a Lambda context (tests, scripts): how long new requests may be started, in ms. @default no limit */
  budgetMs?: number;
  /** @default DELETE_CONCURRENCY */
  concurrency?: number;
  /** Entries per listed page and so keys per DeleteObjects. @default MAX_KEYS_PER_REQUEST */
  pageSize?: number;
  sfn?: SFNClient;
}

/** When to stop starting requests and when to abort those in flight (epoch ms). */
export interface Deadline { stopAt: number; abort: AbortSignal }
export interface DeletionOutcome { deleted: number; empty: boolean }

/**
 * Deletes every version and delete marker under `prefix` (the data bucket is versioned): lists page
 * after page (KeyMarker/VersionIdMarker) while up to `concurrency` DeleteObjects of a page each are
 * in flight; a pass that ends is followed by a listing from the start, and the prefix is empty when
 * that finds nothing (a write that raced the pass, a key S3 asked to retry, is caught so). Stops
 * starting requests at `deadline.stopAt` (no limit without one) — except that the first page of an invocation always
 * goes, so every round makes progress — waits for what is in flight and reports `empty: false`.
 * Requests aborted at the deadline (`deadline.abort`) end it the same way; per-key errors other
 * than transient ones throw, once what is in flight has settled.
 */
export async function deleteAllVersions(client: S3Client, bucket: string, prefix: string,
  opts: { deadline?: Deadline; concurrency?: number; pageSize?: number; mustProgress?: boolean } = {}): Promise<DeletionOutcome> {
  const deadline = opts.deadline ?? { stopAt: Infinity, abort: new AbortController().signal };
  const concurrency = opts.concurrency ?? DELETE_CONCURRENCY;
  const pageSize = Math.min(opts.pageSize ?? MAX_KEYS_PER_REQUEST, MAX_KEYS_PER_REQUEST);
  const send = { abortSignal: deadline.abort };
  let deleted = 0;
  let started = 0;
  let failure: unknown;
  const inFlight = new Set<Promise<void>>();
  const deleteBatch = (objects: ObjectIdentifier[]) => {
    started++;
    const p: Promise<void> = client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }), send).then((res) => {
      const errors = res.Errors ?? [];
      const lasting = errors.find((e) => !TRANSIENT_KEY_ERRORS.has(e.Code ?? ''));
      if (lasting) failure ??= new Error(`could not delete ${lasting.Key}: ${lasting.Code}: ${lasting.Message}`);
      deleted += objects.length - errors.length;
    }, (err) => { failure ??= err; }).finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const settle = async () => {
    await Promise.all(inFlight);
    if (failure) throw failure;
  };
  // An invocation that must progress may start its first batch past the deadline (see above).
  const outOfTime = () => Date.now() >= deadline.stopAt && (started > 0 || !opts.mustProgress);
  try {
    for (;;) {
      let listedAny = false;
      let KeyMarker: string | undefined;
      let VersionIdMarker: string | undefined;
      for (;;) {
        if (failure || outOfTime()) {
          await settle();
          return { deleted, empty: false };
        }
        const page = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: prefix, MaxKeys: pageSize, KeyMarker, VersionIdMarker }), send);
        // versitygw starts a page with the marker's own entry again (S3 does not): it was deleted already.
        const objects = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].map((v) => ({ Key: v.Key!, VersionId: v.VersionId }))
          .filter((o) => !(KeyMarker !== undefined && o.Key === KeyMarker && o.VersionId === VersionIdMarker));
        for (let i = 0; i < objects.length; i += MAX_KEYS_PER_REQUEST) {
          while (inFlight.size >= concurrency) await Promise.race(inFlight);
          deleteBatch(objects.slice(i, i + MAX_KEYS_PER_REQUEST));
          listedAny = true;
        }
        if (!page.IsTruncated) break;
        KeyMarker = page.NextKeyMarker;
        VersionIdMarker = page.NextVersionIdMarker;
      }
      await settle();
      if (!listedAny) return { deleted, empty: true };
    }
  } catch (err) {
    await Promise.all(inFlight);
    // Aborted at the deadline: what is left waits for the next round.
    if (deadline.abort.aborted) return { deleted, empty: false };
    throw err;
  }
}

/** Deletes the (few) start-barrier markers or task tokens under `prefix` of the results bucket; returns how many. */
async function deleteBarrierMarkers(client: S3Client, bucket: string, prefix: string): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (!keys.length) return deleted;
    const res = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
    if (res.Errors?.length) throw new Error(`${res.Errors[0].Key}: ${res.Errors[0].Code} ${res.Errors[0].Message}`);
    deleted += keys.length;
  }
}

/**
 * Teardown, one round: terminates every runner tagged with this run (found by tag, so runners whose
 * ids were lost with a failed state are found too) and deletes the benchmark data the run wrote —
 * every version — under s3ab/RUNID/, docs/RUNID/ and the S3 Files access point's RUNID/ (and a
 * fleet's barrier markers, fleet-barrier/RUNID/, and unread task tokens, task-tokens/RUNID/, in the results bucket), until
 * its time budget ends: a third of the invocation's time (ROUND_SHARE_OF_TIMEOUT, from the Lambda
 * context; never later than STOP_BEFORE_DEADLINE_MS before the deadline) or `budgetMs`. Returns `done: false` with what is left when time ran out; the state
 * machine invokes it again (lib/pipeline/teardown-flow.ts). Each part is tried even when another
 * fails; then `TeardownIncomplete` names what is left and how to remove it.
 *
 * Runners are looked up and terminated in every round, not only the first: it is idempotent (only
 * live runners are found, so a later round usually finds none, for one DescribeInstances), and a
 * runner whose launch answered only after the first round started is still caught.
 *
 * Given EventBridge's event of an execution that ended FAILED, TIMED_OUT or ABORTED instead of a
 * run id, it finds the run in the execution's history and tears it down (afterExecutionEnded).
 */
export async function handler(event: TeardownEvent | ExecutionEndedEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>, opts: TeardownOptions = {}): Promise<TeardownResult> {
  if (event && 'detail' in event) return afterExecutionEnded(event, context, opts);
  return teardownRound(event?.runId, context, opts, ROUND_SHARE_OF_TIMEOUT);
}

/**
 * Teardown after an execution ended FAILED, TIMED_OUT or ABORTED (EventBridge): the endings the
 * state machine cannot catch skip its Teardown, and the others went through it already, so this
 * run is idempotent — runners found by tag, versions listed afresh. The run is the one its
 * history names (lib/execution-run.ts); none when the execution ended before ValidateInput made
 * one. Nothing waits for a state machine here: one round uses the invocation's time up to
 * STOP_BEFORE_DEADLINE_MS before its end. Not done then, it throws TeardownIncomplete: Lambda
 * retries an event invocation twice (a minute, then two, later), each continuing where the last
 * stopped; what is still left is named in the error with the fix.
 */
async function afterExecutionEnded(event: ExecutionEndedEvent, context: Pick<Context, 'getRemainingTimeInMillis'> | undefined, opts: TeardownOptions): Promise<TeardownResult> {
  const { executionArn, status } = event.detail ?? {};
  if (event['detail-type'] !== STATUS_CHANGE || !executionArn) throw new NamedError('InvalidEvent', `not a "${STATUS_CHANGE}" event with an executionArn: ${JSON.stringify(event).slice(0, 300)}`);
  const client = opts.sfn ?? sfn;
  const events: ExitedEvent[] = [];
  let runId: string | null = null;
  let nextToken: string | undefined;
  for (let page = 0; page < HISTORY_PAGES && !runId; page++) {
    const res = await client.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 20, includeExecutionData: true, nextToken }));
    events.push(...(res.events ?? []));
    runId = runIdOfHistory(events);
    nextToken = res.nextToken;
    if (!nextToken) break;
  }
  logger.info('execution ended', { executionArn, status, runId });
  const result = await teardownRound(runId ?? undefined, context, opts, 1);
  if (!result.done) {
    throw new NamedError('TeardownIncomplete', `execution ${executionArn} ended ${status}; its run ${runId}'s versions are left under ${result.left} after deleting ${result.deletedVersions}: `
      + `Lambda retries this event; after that, invoke this function with {"runId":"${runId}"} until it answers done: true`);
  }
  return result;
}

async function teardownRound(runId: string | undefined, context: Pick<Context, 'getRemainingTimeInMillis'> | undefined, opts: TeardownOptions, share: number): Promise<TeardownResult> {
  const clients = { ec2: opts.ec2 ?? ec2, s3: opts.s3 ?? s3 };
  if (!runId) return { done: true, terminated: [], deletedVersions: 0, prefixes: [], left: '' };
  if (!isRunId(runId)) throw new NamedError('InvalidEvent', `runId "${runId}" is not a run id`);
  const [stack, bucket] = [env('STACK_NAME'), env('DATA_BUCKET')];
  // The run's objects, its JuiceFS volumes (s3ab-runid-…), its documents and its S3 Files access point folder.
  const prefixes = [runDataPrefix(runId), runVolumePrefix(runId), `${DOCS_PREFIX}${runId}/`, `${env('ACCESS_POINT_PREFIX')}${runId}/`];
  const now = Date.now();
  const fromContext = context?.getRemainingTimeInMillis ? context.getRemainingTimeInMillis() : undefined;
  const remaining = fromContext ?? (opts.budgetMs === undefined ? Infinity : opts.budgetMs + STOP_BEFORE_DEADLINE_MS);
  // Under Lambda a round takes a share of the invocation's time; a caller's budgetMs is taken as given.
  const startRequestsFor = fromContext !== undefined ? Math.min(fromContext * share, fromContext - STOP_BEFORE_DEADLINE_MS) : remaining - STOP_BEFORE_DEADLINE_MS;
  const abort = new AbortController();
  const deadline: Deadline = { stopAt: now + startRequestsFor, abort: abort.signal };
  const problems: string[] = [];
  const why = (err: unknown) => `${(err as Error).name}: ${(err as Error).message}`;
  let ids: string[] = [];
  try {
    ids = (await findInstances(clients.ec2, { filters: runnerFilters(stack, runId) })).map((i) => i.InstanceId!);
    await terminateInstances(clients.ec2, ids);
  } catch (err) {
    problems.push(`runners of run ${runId} not terminated (${why(err)}); the janitor terminates them after their maximum lifetime`);
  }
  let deletedVersions = 0;
  const notEmptied: string[] = [];
  const abortTimer = Number.isFinite(remaining) ? setTimeout(() => abort.abort(), Math.max(0, now + remaining - ABORT_BEFORE_DEADLINE_MS - Date.now())) : undefined;
  try {
    for (const p of prefixes) {
      try {
        const outcome = await deleteAllVersions(clients.s3, bucket, p, { deadline, concurrency: opts.concurrency, pageSize: opts.pageSize, mustProgress: deletedVersions === 0 });
        deletedVersions += outcome.deleted;
        if (!outcome.empty) notEmptied.push(`s3://${bucket}/${p}`);
      } catch (err) {
        notEmptied.push(`s3://${bucket}/${p}`);
        problems.push(`s3://${bucket}/${p} not emptied (${why(err)}); delete its versions with \`aws s3api list-object-versions\` / \`delete-objects\``);
      }
    }
  } finally {
    clearTimeout(abortTimer);
  }
  // In the results bucket (not versioned): a fleet's barrier markers a runner that failed could not
  // remove, and callback tokens a runner never read (it died before its command started).
  for (const prefix of [`${RESULTS_LAYOUT.fleetBarrier}${runId}/`, `${RESULTS_LAYOUT.taskTokens}${runId}/`]) {
    try {
      await deleteBarrierMarkers(clients.s3, env('RESULTS_BUCKET'), prefix);
    } catch (err) {
      notEmptied.push(`s3://${env('RESULTS_BUCKET')}/${prefix}`);
      problems.push(`s3://${env('RESULTS_BUCKET')}/${prefix} not emptied (${why(err)}); delete it with \`aws s3 rm --recursive\``);
    }
  }
  const done = notEmptied.length === 0;
  logger.info('teardown', { runId, terminated: ids, deletedVersions, done, notEmptied, problems });
  if (problems.length) throw new NamedError('TeardownIncomplete', problems.join('; '));
  return { done, terminated: ids, deletedVersions, prefixes, left: notEmptied.join(' ') };
}
