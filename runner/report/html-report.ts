import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { UserError } from '../core/errors';
import { dirname, join, resolve } from 'node:path';
import { loadRunHistory } from './history/load';
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
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.tmp`, html);
    renameSync(`${path}.tmp`, path);
  } catch (err) {
    try {
      rmSync(`${path}.tmp`, { force: true });
    } catch {
      // nothing was written
    }
    const e = err as NodeJS.ErrnoException;
    // A file error is the user's to fix (a read-only or full folder, a path through a file): exit 2, not a crash.
    if (!e?.code) throw err;
    throw new UserError(`the report cannot be written to ${path}: ${e.code} (${WHY[e.code] ?? e.message})`,
      e.code === 'ENOSPC' ? 'free some space there, or give another path' : 'give a path in a folder you may write to (it is created if missing)');
  }
  return path;
}

const WHY: Record<string, string> = {
  EROFS: 'the folder is on a read-only file system', EACCES: 'permission denied', EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device', ENOTDIR: 'a part of the path is a file, not a folder', EISDIR: 'the path is a folder',
};

/**
 * Reads a results folder, renders one run (default: the newest) with its history (every run of the
 * folder and of `historyDirs`) and writes the page atomically.
 */
export async function writeHtmlReport(resultsDir: string, runId: string | undefined, file?: string, historyDirs: string[] = []): Promise<WrittenReport> {
  const t0 = performance.now();
  const scan = ScannedResults.open(resultsDir);
  try {
    const run = scan.pickRun(runId);
    scan.readRun(run);
    const t1 = performance.now();
    const model = await scan.reportModel(run);
    model.history = loadRunHistory(scan, model.runId, historyDirs);
    const t2 = performance.now();
    const rendered = await renderHtmlReport(model);
    const t3 = performance.now();
    const path = writePage(file ?? defaultReportPath(resultsDir, model.runId), rendered.html);
    return { path, model, rendered, timings: { scanMs: t1 - t0, queryMs: t2 - t1, renderMs: t3 - t2 } };
  } finally {
    scan.dispose();
  }
}
