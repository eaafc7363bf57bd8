import { AthenaClient } from '@aws-sdk/client-athena';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { RESULTS_LAYOUT } from '../lib/results-layout';
import { athenaResultFile, missingModelQueries, modelRowsFromAthena, reportModelFromAthena, type ExecutionFacts } from '../runner/report/athena';
import { renderHtmlReport } from '../runner/report/html/render';
import { MODEL_QUERIES } from '../runner/report/model-queries.generated';
import { logger, NamedError } from './shared/powertools';
import { summaryFiles, type ReportFile } from './shared/report-render';
import { env, s3Client } from './shared/s3';
import { isRunId } from '../runner/core/vocabulary';

const athena = new AthenaClient({ maxAttempts: 5 });
const s3 = s3Client();

export interface ReportEvent {
  runId: string;
  /** The Aggregate state's output: every named query, run for this run. */
  queries: { name: string; queryExecutionId: string }[];
  /** What the execution knows (the matrix's name, its step count, its start time, its advice request). @default unknown: the page says so */
  execution?: ExecutionFacts;
}

export interface ReportResult {
  /** s3:// URI of the HTML page. */
  reportLocation: string;
  files: string[];
  rows: number;
  /** Sections of the page without data in this run. */
  sectionsWithoutData: string[];
}

/**
 * Report: reads the rows of the run's model queries (run by Aggregate, restricted to the run and
 * ordered as each SQL file says), builds the report model from them with the same code as
 * `s3ab report` (runner/report/model.ts), and writes the same HTML page, the same text summary
 * (summary.txt) and the model's tables (summary.json) into the results bucket under
 * reports/RUNID/. Returns the page's location.
 */
export async function handler(event: ReportEvent, _context?: unknown, deps: { athena?: AthenaClient; s3?: S3Client; now?: () => Date } = {}): Promise<ReportResult> {
  // Lambda calls handler(event, context): the clients a test or the rehearsal injects come third.
  const clients = { athena: deps.athena ?? athena, s3: deps.s3 ?? s3 };
  const now = deps.now ?? (() => new Date());
  if (!event?.runId || !isRunId(event.runId) || !Array.isArray(event.queries)) {
    throw new NamedError('InvalidEvent', `runId (a run id) and queries are required, got ${JSON.stringify(event)?.slice(0, 300)}`);
  }
  const missing = missingModelQueries(event.queries);
  if (missing.length) {
    throw new NamedError('InvalidEvent', `the Aggregate output has no ${missing.join(', ')} — the report needs the named queries ${MODEL_QUERIES.join(', ')} (one per file in assets/queries/model/); redeploy the stack`);
  }
  const generatedAt = now().toISOString();
  // One result file per query (GetQueryExecution, then GetObject), not GetQueryResults' pages of 1,000 rows: a full run's interval series is tens of thousands of rows.
  const rowsByQuery = await modelRowsFromAthena((id) => athenaResultFile(clients, id), event.queries);
  const bucket = env('RESULTS_BUCKET');
  const model = reportModelFromAthena({
    runId: event.runId, rows: rowsByQuery,
    source: `s3://${bucket}/${RESULTS_LAYOUT.records} (Athena, the pipeline's Aggregate queries)`,
    execution: event.execution ?? null,
    generatedAt,
  });
  const t0 = performance.now();
  const page = await renderHtmlReport(model);
  const renderMs = Math.round(performance.now() - t0);
  const files: ReportFile[] = [{ name: 'report.html', contentType: 'text/html; charset=utf-8', body: page.html }, ...summaryFiles(model)];
  const written: string[] = [];
  for (const f of files) {
    const key = `${RESULTS_LAYOUT.reports}${event.runId}/${f.name}`;
    await clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: f.body, ContentType: f.contentType }));
    written.push(`s3://${bucket}/${key}`);
  }
  const rows = Object.values(rowsByQuery).reduce((n, r) => n + r.length, 0);
  const sectionsWithoutData = page.sections.filter((s) => !s.hasData).map((s) => s.title);
  logger.info('report written', { runId: event.runId, files: written, rows, renderMs, charts: page.charts, warnings: page.warnings, sectionsWithoutData });
  return { reportLocation: written[0], files: written, rows, sectionsWithoutData };
}
