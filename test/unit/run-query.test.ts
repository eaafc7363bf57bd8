import { namedQueries } from '../../runner/report/results-db';
import { orderByOf, queryForRun, runQueryIntrinsic } from '../../runner/report/run-query';

const RUN = '20261122T101500Z-abc123';

test('every SQL file has a trailing ORDER BY of output columns, which the pipeline repeats outside its run filter', () => {
  for (const q of namedQueries()) {
    const orderBy = orderByOf(q.sql, q.name);
    expect({ name: q.name, orderBy }).toEqual({ name: q.name, orderBy: expect.stringMatching(/^ORDER BY run_id(, [a-z_]+)+$/) });
    expect(queryForRun(q.sql, RUN)).toBe(`SELECT * FROM (${q.sql}\n) AS q WHERE run_id = '${RUN}' ${orderBy}`);
  }
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
  expect(runQueryIntrinsic('$.sql', '$.runId', '$.orderBy')).toBe("States.Format('SELECT * FROM ({}\n) AS q WHERE run_id = \\'{}\\' {}', $.sql, $.runId, $.orderBy)");
});
