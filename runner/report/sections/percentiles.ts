import { measured, tableOf } from '../analysis';
import { latencyText } from '../format';
import { percentileSpec, type PercentilePoint } from '../html/charts';
import { esc, slug } from '../html/format';
import { figure, noData, table, workloadHeading } from '../html/parts';
import { caseLabel } from '../labels';
import type { Cell, ReportModel } from '../model';
import { byOrder, operationOrder } from '../order';
import { cacheRank, methodLabel } from '../../core/vocabulary';
import type { PageContext, ReportSection } from './section';

/** "Latency percentiles": p50, p95 and p99 per operation and method, a chart and a table per workload. */

const latencyCells = (model: ReportModel) =>
  model.cells.filter((c) => measured(c) && (c.p50_us_median ?? 0) > 0 && (c.p99_us_median ?? 0) > 0 && tableOf(c.workload) !== 'semantics');

const bySizeAndCache = (a: Cell, b: Cell) => (a.object_size_bytes ?? 0) - (b.object_size_bytes ?? 0) || cacheRank(a.cache) - cacheRank(b.cache);

/** The table: a row per case, each method's "p50 / p95 / p99". */
function percentileTable(ordered: Cell[], methods: string[], ctx: PageContext): string {
  const keyOf = (c: Cell) => `${c.operation}\u0000${c.object_size_bytes}\u0000${c.cache}`;
  const rows = [...new Set(ordered.map(keyOf))].map((k) => {
    const group = ordered.filter((c) => keyOf(c) === k);
    return [caseLabel(group[0], ctx.model.sizes), ...methods.map((m) => {
      const c = group.find((x) => methodLabel(x) === m);
      return c ? `${latencyText(c.p50_us_median)} / ${latencyText(c.p95_us_median)} / ${latencyText(c.p99_us_median)}` : '–';
    })];
  });
  return table(['operation', ...methods.map((m) => `${m} p50 / p95 / p99`)], rows);
}

async function workloadPart(ctx: PageContext, workload: string, mine: Cell[]): Promise<string> {
  const ops = operationOrder(workload, mine.map((c) => c.operation));
  // Size sweeps: one column per operation, a row per size; otherwise a row per operation.
  const swept = ctx.sweeps.some((g) => g.workload === workload);
  const ordered = [...mine].sort((a, b) => ops.indexOf(a.operation) - ops.indexOf(b.operation) || bySizeAndCache(a, b));
  const sizes = ctx.model.sizes;
  const rowOf = (c: Cell) => (swept ? `${sizes.of(c.object_size_bytes)}${c.cache !== 'none' ? ` (${c.cache})` : ''}` : caseLabel(c, sizes, tableOf(workload) !== 'metadata-suite' && new Set(mine.map((x) => x.object_size_bytes)).size > 1));
  const panelOf = (c: Cell) => (swept ? c.operation : workload);
  const rows = [...new Set([...ordered].sort(bySizeAndCache).map(rowOf))];
  const methods = byOrder([...new Set(mine.map(methodLabel))], ctx.methods, (m) => m);
  const points: PercentilePoint[] = mine.map((c) => ({ panel: panelOf(c), row: rowOf(c), method: methodLabel(c), p50: c.p50_us_median!, p95: c.p95_us_median!, p99: c.p99_us_median! }));
  const svg = await ctx.charts.svg(percentileSpec({ points, rows: swept ? rows : [...new Set(ordered.map(rowOf))], panels: swept ? ops : [workload], colors: ctx.colors, methods }));
  return workloadHeading(workload, `percentiles-${slug(workload)}`) + figure(svg, `Latency percentiles of ${esc(workload)}.`) +
    `<details><summary>${esc(workload)}: p50 / p95 / p99 table</summary>${percentileTable(ordered, methods, ctx)}</details>`;
}

async function html(ctx: PageContext): Promise<string> {
  const cells = latencyCells(ctx.model);
  if (!cells.length) return noData('no per-operation latencies were recorded in this run.', 'Workloads that time single operations record p50/p95/p99.');
  const parts: string[] = ['<p class="lead">Per operation: p50 (circle), p95 (triangle) and p99 (square) of each method, medians over repetitions; the line spans p50 to p99. Log scale.</p>'];
  for (const workload of [...new Set(cells.map((c) => c.workload))]) parts.push(await workloadPart(ctx, workload, cells.filter((c) => c.workload === workload)));
  return parts.join('\n');
}

export const percentilesSection: ReportSection = {
  id: 'percentiles',
  title: 'Latency percentiles',
  hasData: (model) => latencyCells(model).length > 0,
  html,
  // The text summary gives each case's p99 in its workload's table (workloads.ts).
  text: null,
};
