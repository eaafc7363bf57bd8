import type { DuckDBConnection } from '@duckdb/node-api';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import intervalSchema from '../../assets/schema/interval.schema.json';
import resultSchema from '../../assets/schema/result.schema.json';
import { duckAccessLogView } from './access-log-table';
import { UserError } from '../core/errors';
import { projectRoot } from '../core/paths';
import { INTERVALS_FOLDER } from '../core/vocabulary';

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; additionalProperties?: boolean | JsonSchema; items?: JsonSchema };

/** DuckDB type of a JSON Schema node (the same mapping the Glue columns use, in DuckDB spelling). */
function duckType(s: JsonSchema): string {
  const type = (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type) ?? 'string';
  switch (type) {
    case 'string': return 'VARCHAR';
    case 'integer': return 'BIGINT';
    case 'number': return 'DOUBLE';
    case 'boolean': return 'BOOLEAN';
    case 'array': return `${duckType(s.items ?? {})}[]`;
    case 'object':
      if (s.properties) return `STRUCT(${Object.entries(s.properties).map(([k, v]) => `"${k}" ${duckType(v)}`).join(', ')})`;
      return 'MAP(VARCHAR, VARCHAR)';
    default: throw new Error(`no DuckDB type for JSON Schema type ${type}`);
  }
}

/** The `columns` argument of read_json for a schema's records: result records (assets/schema/result.schema.json) by default. */
function duckColumns(schema: JsonSchema = resultSchema as JsonSchema): string {
  return `{${Object.entries(schema.properties!).map(([k, v]) => `'${k}': '${duckType(v)}'`).join(', ')}}`;
}

/** The table the interval series are read into (the Glue table's name too). */
export const INTERVALS_TABLE = 'intervals';

/**
 * Adds the table `intervals` (assets/schema/interval.schema.json) from JSON-lines files of
 * interval series; empty, with the schema's columns, when there are none (a run without long
 * measurements), so interval_series.sql runs either way.
 */
export async function attachIntervals(connection: DuckDBConnection, files: string[], runId?: string): Promise<void> {
  const props = (intervalSchema as JsonSchema).properties!;
  if (!files.length) {
    await connection.run(`CREATE TABLE ${INTERVALS_TABLE} (${Object.entries(props).map(([k, v]) => `"${k}" ${duckType(v)}`).join(', ')}, dt VARCHAR)`);
    return;
  }
  const literal = (x: string) => `'${x.replace(/'/g, "''")}'`;
  await connection.run(
    `CREATE TABLE ${INTERVALS_TABLE} AS SELECT * FROM read_json([${files.map(literal).join(', ')}], format = 'newline_delimited', ` +
    // The day partition from the path (intervals/dt=DAY/), as Athena's projection gives it.
    `hive_partitioning = true, ignore_errors = true, columns = ${duckColumns(intervalSchema as JsonSchema)})${runId ? ` WHERE run_id = ${literal(runId)}` : ''}`,
  );
}

/** What a query is for: the report model reads it (assets/queries/model/), or users run it by name (assets/queries/adhoc/). */
export type QueryUse = 'model' | 'adhoc';

export interface NamedQuery {
  name: string;
  description: string;
  sql: string;
  use: QueryUse;
}

/** The folder of each use's SQL files, under assets/queries/. */
const QUERY_FOLDERS: Record<QueryUse, string> = { model: 'queries/model', adhoc: 'queries/adhoc' };

/**
 * Every named query over the results (Athena/Trino dialect), model and adhoc, by name, with its
 * leading comment as description: each becomes an Athena named query, and any of them runs by
 * name with `s3ab report --query NAME`. A name is one file in one folder.
 */
export function namedQueries(): NamedQuery[] {
  const all = [...queriesIn(QUERY_FOLDERS.model, 'model'), ...queriesIn(QUERY_FOLDERS.adhoc, 'adhoc')].sort((a, b) => a.name.localeCompare(b.name));
  const twice = all.filter((q, i) => i > 0 && all[i - 1].name === q.name).map((q) => q.name);
  if (twice.length) throw new Error(`query ${twice.join(', ')} is both in assets/${QUERY_FOLDERS.model}/ and assets/${QUERY_FOLDERS.adhoc}/: a query name is one file`);
  return all;
}

/** The queries the report model reads (assets/queries/model/): the only ones the pipeline's Aggregate runs. */
export function modelQueries(): NamedQuery[] {
  return queriesIn(QUERY_FOLDERS.model, 'model');
}

/** The named query called `name`; a UserError listing every name when there is none. */
export function namedQuery(name: string): NamedQuery {
  const all = namedQueries();
  const q = all.find((x) => x.name === name);
  if (q) return q;
  const list = (use: QueryUse) => all.filter((x) => x.use === use).map((x) => x.name).join(', ');
  throw new UserError(`no query named "${name}"`, `name one of the files in assets/queries/: adhoc: ${list('adhoc')}; model: ${list('model')}`);
}

/** The queries over the access_logs table (assets/queries-access-logs/): run on demand, never by the pipeline (logs arrive late). */
export function accessLogQueries(): NamedQuery[] {
  return queriesIn('queries-access-logs', 'adhoc');
}

function queriesIn(folder: string, use: QueryUse): NamedQuery[] {
  const dir = join(projectRoot(), 'assets', folder);
  return readdirSync(dir).filter((f) => f.endsWith('.sql')).sort().map((f) => {
    const sql = readFileSync(join(dir, f), 'utf8');
    const description = sql.split('\n').filter((l) => l.startsWith('--')).map((l) => l.replace(/^--\s?/, '')).join(' ');
    return { name: f.replace(/\.sql$/, ''), description, sql, use };
  });
}

/** An in-memory DuckDB with the `results` table or view; close() frees it. */
export interface OpenedResults {
  connection: DuckDBConnection;
  close(): void;
}

/**
 * Opens a results folder in an in-memory DuckDB: a view `results` with the schema's columns over
 * DIR/dt=*\/*.jsonl (optionally one run only), and `approx_percentile`, `from_iso8601_timestamp`,
 * `to_unixtime`, `parse_datetime` and `sequence` shimmed so the Athena SQL files run unchanged.
 */
export async function openResults(dir: string, runId?: string): Promise<OpenedResults> {
  if (!existsSync(dir)) throw new Error(`no results folder at ${dir}`);
  const opened = await openRecords(join(dir, 'dt=*', '*.jsonl'), { runId, hivePartitioning: true });
  await attachIntervals(opened.connection, intervalFiles(dir), runId);
  return opened;
}

/** The interval-series files of a results folder (DIR/intervals/dt=*\/*.jsonl), optionally of one run. */
export function intervalFiles(dir: string, runId?: string): string[] {
  const root = join(dir, INTERVALS_FOLDER);
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name.startsWith('dt=')).map((d) => d.name).sort()
    .flatMap((part) => readdirSync(join(root, part)).filter((f) => f.endsWith('.jsonl') && !f.startsWith('.') && (!runId || f.startsWith(`${runId}--`))).sort().map((f) => join(root, part, f)));
}

/**
 * Opens JSON-lines files of result records (a glob or a list of paths) as the table or view
 * `results`, with the schema's columns and the `approx_percentile` shim. `materialize` reads the
 * files once into a table, for callers that run several queries.
 */
export async function openRecords(
  files: string | string[],
  opts: { runId?: string; materialize?: boolean; hivePartitioning?: boolean; threads?: number } = {},
): Promise<OpenedResults> {
  // Loaded lazily: the native DuckDB binding is only needed by `report`.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:', opts.threads ? { threads: String(opts.threads) } : {});
  const connection = await instance.connect();
  await connection.run('CREATE MACRO approx_percentile(x, p) AS quantile_cont(x, p)');
  // Trino's ISO 8601 parsing and epoch seconds (fleet_scaling.sql's time window), in DuckDB spelling.
  await connection.run('CREATE MACRO from_iso8601_timestamp(s) AS CAST(s AS TIMESTAMPTZ)');
  await connection.run('CREATE MACRO to_unixtime(t) AS epoch(t)');
  // Trino's parse_datetime for the one format the SQL files use: S3 access logs' [06/Feb/2019:00:00:38 +0000].
  await connection.run("CREATE MACRO parse_datetime(s, f) AS strptime(s, '%d/%b/%Y:%H:%M:%S %z')");
  // Trino's sequence(start, stop), inclusive (latency_merged.sql unnests histogram buckets by position).
  await connection.run('CREATE MACRO sequence(a, b) AS generate_series(CAST(a AS BIGINT), CAST(b AS BIGINT))');
  // Trino's array_join(array, separator) (fleet_scaling.sql names the failed clients).
  await connection.run('CREATE MACRO array_join(a, sep) AS array_to_string(a, sep)');
  const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const source = Array.isArray(files) ? `[${files.map(literal).join(', ')}]` : literal(files);
  const filter = opts.runId ? `WHERE run_id = ${literal(opts.runId)}` : '';
  await connection.run(
    `CREATE ${opts.materialize ? 'TABLE' : 'VIEW'} results AS SELECT * FROM read_json(${source}, format = 'newline_delimited', ` +
    `hive_partitioning = ${opts.hivePartitioning ? 'true' : 'false'}, ignore_errors = true, columns = ${duckColumns()}) ${filter}`,
  );
  return { connection, close: () => { connection.closeSync(); instance.closeSync(); } };
}

/** Adds the view access_logs over S3 server-access-log files (the DuckDB stand-in of the Glue table). */
export async function attachAccessLogs(connection: DuckDBConnection, files: string[]): Promise<void> {
  await connection.run(duckAccessLogView(files));
}

export async function query(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}
