import type { ReportModel } from '../model';
import { SECTIONS } from '../sections';
import type { DataTable, DataValue } from '../sections/section';

/**
 * `--format json|csv`: the model's tables for scripts — the same figures the summary prints,
 * unformatted (numbers as numbers, sizes in bytes, latencies in µs, times in ms).
 */

/** Every table of the model: each section's (sections/index.ts), in the sections' order. */
export function modelTables(model: ReportModel): DataTable[] {
  return SECTIONS.flatMap((s) => s.tables?.(model) ?? []);
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

const csvCell = (v: DataValue) => {
  if (v === null) return '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/**
 * The tables as CSV, one block per table separated by a blank line; every line of a block starts
 * with the table's name, its header line too (`grep '^cases,'` keeps one table, header included).
 */
export function modelCsv(model: ReportModel): string {
  return modelTables(model).map((t) => [[t.name, ...t.columns], ...t.rows.map((r) => [t.name, ...r])].map((r) => r.map((v) => csvCell(v as DataValue)).join(',')).join('\n')).join('\n\n') + '\n';
}
