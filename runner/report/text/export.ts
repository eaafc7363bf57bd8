import { isSupportCheck } from '../analysis';
import { methodLabel } from '../labels';
import type { ReportModel } from '../model';
import { verdicts } from '../verdicts';

/**
 * `--format json|csv`: the model's tables for scripts — the same figures the summary prints,
 * unformatted (numbers as numbers, sizes in bytes, latencies in µs, times in ms).
 */

type Value = string | number | boolean | null;
export interface DataTable {
  name: string;
  columns: string[];
  rows: Value[][];
}

const n = (v: number | null | undefined): number | null => (v === null || v === undefined ? null : v);

/** Every table of the model: cases, verdicts, findings, broken measurements, requests, methods, scaling (fleet runs), workloads. */
export function modelTables(model: ReportModel): DataTable[] {
  const cells: DataTable = {
    name: 'cases',
    columns: ['workload', 'operation', 'object_size_bytes', 'cache', 'method', 'method_variant', 'label', 'records', 'repetitions', 'failed', 'unverified',
      'unsupported', 'not_applicable', 'did_not_finish', 'dnf_budget_s', 'dnf_done_share', 'dnf_extrapolated_s', 'support_check',
      'duration_ms_min', 'duration_ms_median', 'duration_ms_max', 'mib_s_median', 'ops_s_median', 'mean_us_median', 'p50_us_median', 'p95_us_median',
      'p99_us_median', 'delay_ms_median', 'sustained', 'peak', 'series_unit', 'served_from_cache', 'network_capped', 'first_error'],
    rows: model.cells.map((c) => [
      c.workload, c.operation, c.object_size_bytes, c.cache, c.method, c.method_variant, methodLabel(c), c.records, c.repetitions, c.failed_batches, c.unverified,
      c.unsupported, c.not_applicable, c.did_not_finish, n(c.dnf_budget_s), n(c.dnf_done_share), n(c.dnf_extrapolated_s), isSupportCheck(c),
      c.duration_ms_min, c.duration_ms_median, c.duration_ms_max, c.mib_s_median, c.ops_s_median, c.mean_us_median, c.p50_us_median, c.p95_us_median,
      c.p99_us_median, c.delay_ms_median, n(c.series?.sustained), n(c.series?.peak), c.series?.unit ?? null, c.served_from_cache, c.network_capped, c.first_error,
    ]),
  };
  const v = verdicts(model);
  const { findings, broken } = model.integrity;
  const requestColumns = model.requests.length ? Object.keys(model.requests[0]) : [];
  return [
    cells,
    { name: 'verdicts', columns: ['workload', 'case', 'best', 'margin', 'basis', 'caveats'], rows: v.map((x) => [x.workload, x.case, x.best, x.margin, x.basis, x.notes.join('; ')]) },
    { name: 'findings', columns: ['method', 'workload', 'operation', 'repetitions', 'what'], rows: findings.map((f) => [f.method, f.workload, f.operation, f.repetitions, f.what]) },
    {
      name: 'untrusted', columns: ['method', 'workload', 'records', 'failed', 'unverified', 'in_failed_steps', 'first_error'],
      rows: broken.map((b) => [b.method, b.workload, b.records, b.failed, b.unverified, b.inFailedSteps, b.firstError]),
    },
    { name: 'requests', columns: requestColumns, rows: model.requests.map((r) => requestColumns.map((k) => (r[k] ?? null) as Value)) },
    {
      name: 'methods', columns: ['label', 'method', 'method_variant', 'method_version', 'records', 'options'],
      rows: model.methods.map((m) => [methodLabel(m), m.method, m.method_variant, m.method_version, m.records, JSON.stringify(m.method_options)]),
    },
    {
      name: 'scaling', columns: ['workload', 'operation', 'object_size_bytes', 'cache', 'method', 'method_variant', 'label', 'unit', 'clients', 'repetitions',
        'never_all_running', 'clients_ok', 'clients_failed', 'aggregate', 'speedup', 'ideal', 'fleet_link_limit_mib_s', 'hosts', 'p99_us', 'client_min', 'client_max',
        'window_ms', 'basis', 'verdict'],
      rows: model.scaling.flatMap((c) => c.methods.flatMap((m) => m.points.map((p) => [
        c.workload, c.operation, c.object_size_bytes, c.cache, m.method, m.method_variant, m.label, c.unit, p.clients, p.repetitions,
        p.neverAllRunning, p.clientsOk, p.clientsFailed, p.aggregate, p.speedup, p.ideal, p.linkLimitMibS, p.hosts, p.p99Us, p.clientMin, p.clientMax,
        p.windowMs, p.basis, c.verdict,
      ]))),
    },
    { name: 'workloads', columns: ['workload', 'parameters', 'methods', 'repetitions', 'records'], rows: model.workloads.map((w) => [w.workload, JSON.stringify(w.workload_params), w.methods, w.repetitions, w.records]) },
  ];
}

/** The model as one JSON document: the run's facts and every table. */
export function modelJson(model: ReportModel): string {
  const m = model.manifest;
  const run = {
    run_id: model.runId, matrix: m?.matrix ?? null, status: m?.status ?? null, problem: m?.problem ?? null, started_at: m?.started_at ?? null, ended_at: m?.ended_at ?? null,
    source: model.source, generated_at: model.generatedAt, link: model.link,
  };
  const tables = Object.fromEntries(modelTables(model).map((t) => [t.name, t.rows.map((r) => Object.fromEntries(t.columns.map((c, i) => [c, r[i]])))]));
  return JSON.stringify({ run, ...tables }, null, 2);
}

const csvCell = (v: Value) => {
  if (v === null) return '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/**
 * The tables as CSV, one block per table separated by a blank line; every line of a block starts
 * with the table's name, its header line too (`grep '^cases,'` keeps one table, header included).
 */
export function modelCsv(model: ReportModel): string {
  return modelTables(model).map((t) => [[t.name, ...t.columns], ...t.rows.map((r) => [t.name, ...r])].map((r) => r.map((v) => csvCell(v as Value)).join(',')).join('\n')).join('\n\n') + '\n';
}
