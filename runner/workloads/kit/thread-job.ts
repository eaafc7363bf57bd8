/** Control words shared with every thread of one call: [0] go, [1] abort. */
export const CONTROL_GO = 0;
export const CONTROL_ABORT = 1;

/** What a measuring thread's job sees of its surroundings (see runner/workloads/kit/fs-thread.ts). */
export interface ThreadContext {
  /** True once the run was aborted: stop at the next operation. */
  aborted(): boolean;
  /** A short note for the progress display. */
  progress(note: string): void;
  /** `n` units of the measured work are done (the step's budget meter counts them; core/meter.ts). */
  done(n?: number): void;
  /** Counts bytes and completed operations for the progress line's current rate (runner/core/intervals.ts liveTotals). */
  count(bytes: number, ops: number): void;
}

/**
 * A job run inside a measuring thread: `prepare` (untimed setup, before the common start signal)
 * and `run` (the measured part). Both are synchronous: the thread makes plain system calls.
 */
export interface ThreadJobHandler<J, S, R> {
  prepare(job: J, ctx: ThreadContext): S;
  /** Returns the result and the ArrayBuffers to move (not copy) to the main thread. */
  run(state: S, ctx: ThreadContext): { result: R; transfer?: ArrayBuffer[] };
}

/** Nanoseconds on the process-wide monotonic clock (the same in every thread). */
export function nowNs(): number {
  return Number(process.hrtime.bigint());
}

/**
 * An errno-style failure of one operation, kept short for the record: paths under `base` (the
 * test's directory, deep in a mount point) are written relative to it.
 */
export function describeFailure(err: unknown, base?: string): { code: string; message: string } {
  const e = err as NodeJS.ErrnoException;
  const code = e?.code ?? 'ERROR';
  let message = (e?.message ?? String(err)).split('\n')[0];
  if (base) message = message.split(`${base}/`).join('').split(base).join('.');
  return { code, message: message.length > 300 ? `${message.slice(0, 299)}…` : message };
}
