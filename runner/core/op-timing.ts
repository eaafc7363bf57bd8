import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Time inside a timed operation that is not the method's: a client process that measures its own
 * requests (s3-crt) reports the protocol round trip around them (pipe, JSON), and Batch.op takes it
 * out of the operation's latency. Work the workload does inside the operation (a digest) stays in.
 */
const excluded = new AsyncLocalStorage<{ ns: bigint }>();

/** Runs `fn` and returns what it reported through excludeFromTiming(). */
export async function withExcludedTime<T>(fn: () => Promise<T>): Promise<{ value: T; excludedNs: bigint }> {
  const cell = { ns: 0n };
  const value = await excluded.run(cell, fn);
  return { value, excludedNs: cell.ns };
}

/** Called by a session, in the operation's async context, with time that is not the client's. */
export function excludeFromTiming(ns: bigint): void {
  const cell = excluded.getStore();
  if (cell && ns > 0n) cell.ns += ns;
}
