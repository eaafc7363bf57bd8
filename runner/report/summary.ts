import { loadRunHistory } from './history/load';
import { ScannedResults } from './load';
import type { ReportModel } from './model';
import { modelCsv, modelJson } from './text/export';
import { summaryLines, type SummaryOptions } from './text/summary';

/** How `s3ab report` prints a run: the text summary (100 columns, or `wide`), or the model's tables as JSON or CSV. */
export interface PrintOptions extends SummaryOptions {
  /** @default 'text' */
  format?: 'text' | 'json' | 'csv';
}

/** The report model of one run of a results folder (default: the newest). */
export async function loadReportModel(dir: string, runId?: string): Promise<ReportModel> {
  const scan = ScannedResults.open(dir);
  try {
    return await scan.reportModel(scan.pickRun(runId));
  } finally {
    scan.dispose();
  }
}

/** The model printed as asked: text lines, or one JSON document or CSV text. */
export function renderModel(model: ReportModel, opts: PrintOptions = {}): string[] {
  if (opts.format === 'json') return [modelJson(model)];
  if (opts.format === 'csv') return [modelCsv(model).trimEnd()];
  return summaryLines(model, opts);
}

/**
 * Prints the summary of one run (default: the newest) from its report model, with the run's history
 * read from the same folder and `historyDirs`: as text it ends with the run against the comparable
 * runs before it; as json or csv its series are a table.
 * Throws a UserError naming the runs there when the run asked for is not in the folder
 * (ScannedResults.pickRun).
 */
export async function printSummary(dir: string, runId: string | undefined, out: (line: string) => void, opts: PrintOptions & { historyDirs?: string[] } = {}): Promise<ReportModel> {
  const scan = ScannedResults.open(dir);
  try {
    const model = await scan.reportModel(scan.pickRun(runId));
    model.history = loadRunHistory(scan, model.runId, opts.historyDirs ?? []);
    for (const line of renderModel(model, opts)) out(line);
    return model;
  } finally {
    scan.dispose();
  }
}
