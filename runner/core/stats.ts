import * as hdr from 'hdr-histogram-js';

/** Latency summary in microseconds, as the `latency_us` field of a result record. */
export interface LatencySummary {
  min: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** One bucket of a record's `latency_histogram`: its inclusive upper bound (µs) and how many latencies fell in it. */
export interface LatencyBucket {
  le_us: number;
  count: number;
}

/** A measurement's latency fields: the summary (`latency_us`) and the mergeable buckets (`latency_histogram`). */
export interface LatencyFields {
  latency: LatencySummary | null;
  latencyHistogram: LatencyBucket[] | null;
}

/**
 * The one bucket layout of every record's `latency_histogram`: HdrHistogram's log buckets over
 * integer nanoseconds with 2^6 = 64 sub-buckets per power of two. Latencies below 128 ns have a
 * bucket each; above, a bucket spans 1/64 of the power of two it starts in, so its upper bound is
 * less than 1/64 (1.6%) above any latency in it. It is also fio's own latency layout
 * (FIO_IO_U_PLAT_BITS = 6), so fio's histogram carries over bucket for bucket. Fixed: records of
 * every process and runner sum bucket by bucket.
 */
export const LATENCY_SUB_BUCKET_BITS = 6;
/** Below this many ns every integer latency is its own bucket. */
const EXACT_BELOW_NS = 2 ** (LATENCY_SUB_BUCKET_BITS + 1);

/** Position of the highest set bit of a positive integer below 2^53. */
function highestBit(n: number): number {
  const high = Math.floor(n / 2 ** 32);
  return high > 0 ? 63 - Math.clz32(high) : 31 - Math.clz32(n);
}

/** The inclusive upper bound (ns) of the layout's bucket holding the integer latency `ns`. */
export function bucketUpperNs(ns: number): number {
  if (ns < EXACT_BELOW_NS) return ns;
  const width = 2 ** (highestBit(ns) - LATENCY_SUB_BUCKET_BITS);
  return Math.floor(ns / width) * width + width - 1;
}

/** A bucket's `le_us` from its upper bound in ns (exact to the ns: three decimals). */
function leUsOf(upperNs: number): number {
  return upperNs / 1000;
}

/**
 * Buckets of latencies given as (ns, count) pairs — another tool's histogram (fio's bins) or raw
 * values with count 1: each value's bucket gets its count.
 */
export function bucketsOfCounts(pairs: Iterable<readonly [ns: number, count: number]>): LatencyBucket[] {
  const sums = new Map<number, number>();
  for (const [ns, count] of pairs) {
    const upper = bucketUpperNs(Math.max(1, Math.round(ns)));
    sums.set(upper, (sums.get(upper) ?? 0) + count);
  }
  return [...sums].sort(([a], [b]) => a - b).map(([upper, count]) => ({ le_us: leUsOf(upper), count }));
}

/** Sums bucket lists bucket by bucket (the merge a query does with GROUP BY le_us). */
export function mergeLatencyBuckets(lists: readonly (readonly LatencyBucket[])[]): LatencyBucket[] {
  const sums = new Map<number, number>();
  for (const list of lists) for (const b of list) sums.set(b.le_us, (sums.get(b.le_us) ?? 0) + b.count);
  return [...sums].sort(([a], [b]) => a - b).map(([le_us, count]) => ({ le_us, count }));
}

/**
 * The percentile of a distribution in buckets, as HdrHistogram reads one: the upper bound of the
 * bucket that holds the nearest-rank latency (the first whose running count reaches `percent`% of
 * all). Null for no buckets. assets/queries/adhoc/latency_merged.sql applies the same rule in SQL.
 */
export function latencyPercentile(buckets: readonly LatencyBucket[], percent: number): number | null {
  const total = buckets.reduce((n, b) => n + b.count, 0);
  let below = 0;
  for (const b of buckets) {
    below += b.count;
    if (below * 100 >= total * percent) return b.le_us;
  }
  return null;
}

/**
 * Per-operation latencies, recorded in nanoseconds in an HdrHistogram (3 significant digits,
 * up to one hour), reported in microseconds: the summary at that precision, the buckets in the
 * coarser fixed layout above.
 */
export class LatencyHistogram {
  // What hdr.build() makes by default (32-bit counts, growing past an hour), built directly so
  // that its counts can be read by index.
  private readonly histogram = Object.assign(new hdr.Int32Histogram(1, 3_600_000_000_000, 3), { autoResize: true });

  get count(): number {
    return this.histogram.totalCount;
  }

  recordNs(ns: number): void {
    this.histogram.recordValue(Math.max(1, Math.round(ns)));
  }

  summary(): LatencySummary | null {
    if (this.histogram.totalCount === 0) return null;
    const us = (ns: number) => Math.round(ns) / 1000;
    return {
      min: us(this.histogram.minNonZeroValue),
      mean: us(this.histogram.mean),
      p50: us(this.histogram.getValueAtPercentile(50)),
      p95: us(this.histogram.getValueAtPercentile(95)),
      p99: us(this.histogram.getValueAtPercentile(99)),
      max: us(this.histogram.maxValue),
    };
  }

  /**
   * The non-empty buckets of the fixed layout, ascending. Exact: an HdrHistogram bucket at 3
   * significant digits (1024 sub-buckets per power of two) lies inside one bucket of the layout
   * (64 per power of two), so its count moves whole; the counts sum to the latencies recorded.
   */
  buckets(): LatencyBucket[] {
    const h = this.histogram;
    const out: LatencyBucket[] = [];
    for (let i = 0; i < h.countsArrayLength; i++) {
      const count = h.getCountAtIndex(i);
      if (count === 0) continue;
      const le_us = leUsOf(bucketUpperNs(h.valueFromIndex(i)));
      const last = out[out.length - 1];
      if (last?.le_us === le_us) last.count += count;
      else out.push({ le_us, count });
    }
    return out;
  }

  /** The measurement's latency fields: both null when nothing was recorded. */
  fields(): LatencyFields {
    if (this.histogram.totalCount === 0) return { latency: null, latencyHistogram: null };
    return { latency: this.summary(), latencyHistogram: this.buckets() };
  }
}

export function nowNs(): bigint {
  return process.hrtime.bigint();
}
