import { isRunId, runDay } from '../core/vocabulary';
/**
 * How the pipeline's Aggregate state runs each model query (assets/queries/model/NAME.sql) for one run
 * (and `s3ab report --query NAME --run RUNID` any named query):
 * it wraps the file's SQL and keeps the run's rows.
 * - The tables `results` and `intervals` are replaced by the run's day partition (a WITH query of the same name over
 *   the qualified table: Trino and DuckDB resolve an unqualified name to the WITH query, a
 *   qualified one to the table). Every record of a run lands in its run id's day (`runDay`), and
 *   with the `dt` predicate partition projection reads that day only — without it, Athena
 *   enumerates every day since the table's first, slower as the stack ages.
 * - Athena (Trino) ignores an ORDER BY inside a subquery, so the file's own ORDER BY is repeated
 *   outside — the rows then come back in the order the file asks for, as DuckDB returns them
 *   locally, and the report is drawn from the same rows in the same order either way.
 *
 * The template is States.Format's after the database is filled in: `{}` takes, in order, the
 * run's day (twice: one per table), the SQL, the run id and the ORDER BY.
 */
export function runQueryTemplate(database: string): string {
  if (!/^[a-z0-9_]+$/.test(database)) throw new Error(`"${database}" is not a database name of the results table (lower-case letters, digits, _)`);
  return `WITH results AS (SELECT * FROM ${database}.results WHERE dt = '{}'), intervals AS (SELECT * FROM ${database}.intervals WHERE dt = '{}')\nSELECT * FROM ({}\n) AS q WHERE run_id = '{}' {}`;
}

/** The database of the `results` view in DuckDB (runner/report/results-db.ts), for the same SQL locally. */
const DUCKDB_DATABASE = 'main';

/** The trailing top-level `ORDER BY col, col DESC, ...` of a query file, or '' when it has none. */
export function orderByOf(sql: string, name = 'query'): string {
  const code = sql.split('\n').map((l) => l.replace(/--.*$/, '')).join('\n').trim().replace(/;\s*$/, '');
  const last = [...code.matchAll(/\bORDER\s+BY\b/gi)].pop();
  if (!last) return '';
  let depth = 0;
  let quoted = false;
  // Parentheses inside a string literal ('(%') are not the query's.
  for (const ch of code.slice(0, last.index)) {
    if (ch === "'") quoted = !quoted;
    else if (!quoted) depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
  }
  // An ORDER BY inside parentheses (a subquery, a window) is not the query's own.
  if (depth > 0) return '';
  const items = code.slice(last.index + last[0].length).split(',').map((s) => s.trim().replace(/\s+/g, ' '));
  for (const item of items) {
    // Outside the subquery only the output columns are in scope.
    if (!/^[a-z_][a-z0-9_]*( (ASC|DESC))?( NULLS (FIRST|LAST))?$/i.test(item)) {
      throw new Error(`${name}: ORDER BY item "${item}" must be an output column name (optionally ASC/DESC), so the pipeline can repeat it outside its run filter`);
    }
  }
  return `ORDER BY ${items.join(', ')}`;
}

/** The query the pipeline sends to Athena for one run (what States.Format makes of the template). */
export function queryForRun(sql: string, runId: string, opts: { database?: string; orderBy?: string } = {}): string {
  if (!isRunId(runId)) throw new Error(`"${runId}" is not a run id`);
  const args = [runDay(runId), runDay(runId), sql, runId, opts.orderBy ?? orderByOf(sql)];
  let i = 0;
  return runQueryTemplate(opts.database ?? DUCKDB_DATABASE).replace(/\{\}/g, () => args[i++]);
}

/** The template as an ASL intrinsic string literal (quotes escaped), for States.Format. */
export function runQueryIntrinsic(database: string, ...paths: [day: string, sql: string, runId: string, orderBy: string]): string {
  const [day, ...rest] = paths;
  return `States.Format('${runQueryTemplate(database).replace(/'/g, "\\'")}', ${[day, day, ...rest].join(', ')})`;
}
