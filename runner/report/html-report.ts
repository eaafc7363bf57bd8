import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ScannedResults } from './load';
import type { ReportInput } from './model';
import { renderHtmlReport, type RenderedReport } from './html/render';

export interface WrittenReport {
  path: string;
  input: ReportInput;
  rendered: RenderedReport;
  /** Milliseconds spent reading and checking lines, querying, rendering. */
  timings: { scanMs: number; queryMs: number; renderMs: number };
}

/** Where `s3ab run` puts a run's page: next to the results, in a folder Athena skips (leading _). */
export function defaultReportPath(resultsDir: string, runId: string): string {
  return join(resultsDir, '_reports', `${runId}.html`);
}

/** Reads a results folder, renders one run (default: the newest) and writes the page atomically. */
export async function writeHtmlReport(resultsDir: string, runId: string | undefined, file?: string): Promise<WrittenReport> {
  const t0 = performance.now();
  const scan = ScannedResults.open(resultsDir);
  try {
    const t1 = performance.now();
    const input = await scan.reportInput(scan.pickRun(runId));
    const t2 = performance.now();
    const rendered = await renderHtmlReport(input);
    const t3 = performance.now();
    const path = resolve(file ?? defaultReportPath(resultsDir, input.runId));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.tmp`, rendered.html);
    renameSync(`${path}.tmp`, path);
    return { path, input, rendered, timings: { scanMs: t1 - t0, queryMs: t2 - t1, renderMs: t3 - t2 } };
  } finally {
    scan.dispose();
  }
}
