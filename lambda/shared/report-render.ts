import type { ReportModel } from '../../runner/report/model';
import { modelJson } from '../../runner/report/text/export';
import { summaryLines } from '../../runner/report/text/summary';

/** One file of a report: the Report function writes each under reports/RUNID/. */
export interface ReportFile {
  name: string;
  contentType: string;
  body: string;
}

/**
 * Next to the HTML page, from the same report model: summary.txt — the text summary `s3ab run`
 * prints locally, in 100 columns — and summary.json, the model's tables for scripts (what
 * `s3ab report --format json` writes).
 */
export function summaryFiles(model: ReportModel): ReportFile[] {
  return [
    { name: 'summary.json', contentType: 'application/json', body: `${modelJson(model)}\n` },
    { name: 'summary.txt', contentType: 'text/plain; charset=utf-8', body: `${summaryLines(model).join('\n')}\n` },
  ];
}
