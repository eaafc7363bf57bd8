import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Time inside a measurement: the interval series. A measurement that lasts at least
 * MIN_SERIES_MS keeps, per interval, the bytes moved, the operations that completed, the errors
 * and the latency percentiles of those operations — so a peak against a sustained rate, a cache
 * turning warm, a write-back flush or a stall can be seen. The interval is `intervalMs` (1 s by
 * default) for a measurement of FINE_INTERVALS intervals or more; a shorter one is cut into finer
 * intervals (seriesWidthMs), so a read of a few hundred MiB still shows its course.
 *
 * Nothing is computed while the measurement runs, and the series is cut after it, untimed, from an
 * OpLog of the operations' completions (four numbers each in typed arrays, no allocation per
 * operation). The Batch path writes each completion into the OpLog as the measurement runs; the
 * metadata thread's and the readers' timed loops write none: they keep each operation's time (and
 * bytes or end) and outcome in arrays they fill with the series on or off alike, and build their
 * OpLog from them after the loop (runner/workloads/metadata.thread.ts, metadataOpLog;
 * runner/workloads/kit/read-files.thread.ts, readFilesOpLog) — a reader logs in its loop only the
 * progress entries of a file of PROGRESS_BYTES or more, one per PROGRESS_BYTES read. cutSeries bins
 * each entry by its `at` alone, so the order of entries matters to nothing but the order in which
 * an interval's floating-point sums are added (the builders keep the loop's order all the same).
 * `npm run bench:series` measures what the log costs a measurement: series on against off in
 * separate runs, and, as the verdict where the log is written while the measurement runs, what
 * logs against what does not within one run (two interleaved batches); for the metadata thread
 * and the readers, that their results with the series on and off differ by the log alone.
 */

/** The default width of an interval. */
export const DEFAULT_INTERVAL_MS = 1000;
/** Measurements shorter than this keep no series: timer and scheduling noise would be most of an interval. */
const MIN_SERIES_MS = 500;
/** A measurement shorter than this many configured intervals is cut into this many finer ones (at most). */
export const FINE_INTERVALS = 10;
/** The finest interval a short measurement is cut into. */
const MIN_INTERVAL_MS = 50;
/** A short measurement whose operations are too few for this many intervals keeps no series. */
const MIN_FINE_INTERVALS = 4;
/**
 * A series needs at least this many completions (or reported parts) per interval on average: a few
 * large operations that each land in one interval make a comb of peaks and zeros, not a rate over time.
 */
const MIN_EVENTS_PER_INTERVAL = 2;

/**
 * A long read reports its progress every this many bytes (read-files threads, reads through a
 * mount), so the read of one large file keeps a series of its course, not one entry at its end (a
 * comb the series rule refuses).
 */
export const PROGRESS_BYTES = 4 * 1024 * 1024;

/** One interval of a series. */
interface Interval {
  /** Start, in ms after the measurement's start. */
  offsetMs: number;
  /** Width in ms: the series' intervalMs, less for the last one. */
  durationMs: number;
  bytes: number;
  /** Operations that completed in the interval (successful ones). */
  ops: number;
  errors: number;
  /** Percentiles of the latencies of the operations that completed in it (µs); null when none did. */
  latencyUs: { p50: number; p95: number; p99: number; max: number } | null;
}

/**
 * The series of one measurement. `clock`: 'wall' for a measurement timed from start to finish;
 * 'active' for one timed as the sum of its operations (sequential batches: the checks between
 * operations are left out of the time, and so out of the series' time axis too).
 */
export interface IntervalSeries {
  /** The width of its intervals: the configured one, or finer for a short measurement (seriesWidthMs). */
  intervalMs: number;
  clock: 'wall' | 'active';
  intervals: Interval[];
}

/** Latency marking a progress event (bytes moved inside an operation still running), not an operation. */
const PROGRESS = -1;
/** Latency marking a failed operation. */
const FAILED = -2;

/**
 * The completions of one measurement's operations, in the order they happened: when (ns on the
 * measurement's clock), how long the operation took (ns), the bytes it moved, and over how long
 * before `at` they moved (ns: the operation's latency, a part's own transfer time; 0 for an
 * instant). Grows by doubling.
 */
export class OpLog {
  private at: Float64Array;
  private latency: Float64Array;
  private bytes: Float64Array;
  private spread: Float64Array;
  length = 0;

  /**
   * `capacity`: the entries expected (a thread's planned operations), allocated up front so the log
   * does not grow inside the timed loop (growing allocates off-heap memory, which can start a GC).
   */
  constructor(capacity = 1024) {
    const n = Math.max(16, Math.ceil(capacity));
    this.at = new Float64Array(n);
    this.latency = new Float64Array(n);
    this.bytes = new Float64Array(n);
    this.spread = new Float64Array(n);
  }

  /**
   * A successful operation ended at `atNs` after `latencyNs`, having moved `bytes` over that time
   * — or over the `spreadNs` before `atNs` when its earlier bytes were logged as progress.
   */
  ok(atNs: number, latencyNs: number, bytes: number, spreadNs = latencyNs): void {
    this.push(atNs, latencyNs, bytes, spreadNs);
  }

  /** An operation failed at `atNs` (bytes it moved before failing, if any, still count). */
  failed(atNs: number, bytes = 0): void {
    this.push(atNs, FAILED, bytes, 0);
  }

  /**
   * Bytes that moved until `atNs`, over the `overNs` before it, in an operation still running (a
   * large transfer's parts as they land, each over its own request's time).
   */
  progress(atNs: number, bytes: number, overNs = 0): void {
    if (bytes > 0) this.push(atNs, PROGRESS, bytes, overNs);
  }

  private push(atNs: number, latencyNs: number, bytes: number, spreadNs: number): void {
    if (this.length === this.at.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.at = grow(this.at);
      this.latency = grow(this.latency);
      this.bytes = grow(this.bytes);
      this.spread = grow(this.spread);
    }
    this.at[this.length] = atNs;
    this.latency[this.length] = latencyNs;
    this.bytes[this.length] = bytes;
    this.spread[this.length] = spreadNs;
    this.length++;
  }

  /** Entry i as [at ns, latency ns (negative: progress or failure), bytes, ns before `at` over which the bytes moved]. */
  entry(i: number): [number, number, number, number] {
    return [this.at[i], this.latency[i], this.bytes[i], this.spread[i]];
  }

  /** Several logs (threads of one measurement) as one, on the same clock. */
  static merge(logs: OpLog[]): OpLog {
    const out = new OpLog();
    for (const log of logs) for (let i = 0; i < log.length; i++) out.push(...log.entry(i));
    return out;
  }

  /** The log as plain arrays, to move from a worker thread (`fromArrays` on the other side). */
  toArrays(): OpLogArrays {
    const cut = (a: Float64Array) => a.slice(0, this.length);
    return { at: cut(this.at), latency: cut(this.latency), bytes: cut(this.bytes), spread: cut(this.spread) };
  }

  static fromArrays(a: OpLogArrays): OpLog {
    // Arrays moved from a thread arrive as new arrays of exactly their length.
    const log = new OpLog();
    log.at = a.at.length ? a.at : log.at;
    log.latency = a.latency.length ? a.latency : log.latency;
    log.bytes = a.bytes.length ? a.bytes : log.bytes;
    log.spread = a.spread.length ? a.spread : log.spread;
    log.length = a.at.length;
    return log;
  }
}

/** An OpLog as plain arrays (moved from a worker thread). */
export interface OpLogArrays {
  at: Float64Array;
  latency: Float64Array;
  bytes: Float64Array;
  spread: Float64Array;
}

/** The buffers of a log's arrays, to transfer (not copy) from a worker thread. */
export function opLogBuffers(a: OpLogArrays | null | undefined): ArrayBuffer[] {
  return a ? [a.at.buffer, a.latency.buffer, a.bytes.buffer, a.spread.buffer] as ArrayBuffer[] : [];
}

/**
 * Adds `bytes` that moved from `fromNs` to `toNs` (after the series' start) to the intervals they
 * overlap, in proportion to the overlap (as warp splits an operation over its segments): a part
 * that took 300 ms counts over those 300 ms, not as a spike where it landed.
 */
function spreadBytes(into: Float64Array, bytes: number, fromNs: number, toNs: number, widthNs: number): void {
  const last = into.length - 1;
  const clamp = (k: number) => Math.min(last, Math.max(0, k));
  const a = Math.max(0, fromNs);
  const b = Math.max(a, toNs);
  const first = clamp(Math.floor(a / widthNs));
  const end = clamp(Math.floor(b / widthNs));
  if (first === end || b === a) {
    into[end] += bytes;
    return;
  }
  for (let k = first; k <= end; k++) {
    const lo = k === first ? a : k * widthNs;
    const hi = k === end ? b : (k + 1) * widthNs;
    into[k] += (bytes * (hi - lo)) / (b - a);
  }
}

/** The value at percentile p (0–100) of ascending `sorted`: nearest rank, as HdrHistogram reports it. */
function atPercentile(sorted: Float64Array, p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

const us = (ns: number) => Math.round(ns) / 1000;

/**
 * The interval width a measurement of `spanMs` with `events` log entries is cut into, given the
 * configured `intervalMs`; null for no series. A span of FINE_INTERVALS configured intervals or
 * more keeps `intervalMs` (and needs MIN_EVENTS_PER_INTERVAL entries per interval). A shorter span
 * (MIN_SERIES_MS at least) is cut into FINE_INTERVALS intervals, fewer where it has too few
 * entries for that (MIN_EVENTS_PER_INTERVAL each) but never fewer than MIN_FINE_INTERVALS, each a
 * whole number of ms, at least MIN_INTERVAL_MS and at most `intervalMs` wide.
 */
export function seriesWidthMs(spanMs: number, events: number, intervalMs: number): number | null {
  if (!(intervalMs > 0) || !(spanMs >= MIN_SERIES_MS)) return null;
  if (spanMs >= FINE_INTERVALS * intervalMs) return events >= MIN_EVENTS_PER_INTERVAL * Math.ceil(spanMs / intervalMs) ? intervalMs : null;
  const wanted = Math.min(FINE_INTERVALS, Math.floor(events / MIN_EVENTS_PER_INTERVAL));
  if (wanted < MIN_FINE_INTERVALS) return null;
  const width = Math.max(MIN_INTERVAL_MS, Math.ceil(spanMs / wanted));
  // Never wider than the configured interval: too few operations for it make no series.
  return width <= intervalMs && Math.ceil(spanMs / width) >= MIN_FINE_INTERVALS ? width : null;
}

/**
 * Cuts a log into intervals from `startNs` to `endNs` (the measurement's span on the log's clock),
 * of the width seriesWidthMs gives for the configured `intervalMs`; null when it gives none (too
 * short, off, or too few operations for it). Intervals in which nothing completed are kept, with
 * zeros: a stall shows as a gap, not as nothing.
 */
export function cutSeries(log: OpLog, startNs: number, endNs: number, configuredMs: number, clock: IntervalSeries['clock']): IntervalSeries | null {
  const spanMs = (endNs - startNs) / 1e6;
  const intervalMs = seriesWidthMs(spanMs, log.length, configuredMs);
  if (intervalMs === null) return null;
  const count = Math.ceil(spanMs / intervalMs);
  const bytes = new Float64Array(count);
  const ops = new Float64Array(count);
  const errors = new Float64Array(count);
  const latencies: number[][] = Array.from({ length: count }, () => []);
  for (let i = 0; i < log.length; i++) {
    const [at, latency, moved, spread] = log.entry(i);
    const k = Math.min(count - 1, Math.max(0, Math.floor((at - startNs) / 1e6 / intervalMs)));
    if (moved > 0) spreadBytes(bytes, moved, at - spread - startNs, at - startNs, intervalMs * 1e6);
    if (latency === FAILED) errors[k]++;
    else if (latency >= 0) {
      ops[k]++;
      latencies[k].push(latency);
    }
  }
  const intervals: Interval[] = [];
  for (let k = 0; k < count; k++) {
    const sorted = Float64Array.from(latencies[k]).sort();
    intervals.push({
      offsetMs: k * intervalMs,
      durationMs: Math.min(intervalMs, spanMs - k * intervalMs),
      bytes: bytes[k], ops: ops[k], errors: errors[k],
      latencyUs: sorted.length ? { p50: us(atPercentile(sorted, 50)), p95: us(atPercentile(sorted, 95)), p99: us(atPercentile(sorted, 99)), max: us(sorted[sorted.length - 1]) } : null,
    });
  }
  return { intervalMs, clock, intervals };
}

// --- Bytes moved inside a running operation ------------------------------------------------------

const inFlight = new AsyncLocalStorage<(bytes: number, overNs: number) => void>();

/** Runs `fn` (one timed operation); bytes it reports through reportBytes() go to `onBytes` as they move. */
export function withByteProgress<T>(onBytes: (bytes: number, overNs: number) => void, fn: () => Promise<T>): Promise<T> {
  return inFlight.run(onBytes, fn);
}

/**
 * Called by a session, inside an operation, with bytes that have just moved (a part of a large
 * download landing), over the `overNs` before now (the part's own request time; 0: an instant):
 * the operation's interval series then shows them when they moved, not all at its end. Outside a
 * timed operation it does nothing.
 */
export function reportBytes(bytes: number, overNs = 0): void {
  inFlight.getStore()?.(bytes, overNs);
}

// --- Settings ---------------------------------------------------------------------------------------

/** The run's interval width (`s3ab run --series-interval`); 0 turns the series off (no log is kept). */
export const seriesSettings = { intervalMs: DEFAULT_INTERVAL_MS };

// --- The rate of the measurement running now, for the progress line ------------------------------

/** Bytes and operations measured on this thread since the process started. */
const counted = { bytes: 0, ops: 0 };
/** Counters measuring threads add to (bytes, operations), while they run. */
const shared = new Set<BigInt64Array>();

/** Counts bytes and completed operations for the progress line's current rate. */
export function countLive(bytes: number, ops: number): void {
  counted.bytes += bytes;
  counted.ops += ops;
}

/** A counter shared with measuring threads (they add with Atomics); `release` folds it into the totals when they are done. */
export function sharedLiveCounter(): { counter: BigInt64Array; release(): void } {
  const counter = new BigInt64Array(new SharedArrayBuffer(16));
  shared.add(counter);
  return {
    counter,
    release: () => {
      if (!shared.delete(counter)) return;
      countLive(Number(Atomics.load(counter, 0)), Number(Atomics.load(counter, 1)));
    },
  };
}

/** Bytes and operations measured so far in this process, threads included: the progress line's rate is their change per second. */
export function liveTotals(): { bytes: number; ops: number } {
  let { bytes, ops } = counted;
  for (const c of shared) {
    bytes += Number(Atomics.load(c, 0));
    ops += Number(Atomics.load(c, 1));
  }
  return { bytes, ops };
}
