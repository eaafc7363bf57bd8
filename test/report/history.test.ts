import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changesOf, compareWithHistory } from '../../runner/report/history/compare';
import { loadHistory } from '../../runner/report/history/load';
import { writeHtmlReport } from '../../runner/report/html-report';
import { localQuery } from '../../runner/report/named-query';
import { printSummary } from '../../runner/report/summary';
import { openInChromium } from '../helpers/browser';
import { runBenchmark } from '../../runner/run';
import { s3ab } from '../helpers/cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/**
 * The results history on real runs: the same small matrix run again and again against the embedded
 * server is compared with its earlier runs — insufficient history first, then zero flags and zero
 * behaviour changes; then s3fs with its stat cache off shows the HEADs it adds as a behaviour
 * change, labelled an option change.
 */
describe('history of real runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-history-'));
  const results = join(dir, 'results');
  const runMatrix = async (name: string, matrix: object) => {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ name, ...matrix }));
    // Mount benchmarks take the host's mount lock: wait for another one to end rather than fail.
    const outcome = await runBenchmark({ matrixFile: file, resultsDir: results, quiet: true, waitForLock: true });
    expect(outcome.manifest.status).toBe('complete');
    return outcome.manifest.run_id;
  };
  const SMALL = { repetitions: 1, methods: ['s3-api'], workloads: { objects: { sizes: ['1KiB', '4KiB'], files: 5 } } };
  const runs: string[] = [];
  let statCacheOff = '';
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('seven identical runs: the first five have insufficient history, the last two 0 flags and 0 behaviour changes', async () => {
    for (let i = 0; i < 7; i++) runs.push(await runMatrix('history-small', SMALL));
    const { points } = loadHistory([results]);
    const cmps = runs.map((r) => compareWithHistory(points, r));
    // upload, list, head, download, delete × 2 sizes, every one measured well.
    const n = 10;
    expect(points.filter((p) => p.runId === runs[0] && p.median !== null)).toHaveLength(n);
    expect(cmps[0]).toMatchObject({ cases: [], firstSeen: n });
    for (const cmp of cmps.slice(1, 5)) {
      expect(cmp.cases).toHaveLength(n);
      expect(changesOf(cmp)).toMatchObject({ insufficient: n, speed: [] });
    }
    for (const cmp of cmps.slice(5)) {
      const changes = changesOf(cmp);
      expect({ run: cmp.runId, behaviour: changes.behaviour.map((c) => c.behaviour), speed: changes.speed.map((c) => c.speed) }).toEqual({ run: cmp.runId, behaviour: [], speed: [] });
      expect(changes).toMatchObject({ unflagged: n, insufficient: 0 });
      expect(cmp.cases.every((c) => c.label === 'same' && c.point.requestsCounted)).toBe(true);
    }
    let summary = '';
    await printSummary(results, runs[6], (l) => (summary += `${l}\n`));
    expect(summary).toContain('Changes against 6 comparable runs');
    expect(summary).toMatch(/behaviour changes \([^)]*\): 0\n/);
    expect(summary).toContain('flagged speed changes: 0');
    expect(summary).toContain('not flagged: 10 cases compared; 0 with insufficient history');
    // The summary ends with it.
    expect(summary.trimEnd().split('\n').pop()).toMatch(/false-discovery control|not comparable/);
  }, 600_000);

  test('`s3ab history --workload objects` prints each case\'s series; bad input exits 2 with a fix', async () => {
    const r = await s3ab(['history', '--results', results, '--workload', 'objects']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('History of 7 runs');
    expect(r.stdout).toMatch(/objects download 1 KiB · s3-api — median throughput \(MiB\/s\)/);
    for (const run of runs) expect(r.stdout).toContain(run);
    expect(r.stdout).toContain('first run of this case');
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('insufficient history (4 runs;');
    expect(r.stdout).not.toContain('FLAGGED');
    for (const [args, problem] of [
      [['--method', 'nope'], '--method: "nope" is not a method'],
      [['--workload', 'nope'], '--workload: "nope" is not a workload'],
      [['--results', join(dir, 'missing')], 'no results folder at'],
    ] as const) {
      const bad = await s3ab(['history', '--results', results, ...args]);
      expect({ args, code: bad.code }).toEqual({ args, code: 2 });
      expect(bad.stderr).toContain(problem);
      expect(bad.stderr).toContain('fix: ');
      expect(bad.stderr).not.toMatch(/\n\s+at /);
    }
  }, 120_000);

  test('s3fs with its stat cache turned off: the HEADs it adds are a behaviour change, labelled an option change, exactly', async () => {
    const smallReads = (options: object) => ({ repetitions: 1, cache: ['cold'], methods: [{ name: 's3fs', options }], workloads: { 'small-reads': { files: 10, size: '8KiB' } } });
    const on = [await runMatrix('history-s3fs', smallReads({})), await runMatrix('history-s3fs', smallReads({}))];
    const off = (statCacheOff = await runMatrix('history-s3fs', smallReads({ max_stat_cache_size: 0 })));
    const { points } = loadHistory([results]);
    const s3fs = (runId: string) => compareWithHistory(points, runId).cases.filter((c) => c.point.method === 's3fs');
    // The same options twice: the same key (the embedded server's new port is not an option), the same requests.
    expect(s3fs(on[1]).map((c) => [c.label, c.behaviour])).toEqual([['same', []]]);
    const [changed] = s3fs(off);
    expect(changed.label).toBe('option change');
    expect(changed.diff).toEqual(['option max_stat_cache_size: 100000 → 0']);
    const head = changed.behaviour.find((b) => b.figure === 'requests/op head')!;
    expect(Number(head.after)).toBeGreaterThan(Number(head.before));
    expect(changed.behaviourAgainst).toBe(on[1]);
    let summary = '';
    await printSummary(results, off, (l) => (summary += `${l}\n`));
    const tail = summary.slice(summary.indexOf('Changes against')).replace(/\s+/g, ' ');
    expect(tail).toMatch(/behaviour changes \([^)]*\): 1 small-reads read 8 KiB \(cold\) · s3fs \[option change: option max_stat_cache_size: 100000 → 0\]: [^(]*requests\/op head \d+(\.\d+)? → \d+/);
    // Mostly the wait for the host's mount lock where another mount benchmark runs.
  }, 1_200_000);

  test('the page\'s History section in Chromium: a panel per case with a point per run, the option change a rule', async () => {
    // The seventh identical run: ten cases, seven points each, nothing flagged, no rule.
    const seventh = await writeHtmlReport(results, runs[6], join(dir, 'seventh.html'));
    // The stat cache turned off: one s3fs case, three points, a dashed rule before the third.
    const off = await writeHtmlReport(results, statCacheOff, join(dir, 'off.html'));
    for (const [w, expected] of [[seventh, { panels: 10, points: 70, flagged: 0, rules: 0 }], [off, { panels: 1, points: 3, flagged: 0, rules: 1 }]] as const) {
      expect(w.rendered.warnings).toEqual([]);
      const opened = await openInChromium(w.path);
      try {
        const section = opened.page.locator('section#history');
        expect(await section.getAttribute('data-has-data')).toBe('true');
        const count = (selector: string) => section.locator(selector).count();
        expect({
          panels: await count('svg g.cell > g'), points: await count('svg g.points_marks > path'),
          flagged: await count('svg g.points_marks > path[fill="#cf222e"]'), rules: await count('svg g.option_change_marks > line, svg g.version_change_marks > line'),
        }).toEqual(expected);
        expect(opened.errors).toEqual([]);
        expect(opened.requests).toEqual([]);
      } finally {
        await opened.close();
      }
    }
    expect(await (async () => {
      const opened = await openInChromium(off.path);
      try {
        return await opened.page.locator('section#history table').innerText();
      } finally {
        await opened.close();
      }
    })()).toMatch(/option change: option max_stat_cache_size: 100000 → 0; behaviour change: [^\n]*requests\/op head/);
  }, 120_000);

  test('the history named query on DuckDB over these runs: each key\'s series with its median against the earlier runs\' median', async () => {
    const t = await localQuery(results, 'history');
    const rows = t.rows.map((r) => Object.fromEntries(t.columns.map((c, i) => [c, r[i]])));
    const download = rows.filter((r) => r.workload === 'objects' && r.operation === 'download' && r.object_size_bytes === '1024' && r.method === 's3-api');
    expect(download.map((r) => r.run_id)).toEqual(runs);
    expect(download.map((r) => [r.history_runs, r.verdict])).toEqual([
      ['0', 'first run of this case'], ...[1, 2, 3, 4].map((n) => [String(n), 'insufficient history']), ['5', 'compared'], ['6', 'compared'],
    ]);
    expect(new Set(download.map((r) => r.comparable_key)).size).toBe(1);
    // The last run's change against its history's median, from the figures the query itself gives.
    const last = download[6];
    const earlier = download.slice(0, 6).map((r) => Number(r.median_value)).sort((a, b) => a - b);
    expect(Number(last.history_median)).toBeCloseTo((earlier[2] + earlier[3]) / 2, 6);
    expect(Number(last.change_pct)).toBeCloseTo((100 * (Number(last.median_value) - Number(last.history_median))) / Number(last.history_median), 6);
    // The s3fs option change is a key of its own: its first run, apart from the two before it.
    const smallReads = rows.filter((r) => r.method === 's3fs');
    expect(smallReads.map((r) => [r.run_id, r.verdict])).toEqual(expect.arrayContaining([[statCacheOff, 'first run of this case']]));
    expect(new Set(smallReads.map((r) => r.base_key)).size).toBe(1);
    const cli = await s3ab(['report', '--results', results, '--query', 'history']);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(`history (${rows.length} rows)`);
  }, 120_000);
});
