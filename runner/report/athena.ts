import { GetQueryResultsCommand, type AthenaClient } from '@aws-sdk/client-athena';
import type { RunManifest } from '../results/writer';
import { REPORT_QUERIES, reportRows, type ReportInput, type ReportQueryName } from './model';

/** The rows of one finished Athena query: column names, and each row as column → text (null for SQL NULL). */
export interface AthenaRows {
  columns: string[];
  rows: Record<string, string | null>[];
}

/**
 * Every row of a finished query, page by page. Athena returns every value as text (VarCharValue;
 * absent for NULL) and, for a SELECT, the column names as the first row of the first page.
 */
export async function athenaRows(client: AthenaClient, queryExecutionId: string): Promise<AthenaRows> {
  let columns: string[] = [];
  const rows: Record<string, string | null>[] = [];
  let token: string | undefined;
  let first = true;
  do {
    const page = await client.send(new GetQueryResultsCommand({ QueryExecutionId: queryExecutionId, NextToken: token }));
    if (first) columns = (page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((c) => c.Name!);
    const data = page.ResultSet?.Rows ?? [];
    for (const row of first ? data.slice(1) : data) rows.push(Object.fromEntries(columns.map((c, i) => [c, row.Data?.[i]?.VarCharValue ?? null])));
    first = false;
    token = page.NextToken;
  } while (token);
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
}

/**
 * The report of a run from the rows of the pipeline's Aggregate queries — the same SQL files,
 * normalized by the same functions (model.ts) as the local DuckDB path, for the same renderer.
 * The Report state runs only after every step succeeded, so the execution's facts make a complete
 * manifest; without them the page says the run's status is unknown. Athena reads only well-formed
 * lines (a malformed line fails the query, and every writer checks records against the schema
 * first), so there are no bad lines to list; other runs in the bucket are not listed.
 */
export function reportInputFromAthena(opts: {
  runId: string;
  rows: Record<ReportQueryName, Record<string, string | null>[]>;
  source: string;
  execution: ExecutionFacts | null;
  generatedAt: string;
}): ReportInput {
  const rows = reportRows(opts.rows);
  const records = rows.methods.reduce((n, m) => n + m.records, 0);
  const e = opts.execution;
  const manifest: RunManifest | null = e ? {
    run_id: opts.runId, status: 'complete', started_at: e.startedAt, ended_at: opts.generatedAt, matrix: e.matrix,
    steps_total: e.steps, steps_done: e.steps, steps_failed: 0, problem: null, endpoint: null, peak_rss_bytes: null,
  } : null;
  return {
    runId: opts.runId, manifest, source: opts.source, otherRuns: null, ...rows,
    badLines: [], badLineCount: 0, recordCount: records, generatedAt: opts.generatedAt,
  };
}

/** The query names the report needs, for messages. */
export const REPORT_QUERY_NAMES = Object.keys(REPORT_QUERIES) as ReportQueryName[];
