import type { IntervalRow } from './rows';

/**
 * Peak and sustained rates of the interval series (runner/core/intervals.ts), per measurement and
 * per cell: the sustained rate is the median of the intervals after the first 10% of the
 * measurement (its start: connections opening, caches filling), the peak the best interval.
 */

/** Peak and sustained differ by more than this share of the peak: the verdict says so. */
const PEAK_SUSTAINED_CAVEAT = 0.25;

/** One interval as a rate: MiB/s where the measurement moved payload, else operations per second. */
export interface RatePoint {
  offsetMs: number;
  durationMs: number;
  rate: number;
}

/** One measurement's series as rates, with its peak and sustained rate. */
export interface MeasurementSeries {
  repetition: number;
  step: number;
  runner: string;
  measurement: number;
  /** Counted among the cell's figures: a successful, verified measurement. */
  good: boolean;
  didNotFinish: boolean;
  clock: 'wall' | 'active';
  /** Its interval width: the configured one, finer for a short measurement (runner/core/intervals.ts seriesWidthMs). */
  intervalMs: number;
  points: RatePoint[];
  peak: number;
  sustained: number;
}

/** A cell's series: every measurement's, and the medians of their peaks and sustained rates over the good ones. */
export interface CellSeries {
  unit: 'MiB/s' | 'ops/s';
  /** The first measurement's interval width (each measurement has its own: MeasurementSeries.intervalMs). */
  intervalMs: number;
  measurements: MeasurementSeries[];
  /** Medians over the good measurements; null when none was good. */
  peak: number | null;
  sustained: number | null;
}

function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Intervals that count for the peak and the sustained rate: a last interval shorter than half the
 * others is left out (a few operations in a sliver of time make a rate that means little), unless
 * it is all there is.
 */
function full(points: RatePoint[], intervalMs: number): RatePoint[] {
  const kept = points.filter((p, i) => i < points.length - 1 || p.durationMs >= intervalMs / 2);
  return kept.length ? kept : points;
}

/** The median rate of the intervals that start after the first 10% of the series' span. */
export function sustainedRate(points: RatePoint[], intervalMs: number): number {
  const span = points.reduce((end, p) => Math.max(end, p.offsetMs + p.durationMs), 0);
  const counted = full(points, intervalMs);
  const after = counted.filter((p) => p.offsetMs >= 0.1 * span);
  return median((after.length ? after : counted).map((p) => p.rate)) ?? 0;
}

/** The best interval's rate. */
export function peakRate(points: RatePoint[], intervalMs: number): number {
  return Math.max(0, ...full(points, intervalMs).map((p) => p.rate));
}

/** Whether a cell's peak and sustained rate differ by more than PEAK_SUSTAINED_CAVEAT of the peak. */
export function peakUnlikeSustained(s: Pick<CellSeries, 'peak' | 'sustained'>): boolean {
  return s.peak !== null && s.sustained !== null && s.peak > 0 && (s.peak - s.sustained) / s.peak > PEAK_SUSTAINED_CAVEAT;
}

const MIB = 1024 * 1024;

/**
 * The series of each cell from interval_series.sql's rows, keyed by `key(row)`. Rates are MiB/s
 * where the cell's measurements moved payload, else operations per second.
 */
export function cellSeries(rows: IntervalRow[], key: (r: IntervalRow) => string): Map<string, CellSeries> {
  const byMeasurement = new Map<string, IntervalRow[]>();
  const payload = new Set<string>();
  for (const r of rows) {
    if (r.bytes > 0) payload.add(key(r));
    const id = `${key(r)}\u0001${r.repetition}\u0001${r.step}\u0001${r.runner}\u0001${r.measurement}`;
    if (!byMeasurement.has(id)) byMeasurement.set(id, []);
    byMeasurement.get(id)!.push(r);
  }
  const cells = new Map<string, CellSeries>();
  for (const intervals of byMeasurement.values()) {
    const first = intervals[0];
    const k = key(first);
    const moves = payload.has(k);
    // A rate of operations needs operations in most intervals: one long operation (a git clone) has no rate over time.
    if (!moves && intervals.reduce((n, r) => n + r.ops, 0) < intervals.length) continue;
    const seconds = (r: IntervalRow) => r.duration_ms / 1000;
    const points = intervals.sort((a, b) => a.interval_index - b.interval_index).map((r) => ({
      offsetMs: r.offset_ms, durationMs: r.duration_ms, rate: seconds(r) > 0 ? (moves ? r.bytes / MIB : r.ops) / seconds(r) : 0,
    }));
    let cell = cells.get(k);
    if (!cell) cells.set(k, (cell = { unit: moves ? 'MiB/s' : 'ops/s', intervalMs: first.interval_ms, measurements: [], peak: null, sustained: null }));
    cell.measurements.push({
      repetition: first.repetition, step: first.step, runner: first.runner, measurement: first.measurement,
      good: first.status === 'ok' && first.verified, didNotFinish: first.status === 'did-not-finish', clock: first.clock, intervalMs: first.interval_ms,
      points, peak: peakRate(points, first.interval_ms), sustained: sustainedRate(points, first.interval_ms),
    });
  }
  for (const cell of cells.values()) {
    const good = cell.measurements.filter((m) => m.good);
    cell.peak = median(good.map((m) => m.peak));
    cell.sustained = median(good.map((m) => m.sustained));
  }
  return cells;
}
