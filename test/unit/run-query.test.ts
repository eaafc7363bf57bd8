import { namedQueries } from '../../runner/report/results-db';
import { orderByOf, queryForRun, runQueryIntrinsic, runQueryTemplate } from '../../runner/report/run-query';

const RUN = '20261122T101500Z-abc123';

test('every SQL file has a trailing ORDER BY of output columns, which the pipeline repeats outside its run filter', () => {
  for (const q of namedQueries()) {
    const orderBy = orderByOf(q.sql, q.name);
    expect({ name: q.name, orderBy }).toEqual({ name: q.name, orderBy: expect.stringMatching(/^ORDER BY run_id(, [a-z_]+)+$/) });
    expect(queryForRun(q.sql, RUN, { database: 's3ab_db' })).toBe(`WITH results AS (SELECT * FROM s3ab_db.results WHERE dt = '2026-11-22'), intervals AS (SELECT * FROM s3ab_db.intervals WHERE dt = '2026-11-22')\nSELECT * FROM (${q.sql}\n) AS q WHERE run_id = '${RUN}' ${orderBy}`);
  }
});

test('issue 21: the run filter reads the run\'s day partition only — every file\'s `results` is the WITH query over that day, so projection never enumerates every day', () => {
  for (const q of namedQueries()) {
    // The files read the table by its unqualified name, which the WITH query shadows.
    expect(q.sql).toMatch(/\bFROM (results|intervals)\b/);
    expect(q.sql).not.toMatch(/\.(results|intervals)\b/);
  }
  const sql = queryForRun('SELECT run_id FROM results ORDER BY run_id', RUN);
  expect(sql.startsWith("WITH results AS (SELECT * FROM main.results WHERE dt = '2026-11-22'), intervals AS (SELECT * FROM main.intervals WHERE dt = '2026-11-22')")).toBe(true);
  expect(() => runQueryTemplate("x'; DROP TABLE y")).toThrow(/not a database name/);
});

test('ORDER BY: comments and a final semicolon are ignored; ASC/DESC kept; none gives ""; an expression is refused', () => {
  expect(orderByOf('SELECT a, b FROM t\nORDER BY a DESC,\n  b -- then b\n;')).toBe('ORDER BY a DESC, b');
  expect(orderByOf('SELECT a FROM (SELECT a FROM t ORDER BY a) AS x')).toBe('');
  // A parenthesis inside a string literal is not a subquery's.
  expect(orderByOf("SELECT a FROM t WHERE a NOT LIKE '(%'\nORDER BY a")).toBe('ORDER BY a');
  expect(() => orderByOf('SELECT a FROM t ORDER BY lower(a)', 'x.sql')).toThrow(/x\.sql: ORDER BY item .* must be an output column name/);
  expect(() => orderByOf('SELECT a FROM t ORDER BY 1', 'x.sql')).toThrow(/must be an output column name/);
});

test('only a run id goes into the query; the intrinsic escapes the template\'s quotes for States.Format', () => {
  expect(() => queryForRun('SELECT 1', "x' OR '1'='1")).toThrow(/is not a run id/);
  expect(runQueryIntrinsic('db', '$.day', '$.sql', '$.runId', '$.orderBy'))
    .toBe("States.Format('WITH results AS (SELECT * FROM db.results WHERE dt = \\'{}\\'), intervals AS (SELECT * FROM db.intervals WHERE dt = \\'{}\\')\nSELECT * FROM ({}\n) AS q WHERE run_id = \\'{}\\' {}', $.day, $.day, $.sql, $.runId, $.orderBy)");
});
