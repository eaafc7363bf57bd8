/**
 * The data bucket's S3 server access logs as a table (`access_logs`): the columns and the RegexSerDe
 * pattern of AWS's documented Athena DDL for server access logs, in one place for the Glue table
 * (lib/results-catalog.ts) and for the DuckDB stand-in that runs the same SQL here.
 */
export const ACCESS_LOG_TABLE = 'access_logs';

/** Columns in log order, with their Hive types. */
export const ACCESS_LOG_COLUMNS = [
  ['bucketowner', 'string'], ['bucket_name', 'string'], ['requestdatetime', 'string'], ['remoteip', 'string'], ['requester', 'string'],
  ['requestid', 'string'], ['operation', 'string'], ['key', 'string'], ['request_uri', 'string'], ['httpstatus', 'string'],
  ['errorcode', 'string'], ['bytessent', 'bigint'], ['objectsize', 'bigint'], ['totaltime', 'string'], ['turnaroundtime', 'string'],
  ['referrer', 'string'], ['useragent', 'string'], ['versionid', 'string'], ['hostid', 'string'], ['sigv', 'string'],
  ['ciphersuite', 'string'], ['authtype', 'string'], ['endpoint', 'string'], ['tlsversion', 'string'], ['accesspointarn', 'string'],
  ['aclrequired', 'string'],
] as const;

/** AWS's documented input.regex for S3 server access logs (one group per column above). */
export const ACCESS_LOG_REGEX = '([^ ]*) ([^ ]*) \\[(.*?)\\] ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ("[^"]*"|-) (-|[0-9]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ("[^"]*"|-) ([^ ]*)(?: ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*))?.*$';

/** The partition column of the date-partitioned log layout (…/YYYY/MM/DD/), projected, never crawled. */
export const ACCESS_LOG_PARTITION = 'day';

/**
 * DuckDB: the view `access_logs` over log files in S3's format, each line split by the same
 * regex (a line that does not match gives NULLs, as the RegexSerDe does).
 */
export function duckAccessLogView(files: string[]): string {
  const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
  // DuckDB numbers groups up to 9 only: the groups come out as a struct of named fields instead.
  const names = `[${ACCESS_LOG_COLUMNS.map(([name]) => literal(name)).join(', ')}]`;
  const cols = ACCESS_LOG_COLUMNS.map(([name, type]) => {
    const group = `nullif(g.${name}, '')`;
    return `${type === 'bigint' ? `TRY_CAST(${group} AS BIGINT)` : group} AS ${name}`;
  });
  return `CREATE VIEW ${ACCESS_LOG_TABLE} AS SELECT ${cols.join(', ')} FROM (SELECT regexp_extract(line, ${literal(ACCESS_LOG_REGEX)}, ${names}) AS g ` +
    `FROM (SELECT unnest(string_split(content, chr(10))) AS line FROM read_text([${files.map(literal).join(', ')}])) WHERE line <> '')`;
}
