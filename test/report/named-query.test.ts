import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namedQuery, openResults, query } from '../../runner/report/results-db';
import { writeReportFixture } from '../../scripts/fixtures/report-fixture';
import { s3ab } from '../helpers/cli';

/**
 * `s3ab report --query NAME`: a named query (assets/queries/adhoc/ or model/) run by the CLI on
 * DuckDB over a results folder of the rendering fixture, printed as a table; an unknown name or a
 * bad run id exits 2 naming the fix.
 */
describe('s3ab report --query NAME on a results folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-named-query-'));
  const results = join(dir, 'results');
  let runs: string[];
  beforeAll(async () => {
    runs = [(await writeReportFixture(results, { repetitions: 1 })).runId, (await writeReportFixture(results, { repetitions: 1, workloads: ['web-serving'] })).runId];
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The table's body rows (cli-table3 draws each between │). */
  const bodyRows = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('│')).slice(1).map((l) => l.split('│').slice(1, -1).map((c) => c.trim()));

  test('web_serving: every run in the folder, each row the query\'s own (same as DuckDB gives it)', async () => {
    const r = await s3ab(['report', '--results', results, '--query', 'web_serving']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const db = await openResults(results);
    const expected = await query(db.connection, namedQuery('web_serving').sql).finally(() => db.close());
    expect(expected.length).toBeGreaterThan(4);
    expect(r.stdout.split('\n')[0]).toBe(`web_serving (${expected.length} rows)`);
    const rows = bodyRows(r.stdout);
    expect(rows).toHaveLength(expected.length);
    expect(new Set(rows.map((x) => x[0]))).toEqual(new Set(runs));
    expect(rows.map((x) => `${x[0]} ${x[1]} ${x[3]}`).sort()).toEqual(expected.map((x) => `${x.run_id} ${x.method} ${x.cache}`).sort());
  });

  test('--run keeps one run; a model query runs by name too', async () => {
    const r = await s3ab(['report', '--results', results, '--query', 'web_serving', '--run', runs[1]]);
    expect(r.code).toBe(0);
    expect(new Set(bodyRows(r.stdout).map((x) => x[0]))).toEqual(new Set([runs[1]]));
    const cells = await s3ab(['report', '--results', results, '--query', 'report_cells', '--run', runs[0]]);
    expect(cells.code).toBe(0);
    expect(cells.stdout).toMatch(new RegExp(`^report_cells, run ${runs[0]} \\(\\d{2,} rows\\)`));
  });

  test('an unknown name exits 2 listing the names of both folders; so does a bad run id', async () => {
    const r = await s3ab(['report', '--results', results, '--query', 'webserving']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no query named "webserving"');
    expect(r.stderr).toMatch(/fix: name one of the files in assets\/queries\/: adhoc: [^;]*web_serving[^;]*; model: [^\n]*report_cells/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const bad = await s3ab(['report', '--results', results, '--query', 'web_serving', '--run', 'newest']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--run "newest" is not a run id');
  });
});
