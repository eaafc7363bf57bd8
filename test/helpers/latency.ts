import { latencyPercentile } from '../../runner/core/stats';
import type { ResultRecord } from '../../runner/core/record.generated';

/**
 * What every record of a real run must hold for merges: buckets exactly where latency_us is,
 * counting every timed operation of a successful measurement, and percentiles that agree
 * with the record's own — the summary's finer HdrHistogram bucket (or fio's bin middle) lies
 * inside the layout's bucket, whose bound is at most 1/64 above it. Returns the records that break it.
 */
export function latencyHistogramProblems(records: ResultRecord[]): string[] {
  const problems: string[] = [];
  for (const r of records) {
    const name = `${r.method} ${r.workload} ${r.operation} ${r.object_size_bytes ?? ''} ${r.cache} #${r.repetition}`;
    const buckets = r.latency_histogram ?? null;
    if ((r.latency_us === null) !== (buckets === null)) problems.push(`${name}: latency_us ${r.latency_us ? 'set' : 'null'}, latency_histogram ${buckets ? 'set' : 'null'}`);
    if (!r.latency_us || !buckets) continue;
    const count = buckets.reduce((n, b) => n + b.count, 0);
    // dir-walk times one walk and counts the entries it visited as its operations.
    const timed = r.workload === 'dir-walk' ? 1 : r.ok;
    if (r.status === 'ok' && count !== timed) problems.push(`${name}: buckets count ${count}, operations timed ${timed}`);
    for (const p of [50, 95, 99] as const) {
      const own = r.latency_us[`p${p}`];
      const merged = latencyPercentile(buckets, p)!;
      if (merged < own || merged > own * (1 + 1 / 64) + 0.001) problems.push(`${name}: p${p} ${own} µs, from the buckets ${merged} µs`);
    }
  }
  return problems;
}
