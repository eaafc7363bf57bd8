import { AthenaClient, GetQueryResultsCommand } from '@aws-sdk/client-athena';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { RESULTS_LAYOUT } from '../lib/results-layout';
import { logger, NamedError } from './shared/powertools';
import { textAndJsonRenderer, type ReportData, type ReportRenderer } from './shared/report-render';
import { env, s3Client } from './shared/s3';

const athena = new AthenaClient({ maxAttempts: 5 });
const s3 = s3Client();

export interface ReportEvent { runId: string; queries: { name: string; queryExecutionId: string }[] }
export interface ReportResult { reportLocation: string; files: string[]; rows: number }

/** Every row of a finished Athena query, as column → value. */
export async function queryRows(client: AthenaClient, queryExecutionId: string): Promise<{ columns: string[]; rows: Record<string, string | null>[] }> {
  let columns: string[] = [];
  const rows: Record<string, string | null>[] = [];
  let token: string | undefined;
  let first = true;
  do {
    const page = await client.send(new GetQueryResultsCommand({ QueryExecutionId: queryExecutionId, NextToken: token }));
    columns = (page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((c) => c.Name!);
    const data = page.ResultSet?.Rows ?? [];
    // The first row of the first page holds the column names.
    for (const row of first ? data.slice(1) : data) rows.push(Object.fromEntries(columns.map((c, i) => [c, row.Data?.[i]?.VarCharValue ?? null])));
    first = false;
    token = page.NextToken;
  } while (token);
  return { columns, rows };
}

/**
 * Report: reads the run's summary queries (run by Aggregate) and writes the report into the
 * results bucket under reports/RUNID/; returns the location of its main file.
 */
export async function handler(event: ReportEvent, clients: { athena: AthenaClient; s3: S3Client } = { athena, s3 }, render: ReportRenderer = textAndJsonRenderer): Promise<ReportResult> {
  if (!event?.runId || !Array.isArray(event.queries)) throw new NamedError('InvalidEvent', `runId and queries are required, got ${JSON.stringify(event)}`);
  const data: ReportData = { runId: event.runId, generatedAt: new Date().toISOString(), queries: [] };
  for (const q of event.queries) data.queries.push({ name: q.name, ...(await queryRows(clients.athena, q.queryExecutionId)) });
  const bucket = env('RESULTS_BUCKET');
  const files: string[] = [];
  for (const f of render(data)) {
    const key = `${RESULTS_LAYOUT.reports}${event.runId}/${f.name}`;
    await clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: f.body, ContentType: f.contentType }));
    files.push(`s3://${bucket}/${key}`);
  }
  const rows = data.queries.reduce((n, q) => n + q.rows.length, 0);
  logger.info('report written', { runId: event.runId, files, rows });
  return { reportLocation: files.find((f) => f.endsWith('.txt')) ?? files[0], files, rows };
}
