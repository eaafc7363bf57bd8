import { measured, tableOf } from '../analysis';
import { latencyText, num, percentText, ratio } from '../format';
import { rangeDotSpec, type RangePoint } from '../html/charts';
import { esc } from '../html/format';
import { figure, noData, table, type TCell } from '../html/parts';
import { methodLabel } from '../../core/vocabulary';
import type { Cell, ReportModel } from '../model';
import { byOrder, operationOrder } from '../order';
import type { PageContext, ReportSection } from './section';

/** "Metadata operations": seed 002's suite, operations per second per test and method. */

const metadataCells = (model: ReportModel) => model.cells.filter((c) => tableOf(c.workload) === 'metadata-suite' && c.not_applicable < c.records);
const success = (c: Cell) => percentText(c.ops ? c.ok / c.ops : null);

function chartPoints(cells: Cell[]): RangePoint[] {
  return cells.map((c) => {
    const ops = measured(c) ? c.ops_s_median : c.ops_s_partial_median;
    const note = c.unsupported === c.records ? 'not supported' : `${success(c)} ok`;
    return { row: c.operation, method: methodLabel(c), median: ops ?? 0, lo: measured(c) ? c.ops_s_min ?? ops ?? 0 : ops ?? 0, hi: measured(c) ? c.ops_s_max ?? ops ?? 0 : ops ?? 0, note };
  });
}

/** A method's three cells of a test: operations/s, latency, success rate (or why there are none). */
function methodCells(c: Cell | undefined): TCell[] {
  if (!c) return ['–', '–', '–'];
  if (c.unsupported === c.records) return [{ html: 'not supported', cls: 'unsupported', title: c.first_error ?? '' }, '–', { html: '0%', cls: 'unsupported' }];
  if (!measured(c)) return [{ html: `${esc(num(c.ops_s_partial_median))} (partial)`, cls: 'failed', title: c.first_error ?? '' }, '–', { html: esc(success(c)), cls: 'failed', title: c.first_error ?? '' }];
  return [num(c.ops_s_median), latencyText(c.mean_us_median), { html: esc(success(c)), cls: c.ok < c.ops ? 'failed' : undefined }];
}

function suiteTable(cells: Cell[], tests: string[], methods: string[]): string {
  const at = (t: string, m: string) => cells.find((c) => c.operation === t && methodLabel(c) === m);
  const [a, ...others] = methods;
  const head = ['test', ...methods.flatMap((m) => [`${m} ops/s`, `${m} latency`, `${m} ok`]), ...others.map((b) => `${a} vs ${b}`)];
  const rows = tests.map((t) => [t, ...methods.flatMap((m) => methodCells(at(t, m))), ...others.map((b) => {
    const ca = at(t, a);
    const cb = at(t, b);
    return ratio(ca && measured(ca) ? ca.ops_s_median : null, cb && measured(cb) ? cb.ops_s_median : null);
  })]);
  return table(head, rows, { caption: 'Metadata suite in seed 002\'s form; "A vs B" is A\'s operations/s over B\'s.' });
}

async function html(ctx: PageContext): Promise<string> {
  const cells = metadataCells(ctx.model);
  if (!cells.length) return noData('this run has no metadata measurements.', 'The metadata workload (seed 002) runs on mount methods: s3ab run --workloads metadata.');
  const tests = operationOrder(cells[0].workload, cells.map((c) => c.operation));
  const methods = byOrder([...new Set(cells.map(methodLabel))], ctx.methods, (m) => m);
  const svg = await ctx.charts.svg(rangeDotSpec({ points: chartPoints(cells), rows: tests, xTitle: 'operations/s (log scale)', colors: ctx.colors, methods }));
  return figure(svg, 'Operations per second per metadata test (seed 002): dot = median over repetitions, line = min–max; the label gives the success rate (ok / attempted). Partial results are drawn from the operations that succeeded.') +
    suiteTable(cells, tests, methods);
}

export const metadataSection: ReportSection = {
  id: 'metadata',
  title: 'Metadata operations',
  hasData: (model) => metadataCells(model).length > 0,
  html,
  // The text summary prints the suite's table in the workloads' text, in workload order (workloads.ts).
  text: null,
};
