import type { CacheState } from '../core/vocabulary';

/**
 * The rows of the report's SQL files (assets/queries/) as typed rows, whichever engine ran them:
 * DuckDB gives numbers, BigInts and structs; Athena gives every value as text. Both come out the
 * same here, so the model (model.ts) is built from the same rows locally and on AWS.
 */

export type Row = Record<string, unknown>;

/** One row of report_cells.sql. Numbers are null where the SQL gave NULL (no successful batch). */
export interface CellRow {
  workload: string;
  /**
   * The operation, with the I/O mode appended where the records name one: "read (direct)",
   * "read (buffered)". Every part of the report keys cases on it, so modes never share a median.
   */
  operation: string;
  /** The I/O mode of the records (fio-seq: direct or buffered), null for workloads without one. */
  io: string | null;
  object_size_bytes: number | null;
  method: string;
  method_variant: string;
  cache: CacheState;
  /** Clients that ran the step at once: 1 (the main tables show one client's figures only); null in rows of a query deployed before the column. */
  clients: number | null;
  /** The records' comparability key (comparability.key); null in rows of a query deployed before the column. */
  comparable_key: string | null;
  records: number;
  /** Successful, verified records (batches); more than the repetitions where one repetition recorded the cell twice. */
  repetitions: number;
  /** Distinct repetitions with a successful, verified record: what "median over N repetitions" counts. */
  distinct_repetitions: number;
  failed_batches: number;
  unverified: number;
  unsupported: number;
  not_applicable: number;
  /** Records whose step ran out of its time budget (status did-not-finish): never ranked, shown as what they reached. */
  did_not_finish: number;
  /** Medians over the did-not-finish records of their budget (s), the share of the planned work done, and the extrapolated total (s). */
  dnf_budget_s: number | null;
  dnf_done_share: number | null;
  dnf_extrapolated_s: number | null;
  ops: number;
  ok: number;
  failed: number;
  mib_s_min: number | null;
  mib_s_median: number | null;
  mib_s_max: number | null;
  ops_s_min: number | null;
  ops_s_median: number | null;
  ops_s_max: number | null;
  ops_s_partial_median: number | null;
  mean_us_min: number | null;
  mean_us_median: number | null;
  mean_us_max: number | null;
  p50_us_median: number | null;
  p95_us_median: number | null;
  p99_us_median: number | null;
  max_us: number | null;
  duration_ms_min: number | null;
  duration_ms_median: number | null;
  duration_ms_max: number | null;
  delay_ms_min: number | null;
  delay_ms_median: number | null;
  delay_ms_max: number | null;
  served_from_cache: number;
  /** Records flagged possibly-network-capped: at or above 90% of the host's baseline bandwidth. */
  network_capped: number;
  step_failed: number;
  first_error: string | null;
}

/** One row of run_facts.sql. */
export interface MethodFacts {
  method: string;
  method_variant: string;
  method_version: string;
  method_versions: number;
  method_options: Record<string, string>;
  hosts: number;
  hostname: string;
  instance_type: string;
  vcpus: number | null;
  memory_bytes: number | null;
  kernel: string;
  os: string;
  region: string | null;
  availability_zone: string | null;
  link_limit_mib_s: number | null;
  link_baseline_mib_s: number | null;
  link_limit_source: string | null;
  endpoint_kind: string;
  endpoint_url: string | null;
  endpoint_server: string | null;
  records: number;
  first_recorded_at: string;
  last_recorded_at: string;
}

/** One row of workload_facts.sql, merged per workload. */
export interface WorkloadFacts {
  workload: string;
  workload_params: Record<string, string>;
  methods: number;
  repetitions: number;
  records: number;
}

/** One row of run_health.sql. */
export interface HealthRow {
  method: string;
  method_variant: string;
  workload: string;
  records: number;
  failed: number;
  unverified: number;
  in_failed_steps: number;
  unsupported: number;
  did_not_finish: number;
  first_error: string | null;
  /** The first error of a failed or unverified measurement (first_error may be a refusal's). */
  first_failure: string | null;
}

/** One row of interval_series.sql: one interval of one measurement's series. */
export interface IntervalRow {
  workload: string;
  /** With the I/O mode appended, as CellRow's. */
  operation: string;
  io: string | null;
  object_size_bytes: number | null;
  method: string;
  method_variant: string;
  cache: CacheState;
  repetition: number;
  step: number;
  runner: string;
  measurement: number;
  status: string;
  verified: boolean;
  clock: 'wall' | 'active';
  interval_index: number;
  interval_ms: number;
  offset_ms: number;
  duration_ms: number;
  bytes: number;
  ops: number;
  errors: number;
  p50_us: number | null;
  p99_us: number | null;
}

function num(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  const x = Number(v);
  return Number.isFinite(x) ? x : null;
}

function text(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return v instanceof Date ? v.toISOString() : String(v);
}

/**
 * A string map as DuckDB returns it ([{key, value}]), as a plain object, as JSON text or as
 * Athena's `{k=v, ...}` text — with its keys sorted, since neither engine keeps an order.
 */
export function stringMapOf(v: unknown): Record<string, string> {
  if (v === null || v === undefined) return {};
  const sorted = (entries: [string, string][]) => Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  if (Array.isArray(v)) return sorted(v.map((e: { key: unknown; value: unknown }) => [String(e.key), String(e.value)]));
  if (typeof v === 'object') return sorted(Object.entries(v).map(([k, x]) => [k, String(x)]));
  const s = String(v).trim();
  if (s.startsWith('{') && s.includes('"')) {
    try {
      return stringMapOf(JSON.parse(s));
    } catch {
      // fall through to Athena's form
    }
  }
  const inner = s.replace(/^\{|\}$/g, '');
  if (!inner) return {};
  return sorted(inner.split(', ').map((kv) => {
    const i = kv.indexOf('=');
    return i < 0 ? [kv, ''] : [kv.slice(0, i), kv.slice(i + 1)];
  }));
}

/**
 * A row with its text columns as text and every other scalar as a number (null for SQL NULL);
 * columns that are neither (arrays, structs: a merged latency histogram) are kept as they are.
 */
function normalize<T>(row: Row, textKeys: readonly string[], special: Record<string, (v: unknown) => unknown> = {}): T {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (k in special) out[k] = special[k](v);
    else if (textKeys.includes(k)) out[k] = text(v);
    else if (v !== null && typeof v === 'object' && !(v instanceof Date)) out[k] = v;
    else out[k] = num(v);
  }
  return out as T;
}

const zeroIfNull = (v: unknown) => num(v) ?? 0;
const bool = (v: unknown) => v === true || v === 'true';
const zeros = (keys: string[]) => Object.fromEntries(keys.map((k) => [k, zeroIfNull]));

const CELL_TEXT = ['run_id', 'workload', 'operation', 'io', 'method', 'method_variant', 'cache', 'comparable_key', 'first_error'] as const;
const CELL_COUNTS = ['records', 'repetitions', 'distinct_repetitions', 'failed_batches', 'unverified', 'unsupported', 'not_applicable', 'did_not_finish',
  'ops', 'ok', 'failed', 'served_from_cache', 'network_capped', 'step_failed'];
const FACT_TEXT = ['run_id', 'method', 'method_variant', 'method_version', 'hostname', 'instance_type', 'kernel', 'os', 'region', 'availability_zone',
  'link_limit_source', 'endpoint_kind', 'endpoint_url', 'endpoint_server', 'first_recorded_at', 'last_recorded_at'] as const;
const HEALTH_TEXT = ['run_id', 'method', 'method_variant', 'workload', 'first_error', 'first_failure'] as const;
const INTERVAL_TEXT = ['run_id', 'workload', 'operation', 'io', 'method', 'method_variant', 'cache', 'runner', 'status', 'clock'] as const;

/** "read" in mode "direct" → "read (direct)"; operations without a mode stay as they are. */
export const operationWithMode = (operation: string, io: string | null | undefined) => (io ? `${operation} (${io})` : operation);

export function normalizeCells(rows: Row[]): CellRow[] {
  return rows.map((r) => {
    // Counts a row lacks (a query deployed before the column existed) are zero, never undefined.
    const c = normalize<CellRow>({ ...Object.fromEntries(CELL_COUNTS.map((k) => [k, null])), ...r }, CELL_TEXT, zeros(CELL_COUNTS));
    c.io ??= null;
    c.clients ??= null;
    c.comparable_key ??= null;
    // Rows of a query deployed before the column existed.
    c.distinct_repetitions ??= c.repetitions;
    c.did_not_finish ??= 0;
    c.dnf_budget_s ??= null;
    c.dnf_done_share ??= null;
    c.dnf_extrapolated_s ??= null;
    c.operation = operationWithMode(c.operation, c.io);
    return c;
  });
}

export function normalizeMethodFacts(rows: Row[]): MethodFacts[] {
  return rows.map((r) => normalize<MethodFacts>(r, FACT_TEXT, { method_options: stringMapOf }));
}

/**
 * One entry per workload: workload_facts.sql gives a row per parameter set, merged here key by
 * key — a key with several values shows them all, sorted (`io=buffered | direct`), so the page
 * does not depend on the order the engine returns the sets in.
 */
export function normalizeWorkloadFacts(rows: Row[]): WorkloadFacts[] {
  const merged = new Map<string, { facts: WorkloadFacts; values: Map<string, Set<string>> }>();
  for (const r of rows) {
    const facts = normalize<WorkloadFacts>(r, ['run_id', 'workload'], { workload_params: stringMapOf });
    const key = `${String(r.run_id ?? '')}\u0000${facts.workload}`;
    let entry = merged.get(key);
    if (!entry) merged.set(key, (entry = { facts, values: new Map() }));
    for (const [k, v] of Object.entries(facts.workload_params)) {
      if (!entry.values.has(k)) entry.values.set(k, new Set());
      entry.values.get(k)!.add(v);
    }
  }
  return [...merged.values()].map(({ facts, values }) => ({
    ...facts,
    workload_params: Object.fromEntries([...values.keys()].sort().map((k) => [k, [...values.get(k)!].sort().join(' | ')])),
  }));
}

export function normalizeHealth(rows: Row[]): HealthRow[] {
  return rows.map((r) => {
    const h = normalize<HealthRow>(r, HEALTH_TEXT);
    // Rows of a query deployed before the column existed.
    h.did_not_finish ??= 0;
    h.first_failure ??= null;
    return h;
  });
}

export function normalizeIntervals(rows: Row[]): IntervalRow[] {
  return rows.map((r) => {
    const i = normalize<IntervalRow>(r, INTERVAL_TEXT, { verified: bool });
    i.io ??= null;
    i.operation = operationWithMode(i.operation, i.io);
    return i;
  });
}

/** Rows of the other queries (requests, scale-out, instance types): counts as numbers where they came as BigInts, the rest as the engine gave it. */
export function plainRows(rows: Row[] | undefined): Row[] {
  return (rows ?? []).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}
