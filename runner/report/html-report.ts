import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ScannedResults } from './load';
import type { ReportModel } from './model';
import { renderHtmlReport, type RenderedReport } from './html/render';

export interface WrittenReport {
  path: string;
  model: ReportModel;
  rendered: RenderedReport;
  /** Milliseconds spent reading and checking lines, in DuckDB (loading the run, the SQL), rendering. */
  timings: { scanMs: number; queryMs: number; renderMs: number };
}

/** Where `s3ab run` puts a run's page: next to the results, in a folder Athena skips (leading _). */
export function defaultReportPath(resultsDir: string, runId: string): string {
  return join(resultsDir, '_reports', `${runId}.html`);
}

/** Writes a page atomically (no half-written file if interrupted), creating its folder; returns the absolute path. */
export function writePage(file: string, html: string): string {
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, html);
  renameSync(`${path}.tmp`, path);
  return path;
}

/** Reads a results folder, renders one run (default: the newest) and writes the page atomically. */
export async function writeHtmlReport(resultsDir: string, runId: string | undefined, file?: string): Promise<WrittenReport> {
  const t0 = performance.now();
  const scan = ScannedResults.open(resultsDir);
  try {
    const run = scan.pickRun(runId);
    scan.readRun(run);
    const t1 = performance.now();
    const model = await scan.reportModel(run);
    const t2 = performance.now();
    const rendered = await renderHtmlReport(model);
    const t3 = performance.now();
    const path = writePage(file ?? defaultReportPath(resultsDir, model.runId), rendered.html);
    return { path, model, rendered, timings: { scanMs: t1 - t0, queryMs: t2 - t1, renderMs: t3 - t2 } };
  } finally {
    scan.dispose();
  }
}
