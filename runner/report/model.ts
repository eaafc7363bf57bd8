import type { RunManifest } from '../results/writer';
import { findWorkloadDescriptor } from '../workloads/catalog';
import { SizeLabels } from './labels';
import { methodLabel } from '../core/vocabulary';
import { compareCases, compareMethods, workloadRank } from './order';
import {
  normalizeCells, normalizeHealth, normalizeIntervals, normalizeMethodFacts, normalizeWorkloadFacts, plainRows,
  type CellRow, type HealthRow, type MethodFacts, type Row, type WorkloadFacts,
} from './rows';
import { scalingCases, type ScalingCase } from './scaling';
import { cellSeries, type CellSeries } from './series';
import { MODEL_QUERIES } from './model-queries.generated';
import type { RunHistory } from './history/series';

/**
 * The one report model: what every printer reads — the text summary, the HTML page,
 * compare, the report Lambda's summary.txt and `s3ab aws run`'s closing summary. It is built from
 * the rows of the SQL files below, run by DuckDB over a results folder (load.ts) or by Athena in
 * the pipeline (athena.ts): the same SQL, the same normalizers (rows.ts), the same builder. Its
 * lists are in the report's one order (order.ts); labels and number formats come from labels.ts
 * and format.ts.
 */

// The SQL files the model is built from: MODEL_QUERIES, one per file in assets/queries/model/ (`npm run gen`).
export type ModelQueryName = (typeof MODEL_QUERIES)[number];
export type ModelRows = Record<ModelQueryName, Row[]>;

/** A case of the report for one method: report_cells.sql's row, with its interval series where it has one. */
export interface Cell extends CellRow {
  series: CellSeries | null;
}

/** A method's measurement that its own check found wrong (a tar extraction that lost modes): a finding about the method, not a broken measurement. */
interface Finding {
  method: string;
  workload: string;
  operation: string;
  /** Repetitions in which the check failed, and what it found. */
  repetitions: number;
  what: string;
}

/** Measurements of a method and workload that cannot be trusted: failed, unverified, or in a step that broke. */
interface Broken {
  method: string;
  workload: string;
  records: number;
  failed: number;
  unverified: number;
  inFailedSteps: number;
  firstError: string | null;
}

interface Integrity {
  broken: Broken[];
  findings: Finding[];
  /** Cells with measurements that ran out of their step's time budget. */
  didNotFinish: Cell[];
  /** Measurements in the run (every record). */
  records: number;
}

/** What a run is, besides its rows: its manifests and where its records were read. */
export interface RunContext {
  runId: string;
  /** Every manifest of the run (one per runner on AWS); empty where none was found. */
  manifests: RunManifest[];
  /** Where the records came from (a folder or an S3 URI), for the facts. */
  source: string;
  /** Other runs found at the same source, oldest first; null where the source was not listed (the pipeline's report). */
  otherRuns: string[] | null;
  /** Lines at the source that are not valid records (not JSON, or not the schema), left out; the first ones. */
  badLines: BadLine[];
  badLineCount: number;
  /** Files under _runs/ that are not readable manifests: data problems, named in every printer. */
  badManifests: { path: string; runId: string | null; reason: string }[];
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

export interface ReportModel extends RunContext {
  /** The run's manifests as one (runners' counts summed, the worst status), or null where none was found. */
  manifest: RunManifest | null;
  /** Optional methods the run skipped (unavailable on the host), once each. */
  skipped: NonNullable<RunManifest['skipped']>;
  /** The link to the store: the most it carries, what it sustains, how that was found. */
  link: { limitMibS: number | null; baselineMibS: number | null; source: string | null } | null;
  /** Methods (variants) in the report's order. */
  methods: MethodFacts[];
  /** Their labels, in that order: every printer's column and row order. */
  methodOrder: string[];
  /** Workloads in the catalog's order. */
  workloads: WorkloadFacts[];
  /** Every case and method, in the report's order (workload, operation, size, cache state, method). */
  cells: Cell[];
  health: HealthRow[];
  /** request_counts.sql rows, in the report's order. */
  requests: Row[];
  /** Scaling out (fleet_scaling.sql): per case and method, the aggregate and p99 at each client count; empty without a fleet step. */
  scaling: ScalingCase[];
  /** instance_types.sql rows (runs on several instance types). */
  instanceTypes: Row[];
  /** Sizes as the matrix gave them (size_labels.sql: the label recorded with the measurements). */
  sizes: SizeLabels;
  integrity: Integrity;
  /** The run against its history (history/series.ts), where the caller read one (a results folder's runs); absent: none read. */
  history?: RunHistory | null;
}

/** The cell a row of report_cells.sql or interval_series.sql belongs to. */
export const cellKey = (c: { workload: string; operation: string; object_size_bytes: number | null; cache: string; method: string; method_variant: string }) =>
  `${c.workload}\u0000${c.operation}\u0000${c.object_size_bytes}\u0000${c.cache}\u0000${methodLabel(c)}`;

/** Operations of a workload that check what the method kept (its descriptor's `report.checks`). */
export const checksOf = (workload: string): readonly string[] => findWorkloadDescriptor(workload)?.report.checks ?? [];


const STATUS_WEIGHT: Record<RunManifest['status'], number> = { complete: 0, running: 1, abandoned: 2, interrupted: 3, failed: 4 };

/** Several runners' manifests of one run as one: counts summed, the worst status, the earliest start and latest end. */
function mergeManifests(manifests: RunManifest[]): RunManifest | null {
  if (manifests.length <= 1) return manifests[0] ?? null;
  const worst = [...manifests].sort((a, b) => STATUS_WEIGHT[b.status] - STATUS_WEIGHT[a.status])[0];
  const ends = manifests.map((m) => m.ended_at);
  const sum = (f: (m: RunManifest) => number) => manifests.reduce((n, m) => n + f(m), 0);
  const problems = [...new Set(manifests.map((m) => m.problem).filter((p): p is string => !!p))];
  return {
    ...manifests[0], status: worst.status, problem: problems.length ? problems.join('; ') : null,
    started_at: manifests.map((m) => m.started_at).sort()[0], ended_at: ends.includes(null) ? null : (ends as string[]).sort().pop()!,
    steps_total: sum((m) => m.steps_total), steps_done: sum((m) => m.steps_done), steps_failed: sum((m) => m.steps_failed),
    peak_rss_bytes: Math.max(0, ...manifests.map((m) => m.peak_rss_bytes ?? 0)) || null,
  };
}

function skippedOf(manifests: RunManifest[]): ReportModel['skipped'] {
  const seen = new Map<string, NonNullable<RunManifest['skipped']>[number]>();
  for (const m of manifests) for (const s of m.skipped ?? []) seen.set(`${s.method}:${s.variant}`, s);
  return [...seen.values()];
}

/** Findings (a check of what the method kept found it wrong) and measurements that cannot be trusted. */
function integrityOf(cells: Cell[], health: HealthRow[]): Integrity {
  const findings: Finding[] = cells
    .filter((c) => checksOf(c.workload).includes(c.operation) && c.failed_batches > 0)
    .map((c) => ({ method: methodLabel(c), workload: c.workload, operation: c.operation, repetitions: c.failed_batches, what: c.first_error ?? 'the check failed' }));
  const broken: Broken[] = [];
  for (const h of health) {
    // A failed check is the method's finding, not a failed measurement.
    const found = findings.filter((f) => f.method === methodLabel(h) && f.workload === h.workload).reduce((n, f) => n + f.repetitions, 0);
    const failed = Math.max(0, h.failed - found);
    if (failed || h.unverified || h.in_failed_steps) {
      broken.push({ method: methodLabel(h), workload: h.workload, records: h.records, failed, unverified: h.unverified, inFailedSteps: h.in_failed_steps, firstError: h.first_failure ?? h.first_error });
    }
  }
  return { broken, findings, didNotFinish: cells.filter((c) => c.did_not_finish > 0), records: health.reduce((n, h) => n + h.records, 0) };
}

/**
 * The model of one run from the rows of MODEL_QUERIES (either engine's) and what is known of the
 * run besides: the one builder every printer's input comes from.
 */
export function buildReportModel(rows: Partial<ModelRows>, run: RunContext): ReportModel {
  const cellRows = normalizeCells(rows.report_cells ?? []);
  const series = cellSeries(normalizeIntervals(rows.interval_series ?? []), cellKey);
  const cells: Cell[] = cellRows.map((c) => ({ ...c, series: series.get(cellKey(c)) ?? null })).sort(compareCases);
  const methods = normalizeMethodFacts(rows.run_facts ?? []).sort(compareMethods);
  const workloads = normalizeWorkloadFacts(rows.workload_facts ?? []).sort((a, b) => workloadRank(a.workload) - workloadRank(b.workload));
  const health = normalizeHealth(rows.run_health ?? []).sort((a, b) => compareMethods(a, b) || workloadRank(a.workload) - workloadRank(b.workload));
  const toKeyed = (r: Row) => ({
    workload: String(r.workload), operation: String(r.operation), object_size_bytes: r.object_size_bytes === null || r.object_size_bytes === undefined ? null : Number(r.object_size_bytes),
    cache: String(r.cache ?? 'none'), method: String(r.method), method_variant: String(r.method_variant),
  });
  const requests = plainRows(rows.request_counts).sort((a, b) => compareCases(toKeyed(a), toKeyed(b)));
  const methodOrder = [...new Set([...methods.map(methodLabel), ...[...cells].sort(compareMethods).map(methodLabel)])];
  const facts = methods.find((m) => m.link_limit_mib_s !== null || m.link_baseline_mib_s !== null) ?? methods[0];
  return {
    ...run,
    manifest: mergeManifests(run.manifests),
    skipped: skippedOf(run.manifests),
    link: facts ? { limitMibS: facts.link_limit_mib_s, baselineMibS: facts.link_baseline_mib_s ?? null, source: facts.link_limit_source } : null,
    methods, methodOrder, workloads, cells, health, requests,
    scaling: scalingCases(plainRows(rows.fleet_scaling)), instanceTypes: plainRows(rows.instance_types),
    sizes: new SizeLabels((rows.size_labels ?? []).map((r) => ({ object_size_bytes: Number(r.object_size_bytes), object_size_label: String(r.object_size_label) }))),
    integrity: integrityOf(cells, health),
  };
}
