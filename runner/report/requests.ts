import prices from '../../assets/prices.json';
import { REQUEST_TIER } from '../core/request-types';
import { isRequestsOnly } from '../core/vocabulary';
import { bytesText, dollars, num } from './format';
import { methodCacheLabel, type SizeLabels } from './labels';
import type { ReportModel } from './model';
import { textTable, wrapText, type Column } from './text/table';
import { DIRECT_READ_CUTOFF_BYTES, METER_CATEGORIES, METER_LABELS, meterS3Files, S3FILES_PRICES, type S3FilesModel } from './s3files-metering';

type Row = Record<string, unknown>;

/** The request types' columns of the request_counts query, with their labels and price tier (assets/prices.json). */
export const REQUEST_COLUMNS = ([
  { column: 'get', label: 'GET' }, { column: 'get_ranged', label: 'ranged GET' },
  { column: 'put', label: 'PUT' }, { column: 'mpu_create', label: 'MPU create' },
  { column: 'mpu_part', label: 'MPU part' }, { column: 'mpu_complete', label: 'MPU complete' },
  { column: 'mpu_abort', label: 'MPU abort' }, { column: 'head', label: 'HEAD' },
  { column: 'list', label: 'LIST' }, { column: 'delete_requests', label: 'DELETE' },
  { column: 'copy', label: 'COPY' }, { column: 'other', label: 'other' },
] as const).map((c) => ({ ...c, tier: REQUEST_TIER[c.column === 'delete_requests' ? 'delete' : c.column] }));
const TYPES = REQUEST_COLUMNS;

/** The request prices (assets/prices.json): region, date, source and the price of each tier. */
export const REQUEST_PRICES = prices;
const PRICE = prices.s3StandardRequestsPer1000;

/** What a row's counts say per operation: requests by type, GET bytes per byte read, request cost per 1,000 operations. */
export interface RequestFigures {
  perOp: { label: string; value: number }[];
  totalPerOp: number;
  /** GET bytes the server sent per byte the operations read (read amplification), or null when they read nothing. */
  getBytesPerByteRead: number | null;
  /** At S3 Standard request prices of prices.region, in USD. */
  costPer1000Ops: number;
}

export function requestFigures(row: Row): RequestFigures | null {
  const ops = Number(row.ops ?? 0);
  if (!ops) return null;
  const perOp = TYPES.map((t) => ({ label: t.label, value: Number(row[t.column] ?? 0) / ops })).filter((t) => t.value > 0);
  const cost = TYPES.reduce((sum, t) => sum + Number(row[t.column] ?? 0) * PRICE[t.tier], 0) / ops;
  const bytes = Number(row.bytes ?? 0);
  const reads = Number(row.get ?? 0) + Number(row.get_ranged ?? 0);
  return {
    perOp, totalPerOp: perOp.reduce((s, t) => s + t.value, 0),
    getBytesPerByteRead: reads > 0 && bytes > 0 ? Number(row.get_bytes ?? 0) / bytes : null,
    costPer1000Ops: cost,
  };
}

/**
 * The request cells of a row, as both printers show them: operations, requests per operation by
 * type, GET bytes per byte read, cost per 1,000 operations. A row of requests only (no measurement:
 * the requests outside a step's measurements, a probe's setup) has no operations: its requests and
 * their cost are given in all. Null when the row's requests were not counted or it has nothing to show.
 */
export function requestCells(row: Row): { ops: string; requests: string; getBytes: string; cost: string } | null {
  if (!requestsCounted(row)) return null;
  const types = (per: number) => TYPES.map((t) => ({ label: t.label, value: Number(row[t.column] ?? 0) / per })).filter((t) => t.value > 0);
  if (isRequestsOnly(String(row.operation))) {
    const all = types(1);
    if (!all.length) return null;
    // Prices are per 1,000 requests.
    const cost = TYPES.reduce((sum, t) => sum + Number(row[t.column] ?? 0) * PRICE[t.tier], 0) / 1000;
    return { ops: '–', requests: `in all: ${all.map((t) => `${t.label} ${num(t.value)}`).join(', ')}`, getBytes: '–', cost: `${dollars(cost)} in all` };
  }
  const f = requestFigures(row);
  if (!f) return null;
  return {
    ops: num(Number(row.ops)), requests: f.perOp.length ? f.perOp.map((t) => `${t.label} ${num(t.value)}`).join(', ') : 'none',
    getBytes: f.getBytesPerByteRead === null ? '–' : num(f.getBytesPerByteRead), cost: dollars(f.costPer1000Ops),
  };
}

/** A request_counts value as a number; null for SQL NULL (DuckDB's null, Athena's absent value). */
const numberOrNull = (v: unknown): number | null => (v === null || v === undefined || v === '' ? null : Number(v));

/**
 * The modelled S3 Files metering of a request_counts row (runner/report/s3files-metering.ts): null
 * for any method but s3files. Its input is every measurement's operations and bytes, counted or
 * not (all_ops, all_bytes): on AWS the records carry no request counts, the model needs none.
 */
export function s3filesFigures(row: Row): S3FilesModel | null {
  return meterS3Files({
    method: String(row.method), workload: String(row.workload), operation: String(row.operation),
    objectSizeBytes: numberOrNull(row.object_size_bytes), ops: numberOrNull(row.all_ops) ?? numberOrNull(row.ops) ?? 0,
    bytes: numberOrNull(row.all_bytes) ?? numberOrNull(row.bytes) ?? 0, files: numberOrNull(row.files),
  });
}

/** Whether the server counted a row's requests (in at least one of its measurements). */
export const requestsCounted = (row: Row): boolean => Number(row.not_counted) < Number(row.measurements);

/** The rows the table shows: those with counted requests, and s3files rows the metering model covers (counted or not). */
export function requestRowsShown(rows: Row[]): Row[] {
  return rows.filter((r) => requestsCounted(r) || s3filesFigures(r)?.modelled === true);
}

/** What the rows of requests only are, under the table (text summary and HTML page alike). */
export const REQUESTS_ONLY_NOTE = 'Operations in parentheses are no measurement: "(outside measurements)" is what the client sent in a step outside every measurement '
  + '(mounting, readiness, fixture checks, a priming pass, unmounting); "(probe setup)" the files the semantics probes work on, created before each probe; '
  + '"(after probes)" the remount and checks after the last probe, and uploads that landed late. Their requests and cost are given in all.';

/** The columns the table gains when it has s3files rows: the modelled figure beside the measured one. */
export const S3FILES_HEAD = ['S3 Files metered per operation (modelled)', 'S3 Files $ per 1,000 ops — modelled (S3 Files metering)'];
/** The measured cost's header when the modelled one stands beside it. */
export const MEASURED_COST_HEAD = '$ per 1,000 ops (S3 requests, measured)';

/** "data read 1 (32 KiB), metadata read 1 (4 KiB)": metered operations and bytes per operation, and the reads streamed from the bucket. */
export function s3filesMeteredText(m: S3FilesModel): string {
  if (!m.modelled) return `not modelled: ${m.reason}`;
  const parts = METER_CATEGORIES.filter((k) => m.perOp[k].ops > 0).map((k) => `${METER_LABELS[k]} ${num(m.perOp[k].ops)} (${bytesText(m.perOp[k].bytes)})`);
  if (m.directReadsPerOp > 0) parts.push(`${num(m.directReadsPerOp)} read${m.directReadsPerOp === 1 ? '' : 's'} streamed from the bucket (S3 GETs, no data read)`);
  return parts.length ? parts.join(', ') : 'nothing metered';
}

/** The modelled cost cell: dollars per 1,000 operations, or '–' where not modelled. */
export const s3filesCostText = (m: S3FilesModel): string => (m.modelled ? dollars(m.costPer1000Ops) : '–');

/** What the modelled figure is, under the table (text summary and HTML page alike). */
export function s3filesNote(): string {
  const p = S3FILES_PRICES;
  return `modelled (S3 Files metering): S3 Files' own charge for the file operations, besides its S3 requests — from AWS's published metering rules, not a bill: `
    + `data reads and writes metered at their size rounded up to 1 KiB, at least 32 KiB, metadata operations at 4 KiB; reads of ${DIRECT_READ_CUTOFF_BYTES / 1024 / 1024} MiB or more of data in the bucket, `
    + `and every read of a file only in the bucket, stream from it (an S3 GET and a metadata read, no data read); writes are charged again as reads when exported to the bucket; `
    + `at $${p.readPerGB}/GB read, $${p.writePerGB}/GB write (${p.region}, ${p.date}; AWS's pricing page as quoted by third parties). `
    + 'A warm pass counts every read, though the NFS client may serve some from its cache; one-time imports of S3-written files and storage are left out.';
}

/** The case a request_counts row counts: workload, operation and size (as given). */
const caseOf = (r: Row, sizes: SizeLabels) => `${r.workload} ${r.operation}${r.object_size_bytes === null || r.object_size_bytes === undefined ? '' : ` ${sizes.of(Number(r.object_size_bytes))}`}`;
const methodOf = (r: Row) => methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant), cache: r.cache });

/** Why a fleet step's requests are not counted, where the report says so. */
export const FLEET_UNCOUNTED = 'they share the server\'s log: their records say null';

/** The run has a step measured by several clients (or runners) at once. */
export const hasFleetSteps = (model: Pick<ReportModel, 'scaling'>) => model.scaling.length > 0;

/**
 * "Requests and request cost": per case and method, the requests the server answered per
 * operation by type, GET bytes per byte read, and the request cost per 1,000 operations; the cache
 * claims the counts refuted; S3 Files' modelled metering apart; and what was not counted.
 */
export function requestsLines(model: ReportModel, width: number): string[] {
  const rows = model.requests;
  if (!rows.length) return [];
  const shown = requestRowsShown(rows).filter(requestsCounted);
  const modelled = requestRowsShown(rows).filter((r) => s3filesFigures(r)?.modelled === true);
  const uncounted = rows.filter((r) => Number(r.not_counted) > 0);
  const out = ['', ...wrapText(`Requests and request cost — S3 requests the server answered per operation, summed over repetitions; cost at S3 Standard request prices, ${prices.region} (${prices.date})`, width, '  ')];
  if (shown.length) {
    const body = shown.flatMap((r) => {
      const c = requestCells(r);
      if (!c) return [];
      const flags = [Number(r.served_from_cache) ? 'served from cache' : '', Number(r.not_warm) ? 'NOT WARM' : ''].filter(Boolean).join(', ');
      return [[caseOf(r, model.sizes), methodOf(r) + (flags ? ` (${flags})` : ''), c.ops, c.requests, c.getBytes, c.cost]];
    });
    const columns: Column[] = [
      { head: 'case', wrap: true }, { head: 'method', wrap: true }, { head: 'ops', align: 'right' }, { head: 'requests per operation', wrap: true },
      { head: 'GET B/B', align: 'right' }, { head: '$/1k ops', align: 'right' },
    ];
    out.push(...textTable(columns, body, width));
    out.push(...wrapText('"GET B/B": GET bytes the server sent per byte the operations read; "$/1k ops": request cost per 1,000 operations. "served from cache": a cold read for which the server sent fewer GET bytes than were read; "NOT WARM": a warm read it sent every byte for again.', width));
    if (shown.some((r) => isRequestsOnly(String(r.operation)))) out.push(...wrapText(REQUESTS_ONLY_NOTE, width));
  }
  if (modelled.length) {
    out.push('', ...wrapText('S3 Files metering, modelled (not measured) — per operation of the s3files rows', width, '  '));
    const columns: Column[] = [{ head: 'case', wrap: true }, { head: 'method', wrap: true }, { head: 'ops', align: 'right' }, { head: 'metered per operation', wrap: true }, { head: '$/1k ops', align: 'right' }];
    out.push(...textTable(columns, modelled.map((r) => {
      const m = s3filesFigures(r)!;
      return [caseOf(r, model.sizes), methodOf(r), num(requestsCounted(r) ? r.ops : r.all_ops), s3filesMeteredText(m), s3filesCostText(m)];
    }), width));
    out.push(...wrapText(s3filesNote(), width));
  }
  if (uncounted.length) {
    const methods = [...new Set(uncounted.map((r) => methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant) }, false)))];
    out.push(...wrapText(`requests: not counted for ${methods.join(', ')} (${uncounted.reduce((n, r) => n + Number(r.not_counted), 0)} measurements): the runner reads only the embedded server's access log (not a named endpoint's)${hasFleetSteps(model) ? `, and cannot tell apart the clients of a step run by several at once (${FLEET_UNCOUNTED})` : ''}; on AWS, \`s3ab aws query requests\` counts them from S3 server access logs`, width, '    '));
  }
  return out;
}
