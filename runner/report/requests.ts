import Table from 'cli-table3';
import prices from '../../assets/prices.json';
import { formatSize } from '../core/units';
import { cacheRank, methodCacheLabel } from '../core/vocabulary';
import { methodRank } from '../methods/catalog';
import { num } from './format';

type Row = Record<string, unknown>;

/** The request types' columns of the request_counts query, with their labels and price tier (assets/prices.json). */
export const REQUEST_COLUMNS = [
  { column: 'get', label: 'GET', tier: 'tier2' }, { column: 'get_ranged', label: 'ranged GET', tier: 'tier2' },
  { column: 'put', label: 'PUT', tier: 'tier1' }, { column: 'mpu_create', label: 'MPU create', tier: 'tier1' },
  { column: 'mpu_part', label: 'MPU part', tier: 'tier1' }, { column: 'mpu_complete', label: 'MPU complete', tier: 'tier1' },
  { column: 'mpu_abort', label: 'MPU abort', tier: 'free' }, { column: 'head', label: 'HEAD', tier: 'tier2' },
  { column: 'list', label: 'LIST', tier: 'tier1' }, { column: 'delete_requests', label: 'DELETE', tier: 'free' },
  { column: 'copy', label: 'COPY', tier: 'tier1' }, { column: 'other', label: 'other', tier: 'tier2' },
] as const;
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

/** Dollars for the table: four decimals, or two significant digits below a tenth of a cent (never "$0.0000" for a cost that is not zero). */
export function dollars(x: number): string {
  if (x === 0) return '$0';
  return x < 0.001 ? `$${x.toPrecision(2)}` : `$${x.toFixed(4)}`;
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
 * "Requests and request cost": per measurement kind and method, the requests the server answered
 * per operation by type, GET bytes per byte read, and the request cost per 1,000 operations; the
 * cache claims the counts refuted; and what was not counted.
 */
export function printRequests(rows: Row[], out: (line: string) => void): void {
  if (!rows.length) return;
  const counted = rows.filter((r) => Number(r.not_counted) < Number(r.measurements));
  const uncounted = rows.filter((r) => Number(r.not_counted) > 0);
  out('');
  out(`Requests and request cost — S3 requests the server answered per operation, summed over repetitions; cost at S3 Standard request prices, ${prices.region} (${prices.date})`);
  if (counted.length) {
    const table = new Table({ head: ['workload', 'operation', 'size', 'method', 'ops', 'requests per operation', 'GET bytes / byte read', '$ per 1,000 ops'], style: { head: [], border: [] } });
    const ordered = [...counted].sort((a, b) => String(a.workload).localeCompare(String(b.workload)) || String(a.operation).localeCompare(String(b.operation))
      || Number(a.object_size_bytes ?? 0) - Number(b.object_size_bytes ?? 0) || methodRank(String(a.method)) - methodRank(String(b.method))
      || cacheRank(String(a.cache)) - cacheRank(String(b.cache)));
    for (const r of ordered) {
      const f = requestFigures(r);
      if (!f) continue;
      const flags = [Number(r.served_from_cache) ? 'served from cache' : '', Number(r.not_warm) ? 'NOT WARM' : ''].filter(Boolean).join(', ');
      table.push([
        String(r.workload), String(r.operation), r.object_size_bytes === null ? '–' : formatSize(Number(r.object_size_bytes)),
        methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant), cache: r.cache }) + (flags ? ` (${flags})` : ''),
        num(r.ops), f.perOp.length ? f.perOp.map((t) => `${t.label} ${num(t.value)}`).join(', ') : 'none',
        f.getBytesPerByteRead === null ? '–' : `${num(f.getBytesPerByteRead)}`, dollars(f.costPer1000Ops),
      ]);
    }
    out(table.toString());
    out('"served from cache": a cold read for which the server sent fewer GET bytes than were read; "NOT WARM": a warm read it sent every byte for again.');
  }
  if (uncounted.length) {
    const methods = [...new Set(uncounted.map((r) => methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant) }, false)))];
    out(`requests: not counted for ${methods.join(', ')} (${uncounted.reduce((n, r) => n + Number(r.not_counted), 0)} measurements): the endpoint's access log is not readable here (a named endpoint); on AWS, \`s3ab aws query requests\` counts them from S3 server access logs`);
  }
}
