import prices from '../../assets/prices.json';
import { REQUEST_TIER } from '../core/request-types';

/**
 * What S3 requests cost: the request types' columns of the request_counts query with their price
 * tier, the prices (assets/prices.json), and the figures and costs computed from a row's counts.
 * Formatting them is the report's (requests.ts).
 */

type Row = Record<string, unknown>;

/** The request types' columns of the request_counts query, with their labels and price tier (assets/prices.json). */
const REQUEST_COLUMNS = ([
  { column: 'get', label: 'GET' }, { column: 'get_ranged', label: 'ranged GET' },
  { column: 'put', label: 'PUT' }, { column: 'mpu_create', label: 'MPU create' },
  { column: 'mpu_part', label: 'MPU part' }, { column: 'mpu_complete', label: 'MPU complete' },
  { column: 'mpu_abort', label: 'MPU abort' }, { column: 'head', label: 'HEAD' },
  { column: 'list', label: 'LIST' }, { column: 'delete_requests', label: 'DELETE' },
  { column: 'copy', label: 'COPY' }, { column: 'other', label: 'other' },
] as const).map((c) => ({ ...c, tier: REQUEST_TIER[c.column === 'delete_requests' ? 'delete' : c.column] }));

/** The request prices (assets/prices.json): region, date, source and the price of each tier. */
export const REQUEST_PRICES = prices;
const PRICE = prices.s3StandardRequestsPer1000;

/** A row's requests by type, each divided by `per` (1: in all; the operations: per operation); types with none left out. */
export function requestsByType(row: Row, per: number): { label: string; value: number }[] {
  return REQUEST_COLUMNS.map((t) => ({ label: t.label, value: Number(row[t.column] ?? 0) / per })).filter((t) => t.value > 0);
}

/** What 1,000 times a row's requests would cost, in USD: the prices are per 1,000 requests. */
const costOfThousandTimes = (row: Row): number => REQUEST_COLUMNS.reduce((sum, t) => sum + Number(row[t.column] ?? 0) * PRICE[t.tier], 0);

/** What a row's requests cost in all, in USD at S3 Standard request prices. */
export const requestsCost = (row: Row): number => costOfThousandTimes(row) / 1000;

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
  const perOp = requestsByType(row, ops);
  const bytes = Number(row.bytes ?? 0);
  const reads = Number(row.get ?? 0) + Number(row.get_ranged ?? 0);
  return {
    perOp, totalPerOp: perOp.reduce((s, t) => s + t.value, 0),
    getBytesPerByteRead: reads > 0 && bytes > 0 ? Number(row.get_bytes ?? 0) / bytes : null,
    costPer1000Ops: costOfThousandTimes(row) / ops,
  };
}
