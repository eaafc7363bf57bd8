import { cutSeries, OpLog, seriesWidthMs } from '../../runner/core/intervals';
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
  test('bytes, operations, errors and latency percentiles per interval; empty intervals kept', () => {
    const log = new OpLog();
    const s = 1e9;
    for (let i = 0; i < 10; i++) log.ok(0.05 * s + i * 0.09 * s, (1 + i) * 1e6, 1024 * 1024);
    log.failed(0.95 * s);
    log.progress(2.2 * s, 4 * 1024 * 1024);
    log.ok(2.5 * s, 500e6, 4 * 1024 * 1024);
    // 2.7 s, shorter than 10 intervals of 1 s; 13 entries: six intervals of 450 ms (two entries each at least).
    const cut = cutSeries(log, 0, 2.7 * s, 1000, 'wall')!;
    const MiB = 1024 * 1024;
    expect(cut.intervalMs).toBe(450);
    expect(cut.intervals.map((i) => [i.offsetMs, i.durationMs, i.bytes, i.ops, i.errors])).toEqual([
      [0, 450, 5 * MiB, 5, 0],
      [450, 450, 5 * MiB, 5, 0],
      [900, 450, 0, 0, 1],
      [1350, 450, 0, 0, 0],
      // The part that landed at 2.2 s, and half of the 500 ms read that ended at 2.5 s.
      [1800, 450, 6 * MiB, 0, 0],
      [2250, 450, 2 * MiB, 1, 0],
    ]);
    expect(cut.intervals[0].latencyUs).toEqual({ p50: 3000, p95: 5000, p99: 5000, max: 5000 });
    expect(cut.intervals[2].latencyUs).toBeNull();
  });

  test('no series for a measurement shorter than 0.5 s, with the series off, or too coarse (a few large operations)', () => {
    const log = new OpLog();
    for (let i = 0; i < 10; i++) log.ok(i * 0.04e9, 1e6, 10);
    expect(cutSeries(log, 0, 0.49e9, 1000, 'wall')).toBeNull();
    expect(cutSeries(log, 0, 5e9, 0, 'wall')).toBeNull();
    expect(cutSeries(log, 0, 5e9, 1000, 'wall')).not.toBeNull();
    // Ten operations over twelve seconds: fewer than two a second, each a spike in one interval.
    expect(cutSeries(log, 0, 12e9, 1000, 'wall')).toBeNull();
    // Six operations: too few for the four fine intervals a short measurement needs at least.
    const few = new OpLog();
    for (let i = 0; i < 6; i++) few.ok(i * 0.1e9, 1e6, 10);
    expect(cutSeries(few, 0, 0.6e9, 1000, 'wall')).toBeNull();
  });

  test('the width: the configured interval from 10 intervals on; a shorter measurement cut into up to 10, at least 50 ms each', () => {
    // Long enough: the configured width, whatever the events.
    expect(seriesWidthMs(10_000, 1000, 1000)).toBe(1000);
    expect(seriesWidthMs(60_000, 1000, 5000)).toBe(5000);
    // Shorter than 10 intervals: a tenth of it, in whole ms.
    expect(seriesWidthMs(9_990, 1000, 1000)).toBe(999);
    expect(seriesWidthMs(1_234, 1000, 1000)).toBe(124);
    expect(seriesWidthMs(20_000, 1000, 5000)).toBe(2000);
    // At most 10 intervals, at least 50 ms each.
    expect(seriesWidthMs(600, 1000, 1000)).toBe(60);
    expect(seriesWidthMs(500, 1000, 100)).toBe(50);
    // Fewer events than two per interval: fewer, wider intervals (18 events: 9), down to four.
    expect(seriesWidthMs(1_000, 18, 1000)).toBe(112);
    expect(seriesWidthMs(1_000, 8, 1000)).toBe(250);
    expect(seriesWidthMs(1_000, 7, 1000)).toBeNull();
    // Never wider than the configured interval: 8 s with 8 operations has too few for 1 s intervals.
    expect(seriesWidthMs(8_000, 16, 1000)).toBe(1000);
    expect(seriesWidthMs(8_000, 8, 1000)).toBeNull();
    expect(seriesWidthMs(499, 1000, 1000)).toBeNull();
    expect(seriesWidthMs(5_000, 1000, 0)).toBeNull();
  });

  test('a short measurement\'s series: each interval its own width, rates from bytes and widths', () => {
    // 1.2 s reading 1 MiB every 20 ms at a steady rate: ten intervals of 120 ms, each 6 MiB.
    const log = new OpLog();
    for (let t = 20; t <= 1200; t += 20) log.ok(t * 1e6, 20e6, 1024 * 1024);
    const cut = cutSeries(log, 0, 1.2e9, 1000, 'wall')!;
    expect(cut.intervalMs).toBe(120);
    expect(cut.intervals.map((i) => i.durationMs)).toEqual(Array(10).fill(120));
    const points = cut.intervals.map((i) => ({ offsetMs: i.offsetMs, durationMs: i.durationMs, rate: i.bytes / 1024 / 1024 / (i.durationMs / 1000) }));
    expect(sustainedRate(points, cut.intervalMs)).toBeCloseTo(50, 6);
    expect(peakRate(points, cut.intervalMs)).toBeCloseTo(50, 6);
  });

  test('bytes count over the time they moved: an operation\'s over its latency, a part\'s over its own request time', () => {
    const log = new OpLog();
    // One 3 MiB read from 0.5 s to 2 s: a third in [0.5, 1), two thirds in [1, 2).
    log.ok(2e9, 1.5e9, 3 * 1024 * 1024);
    // A 4 MiB part that took 1 s landing at 3 s, in an operation still running: all of it in [2, 3).
    log.progress(3e9, 4 * 1024 * 1024, 1e9);
    // Instant progress and failures count where they happened.
    log.progress(3.5e9, 1024);
    log.failed(3.6e9);
    // Operations that moved nothing, two per second over 10 s: enough entries for 1 s intervals.
    for (let k = 0; k < 20; k++) log.ok(k * 0.5e9 + 0.1e9, 0, 0);
    const cut = cutSeries(log, 0, 10e9, 1000, 'wall')!;
    expect(cut.intervalMs).toBe(1000);
    const MiB = 1024 * 1024;
    expect(cut.intervals.map((i) => i.bytes)).toEqual([MiB, 2 * MiB, 4 * MiB, 1024, 0, 0, 0, 0, 0, 0]);
    expect(cut.intervals.map((i) => i.errors)).toEqual([0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
  });

  test('logs of several threads merge on one clock', () => {
    const a = new OpLog();
    const b = new OpLog();
    for (let i = 0; i < 10; i++) a.ok(0.05e9 + i * 0.1e9, 1e6, 1);
    for (let i = 0; i < 10; i++) b.ok(1.05e9 + i * 0.1e9, 1e6, 2);
    const merged = OpLog.fromArrays(OpLog.merge([a, OpLog.fromArrays(b.toArrays())]).toArrays());
    expect(cutSeries(merged, 0, 2e9, 1000, 'wall')!.intervals.map((i) => i.bytes)).toEqual([2, 2, 2, 2, 2, 4, 4, 4, 4, 4]);
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
