import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { errorSummary } from '../../core/errors';
import { openMeter, type WorkUnit } from '../../core/meter';
import type { CacheState } from '../../core/vocabulary';
import { passThreadsGate } from '../../core/barrier';
import { sharedLiveCounter } from '../../core/intervals';
import { CONTROL_ABORT, CONTROL_GO } from './thread-job';

/**
 * File-system measurements run in worker threads, never on the runner's event loop:
 * - each thread makes plain synchronous system calls (openSync, readSync, ...) timed with
 *   hrtime around the call, so a measured operation carries about a microsecond of overhead
 *   (Node's async fs would add a hop through libuv's 4-thread pool, tens of microseconds, and
 *   would serialize more than four parallel readers);
 * - parallel readers are separate OS threads released together by a barrier, so the runner does
 *   not serialize them;
 * - the event loop stays free for progress, Ctrl-C and noticing a dead server.
 *
 * Thread jobs are registered in runner/workloads/kit/fs-thread.ts (the worker's entry point).
 */
export interface ThreadJob {
  /** Name of the job handler in runner/workloads/kit/fs-thread.ts; the other fields are the handler's. */
  kind: string;
}


export interface ThreadRunOptions {
  signal: AbortSignal;
  /** Called with each thread's progress messages (counts of operations done, phases). */
  onProgress?: (thread: number, note: string) => void;
  /** Called with each thread's moments on the process-wide clock (ns), in job order. */
  onSpans?: (spans: ThreadSpan[]) => void;
  /**
   * The measurement the threads make together and the work it plans (the threads count what they
   * do with ctx.done()): when the step's budget runs out first, it is recorded as did-not-finish.
   */
  meter?: { operation: string; objectSizeBytes: number | null; planned: number; unit: WorkUnit; cache?: CacheState };
}

/** When a thread was prepared and waiting, was released, and finished (process-wide clock, ns). */
export interface ThreadSpan {
  readyNs: number;
  startedNs: number;
  endedNs: number;
}

type FromThread =
  | { type: 'ready' }
  | { type: 'progress'; note: string }
  | { type: 'done'; result: unknown; span: ThreadSpan }
  | { type: 'error'; message: string };

let compiledScript: string | null = null;

/**
 * The worker's script. In the bundle it is dist/fs-thread.js next to dist/s3ab.js (built by
 * scripts/build.mjs); from TypeScript sources (tests, tsx scripts) it is bundled on first use with
 * esbuild into a temporary file, once per process.
 */
function threadScript(): string {
  const bundled = join(__dirname, 'fs-thread.js');
  if (__filename.endsWith('.js')) {
    if (existsSync(bundled)) return bundled;
    throw new Error(`the measuring threads' script ${bundled} is missing next to the bundle: rebuild with \`npm run build\` and ship dist/fs-thread.js with dist/s3ab.js`);
  }
  if (compiledScript && existsSync(compiledScript)) return compiledScript;
  // The entry registers the workloads' thread jobs (fs-thread.ts, beside this file); named by path,
  // not imported: it is the worker's code, never run in this thread.
  const entry = join(__dirname, 'fs-thread.ts');
  // Loaded only here, so the bundle does not depend on esbuild.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  const built = esbuild.buildSync({ entryPoints: [entry], write: false, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' });
  const code = built.outputFiles[0].contents;
  // Named by content: every process of the same sources shares one file, and nothing piles up.
  const dir = join(tmpdir(), 's3ab-fs-thread');
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `fs-thread-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`);
  if (!existsSync(out)) {
    const partial = `${out}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, out);
  }
  compiledScript = out;
  return out;
}

/** A promise that rejects when `signal` aborts; `release` stops listening. */
function rejectOnAbort(signal: AbortSignal): { aborted: Promise<never>; release: () => void } {
  let onAbortWait: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbortWait = () => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) onAbortWait();
    else signal.addEventListener('abort', onAbortWait, { once: true });
  });
  aborted.catch(() => {});
  return { aborted, release: () => signal.removeEventListener('abort', onAbortWait) };
}

interface ThreadEvents {
  onReady(): void;
  onProgress(note: string): void;
  onDone(result: unknown, span: ThreadSpan): void;
}

/** Settles when thread `index` reports its result (resolve) or fails, crashes or exits early (reject). */
function threadFinished(worker: Worker, index: number, job: ThreadJob, events: ThreadEvents): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve();
    };
    worker.on('message', (msg: FromThread) => {
      switch (msg.type) {
        case 'ready':
          events.onReady();
          break;
        case 'progress':
          events.onProgress(msg.note);
          break;
        case 'done':
          events.onDone(msg.result, msg.span);
          settle();
          break;
        case 'error':
          settle(new Error(msg.message));
          break;
      }
    });
    worker.on('error', (err) => settle(new Error(`thread ${index} (${job.kind}) crashed: ${errorSummary(err)}`)));
    worker.on('exit', (code) => settle(code === 0 ? undefined : new Error(`thread ${index} (${job.kind}) exited with code ${code}`)));
  });
}

/**
 * Runs one job per thread, all threads released at the same instant once every one is ready.
 * Resolves with each job's result in order; rejects with the first thread's error. On abort the
 * threads are told to stop at their next operation and terminated.
 */
export async function runThreads<R>(jobs: ThreadJob[], opts: ThreadRunOptions): Promise<R[]> {
  if (!jobs.length) return [];
  const control = new Int32Array(new SharedArrayBuffer(8));
  // Work done per thread, counted by the threads, read by the step's meter.
  const counters = new Int32Array(new SharedArrayBuffer(4 * jobs.length));
  const meter = opts.meter && openMeter(opts.meter.operation, opts.meter.objectSizeBytes, opts.meter.planned, opts.meter.unit, () => counters.reduce((a, b) => a + b, 0), opts.meter.cache);
  // What the threads have moved so far, for the progress line's rate.
  const live = sharedLiveCounter();
  const script = threadScript();
  // `execArgv: []`: the script is a self-contained bundle, so the threads do not inherit the
  // parent's loaders (tsx in scripts and tests): 16 threads each loading a TypeScript loader left
  // work on V8's shared background threads that ran during the measurement (16 readers on tmpfs:
  // 4.8 GB/s with the loader, 6.3 GB/s without).
  const workers = jobs.map((job, index) => new Worker(script, { execArgv: [], workerData: { job, control, counters, index, live: live.counter } }));
  const results: R[] = new Array(jobs.length);
  const spans: ThreadSpan[] = new Array(jobs.length);
  const onAbort = () => stopThreads(control);
  opts.signal.addEventListener('abort', onAbort, { once: true });
  if (opts.signal.aborted) onAbort();
  // A thread blocked in a system call on a hung mount never answers: on abort, stop waiting for it
  // (the mount's teardown unblocks it later).
  const abortWait = rejectOnAbort(opts.signal);
  let gateFailure: unknown = null;
  const onReady = releaseWhenAllReady(workers.length, () => releaseThreads(control), (err) => {
    gateFailure = err;
    onAbort();
  });
  try {
    await Promise.race([abortWait.aborted, Promise.all(workers.map((worker, i) => threadFinished(worker, i, jobs[i], {
      onReady,
      onProgress: (note) => opts.onProgress?.(i, note),
      onDone: (result, span) => {
        results[i] = result as R;
        spans[i] = span;
      },
    })))]);
    if (opts.signal.aborted) throw opts.signal.reason ?? new Error('aborted');
    if (gateFailure) throw gateFailure;
    opts.onSpans?.(spans);
    // The workload records the measurement from these results.
    meter?.end();
    return results;
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
    abortWait.release();
    onAbort();
    live.release();
    await terminateSoon(workers);
  }
}

/** Tells the threads to stop at their next operation, releasing any still waiting to start. */
function stopThreads(control: Int32Array): void {
  Atomics.store(control, CONTROL_ABORT, 1);
  releaseThreads(control);
}

function releaseThreads(control: Int32Array): void {
  Atomics.store(control, CONTROL_GO, 1);
  Atomics.notify(control, CONTROL_GO);
}

/**
 * A thread's "ready": once all `count` are, releases them — in a fleet step after every client's
 * threads are ready too (core/barrier.ts threadsGate); a gate that fails goes to `onGateFailure`.
 */
function releaseWhenAllReady(count: number, release: () => void, onGateFailure: (err: unknown) => void): () => void {
  let ready = 0;
  return () => {
    if (++ready !== count) return;
    const gate = passThreadsGate();
    if (!gate) return release();
    gate.then(release, onGateFailure);
  };
}

/** Terminating a thread waits for its current system call; do not wait long for a blocked one. */
async function terminateSoon(workers: Worker[]): Promise<void> {
  const terminated = Promise.all(workers.map((w) => w.terminate().catch(() => 0)));
  await Promise.race([terminated, new Promise((r) => setTimeout(r, 2000).unref())]);
}

/** Runs a single job in one thread. */
export async function runThread<R>(job: ThreadJob, opts: ThreadRunOptions): Promise<R> {
  const [result] = await runThreads<R>([job], opts);
  return result;
}
