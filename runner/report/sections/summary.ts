import { isSupportCheck, verdictText } from '../analysis';
import { isVerdictOperation } from '../verdict-operations';
import { cacheShareOf } from '../cache-share';
import { esc } from '../html/format';
import { noData, table } from '../html/parts';
import { methodLabel } from '../../core/vocabulary';
import type { ReportModel } from '../model';
import { textTable, wrapText, type Column, type TextCell } from '../text/table';
import { verdicts } from '../verdicts';
import type { DataTable, PageContext, ReportSection, TextContext } from './section';

/** "Which method for which workload": the verdicts, judged from every case of the run. */

function html(ctx: PageContext): string {
  const recs = verdicts(ctx.model);
  if (!recs.length) return noData('this run has no successful measurements to compare.', 'Run a matrix with at least one workload.');
  const single = ctx.methods.length < 2;
  const reps = Math.max(0, ...ctx.model.workloads.map((w) => w.repetitions));
  const rows = recs.map((r) => [r.workload, r.case, { html: `<strong>${esc(r.best)}</strong>` }, r.margin, r.basis, { html: r.notes.map(esc).join('<br>'), cls: 'notes' }]);
  return `<p class="lead">Generated from this run's numbers: for each case the method with the best median, how far ahead of the next it is, and what limits the verdict. ` +
    `Where the min–max ranges over repetitions overlap the order could flip on another run.${reps < 3 ? ` <strong>Only ${reps} repetition${reps === 1 ? '' : 's'}: treat differences as indicative.</strong>` : ''}` +
    `${single ? ' <strong>Only one method ran: nothing to compare against.</strong>' : ''}</p>` +
    table(['workload', 'case', 'best', 'by how much', 'judged on', 'caveats'], rows, { cls: 'summary' });
}

function verdictLines({ model, width }: TextContext): string[] {
  const list = verdicts(model);
  if (!list.length) return [];
  const columns: Column[] = [{ head: 'workload' }, { head: 'case', wrap: true }, { head: 'best', wrap: true }, { head: 'by how much', wrap: true }];
  const rows = list.flatMap((v): TextCell[][] => [[v.workload, v.case, v.best, v.margin], ...(v.notes.length ? [['', { text: `· ${v.notes.join('; ')}`, span: 3 }]] : [])]);
  const fleets = model.scaling.length ? ' (fleets: Scaling out)' : '';
  return ['', ...wrapText(`Which method for which workload — one client${fleets}; the best median per case, by how much; · what limits the verdict`, width, '  '), ...textTable(columns, rows, width)];
}

const n = (v: number | null | undefined): number | null => (v === null || v === undefined ? null : v);

/** Every case of the run, unformatted: what the verdicts are judged from. */
function casesTable(model: ReportModel): DataTable {
  return {
    name: 'cases',
    columns: ['workload', 'operation', 'object_size_bytes', 'cache', 'method', 'method_variant', 'label', 'clients', 'comparable_key', 'records', 'repetitions', 'failed', 'unverified',
      'unsupported', 'not_applicable', 'did_not_finish', 'dnf_budget_s', 'dnf_done_share', 'dnf_extrapolated_s', 'support_check', 'verdict',
      'duration_ms_min', 'duration_ms_median', 'duration_ms_max', 'mib_s_median', 'ops_s_median', 'mean_us_median', 'p50_us_median', 'p95_us_median',
      'p99_us_median', 'delay_ms_median', 'sustained', 'peak', 'series_unit', 'served_from_cache', 'cache_share', 'cache_warning', 'network_capped', 'first_error'],
    // A verdict operation has an outcome and its line (verdict), no time or rate.
    rows: model.cells.map((c) => [
      c.workload, c.operation, c.object_size_bytes, c.cache, c.method, c.method_variant, methodLabel(c), c.clients, c.comparable_key, c.records, c.repetitions, c.failed_batches, c.unverified,
      c.unsupported, c.not_applicable, c.did_not_finish, n(c.dnf_budget_s), n(c.dnf_done_share), n(c.dnf_extrapolated_s), isSupportCheck(c),
      isVerdictOperation(c) ? verdictText(c) : null,
      ...(isVerdictOperation(c) ? Array<null>(10).fill(null) : [c.duration_ms_min, c.duration_ms_median, c.duration_ms_max, c.mib_s_median, c.ops_s_median,
        c.mean_us_median, c.p50_us_median, c.p95_us_median, c.p99_us_median, c.delay_ms_median]),
      n(c.series?.sustained), n(c.series?.peak), c.series?.unit ?? null, c.served_from_cache,
      n(cacheShareOf(model, c)?.share), cacheShareOf(model, c)?.warn ?? null, c.network_capped, c.first_error,
    ]),
  };
}

export const summarySection: ReportSection = {
  id: 'summary',
  title: 'Which method for which workload',
  hasData: (model) => verdicts(model).length > 0,
  html,
  text: { lines: verdictLines },
  tables: (model) => [
    casesTable(model),
    // The verdicts rank one client's figures only (the cases of clients = 1): fleets are in the scaling table.
    { name: 'verdicts', columns: ['workload', 'case', 'clients', 'best', 'margin', 'basis', 'caveats'], rows: verdicts(model).map((x) => [x.workload, x.case, 1, x.best, x.margin, x.basis, x.notes.join('; ')]) },
  ],
};
