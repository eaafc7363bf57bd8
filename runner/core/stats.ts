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

/**
 * Per-operation latencies, recorded in nanoseconds in an HdrHistogram (3 significant digits,
 * up to one hour), reported in microseconds.
 */
export class LatencyHistogram {
  private readonly histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000_000,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });

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
}

export function nowNs(): bigint {
  return process.hrtime.bigint();
}
