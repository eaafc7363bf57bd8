import { isRequestsOnly } from '../core/vocabulary';
import { bytesText, dollars, num } from './format';
import type { ReportModel } from './model';
import { verdictOperationsOf } from './verdict-operations';
import { requestsByType, requestsCost, requestFigures } from './pricing';
import { DIRECT_READ_CUTOFF_BYTES, METER_LABELS, meterS3Files, S3FILES_PRICES, type S3FilesModel } from './s3files-metering';
import { METER_CATEGORIES } from '../core/s3files-meter';

/**
 * The request_counts rows as the page and the text summary show them: which rows, their cells
 * (what they cost is pricing.ts's), S3 Files' modelled metering beside them, and the notes under the table.
 */

type Row = Record<string, unknown>;

/**
 * The request cells of a row, as both printers show them: operations, requests per operation by
 * type, GET bytes per byte read, cost per 1,000 operations. A row of requests only (no measurement:
 * the requests outside a step's measurements, a probe's setup) has no operations: its requests and
 * their cost are given in all. Null when the row's requests were not counted or it has nothing to show.
 */
export function requestCells(row: Row): { ops: string; requests: string; getBytes: string; cost: string } | null {
  if (!requestsCounted(row)) return null;
  if (isRequestsOnly(String(row.operation))) {
    const all = requestsByType(row, 1);
    if (!all.length) return null;
    return { ops: '–', requests: `in all: ${all.map((t) => `${t.label} ${num(t.value)}`).join(', ')}`, getBytes: '–', cost: `${dollars(requestsCost(row))} in all` };
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

/**
 * The rows the table shows: those with counted requests, and s3files rows the metering model covers
 * (counted or not). Never a verdict operation's: it sends nothing, and its "operations" are the figures it compares.
 */
export function requestRowsShown(rows: Row[]): Row[] {
  return rows.filter((r) => !verdictOperationsOf(String(r.workload)).includes(String(r.operation)) && (requestsCounted(r) || s3filesFigures(r)?.modelled === true));
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

/** Why a fleet step's requests are not counted, where the report says so. */
export const FLEET_UNCOUNTED = 'they share the server\'s log: their records say null';

/** The run has a step measured by several clients (or runners) at once. */
export const hasFleetSteps = (model: Pick<ReportModel, 'scaling'>) => model.scaling.length > 0;
