import { groupCaseLabels, isUntimed } from '../analysis';
import { num } from '../format';
import { timeSeriesSpec, type TimePoint } from '../html/charts';
import { esc } from '../html/format';
import { figure, noData, table } from '../html/parts';
import { methodLabel } from '../../core/vocabulary';
import type { Cell, ReportModel } from '../model';
import { peakUnlikeSustained, type CellSeries, type MeasurementSeries, type RatePoint } from '../series';
import type { PageContext, ReportSection } from './section';

/** "Throughput over time": the measurements that kept an interval series, peak and sustained marked. */

const seriesCells = (model: ReportModel) => model.cells.filter((c) => c.series && !isUntimed(c));

/** The measurement a cell's chart draws: the good one with the median sustained rate (a DNF's own when none finished). */
function representative(series: CellSeries): MeasurementSeries {
  const pool = series.measurements.filter((m) => m.good);
  const sorted = [...(pool.length ? pool : series.measurements)].sort((a, b) => a.sustained - b.sustained);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** The interval widths of these cells' series, as the caption says them: "1 s", or "50–1000 ms" when short measurements were cut finer. */
function widthsOf(cells: Cell[]): string {
  const widths = cells.flatMap((c) => c.series!.measurements.map((m) => m.intervalMs));
  const lo = Math.min(...widths);
  const hi = Math.max(...widths);
  const say = (ms: number) => (ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${num(ms)} ms`);
  return lo === hi ? say(lo) : `${num(lo)}–${num(hi)} ms: a measurement shorter than 10 intervals is cut into up to 10 finer ones`;
}

/** A cell's points: each interval of its representative measurement, its peak and its sustained rate. */
function timePoints(c: Cell, panel: string): TimePoint[] {
  const s = representative(c.series!);
  const at = (p: RatePoint) => (p.offsetMs + p.durationMs / 2) / 1000;
  // The interval the peak rate came from (a sliver of a last interval is not counted as the peak).
  const peak = s.points.find((p) => p.rate === s.peak) ?? s.points.reduce((a, b) => (b.rate > a.rate ? b : a), s.points[0]);
  return [
    ...s.points.map((p) => ({ panel, method: methodLabel(c), kind: 'interval' as const, t: at(p), rate: p.rate })),
    { panel, method: methodLabel(c), kind: 'peak' as const, t: at(peak), rate: s.peak },
    { panel, method: methodLabel(c), kind: 'sustained' as const, t: 0, rate: s.sustained },
  ];
}

/** One unit's chart and its table of peak and sustained medians. */
async function unitParts(ctx: PageContext, mine: Cell[], unit: 'MiB/s' | 'ops/s'): Promise<string[]> {
  const panelOf = groupCaseLabels(mine, ctx.model.sizes);
  const panels = [...new Set(mine.map((c) => `${c.workload} · ${panelOf(c)}`))];
  const points = mine.flatMap((c) => timePoints(c, `${c.workload} · ${panelOf(c)}`));
  const svg = await ctx.charts.svg(timeSeriesSpec({ points, panels, colors: ctx.colors, yTitle: unit === 'MiB/s' ? 'throughput (MiB/s)' : 'operations/s' }));
  const rows = mine.map((c) => [`${c.workload} · ${panelOf(c)}`, methodLabel(c), `${num(c.series!.peak)} ${unit}`, `${num(c.series!.sustained)} ${unit}`,
    peakUnlikeSustained(c.series!) ? { html: `peak ${esc(num((100 * (c.series!.peak! - c.series!.sustained!)) / c.series!.peak!))}% above sustained`, cls: 'failed' } : '–',
    `${c.series!.measurements.length}`]);
  return [
    figure(svg, `${unit === 'MiB/s' ? 'Throughput' : 'Operations per second'} over each measurement that kept a series, per interval (${esc(widthsOf(mine))}): one line per method (its repetition with the median sustained rate). ` +
      'Triangle: the peak interval; dashed line: the sustained rate, the median interval after the first 10% of the measurement. A peak far above the sustained rate is a burst that did not last.'),
    `<details><summary>Peak and sustained ${unit === 'MiB/s' ? 'throughput' : 'operations per second'}, medians over the repetitions that succeeded</summary>` +
      `${table(['case', 'method', 'peak (median)', 'sustained (median)', 'caveat', 'series'], rows)}</details>`,
  ];
}

async function html(ctx: PageContext): Promise<string> {
  const cells = seriesCells(ctx.model);
  if (!cells.length) {
    return noData('no measurement of this run lasted long enough (0.5 s or more, with enough operations) to keep an interval series.', 'Larger sizes or more files make longer measurements (s3ab run --series-interval sets the interval).');
  }
  const parts: string[] = [];
  for (const unit of ['MiB/s', 'ops/s'] as const) {
    const mine = cells.filter((c) => c.series!.unit === unit);
    if (mine.length) parts.push(...await unitParts(ctx, mine, unit));
  }
  return parts.join('\n');
}

export const overTimeSection: ReportSection = {
  id: 'over-time',
  title: 'Throughput over time',
  hasData: (model) => seriesCells(model).length > 0,
  html,
  // The text summary gives each series' sustained rate in its workload's table (workloads.ts).
  text: null,
};
