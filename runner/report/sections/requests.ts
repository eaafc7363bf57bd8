import { isRequestsOnly, methodCacheLabel } from '../../core/vocabulary';
import { num } from '../format';
import { esc } from '../html/format';
import { cacheShareOf, cacheShareText, countsCell } from '../cache-share';
import { noData, table, type TCell } from '../html/parts';
import { type SizeLabels } from '../labels';
import { operationWithMode, type Row } from '../rows';
import type { ReportModel } from '../model';
import { REQUEST_PRICES } from '../pricing';
import {
  FLEET_UNCOUNTED, hasFleetSteps, MEASURED_COST_HEAD, requestCells, requestRowsShown, requestsCounted, REQUESTS_ONLY_NOTE, S3FILES_HEAD, s3filesCostText,
  s3filesFigures, s3filesMeteredText, s3filesNote,
} from '../requests';
import { textTable, wrapText, type Column } from '../text/table';
import type { DataTable, DataValue, PageContext, ReportSection, TextContext } from './section';

/**
 * "Requests and request cost": per case and method, the requests the server answered per operation
 * by type, GET bytes per byte read, and the request cost per 1,000 operations; the cache claims the
 * counts refuted; for s3files rows S3 Files' own metering, modelled (counted or not: on AWS the
 * records carry no counts); and what was not counted.
 */

const uncountedRows = (rows: Row[]) => rows.filter((r) => Number(r.not_counted) > 0);
const methodOf = (r: Row) => methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant), cache: r.cache });
/** The cache claims the counts refuted, as the page words them: the share served from a cache (whether it can change the verdict: its cell's), a warm read not warm. */
function flagsOf(r: Row, notWarm: string, model?: ReportModel): { text: string; warn: boolean } {
  const cell = model && Number(r.served_from_cache) ? model.cells.find((c) => countsCell(r, c)) : undefined;
  const share = cell && model ? cacheShareOf(model, cell) : null;
  const cached = !Number(r.served_from_cache) ? '' : share && share.share !== null ? cacheShareText(share) : 'served from cache';
  return { text: [cached, Number(r.not_warm) ? notWarm : ''].filter(Boolean).join(', '), warn: Number(r.not_warm) > 0 || (!!cached && (share?.warn ?? true)) };
}
const fleetClause = (model: ReportModel, says: (why: string) => string) => (hasFleetSteps(model) ? says(FLEET_UNCOUNTED) : '');

function noRequests(model: ReportModel): string {
  const what = uncountedRows(model.requests).length
    ? 'the requests of this run were not counted by the runner: it reads only the embedded server\'s access log' +
      fleetClause(model, (why) => `, and cannot tell apart the clients of a step run by several at once (${why})`) +
      ' (on AWS, `s3ab aws query requests` counts them from S3 server access logs once they are delivered).'
    : 'this run has no request counts.';
  return noData(what, 'The embedded server counts every measurement\'s S3 requests from its access log; on AWS, `s3ab aws query requests` counts them from S3 server access logs.');
}

/** A row of the page's table: the case, the method (flagged), the counted figures, and S3 Files' modelled ones where the table has them. */
function pageRow(r: Row, model: ReportModel, withS3Files: boolean): TCell[] {
  const sizes = model.sizes;
  const c = requestCells(r);
  const flags = flagsOf(r, 'not warm', model);
  const method = methodOf(r);
  const cells: TCell[] = [
    String(r.workload), operationWithMode(String(r.operation), r.io as string | null), r.object_size_bytes === null || r.object_size_bytes === undefined ? '–' : sizes.of(Number(r.object_size_bytes)),
    !flags.text ? method : flags.warn ? { html: `${esc(method)} <span class="flag-cache">⚠ ${esc(flags.text)}</span>`, cls: 'cached' } : { html: `${esc(method)} <span class="cache-share">${esc(flags.text)}</span>` },
    c ? c.ops : num(Number(r.all_ops)), c ? c.requests : 'not counted', c ? c.getBytes : '–', c ? c.cost : 'not counted',
  ];
  if (withS3Files) {
    const m = s3filesFigures(r);
    cells.push(m ? s3filesMeteredText(m) : '–', m ? { html: esc(s3filesCostText(m)), cls: 'modelled', title: 'modelled (S3 Files metering): not measured' } : '–');
  }
  return cells;
}

function html(ctx: PageContext): string {
  const rows = ctx.model.requests;
  const shown = requestRowsShown(rows);
  if (!shown.length) return noRequests(ctx.model);
  const uncounted = uncountedRows(rows);
  const withS3Files = shown.some((r) => s3filesFigures(r) !== null);
  // A counted row with nothing to show (no operations, no requests) is left out, as in the text summary.
  const body = shown.filter((r) => !requestsCounted(r) || requestCells(r)).map((r) => pageRow(r, ctx.model, withS3Files));
  const head = ['workload', 'operation', 'size', 'method', 'ops', 'requests per operation', 'GET bytes / byte read', withS3Files ? MEASURED_COST_HEAD : '$ per 1,000 ops'];
  const parts = [table(withS3Files ? [...head, ...S3FILES_HEAD] : head, body, {
    caption: `S3 requests the server answered per operation (summed over repetitions), by type; GET bytes sent per byte the operations read (read amplification); request cost per 1,000 operations at S3 Standard request prices, ${REQUEST_PRICES.region} (${REQUEST_PRICES.date}). "N% from cache": a cold read for which the server sent fewer GET bytes than were read, the share it did not send (⚠ where that share could change the verdict).`,
  })];
  if (shown.some((r) => isRequestsOnly(String(r.operation)))) parts.push(`<p>${esc(REQUESTS_ONLY_NOTE)}</p>`);
  if (withS3Files) parts.push(`<p class="modelled-note">${esc(s3filesNote())}</p>`);
  if (uncounted.length) parts.push(`<p>Not counted: ${esc([...new Set(uncounted.map((r) => String(r.method)))].join(', '))} (the runner reads only the embedded server's access log${fleetClause(ctx.model, (why) => `, and cannot tell apart the clients of a step run by several at once: ${why}`)}; on AWS, \`s3ab aws query requests\` counts them from S3 server access logs).</p>`);
  return parts.join('\n');
}

/** The case a request_counts row counts: workload, operation and size (as given). */
const caseOf = (r: Row, sizes: SizeLabels) => `${r.workload} ${operationWithMode(String(r.operation), r.io as string | null)}${r.object_size_bytes === null || r.object_size_bytes === undefined ? '' : ` ${sizes.of(Number(r.object_size_bytes))}`}`;

function countedLines(model: ReportModel, shown: Row[], width: number): string[] {
  const body = shown.flatMap((r) => {
    const c = requestCells(r);
    if (!c) return [];
    const flags = flagsOf(r, 'NOT WARM', model);
    return [[caseOf(r, model.sizes), methodOf(r) + (flags.text ? ` (${flags.text})` : ''), c.ops, c.requests, c.getBytes, c.cost]];
  });
  const columns: Column[] = [
    { head: 'case', wrap: true }, { head: 'method', wrap: true }, { head: 'ops', align: 'right' }, { head: 'requests per operation', wrap: true },
    { head: 'GET B/B', align: 'right' }, { head: '$/1k ops', align: 'right' },
  ];
  return [
    ...textTable(columns, body, width),
    ...wrapText('"GET B/B": GET bytes the server sent per byte the operations read; "$/1k ops": request cost per 1,000 operations. "N% from cache": a cold read for which the server sent fewer GET bytes than were read, the share it did not send; "NOT WARM": a warm read it sent every byte for again.', width),
    ...(shown.some((r) => isRequestsOnly(String(r.operation))) ? wrapText(REQUESTS_ONLY_NOTE, width) : []),
  ];
}

function modelledLines(model: ReportModel, modelled: Row[], width: number): string[] {
  const columns: Column[] = [{ head: 'case', wrap: true }, { head: 'method', wrap: true }, { head: 'ops', align: 'right' }, { head: 'metered per operation', wrap: true }, { head: '$/1k ops', align: 'right' }];
  return [
    '', ...wrapText('S3 Files metering, modelled (not measured) — per operation of the s3files rows', width, '  '),
    ...textTable(columns, modelled.map((r) => {
      const m = s3filesFigures(r)!;
      return [caseOf(r, model.sizes), methodOf(r), num(requestsCounted(r) ? r.ops : r.all_ops), s3filesMeteredText(m), s3filesCostText(m)];
    }), width),
    ...wrapText(s3filesNote(), width),
  ];
}

function uncountedLines(model: ReportModel, uncounted: Row[], width: number): string[] {
  const methods = [...new Set(uncounted.map((r) => methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant) }, false)))];
  return wrapText(`requests: not counted for ${methods.join(', ')} (${uncounted.reduce((n, r) => n + Number(r.not_counted), 0)} measurements): the runner reads only the embedded server's access log (not a named endpoint's)${fleetClause(model, (why) => `, and cannot tell apart the clients of a step run by several at once (${why})`)}; on AWS, \`s3ab aws query requests\` counts them from S3 server access logs`, width, '    ');
}

/** The text form: the counted table, S3 Files' modelled metering apart, and what was not counted. */
export function requestsLines({ model, width }: TextContext): string[] {
  const rows = model.requests;
  if (!rows.length) return [];
  const shown = requestRowsShown(rows).filter(requestsCounted);
  const modelled = requestRowsShown(rows).filter((r) => s3filesFigures(r)?.modelled === true);
  const uncounted = uncountedRows(rows);
  return [
    '', ...wrapText(`Requests and request cost — S3 requests the server answered per operation, summed over repetitions; cost at S3 Standard request prices, ${REQUEST_PRICES.region} (${REQUEST_PRICES.date})`, width, '  '),
    ...(shown.length ? countedLines(model, shown, width) : []),
    ...(modelled.length ? modelledLines(model, modelled, width) : []),
    ...(uncounted.length ? uncountedLines(model, uncounted, width) : []),
  ];
}

function requestTables(model: ReportModel): DataTable[] {
  const columns = model.requests.length ? Object.keys(model.requests[0]) : [];
  return [{ name: 'requests', columns, rows: model.requests.map((r) => columns.map((k) => (r[k] ?? null) as DataValue)) }];
}

export const requestsSection: ReportSection = {
  id: 'requests',
  title: 'Requests and request cost',
  hasData: (model) => requestRowsShown(model.requests).length > 0,
  html,
  text: { lines: requestsLines },
  tables: requestTables,
};
