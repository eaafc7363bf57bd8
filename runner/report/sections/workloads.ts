import { groupCaseLabels, isSupportCheck, isUntimed, jobCells, measured, ranked, sizeSweeps, verdictText } from '../analysis';
import { isVerdictOperation } from '../verdict-operations';
import { dnfText, latencyText, num, spreadText } from '../format';
import { rangeDotSpec, type RangePoint } from '../html/charts';
import { esc } from '../html/format';
import { cacheShareOf, type CacheShare } from '../cache-share';
import { figure, noData, table, withFlag, type TCell } from '../html/parts';
import { methodLabel } from '../../core/vocabulary';
import type { Cell, ReportModel } from '../model';
import { wideLines } from '../text/wide';
import { workloadTableLines } from '../text/workload-tables';
import type { PageContext, ReportSection, TextContext } from './section';

/**
 * "Workload times": every timed job besides the size sweeps, on the page. In the text summary this
 * section prints every workload's table, in the order the workloads ran — size sweeps, metadata and
 * semantics included, as the seeds print them — long, or with `--wide` methods across.
 */

/** The jobs of the page's section: besides the size sweeps, split into those that ran and those that could not apply. */
function jobs(model: ReportModel) {
  const all = jobCells(model.cells, sizeSweeps(model.cells));
  return { ran: all.filter((c) => c.not_applicable < c.records), notApplicable: all.filter((c) => c.not_applicable === c.records) };
}

/** A job's status cell: not supported, failed, did not finish (with what it reached), lost repetitions, a support check, or ok. */
function jobStatus(c: Cell): TCell {
  if (isVerdictOperation(c)) return { html: esc(verdictText(c)), cls: c.repetitions ? 'supported' : 'unsupported', title: 'a verdict over the other figures: untimed' };
  if (c.unsupported === c.records) return { html: 'not supported', cls: 'unsupported', title: c.first_error ?? '' };
  // A check's failure is what it found about the method (a finding), not a broken measurement.
  if (isSupportCheck(c)) return c.failed_batches ? { html: 'not kept', cls: 'failed', title: c.first_error ?? '' } : measured(c) ? { html: 'kept', cls: 'supported', title: 'a support check: untimed' } : 'FAILED';
  const dnf = c.did_not_finish ? dnfText({ budgetS: c.dnf_budget_s, doneShare: c.dnf_done_share, extrapolatedS: c.dnf_extrapolated_s }) : '';
  if (!measured(c) && dnf) return { html: esc(dnf), cls: 'dnf', title: 'the step\'s time budget ran out: an extrapolation, not a measurement; never ranked' };
  if (!measured(c)) return { html: 'FAILED', cls: 'failed', title: c.first_error ?? '' };
  if (dnf) return { html: esc(`${c.did_not_finish} ${dnf}`), cls: 'dnf' };
  return c.failed_batches ? { html: `${c.failed_batches} failed`, cls: 'failed', title: c.first_error ?? '' } : 'ok';
}

/** What the chart writes beside a job that has no time: why not, or a support check's verdict. */
function pointNote(c: Cell): string | undefined {
  if (isVerdictOperation(c)) return verdictText({ ...c, first_error: null });
  if (!measured(c)) return c.unsupported ? 'not supported' : c.did_not_finish ? 'did not finish' : 'failed';
  if (isSupportCheck(c)) return c.failed_batches ? 'not kept' : 'kept';
  return c.failed_batches ? `${c.failed_batches} failed` : undefined;
}

async function timesChart(ctx: PageContext, cells: Cell[], rowOf: (c: Cell) => string, rowsOrder: string[]): Promise<string[]> {
  // Support checks (tar-extract's permissions, timestamps...) have no time: drawn as a verdict.
  const points: RangePoint[] = cells.map((c) => ({
    row: rowOf(c), method: methodLabel(c), median: isUntimed(c) ? 0 : c.duration_ms_median ?? 0, lo: c.duration_ms_min ?? 0, hi: c.duration_ms_max ?? 0, note: pointNote(c),
  }));
  if (!points.length) return [];
  const svg = await ctx.charts.svg(rangeDotSpec({ points, rows: rowsOrder.filter((r) => points.some((p) => p.row === r)), xTitle: 'time per batch (ms, log scale)', colors: ctx.colors, methods: ctx.methods }));
  return [figure(svg, 'Time per batch for every other workload (seeds 001–004): dot = median over repetitions, line = min–max; lower is faster. Measurements that did not finish are not drawn.')];
}

function timesTable(cells: Cell[], rowOf: (c: Cell) => string, rowsOrder: string[], cacheOf: (c: Cell) => CacheShare | null): string {
  const rows: TCell[][] = [];
  for (const r of rowsOrder) {
    const group = cells.filter((c) => rowOf(c) === r);
    const best = Math.min(...group.filter(ranked).map((c) => c.duration_ms_median ?? Infinity));
    for (const c of group) {
      const timed = measured(c) && !isUntimed(c);
      rows.push([r, methodLabel(c), String(c.distinct_repetitions), !timed ? (isUntimed(c) ? 'not timed' : '–') : spreadText(c.duration_ms_min, c.duration_ms_median, c.duration_ms_max),
        ...(isVerdictOperation(c) ? ['–', '–', '–', '–', '–'] : [withFlag(num(c.mib_s_median), cacheOf(c), c.network_capped > 0), num(c.ops_s_median), latencyText(c.p50_us_median), latencyText(c.p99_us_median),
          c.series?.sustained !== null && c.series ? `${num(c.series.sustained)} ${c.series.unit}` : '–']),
        timed && ranked(c) && c.duration_ms_median ? `${num(c.duration_ms_median / best)}x` : '–', jobStatus(c)]);
    }
  }
  return table(['workload · operation', 'method', 'reps', 'time min–median–max', 'MiB/s', 'ops/s', 'p50', 'p99', 'sustained', 'vs best', 'status'], rows,
    { caption: '"vs best": median time relative to the fastest method for that row (1x = fastest); "sustained": the median interval rate after the first 10% of the measurement, where it kept a series. Measurements that did not finish show what they reached and are never ranked.' });
}

function notApplicableNote(notApplicable: Cell[]): string[] {
  if (!notApplicable.length) return [];
  const byWorkload = new Map<string, Set<string>>();
  for (const c of notApplicable) byWorkload.set(c.workload, (byWorkload.get(c.workload) ?? new Set()).add(methodLabel(c)));
  return [`<p class="lead">Not applicable (the workload needs a file system): ${esc([...byWorkload].map(([w, ms]) => `${w} for ${[...ms].join(', ')}`).join('; '))}.</p>`];
}

async function html(ctx: PageContext): Promise<string> {
  const { ran: cells, notApplicable } = jobs(ctx.model);
  if (!cells.length) return noData('this run has no timed jobs besides the size sweeps.', 'dir-walk, large-read, small-reads, git-clone, tar-extract, web-serving and read-scaling report here.');
  // One row per case: object methods (no cache) with the mounts' cold figures, so "vs best" spans both.
  const caseOf = groupCaseLabels(cells, ctx.model.sizes);
  const rowOf = (c: Cell) => `${c.workload} · ${caseOf(c)}`;
  const rowsOrder = [...new Set(cells.map(rowOf))];
  return [...await timesChart(ctx, cells, rowOf, rowsOrder), timesTable(cells, rowOf, rowsOrder, (c) => cacheShareOf(ctx.model, c)), ...notApplicableNote(notApplicable)].join('\n');
}

export const workloadsSection: ReportSection = {
  id: 'workloads',
  title: 'Workload times (1 client)',
  hasData: (model) => jobs(model).ran.length > 0,
  html,
  text: { lines: ({ model, width, wide }: TextContext) => (wide ? wideLines(model) : workloadTableLines(model, width)) },
};
