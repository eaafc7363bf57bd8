import { cutSeries, OpLog } from '../../runner/core/intervals';
import { cellSeries, peakRate, peakUnlikeSustained, sustainedRate, type RatePoint } from '../../runner/report/series';
import type { IntervalRow } from '../../runner/report/rows';

/** A series of 1 s intervals with these rates. */
const series = (rates: number[], last = 1000): RatePoint[] => rates.map((rate, i) => ({ offsetMs: i * 1000, durationMs: i === rates.length - 1 ? last : 1000, rate }));

describe('the sustained rate: the median of the intervals after the first 10%', () => {
  test('a burst that does not last: peak 430, sustained 200 (s5cmd\'s 4.3 Gbit/s falling to 2)', () => {
    // 20 intervals: the first 2 (10% of 20 s) are left out; of the other 18 the median is 200.
    const rates = [100, 430, 420, 400, 380, 300, 250, ...Array(13).fill(200)];
    const points = series(rates);
    expect(sustainedRate(points, 1000)).toBe(200);
    expect(peakRate(points, 1000)).toBe(430);
    expect(peakUnlikeSustained({ peak: 430, sustained: 200 })).toBe(true);
  });

  test('a steady rate: sustained and peak close, no caveat', () => {
    const points = series([50, 101, 99, 100, 102, 98, 100, 100, 101, 99]);
    expect(sustainedRate(points, 1000)).toBe(100);
    expect(peakRate(points, 1000)).toBe(102);
    expect(peakUnlikeSustained({ peak: 102, sustained: 100 })).toBe(false);
    // Exactly 25% apart is not more than 25%.
    expect(peakUnlikeSustained({ peak: 100, sustained: 75 })).toBe(false);
    expect(peakUnlikeSustained({ peak: 100, sustained: 74.9 })).toBe(true);
  });

  test('the first interval is left out even of a short series; a sliver of a last interval counts for neither', () => {
    // 3 s: interval 0 starts before 10% of the span; the last one lasted 100 ms, its rate means little.
    const points = series([10, 80, 90, 5000], 100);
    expect(sustainedRate(points, 1000)).toBe(85);
    expect(peakRate(points, 1000)).toBe(90);
  });

  test('a stall shows as intervals at zero, and pulls the sustained rate down only as far as it lasts', () => {
    expect(sustainedRate(series([100, 100, 0, 0, 100, 100, 100]), 1000)).toBe(100);
    expect(sustainedRate(series([100, 0, 0, 0, 0, 100, 100]), 1000)).toBe(0);
  });
});

describe('cutting an operation log into intervals', () => {
  test('bytes, operations, errors and latency percentiles per interval; empty intervals kept; the last one partial', () => {
    const log = new OpLog();
    const s = 1e9;
    for (let i = 0; i < 10; i++) log.ok(0.05 * s + i * 0.09 * s, (1 + i) * 1e6, 1024 * 1024);
    log.failed(0.95 * s);
    log.progress(2.2 * s, 4 * 1024 * 1024);
    log.ok(2.5 * s, 500e6, 4 * 1024 * 1024);
    const cut = cutSeries(log, 0, 2.7 * s, 1000, 'wall')!;
    expect(cut.intervals.map((i) => [i.offsetMs, i.durationMs, i.bytes, i.ops, i.errors])).toEqual([
      [0, 1000, 10 * 1024 * 1024, 10, 1],
      [1000, 1000, 0, 0, 0],
      [2000, 700, 8 * 1024 * 1024, 1, 0],
    ]);
    expect(cut.intervals[0].latencyUs).toEqual({ p50: 5000, p95: 10000, p99: 10000, max: 10000 });
    expect(cut.intervals[1].latencyUs).toBeNull();
  });

  test('no series for a measurement shorter than 2 s, with the series off, or too coarse (a few large operations)', () => {
    const log = new OpLog();
    for (let i = 0; i < 10; i++) log.ok(i * 0.19e9, 1e6, 10);
    expect(cutSeries(log, 0, 1.9e9, 1000, 'wall')).toBeNull();
    expect(cutSeries(log, 0, 5e9, 0, 'wall')).toBeNull();
    expect(cutSeries(log, 0, 5e9, 1000, 'wall')).not.toBeNull();
    // Ten operations over six seconds: fewer than two a second, each a spike in one interval.
    expect(cutSeries(log, 0, 6e9, 1000, 'wall')).toBeNull();
  });

  test('logs of several threads merge on one clock', () => {
    const a = new OpLog();
    const b = new OpLog();
    for (const at of [0.2e9, 0.5e9]) a.ok(at, 1e6, 1);
    for (const at of [1.2e9, 1.5e9]) b.ok(at, 1e6, 2);
    const merged = OpLog.fromArrays(OpLog.merge([a, OpLog.fromArrays(b.toArrays())]).toArrays());
    expect(cutSeries(merged, 0, 2e9, 1000, 'wall')!.intervals.map((i) => i.bytes)).toEqual([2, 4]);
  });
});

describe('a cell\'s series from interval_series.sql rows', () => {
  const row = (over: Partial<IntervalRow>): IntervalRow => ({
    workload: 'large-read', operation: 'read', io: null, object_size_bytes: 1 << 30, method: 's3-api', method_variant: 'default', cache: 'none',
    repetition: 1, step: 1, runner: '', measurement: 0, status: 'ok', verified: true, clock: 'wall', interval_index: 0, interval_ms: 1000,
    offset_ms: 0, duration_ms: 1000, bytes: 0, ops: 0, errors: 0, p50_us: null, p99_us: null, ...over,
  });
  const MiB = 1024 * 1024;

  test('MiB/s per interval; medians of the good repetitions\' peaks and sustained rates; a failed one is kept but not counted', () => {
    const rep = (repetition: number, mib: number[], status = 'ok') => mib.map((m, i) => row({ repetition, step: repetition, interval_index: i, offset_ms: i * 1000, bytes: m * MiB, status }));
    const cells = cellSeries([...rep(1, [50, 400, 200, 200, 200]), ...rep(2, [50, 300, 100, 100, 100]), ...rep(3, [1, 1, 1, 1, 1], 'failed')], () => 'k');
    const s = cells.get('k')!;
    expect(s.unit).toBe('MiB/s');
    expect(s.measurements.map((m) => [m.repetition, m.good, m.peak, m.sustained])).toEqual([[1, true, 400, 200], [2, true, 300, 100], [3, false, 1, 1]]);
    expect([s.peak, s.sustained]).toEqual([350, 150]);
    expect(peakUnlikeSustained(s)).toBe(true);
  });

  test('operations per second where nothing moved, and no rate at all for one long operation', () => {
    const ops = cellSeries([0, 1, 2].map((i) => row({ interval_index: i, offset_ms: i * 1000, ops: 10 + i })), () => 'k').get('k')!;
    expect([ops.unit, ops.peak]).toEqual(['ops/s', 12]);
    const clone = cellSeries([0, 1, 2].map((i) => row({ interval_index: i, offset_ms: i * 1000, ops: i === 2 ? 1 : 0 })), () => 'k');
    expect(clone.size).toBe(0);
  });
});
