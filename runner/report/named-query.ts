import Table from 'cli-table3';
import { UserError } from '../core/errors';
import { isRunId, RUN_ID_EXAMPLE } from '../core/vocabulary';
import { namedQuery, openResults } from './results-db';
import { queryForRun } from './run-query';

/** A query's result as text: its column names, and each row's cells ('–' for NULL). */
export interface QueryTable {
  columns: string[];
  rows: string[][];
}

/** A value as DuckDB returns it, as text: numbers and strings as they are, lists and structs as JSON. */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'object') return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? Number(x) : x));
  return String(v);
}

/** The --run argument checked: a run id, or undefined for every run. */
export function checkedRunId(runId: string | undefined): string | undefined {
  if (runId !== undefined && !isRunId(runId)) throw new UserError(`--run "${runId}" is not a run id`, `use the form ${RUN_ID_EXAMPLE}`);
  return runId;
}

/**
 * `s3ab report --query NAME` on this machine: the named query (assets/queries/{model,adhoc}/NAME.sql)
 * on DuckDB over a results folder — every run in it, as the Athena named query reads the whole
 * table, or one run restricted as the pipeline restricts it (run-query.ts).
 */
export async function localQuery(resultsDir: string, name: string, runId?: string): Promise<QueryTable> {
  const q = namedQuery(name);
  const run = checkedRunId(runId);
  const db = await openResults(resultsDir).catch((err: Error) => {
    throw new UserError(err.message, 'name a results folder with --results DIR (a run writes one; `s3ab run` makes it)');
  });
  try {
    const reader = await db.connection.runAndReadAll(run ? queryForRun(q.sql, run) : q.sql);
    const columns = reader.columnNames();
    const rows = reader.getRowObjectsJS() as Record<string, unknown>[];
    return { columns, rows: rows.map((r) => columns.map((c) => cellText(r[c]))) };
  } finally {
    db.close();
  }
}

/** A query's table as the CLI prints it (the same for DuckDB and Athena), after a title line with its row count. */
export function printQueryTable(title: string, t: QueryTable, out: (line: string) => void): void {
  out(`${title} (${t.rows.length} rows)`);
  if (!t.columns.length) return;
  const table = new Table({ head: t.columns, style: { head: [], border: [] } });
  for (const r of t.rows) table.push(r);
  out(table.toString());
}
