import { CACHE_ORDER, methodLabel, type CacheState } from '../core/vocabulary';
import type { RunManifest } from '../results/writer';

/**
 * What the HTML report is made of: the rows of the SQL files in assets/queries/ for one run, plus
 * the run manifest and the lines that could not be read. Locally DuckDB runs the SQL over a results
 * folder (load.ts); in the pipeline Athena runs the same named queries. Either way the rows go
 * through the normalizers below, then into the pure renderer (html/render.ts).
 */
export interface ReportInput {
  /** The run shown. */
  runId: string;
  /** Its manifest (_runs/RUNID.json), or null where none was found. */
  manifest: RunManifest | null;
  /** Where the records came from (a folder or an S3 URI), for the page's facts. */
  source: string;
  /** Other runs found at the same source, newest last; null where the source was not listed (the pipeline's report). */
  otherRuns: string[] | null;
  /** Rows of report_cells.sql. */
  cells: Cell[];
  /** Rows of run_facts.sql. */
  methods: MethodFacts[];
  /** Rows of workload_facts.sql. */
  workloads: WorkloadFacts[];
  /** Rows of run_health.sql. */
  health: HealthRow[];
  /** Rows of request_counts.sql: the S3 requests the server answered, by measurement kind and method. */
  requests: Record<string, unknown>[];
  /** Lines at the source that are not valid records (not JSON, or not the schema), left out. */
  badLines: BadLine[];
  /** How many bad lines there were in all (badLines may be truncated). */
  badLineCount: number;
  /** Valid records read at the source (the run's files, and files not named after a run). */
  recordCount: number;
  /** ISO time the report was generated. */
  generatedAt: string;
}

export interface BadLine {
  file: string;
  line: number;
  reason: string;
}

/** A record's cache state (runner/core/vocabulary.ts owns the states and their order). */
export type Cache = CacheState;
export { CACHE_ORDER, methodLabel };

/** One row of report_cells.sql. Numbers are null where the SQL gave NULL (no successful batch). */
export interface Cell {
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
  cache: Cache;
  records: number;
  /** Successful, verified records (batches); more than the repetitions where one repetition recorded the cell twice. */
  repetitions: number;
  /** Distinct repetitions with a successful, verified record: what "median over N repetitions" counts. */
  distinct_repetitions: number;
  failed_batches: number;
  unverified: number;
  unsupported: number;
  not_applicable: number;
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

/** One row of workload_facts.sql. */
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
  /** Measurements whose step's budget ran out (did-not-finish): results, not failures. */
  did_not_finish: number;
  first_error: string | null;
}

type Row = Record<string, unknown>;

// Column kinds of each query's rows. DuckDB gives numbers and BigInts, Athena strings: both pass.
const CELL_TEXT = ['run_id', 'workload', 'operation', 'io', 'method', 'method_variant', 'cache', 'first_error'] as const;
const FACT_TEXT = ['run_id', 'method', 'method_variant', 'method_version', 'hostname', 'instance_type', 'kernel', 'os', 'region', 'availability_zone',
  'link_limit_source', 'endpoint_kind', 'endpoint_url', 'endpoint_server', 'first_recorded_at', 'last_recorded_at'] as const;
const HEALTH_TEXT = ['run_id', 'method', 'method_variant', 'workload', 'first_error'] as const;

function num(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  const x = typeof v === 'bigint' ? Number(v) : Number(v);
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

function normalize<T>(row: Row, textKeys: readonly string[], special: Record<string, (v: unknown) => unknown> = {}): T {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (k in special) out[k] = special[k](v);
    else if (textKeys.includes(k)) out[k] = text(v);
    else out[k] = num(v);
  }
  return out as T;
}

const zeroIfNull = (v: unknown) => num(v) ?? 0;
const COUNTS = ['records', 'repetitions', 'distinct_repetitions', 'failed_batches', 'unverified', 'unsupported', 'not_applicable', 'ops', 'ok', 'failed', 'served_from_cache', 'network_capped', 'step_failed'];

/** "read" in mode "direct" → "read (direct)"; operations without a mode stay as they are. */
export const operationWithMode = (operation: string, io: string | null | undefined) => (io ? `${operation} (${io})` : operation);

export function normalizeCells(rows: Row[]): Cell[] {
  const special = Object.fromEntries(COUNTS.map((k) => [k, zeroIfNull]));
  return rows.map((r) => {
    const c = normalize<Cell>(r, CELL_TEXT, special);
    c.io ??= null;
    // Rows of a query deployed before the column existed.
    c.distinct_repetitions ??= c.repetitions;
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
  return rows.map((r) => normalize<HealthRow>(r, HEALTH_TEXT));
}

/** The SQL files (assets/queries/NAME.sql) the report is drawn from, and the ReportInput field each fills. */
export const REPORT_QUERIES = { report_cells: 'cells', run_facts: 'methods', workload_facts: 'workloads', run_health: 'health', request_counts: 'requests' } as const;
export type ReportQueryName = keyof typeof REPORT_QUERIES;

/**
 * The report's rows from the rows of its four queries, however they were run: DuckDB's values
 * (numbers, BigInts, structs) or Athena's strings both come out as the same typed rows.
 */
export function reportRows(rows: Record<ReportQueryName, Row[]>): Pick<ReportInput, 'cells' | 'methods' | 'workloads' | 'health' | 'requests'> {
  return {
    cells: normalizeCells(rows.report_cells),
    methods: normalizeMethodFacts(rows.run_facts),
    workloads: normalizeWorkloadFacts(rows.workload_facts),
    health: normalizeHealth(rows.run_health),
    // Counts arrive as numbers (DuckDB, BigInt) or strings (Athena): the printers read them with Number().
    requests: (rows.request_counts ?? []).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]))),
  };
}

