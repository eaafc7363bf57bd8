import { Batch } from '../../runner/core/batch';
import {
  bucketUpperNs, bucketsOfCounts, LATENCY_SUB_BUCKET_BITS, LatencyHistogram, latencyPercentile, mergeLatencyBuckets, type LatencyBucket,
} from '../../runner/core/stats';
import { recordErrors, toRecord, type StepFacts } from '../../runner/results/record';
import { fioMeasurement, parseFioJson } from '../../runner/workloads/fio-seq.impl';

/** Deterministic latencies (ns), log-uniform from 50 ns to ~1 hour (mulberry32). */
function latencies(n: number, seed: number): number[] {
  let a = seed >>> 0;
  return Array.from({ length: n }, () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.round(50 * 7e10 ** (((t ^ (t >>> 14)) >>> 0) / 4294967296));
  });
}

/** The nearest-rank latency of raw values, as the bucket bound it falls under (µs). */
function rawPercentileUs(values: number[], percent: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return bucketUpperNs(sorted[Math.ceil((sorted.length * percent) / 100) - 1]) / 1000;
}

const us = (ns: number) => ({ le_us: bucketUpperNs(ns) / 1000 });

describe('the fixed bucket layout (64 sub-buckets per power of two of nanoseconds)', () => {
  test('below 128 ns each integer is its own bucket; above, a bucket spans 1/64 of its power of two', () => {
    expect(LATENCY_SUB_BUCKET_BITS).toBe(6);
    for (let ns = 0; ns < 128; ns++) expect(bucketUpperNs(ns)).toBe(ns);
    expect([128, 129, 130].map(bucketUpperNs)).toEqual([129, 129, 131]);
    expect([255, 256, 259, 260].map(bucketUpperNs)).toEqual([255, 259, 259, 263]);
    // 100 µs lies in [65,536, 131,072) ns, whose buckets are 1,024 ns wide: [99,328, 100,351].
    expect(bucketUpperNs(100_000)).toBe(100_351);
    expect(bucketUpperNs(2 ** 40)).toBe(2 ** 40 + 2 ** 34 - 1);
    expect(bucketUpperNs(2 ** 40 - 1)).toBe(2 ** 40 - 1);
  });

  test('a bound is its own bucket\'s bound, and lies less than 1/64 above every latency in the bucket', () => {
    const wrong = latencies(20_000, 1).filter((ns) => {
      const upper = bucketUpperNs(ns);
      return upper < ns || bucketUpperNs(upper) !== upper || (ns >= 128 && (upper - ns) / ns >= 1 / 64);
    });
    expect(wrong).toEqual([]);
  });

  test('LatencyHistogram.buckets() is exact: the same buckets as the raw latencies, counts summing to what was recorded', () => {
    const values = [...latencies(50_000, 2), 1, 127, 128, 129, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1];
    const h = new LatencyHistogram();
    for (const v of values) h.recordNs(v);
    const buckets = h.buckets();
    expect(buckets).toEqual(bucketsOfCounts(values.map((v) => [v, 1] as const)));
    expect(buckets.reduce((n, b) => n + b.count, 0)).toBe(values.length);
    expect(buckets.every((b, i) => i === 0 || b.le_us > buckets[i - 1].le_us)).toBe(true);
  });

  test('latency fields: summary and buckets together, or both null when nothing was recorded', () => {
    expect(new LatencyHistogram().fields()).toEqual({ latency: null, latencyHistogram: null });
    const h = new LatencyHistogram();
    h.recordNs(1_500_000);
    const { latency, latencyHistogram } = h.fields();
    expect(latencyHistogram).toEqual([{ le_us: 1507.327, count: 1 }]);
    // The summary's finer HdrHistogram bucket (3 digits) lies inside the layout's bucket.
    expect(latency).toMatchObject({ min: 1500, max: 1500, p50: 1500.159 });
  });
});

describe('merging distributions', () => {
  test('known histograms merge bucket by bucket and give the exact percentiles', () => {
    // Two runners: one did 90 operations at 100 µs and 10 at 200 µs, the other 100 at 300 µs.
    const a: LatencyBucket[] = [{ ...us(100_000), count: 90 }, { ...us(200_000), count: 10 }];
    const b: LatencyBucket[] = [{ ...us(300_000), count: 100 }];
    const merged = mergeLatencyBuckets([a, b]);
    expect(merged).toEqual([{ le_us: 100.351, count: 90 }, { le_us: 200.703, count: 10 }, { le_us: 303.103, count: 100 }]);
    // Ranks 100, 190 and 198 of 200.
    expect(latencyPercentile(merged, 50)).toBe(200.703);
    expect(latencyPercentile(merged, 95)).toBe(303.103);
    expect(latencyPercentile(merged, 99)).toBe(303.103);
    expect(latencyPercentile(merged, 45)).toBe(100.351);
    // 100 operations at 100 µs on one runner, 100 at 300 µs on the other: the merged median is
    // 100 µs, the next rank 300 µs; the average of the runners' medians, 201.727 µs, is a latency
    // no operation had.
    const split = mergeLatencyBuckets([[{ ...us(100_000), count: 100 }], b]);
    expect(latencyPercentile(split, 50)).toBe(100.351);
    expect(latencyPercentile(split, 50.5)).toBe(303.103);
    expect(latencyPercentile([], 50)).toBeNull();
  });

  test('merged percentiles equal those of the pooled raw latencies (nearest rank, as the bucket bound)', () => {
    const parts = [latencies(997, 3), latencies(10, 4), latencies(3_000, 5), latencies(1, 6)];
    const buckets = parts.map((p) => {
      const h = new LatencyHistogram();
      for (const v of p) h.recordNs(v);
      return h.buckets();
    });
    const merged = mergeLatencyBuckets(buckets);
    expect(merged.reduce((n, b) => n + b.count, 0)).toBe(4_008);
    for (const p of [0.1, 1, 25, 50, 90, 95, 99, 99.9, 100]) expect({ p, v: latencyPercentile(merged, p) }).toEqual({ p, v: rawPercentileUs(parts.flat(), p) });
  });
});

describe('records', () => {
  const facts: StepFacts = {
    run_id: '20260115T101500Z-901d3e', method: 's3-api', method_variant: 'default', method_version: 'v', method_options: {},
    workload: 'objects', workload_params: {}, step: 1, cache: 'none', repetition: 1, clients: 1, fleet: null,
    endpoint: { kind: 'embedded', url: null, server: null },
    host: {
      hostname: 'h', instance_type: 'local', vcpus: 2, memory_bytes: 1, kernel: 'k', os: 'o', region: null, availability_zone: null,
      link_limit_mib_s: null, link_baseline_mib_s: null, link_limit_source: null, runner_id: null,
    },
  };

  test('a batch\'s record carries the buckets of its timed operations', async () => {
    const b = new Batch('head', null, 'sequential', false);
    for (let i = 0; i < 5; i++) await b.op(async () => 0);
    await b.op(async () => { throw new Error('refused'); });
    const r = toRecord(facts, b.finish());
    expect(r.latency_us).not.toBeNull();
    expect(r.latency_histogram!.reduce((n, x) => n + x.count, 0)).toBe(r.ok);
    expect(recordErrors(r)).toEqual([]);
    const empty = toRecord(facts, new Batch('head', null).finish());
    expect([empty.latency_us, empty.latency_histogram]).toEqual([null, null]);
  });

  test('recordErrors: the buckets are there exactly where latency_us is, in the fixed layout, ascending', () => {
    const h = new LatencyHistogram();
    [200_000, 300_000].forEach((v) => h.recordNs(v));
    const good = toRecord(facts, { ...new Batch('head', null).finish(), ok: 2, ops: 2, ...h.fields() });
    expect(recordErrors(good)).toEqual([]);
    expect(recordErrors({ ...good, latency_histogram: null })).toEqual([expect.stringMatching(/latency_histogram must hold the buckets exactly where latency_us is set/)]);
    expect(recordErrors({ ...good, latency_histogram: undefined })).toEqual([expect.stringMatching(/exactly where latency_us is set/)]);
    expect(recordErrors({ ...good, latency_us: null })).toEqual([expect.stringMatching(/latency_us is null, 2 buckets/)]);
    expect(recordErrors({ ...good, latency_histogram: [{ le_us: 200, count: 1 }] })).toEqual(['/latency_histogram/0 le_us 200 is not a bucket bound of the fixed layout']);
    expect(recordErrors({ ...good, latency_histogram: [...good.latency_histogram!].reverse() })).toEqual([expect.stringMatching(/is not above the bucket before it/)]);
    expect(recordErrors({ ...good, latency_histogram: [] })).toEqual([expect.stringMatching(/must NOT have fewer than 1 items/)]);
  });

  test('fio: its json+ bins become the buckets unchanged (fio uses the same layout)', () => {
    // Bins as fio 3.33 writes them: each bucket's middle in ns.
    const bins = { '100': 1, '16192': 2, '16768': 3, '1056768': 4 };
    const text = `note: fio printed this first\n${JSON.stringify({ jobs: [{ error: 0, read: {
      io_bytes: 10 * 4096, bw_bytes: 1e6, iops: 100, runtime: 41, total_ios: 10,
      lat_ns: { min: 100, max: 1_060_000, mean: 430_000, percentile: { '50.000000': 16768, '95.000000': 1056768, '99.000000': 1056768 }, bins },
    } }] })}`;
    const m = fioMeasurement('read', 4096, parseFioJson(text, 'read'));
    expect(m.latencyHistogram).toEqual([{ le_us: 0.1, count: 1 }, { le_us: 16.255, count: 2 }, { le_us: 16.895, count: 3 }, { le_us: 1064.959, count: 4 }]);
    expect(m.latency).toMatchObject({ p50: 16.768, p99: 1056.768 });
    // Each bin's middle lies in its own bucket of the layout: bin middles map one to one.
    for (const ns of Object.keys(bins).map(Number)) expect(bucketUpperNs(ns) - ns).toBeLessThan(ns / 128 + 1);
    const noBins = text.replace(/,"bins":\{[^}]*\}/, '');
    expect(() => fioMeasurement('read', 4096, parseFioJson(noBins, 'read'))).toThrow(/no latency bins .*json\+/);
  });
});
