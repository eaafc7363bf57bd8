import { buildReportModel, type Cell, type ReportModel, type RunContext } from '../../runner/report/model';
import type { CellRow, MethodFacts } from '../../runner/report/rows';

/** A report_cells row with every metric absent (SQL NULL); tests fill in what they need. */
export function cellRow(over: Partial<CellRow>): CellRow {
  return {
    workload: 'objects', operation: 'download', object_size_bytes: 1024, method: 's3-api', method_variant: 'default', cache: 'none', clients: 1, comparable_key: null,
    io: null, records: 3, repetitions: 3, distinct_repetitions: 3, failed_batches: 0, unverified: 0, unsupported: 0, not_applicable: 0,
    did_not_finish: 0, dnf_budget_s: null, dnf_done_share: null, dnf_extrapolated_s: null, ops: 30, ok: 30, failed: 0,
    mib_s_min: null, mib_s_median: null, mib_s_max: null, ops_s_min: null, ops_s_median: null, ops_s_max: null, ops_s_partial_median: null,
    mean_us_min: null, mean_us_median: null, mean_us_max: null, p50_us_median: null, p95_us_median: null, p99_us_median: null, max_us: null,
    duration_ms_min: null, duration_ms_median: null, duration_ms_max: null, delay_ms_min: null, delay_ms_median: null, delay_ms_max: null,
    served_from_cache: 0, network_capped: 0, step_failed: 0, first_error: null, ...over,
  };
}

/** A model cell (a row without a series unless given). */
export function cell(over: Partial<Cell>): Cell {
  return { series: null, ...cellRow(over), ...over };
}

/** run_facts.sql's row of a method. */
export function facts(method: string, order: number, over: Partial<MethodFacts> = {}): MethodFacts {
  return {
    method, method_variant: 'default', method_version: `${method} 1.0`, method_versions: 1, method_options: { threads: '4' }, hosts: 1,
    hostname: 'unit-test', instance_type: 'local', vcpus: 2, memory_bytes: 2 ** 32, kernel: '6.1', os: 'Debian', region: null, availability_zone: null,
    link_limit_mib_s: 1000, link_baseline_mib_s: null, link_limit_source: 'test', endpoint_kind: 'embedded', endpoint_url: 'http://127.0.0.1:1', endpoint_server: 'versitygw',
    records: 10, first_recorded_at: `2026-01-01T00:00:0${order}Z`, last_recorded_at: '2026-01-01T00:01:00Z', ...over,
  };
}

export const RUN: RunContext = {
  runId: '20260101T000000Z-abcdef', manifests: [], source: 'unit test', otherRuns: [], badLines: [], badLineCount: 0, badManifests: [], recordCount: 0, generatedAt: '2026-01-01T00:02:00Z',
};

/**
 * The report model of `cells`, built by the model's own builder (orders, integrity, series) from
 * rows as the SQL returns them; `over` replaces parts of the result (methods, health, ...).
 */
export function modelOf(cells: Cell[], { methods: given, health, ...over }: Partial<ReportModel> = {}, run: Partial<RunContext> = {}): ReportModel {
  const methods = [...new Set(cells.map((c) => c.method))];
  const built = buildReportModel({
    report_cells: cells.map(({ series: _series, ...row }) => ({ ...row, operation: row.io ? row.operation.replace(/ \(.*\)$/, '') : row.operation })),
    run_facts: (given ?? methods.map((m, i) => facts(m, i))) as never,
    workload_facts: [...new Set(cells.map((c) => c.workload))].map((workload) => ({ workload, workload_params: {}, methods: methods.length, repetitions: 3, records: 9 })),
    run_health: (health ?? []) as never,
  }, { ...RUN, recordCount: cells.length * 3, ...run });
  // Series given by the test stay as they are (the builder makes them from interval rows).
  const bySeries = new Map(cells.filter((c) => c.series).map((c) => [`${c.workload}|${c.operation}|${c.object_size_bytes}|${c.cache}|${c.method}`, c.series]));
  for (const c of built.cells) c.series = bySeries.get(`${c.workload}|${c.operation}|${c.object_size_bytes}|${c.cache}|${c.method}`) ?? null;
  return { ...built, ...over };
}
