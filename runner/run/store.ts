import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { onCleanup } from '../core/cleanup';
import { errorSummary } from '../core/errors';
import { processState } from '../core/process-state';
import type { StoreTarget } from '../core/target';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../endpoint/embedded';
import { AccessLog, RUNNER_USER_AGENT } from '../endpoint/access-log';
import { isUnreachable, preflight } from '../endpoint/preflight';
import { ReferenceStore } from '../endpoint/reference';
import { makeS3Client, PREFLIGHT_BOUNDS_MS } from '../endpoint/s3-client';
import { targetFor } from '../endpoint/target';
import type { ResultRecord } from '../core/record.generated';
import type { RunOptions } from './options';

/** The run id in a run's data prefix (s3ab/RUNID/...). */
const runIdOf = (prefix: string) => prefix.split('/')[1];

/** How long the embedded server may be stopped (SIGSTOP, a debugger) before the run ends. */
const SERVER_STALL_MS = 10_000;

/**
 * A named endpoint's liveness checks during the run: a HeadBucket (no key, so no step's request
 * count sees it) every interval, each bounded like the preflight; this many unanswered in a row end
 * the run. Every method is covered this way, including the clients whose own waits the runner cannot
 * bound (the CRT, the AWS CLI).
 */
const ENDPOINT_WATCH = { intervalMs: 10_000, misses: 3 } as const;

/** The endpoint went away mid-run; the run stops at once. */
class RunAborted extends Error {}

/** A named endpoint that went away or stopped answering: its objects are not waited on at the end. */
class EndpointGone extends RunAborted {
  constructor(message: string, readonly short: string) {
    super(message);
  }
}

/**
 * Checks a named endpoint every interval while the run lasts; `misses` unanswered checks in a row
 * (no reply within the preflight's bounds, or no connection) abort the run naming the endpoint.
 * An answer of any kind, an error status included, counts as alive.
 */
function watchEndpoint(checker: S3Client, target: StoreTarget, abort: AbortController, watch: { intervalMs: number; misses: number }): () => void {
  const where = target.endpointUrl ?? `AWS S3 (${target.region})`;
  let misses = 0;
  // Checks do not wait for each other, so the bound is misses × interval plus one check's own bound.
  const timer = setInterval(() => {
    if (abort.signal.aborted) return;
    checker.send(new HeadBucketCommand({ Bucket: target.bucket }))
      .then(() => { misses = 0; })
      .catch((err: unknown) => {
        const status = (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
        if (status) { misses = 0; return; }
        misses++;
        if (misses >= watch.misses && !abort.signal.aborted) {
          abort.abort(new EndpointGone(
            `the endpoint ${where} stopped answering: ${misses} checks ${watch.intervalMs / 1000} s apart got no reply within ${PREFLIGHT_BOUNDS_MS.idle / 1000} s (last: ${errorSummary(err)})`,
            'the endpoint stopped answering'));
        }
      });
  }, watch.intervalMs);
  timer.unref();
  return () => { clearInterval(timer); checker.destroy(); };
}

/** The store a run measures, opened and checked: its target, the runner's own client and the reference view. */
export interface OpenStore {
  target: StoreTarget;
  client: S3Client;
  reference: ReferenceStore;
  embedded: EmbeddedEndpoint | null;
  /** The server's access log, where the runner can read it (the embedded server): each measurement's requests are counted from it. */
  accessLog: AccessLog | null;
  endpointFacts: ResultRecord['endpoint'];
  /**
   * Deletes the run's objects now (a named endpoint; the embedded server's folder goes with it).
   * Resolves with null, or — when they could not be removed — what is left and the command that removes it.
   */
  removeRunObjects(): Promise<string | null>;
  /** After a failed measurement on a named endpoint: aborts the run when the endpoint is gone. */
  checkStillThere(abort: AbortController): Promise<void>;
  close(): Promise<void>;
}

/** A server that stops answering (stopped, hung) or exits ends the run within a bound instead of hanging it. */
function abortWhenServerDies(server: EmbeddedEndpoint, abort: AbortController): void {
  let stoppedSince: number | null = null;
  const watch = setInterval(() => {
    const state = processState(server.pid);
    stoppedSince = state === 'T' ? stoppedSince ?? Date.now() : null;
    if (stoppedSince !== null && Date.now() - stoppedSince > SERVER_STALL_MS) {
      clearInterval(watch);
      abort.abort(new RunAborted(`the embedded S3 server (versitygw, pid ${server.pid}) stopped responding (the process is stopped) for ${SERVER_STALL_MS / 1000} s`));
    }
  }, 1_000);
  watch.unref();
  void server.exited.then(() => clearInterval(watch));
  void server.exited.then((r) => {
    if (r.stopping) return;
    const last = r.logTail.trim().split('\n').pop() ?? '';
    abort.abort(new RunAborted(`the embedded S3 server (versitygw) exited mid-run (code ${r.code}, signal ${r.signal})${last ? `: ${last}` : ''}`));
  });
}

/** The embedded server (started, its exit watched) or the named endpoint. */
async function startTarget(opts: RunOptions, abort: AbortController, log: (m: string) => void): Promise<{ embedded: EmbeddedEndpoint | null; target: StoreTarget }> {
  if (opts.endpoint || opts.awsTarget) return { embedded: null, target: targetFor({ endpoint: opts.endpoint, bucket: opts.bucket!, region: opts.region }) };
  log('starting the embedded S3 endpoint (versitygw)');
  const embedded = await startEmbeddedEndpoint(log);
  opts.onEndpoint?.(embedded);
  abortWhenServerDies(embedded, abort);
  return { embedded, target: embedded.target };
}

/** Deletes the run's objects from a named endpoint's bucket; null when done, else what may remain and the command that removes it. */
async function deleteRunObjects(reference: ReferenceStore, target: StoreTarget, prefix: string, volumePrefix: string, signal: AbortSignal): Promise<string | null> {
  const where = target.endpointUrl ? ` --endpoint ${target.endpointUrl}` : '';
  const leftover = (why: string) => `objects under ${prefix} and ${volumePrefix} may remain in bucket ${target.bucket} (${why}): remove them with \`s3ab clean --run ${runIdOf(prefix)}${where} --bucket ${target.bucket} --region ${target.region}\``;
  // An endpoint that stopped answering would hold the deletes for minutes; name what is left instead.
  const reason = signal.reason;
  if (reason instanceof EndpointGone) return leftover(reason.short);
  try {
    await reference.deletePrefix(prefix);
    await reference.deletePrefix(volumePrefix);
    return null;
  } catch (err) {
    return leftover(errorSummary(err));
  }
}

/**
 * Opens the store: the embedded server (started, its exit watched) or the named endpoint, then the
 * preflight (endpoint, credentials, bucket) before anything is written. Registers the removal of
 * the run's objects as a cleanup step.
 */
export async function openStore(opts: RunOptions, prefix: string, volumePrefix: string, abort: AbortController, log: (m: string) => void): Promise<OpenStore> {
  const { embedded, target } = await startTarget(opts, abort, log);
  // The runner's own client (fixtures, checks, cleanup): its requests are left out of every count.
  const client = makeS3Client(target, { maxSockets: 32, userAgent: RUNNER_USER_AGENT });
  let stopWatch = () => {};
  const reference = new ReferenceStore(client, target.bucket);
  const close = async () => {
    stopWatch();
    client.destroy();
    if (embedded) await embedded.stop();
  };
  // The preflight's own client fails fast: a frozen endpoint is bad input, found before anything is created.
  const checker = makeS3Client(target, { maxSockets: 4, bounds: PREFLIGHT_BOUNDS_MS, maxAttempts: 1 });
  try {
    await preflight(checker, target, prefix);
  } catch (err) {
    checker.destroy();
    await close();
    throw err;
  }
  if (embedded) checker.destroy();
  else stopWatch = watchEndpoint(checker, target, abort, opts.endpointWatch ?? ENDPOINT_WATCH);
  const unregister = onCleanup('benchmark objects', async () => {
    if (!embedded) {
      await reference.deletePrefix(prefix);
      await reference.deletePrefix(volumePrefix);
    }
  });
  return {
    target, client, reference, embedded, accessLog: embedded ? new AccessLog(embedded.accessLog) : null,
    endpointFacts: { kind: target.kind, url: target.endpointUrl ?? null, server: target.server },
    async removeRunObjects() {
      unregister();
      return embedded ? null : deleteRunObjects(reference, target, prefix, volumePrefix, abort.signal);
    },
    async checkStillThere(ctrl) {
      if (embedded || ctrl.signal.aborted) return;
      try {
        await client.send(new HeadBucketCommand({ Bucket: target.bucket }));
      } catch (err) {
        if (isUnreachable(err)) ctrl.abort(new EndpointGone(`the endpoint ${target.endpointUrl} went away mid-run: ${errorSummary(err)}`, 'the endpoint went away'));
      }
    },
    close,
  };
}
