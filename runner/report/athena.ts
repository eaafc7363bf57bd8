import { GetQueryExecutionCommand, GetQueryResultsCommand, type AthenaClient } from '@aws-sdk/client-athena';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ResolvedAdvice } from '../core/matrix';
import type { RunManifest } from '../results/writer';
import { forEachCsvRecord } from './csv';
import { buildReportModel, type ModelQueryName, type ModelRows, type ReportModel } from './model';
import { MODEL_QUERIES } from './model-queries.generated';

/** The rows of one finished Athena query: column names, and each row as column → text (null for SQL NULL). */
export interface AthenaRows {
  columns: string[];
  rows: Record<string, string | null>[];
}

/** Reads a finished query's rows by its execution id. */
export type AthenaRowsReader = (queryExecutionId: string) => Promise<AthenaRows>;

/**
 * Every row of a finished query, page by page (at most 1,000 rows a page, one call each, in
 * sequence): for the `s3ab aws` commands, whose users may read Athena but not the results
 * bucket. Athena returns every value as text (VarCharValue; absent for NULL) and, for a SELECT,
 * the column names as the first row of the first page. The report function reads the result file
 * instead (athenaResultFile).
 */
export async function athenaRows(client: AthenaClient, queryExecutionId: string): Promise<AthenaRows> {
  let columns: string[] = [];
  const rows: Record<string, string | null>[] = [];
  let token: string | undefined;
  let first = true;
  do {
    const page = await client.send(new GetQueryResultsCommand({ QueryExecutionId: queryExecutionId, NextToken: token, MaxResults: 1000 }));
    if (first) columns = (page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((c) => c.Name!);
    const data = page.ResultSet?.Rows ?? [];
    for (const row of first ? data.slice(1) : data) rows.push(Object.fromEntries(columns.map((c, i) => [c, row.Data?.[i]?.VarCharValue ?? null])));
    first = false;
    token = page.NextToken;
  } while (token);
  return { columns, rows };
}

/**
 * Every row of a finished query from its result file, in two calls whatever its size: the query's
 * output location (GetQueryExecution), then the file (one GetObject). Athena writes a SELECT's
 * result as OUTPUT/QUERY_ID.csv: the column names as the first record, every value quoted as the
 * text GetQueryResults would give, NULL as an empty unquoted field (parseCsv).
 */
export async function athenaResultFile(clients: { athena: AthenaClient; s3: S3Client }, queryExecutionId: string): Promise<AthenaRows> {
  const q = await clients.athena.send(new GetQueryExecutionCommand({ QueryExecutionId: queryExecutionId }));
  const location = q.QueryExecution?.ResultConfiguration?.OutputLocation;
  const m = location ? /^s3:\/\/([^/]+)\/(.+)$/.exec(location) : null;
  if (!m) throw new Error(`query ${queryExecutionId} has no result file (OutputLocation ${JSON.stringify(location)})`);
  const object = await clients.s3.send(new GetObjectCommand({ Bucket: m[1], Key: m[2] }));
  const text = await object.Body!.transformToString('utf8');
  let columns: string[] | null = null;
  const rows: Record<string, string | null>[] = [];
  forEachCsvRecord(text, (r) => {
    if (!columns) {
      if (r.some((c) => c === null)) throw new Error(`the result file ${location} of query ${queryExecutionId} has no header of column names`);
      columns = r as string[];
      return;
    }
    if (r.length !== columns.length) throw new Error(`the result file ${location}: record ${rows.length + 2} has ${r.length} fields, the header ${columns.length}`);
    const row: Record<string, string | null> = {};
    for (let j = 0; j < columns.length; j++) row[columns[j]] = r[j];
    rows.push(row);
  });
  if (!columns) throw new Error(`the result file ${location} of query ${queryExecutionId} is empty: not even a header of column names`);
  return { columns, rows };
}

/** What the execution knows about a run that its rows cannot tell. */
export interface ExecutionFacts {
  /** The matrix's name. */
  matrix: string;
  /** Benchmark steps of the matrix; at the Report state every one of them has succeeded. */
  steps: number;
  /** When the execution started (ISO). */
  startedAt: string;
  /** The matrix's `advice` as ValidateInput resolved it (null: the matrix named none): the Advice section's question. */
  advice: ResolvedAdvice | null;
}

/** The query names the model needs that an Aggregate output lacks (empty when it has them all). */
export function missingModelQueries(queries: { name: string }[]): ModelQueryName[] {
  return MODEL_QUERIES.filter((n) => !queries.some((q) => q.name === n));
}

/**
 * Reads the model's query results of an execution (the Aggregate state's output: each query's
 * name and execution id), all at once, with the reader given (the result file, or pages).
 */
export async function modelRowsFromAthena(read: AthenaRowsReader, queries: { name: string; queryExecutionId: string }[]): Promise<ModelRows> {
  const wanted = queries.filter((q) => (MODEL_QUERIES as readonly string[]).includes(q.name));
  const results = await Promise.all(wanted.map(async (q) => [q.name, (await read(q.queryExecutionId)).rows] as const));
  return Object.fromEntries(results) as unknown as ModelRows;
}

/**
 * The report model of a run from the rows of the pipeline's Aggregate queries — the same SQL files,
 * normalized and built by the same functions (rows.ts, model.ts) as the local DuckDB path. The
 * Report state runs only after every step succeeded, so the execution's facts make a complete
 * manifest; without them the model says the run's status is unknown. Athena reads only well-formed
 * lines (a malformed line fails the query, and every writer checks records against the schema
 * first), so there are no bad lines to list; other runs in the bucket are not listed.
 */
export function reportModelFromAthena(opts: {
  runId: string;
  rows: ModelRows;
  source: string;
  execution: ExecutionFacts | null;
  generatedAt: string;
}): ReportModel {
  const e = opts.execution;
  const manifest: RunManifest | null = e ? {
    run_id: opts.runId, status: 'complete', started_at: e.startedAt, ended_at: opts.generatedAt, matrix: e.matrix,
    steps_total: e.steps, steps_done: e.steps, steps_failed: 0, problem: null, endpoint: null, peak_rss_bytes: null,
    ...(e.advice ? { advice: e.advice } : {}),
  } : null;
  const model = buildReportModel(opts.rows, {
    runId: opts.runId, manifests: manifest ? [manifest] : [], source: opts.source, otherRuns: null,
    badLines: [], badLineCount: 0, badManifests: [], recordCount: 0, generatedAt: opts.generatedAt,
  });
  model.recordCount = model.methods.reduce((n, m) => n + m.records, 0);
  return model;
}
