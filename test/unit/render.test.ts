import { compareRuns } from '../../runner/report/compare';
import { semanticsMatrix, sizeSweeps } from '../../runner/report/analysis';
import { renderHtmlReport } from '../../runner/report/html/render';
import { ChartRenderer, methodColors, sizeSweepSpec, type SweepPoint } from '../../runner/report/html/charts';
import type { Cell, ReportModel } from '../../runner/report/model';
import { normalizeCells, stringMapOf } from '../../runner/report/rows';
import { verdicts } from '../../runner/report/verdicts';
import { cell, facts, modelOf } from '../helpers/model';

const speed = (method: string, size: number, mibS: number, spread = 0.05): Cell => cell({
  method, object_size_bytes: size, mib_s_min: mibS * (1 - spread), mib_s_median: mibS, mib_s_max: mibS * (1 + spread),
  ops_s_median: mibS, mean_us_median: 1e6 / mibS, p50_us_median: 900 / mibS, p95_us_median: 1500 / mibS, p99_us_median: 2000 / mibS,
  duration_ms_median: 10 / mibS,
});

const input = (cells: Cell[], over: Partial<ReportModel> = {}) => modelOf(cells, over);
/** The verdicts of a model of `cells` (the method order is the catalog's). */
const recommendations = (model: ReportModel, _order?: string[]) => verdicts(model);

describe('the generated "which method for which workload" summary', () => {
  const sizes = [1024, 1024 ** 2, 64 * 1024 ** 2];

  test('follows the numbers: swap them and the verdict swaps', () => {
    const a = [...sizes.map((s) => speed('s3-api', s, 100)), ...sizes.map((s) => speed('aws-cli', s, 10))];
    const recsA = recommendations(input(a), ['s3-api', 'aws-cli']);
    expect(recsA).toEqual([expect.objectContaining({ workload: 'objects', case: 'download 1 KiB–64 MiB', best: 's3-api', margin: '10x the throughput of aws-cli' })]);
    const b = [...sizes.map((s) => speed('s3-api', s, 10)), ...sizes.map((s) => speed('aws-cli', s, 100))];
    expect(recommendations(input(b), ['s3-api', 'aws-cli'])[0]).toMatchObject({ best: 'aws-cli', margin: '10x the throughput of s3-api' });
  });

  test('splits the size range where the winner changes, and calls overlapping spreads', () => {
    const cells = [
      speed('s3-api', sizes[0], 100), speed('s3-api', sizes[1], 100), speed('s3-api', sizes[2], 100, 0.3),
      speed('mountpoint', sizes[0], 20), speed('mountpoint', sizes[1], 50), speed('mountpoint', sizes[2], 110, 0.3),
    ];
    const recs = recommendations(input(cells), ['s3-api', 'mountpoint']);
    expect(recs.map((r) => [r.case, r.best, r.notes])).toEqual([
      ['download 1 KiB–1 MiB', 's3-api', []],
      ['download 64 MiB', 'mountpoint', ['within the run-to-run spread at some sizes']],
    ]);
    expect(recs[0].margin).toBe('2–5x the throughput of mountpoint');
  });

  test('ranks object methods (cache none) with mounts\' cold figures, keeps warm apart', () => {
    const sized = (method: string, cache: Cell['cache'], s: number, mibS: number) => ({ ...speed(method, s, mibS), workload: 'read-scaling', operation: 'single-stream', cache });
    const cells = sizes.flatMap((s) => [sized('s3-api', 'none', s, 100), sized('mountpoint', 'cold', s, 50), sized('mountpoint', 'warm', s, 400)]);
    const recs = recommendations(input(cells), ['s3-api', 'mountpoint']);
    expect(recs.map((r) => [r.case, r.best, r.margin])).toEqual([
      ['single-stream 1 KiB–64 MiB (cold)', 's3-api', '2x the throughput of mountpoint'],
      ['single-stream 1 KiB–64 MiB (warm)', 'mountpoint', 'only method with a result'],
    ]);
    expect(recs[0].notes).toContain('s3-api: no client cache, ranked with the mounts\' cold (first-access) figures');
    // Timed jobs alike: one verdict for the walk, not "only method with a result" twice.
    const walk = (method: string, cache: Cell['cache'], ms: number) => cell({ workload: 'dir-walk', operation: 'walk', object_size_bytes: null, method, cache, duration_ms_min: ms, duration_ms_median: ms, duration_ms_max: ms });
    const jobs = recommendations(input([walk('s3-api', 'none', 1700), walk('s3fs', 'cold', 900), walk('rclone', 'cold', 950)]), ['s3-api', 's3fs', 'rclone']);
    expect(jobs.map((r) => [r.case, r.best, r.margin])).toEqual([['walk (cold)', 's3fs', '1.06x faster than rclone']]);
    // Object methods alone keep their plain label.
    expect(recommendations(input([walk('s3-api', 'none', 1700), walk('aws-cli', 'none', 3400)]), ['s3-api', 'aws-cli']).map((r) => r.case)).toEqual(['walk']);
  });

  test('support checks without timing are verdicts: who supports it, not "no method completed it"', () => {
    const check = (method: string, over: Partial<Cell>) => cell({ workload: 'tar-extract', operation: 'timestamps', object_size_bytes: null, method, duration_ms_min: 0, duration_ms_median: 0, duration_ms_max: 0, ...over });
    const recs = recommendations(input([
      check('s3fs', { repetitions: 0, unsupported: 3, ok: 0 }),
      check('rclone', {}),
      check('mountpoint', { repetitions: 0, unsupported: 3, ok: 0 }),
    ]), ['s3fs', 'rclone', 'mountpoint']);
    expect(recs).toEqual([expect.objectContaining({ case: 'timestamps', best: 'rclone', margin: 'kept by rclone', notes: ['not supported by s3fs, mountpoint'] })]);
    const none = recommendations(input([check('s3fs', { repetitions: 0, unsupported: 3, ok: 0, duration_ms_median: null })]), ['s3fs']);
    expect(none).toEqual([expect.objectContaining({ best: 'none', margin: 'kept by no method' })]);
    // A check that found the method losing times is its finding, named in the verdict — not a failed measurement.
    const found = recommendations(input([check('rclone', {}), check('s3fs', { repetitions: 0, failed_batches: 3, ok: 4155, ops: 4280, first_error: '125 of 4280 files did not keep their mtime' })]));
    expect(found[0]).toMatchObject({ best: 'rclone', notes: ['s3fs: 125 of 4280 files did not keep their mtime'] });
  });

  test('names refusals, partial success and figures served from a cache', () => {
    const meta = (method: string, over: Partial<Cell>) => cell({ workload: 'metadata', operation: 'file-moves', object_size_bytes: null, method, ...over });
    const recs = recommendations(input([
      meta('s3fs', { ops_s_min: 90, ops_s_median: 100, ops_s_max: 110 }),
      meta('rclone', { ops_s_min: 200, ops_s_median: 210, ops_s_max: 220 }),
      meta('mountpoint', { repetitions: 0, unsupported: 3, ok: 0, first_error: 'EPERM' }),
      meta('other', { repetitions: 0, failed_batches: 3, ok: 3, ops: 300, ops_s_partial_median: 1 }),
      cell({ workload: 'fio-seq', operation: 'read', cache: 'warm', method: 's3fs', object_size_bytes: 1, mib_s_median: 3000, served_from_cache: 3 }),
      cell({ workload: 'fio-seq', operation: 'read', cache: 'warm', method: 's3fs', object_size_bytes: 2, mib_s_median: 3000, served_from_cache: 3 }),
    ]), ['s3fs', 'rclone', 'mountpoint', 'other']);
    const moves = recs.find((r) => r.case === 'file-moves')!;
    expect(moves).toMatchObject({ best: 'rclone', margin: '2.1x the operations/s of s3fs' });
    expect(moves.notes).toEqual(['other completed 1%', 'not supported by mountpoint']);
    expect(recs.find((r) => r.workload === 'fio-seq')!.notes).toContain('winning figures above the link limit: served from a cache');
  });

  test('only operations measured at two sizes or more are drawn against size', () => {
    const cells = [speed('s3-api', 1024, 1), speed('s3-api', 2048, 2), cell({ workload: 'small-reads', operation: 'read', mib_s_median: 3 })];
    expect(sizeSweeps(cells).map((g) => [g.workload, g.operations])).toEqual([['objects', ['download']]]);
  });
});

describe('the semantics matrix', () => {
  const probe = (method: string, operation: string, over: Partial<Cell>) => cell({ workload: 'semantics', operation, object_size_bytes: null, method, ...over });

  test('supported, refused, failed, not probed; delays from the successful repetitions', () => {
    const m = semanticsMatrix([
      probe('s3fs', 'rename-file', {}),
      probe('mountpoint', 'rename-file', { repetitions: 0, unsupported: 3, first_error: 'ENOSYS' }),
      probe('s3fs', 's3-to-mount-delay', { delay_ms_min: 900, delay_ms_median: 1000, delay_ms_max: 1100 }),
      probe('mountpoint', 's3-to-mount-delay', { repetitions: 2, failed_batches: 1, first_error: 'timed out' }),
      probe('s3-api', 'all', { repetitions: 0, not_applicable: 1, records: 1 }),
    ], ['s3-api', 's3fs', 'mountpoint'])!;
    expect(m.methods).toEqual(['s3fs', 'mountpoint']);
    expect(m.probes).toEqual(['rename-file', 's3-to-mount-delay']);
    expect(m.state('rename-file', 's3fs')).toMatchObject({ kind: 'supported', delayMs: null });
    expect(m.state('rename-file', 'mountpoint')).toEqual({ kind: 'unsupported', reason: 'ENOSYS' });
    expect(m.state('s3-to-mount-delay', 's3fs')).toMatchObject({ kind: 'supported', delayMs: 1000, delayMin: 900, delayMax: 1100 });
    expect(m.state('s3-to-mount-delay', 'mountpoint')).toEqual({ kind: 'mixed', reason: 'timed out', ok: 2, unsupported: 0, records: 3 });
    expect(m.supportedCount('s3fs')).toBe(2);
    expect(m.supportedCount('mountpoint')).toBe(0);
  });

  test('supported in some repetitions only is mixed, as in the text summary; never supported in any is failed', () => {
    const m = semanticsMatrix([
      probe('s3fs', 'flock', { records: 2, repetitions: 1, unsupported: 1, first_error: 'ENOLCK' }),
      probe('rclone', 'flock', { records: 2, repetitions: 0, failed_batches: 2, first_error: 'EIO' }),
    ], ['s3fs', 'rclone'])!;
    expect(m.state('flock', 's3fs')).toEqual({ kind: 'mixed', reason: 'ENOLCK', ok: 1, unsupported: 1, records: 2 });
    expect(m.state('flock', 'rclone')).toEqual({ kind: 'failed', reason: 'EIO', ok: 0, records: 2 });
    expect(m.supportedCount('s3fs')).toBe(0);
  });

  test('the page shows a mixed probe as mixed', async () => {
    const out = await renderHtmlReport(input([probe('s3fs', 'flock', { records: 2, repetitions: 1, unsupported: 1, first_error: 'ENOLCK' })]));
    expect(out.html).toMatch(/<td class="mixed" title="supported in 1 of 2 repetitions, refused in 1: ENOLCK">mixed \(1\/2 ok\)<\/td>/);
    expect(out.html).not.toContain('failed (1/2 ok)');
  });

  test('a probe that succeeded unchecked is supported, and marked unverified', () => {
    const m = semanticsMatrix([probe('rclone', 'chmod', { repetitions: 1, unverified: 2 })], ['rclone'])!;
    expect(m.state('chmod', 'rclone')).toMatchObject({ kind: 'supported', unverified: 2 });
  });
});

describe('the page renderer is a pure function of the query rows', () => {
  test('rows in, one self-contained HTML page out, without warnings', async () => {
    const cells = [1024, 1024 ** 2].flatMap((s) => [speed('s3-api', s, 100), speed('aws-cli', s, 10)]);
    const out = await renderHtmlReport(input(cells));
    expect(out.warnings).toEqual([]);
    expect(out.charts).toBeGreaterThanOrEqual(3);
    expect(out.html).toMatch(/^<!DOCTYPE html>/);
    expect(out.html).not.toMatch(/<script|<link/i);
    expect(out.sections.filter((s) => s.hasData).map((s) => s.id)).toEqual(['summary', 'problems', 'size', 'ratios', 'percentiles', 'seed-claims', 'facts']);
    expect(out.html).toContain('status unknown (no run manifest)');
  });

  test('results are escaped, never interpreted as HTML', async () => {
    const cells = [cell({ workload: '<img src=x onerror=alert(1)>', operation: 'op', duration_ms_median: 5, duration_ms_min: 5, duration_ms_max: 5 })];
    const out = await renderHtmlReport(input(cells, { badLines: [{ file: 'dt=x/<b>.jsonl', line: 1, reason: '<script>' }], badLineCount: 1 }));
    expect(out.html).not.toContain('<img src=x');
    expect(out.html).not.toContain('<script>');
    expect(out.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  test('figures at or near the runner\'s baseline are marked possibly network-capped, with the baseline in the run facts', async () => {
    // A c7g.large's link (12.5 Gbit/s burst = 1,490 MiB/s, 0.937 baseline = 112 MiB/s): Mountpoint at seed 001's 459 MiB/s rides the burst.
    const cells = [1024 ** 2, 64 * 1024 ** 2].flatMap((s) => [{ ...speed('mountpoint', s, 459), network_capped: 3 }, speed('s3-api', s, 43)]);
    const out = await renderHtmlReport(input(cells, { methods: ['mountpoint', 's3-api'].map((m, i) => facts(m, i, { instance_type: 'c7g.large', link_limit_mib_s: 1490, link_baseline_mib_s: 112 })) }));
    expect(out.warnings).toEqual([]);
    const problems = out.html.slice(out.html.indexOf('id="problems"'), out.html.indexOf('id="size"'));
    expect(problems).toMatch(/6 measurements ran at or near the runner's baseline bandwidth \(112 MiB\/s sustained\)/);
    expect(problems).toContain('mountpoint objects');
    expect(problems).not.toContain('s3-api objects');
    expect(out.html.match(/<td class="capped"[^>]*>459 <span class="flag-net"/g)?.length).toBeGreaterThanOrEqual(2);
    expect(out.html).not.toMatch(/<td class="capped"[^>]*>43 /);
    expect(out.html).toMatch(/sustained \(baseline\)<\/th><td>112 MiB\/s: figures from 101 MiB\/s up are marked possibly network-capped/);
  });

  test('a run without measurements says so in every data section', async () => {
    const out = await renderHtmlReport(input([]));
    expect(out.warnings).toEqual([]);
    expect(out.charts).toBe(0);
    expect(out.sections.filter((s) => !s.hasData).map((s) => s.id)).toEqual(['summary', 'size', 'ratios', 'over-time', 'percentiles', 'metadata', 'cache', 'semantics', 'workloads', 'requests', 'seed-claims', 'facts']);
    expect(out.html.match(/<p class="nodata"><strong>No data:<\/strong>/g)).toHaveLength(11);
  });
});

describe('rows from DuckDB and from Athena read the same', () => {
  test('numbers from BigInt or text, maps from DuckDB entries, JSON or Athena text', () => {
    const [duck] = normalizeCells([{ workload: 'objects', records: 3n, mib_s_median: 1.5, first_error: null, object_size_bytes: 1024n }]);
    const [athena] = normalizeCells([{ workload: 'objects', records: '3', mib_s_median: '1.5', first_error: null, object_size_bytes: '1024' }]);
    expect(duck).toEqual(athena);
    expect(duck).toMatchObject({ records: 3, mib_s_median: 1.5, object_size_bytes: 1024 });
    expect(normalizeCells([{ mib_s_median: null, records: null }])[0]).toMatchObject({ mib_s_median: null, records: 0 });
    const expected = { part_size: '8MiB', keep_alive: 'true' };
    expect(stringMapOf([{ key: 'part_size', value: '8MiB' }, { key: 'keep_alive', value: 'true' }])).toEqual(expected);
    expect(stringMapOf('{"part_size":"8MiB","keep_alive":"true"}')).toEqual(expected);
    expect(stringMapOf('{part_size=8MiB, keep_alive=true}')).toEqual(expected);
    expect(stringMapOf(null)).toEqual({});
    // Neither engine keeps a map's order: keys come out sorted, so both pages list options alike.
    expect(Object.keys(stringMapOf('{part_size=8MiB, keep_alive=true}'))).toEqual(['keep_alive', 'part_size']);
    expect(Object.keys(stringMapOf([{ key: 'part_size', value: '8MiB' }, { key: 'keep_alive', value: 'true' }]))).toEqual(['keep_alive', 'part_size']);
  });
});

describe('I/O modes are separate cases', () => {
  test('a row\'s io goes into the operation, from DuckDB and from Athena alike; rows without one keep theirs', () => {
    const [direct, buffered, plain] = normalizeCells([
      { workload: 'fio-seq', operation: 'read', io: 'direct', records: 3n },
      { workload: 'fio-seq', operation: 'read', io: 'buffered', records: '3' },
      { workload: 'objects', operation: 'download', io: null, records: 3 },
    ]);
    expect([direct.operation, direct.io, buffered.operation, plain.operation, plain.io]).toEqual(['read (direct)', 'direct', 'read (buffered)', 'download', null]);
  });

  test('the summary and the comparison never put direct and buffered figures together', () => {
    const fio = (method: string, io: string, size: number, mibS: number) => ({ ...speed(method, size, mibS), workload: 'fio-seq', cache: 'cold' as const, io, operation: `read (${io})` });
    const cells = [1024, 1024 ** 2].flatMap((s) => [fio('s3fs', 'direct', s, 10), fio('s3fs', 'buffered', s, 100), fio('rclone', 'direct', s, 20), fio('rclone', 'buffered', s, 50)]);
    const recs = recommendations(input(cells), ['s3fs', 'rclone']);
    expect(recs.map((r) => [r.case, r.best, r.margin])).toEqual([
      ['read (direct) 1 KiB–1 MiB (cold)', 'rclone', '2x the throughput of s3fs'],
      ['read (buffered) 1 KiB–1 MiB (cold)', 's3fs', '2x the throughput of rclone'],
    ]);
    const cmp = compareRuns(input(cells), input(cells.map((c) => (c.io === 'buffered' ? { ...c, mib_s_median: c.mib_s_median! * 2 } : c))));
    const tp = cmp.changes.filter((c) => c.metric === 'throughput');
    expect(tp.filter((c) => c.case.startsWith('read (direct)')).map((c) => c.changePct)).toEqual([0, 0, 0, 0]);
    expect(tp.filter((c) => c.case.startsWith('read (buffered)')).map((c) => c.changePct)).toEqual([100, 100, 100, 100]);
  });
});

describe('comparing two runs', () => {
  test('change in % per metric, better or worse by the metric\'s direction, differing facts', () => {
    const a = input([speed('s3-api', 1024, 100)]);
    const b = input([speed('s3-api', 1024, 150)], { methods: [facts('s3-api', 0, { instance_type: 'c7g.large', method_options: { threads: '8' } })] });
    const cmp = compareRuns(a, b);
    const tp = cmp.changes.find((c) => c.metric === 'throughput')!;
    expect(tp).toMatchObject({ a: 100, b: 150, better: true });
    expect(tp.changePct).toBeCloseTo(50);
    const lat = cmp.changes.find((c) => c.metric === 'mean latency')!;
    expect(lat.changePct).toBeCloseTo(-33.33, 1);
    expect(lat.better).toBe(true);
    expect(cmp.facts).toEqual([
      { fact: 'instance type', a: 'local', b: 'c7g.large' },
      { fact: 's3-api option threads', a: '4', b: '8' },
    ]);
  });

  test('cells in one run only are listed, not compared', () => {
    const cmp = compareRuns(input([speed('s3-api', 1024, 1)]), input([speed('s3-api', 2048, 1)]));
    expect(cmp.changes).toEqual([]);
    expect(cmp.onlyA).toEqual(['objects download 1 KiB s3-api']);
    expect(cmp.onlyB).toEqual(['objects download 2 KiB s3-api']);
  });
});

describe('size charts', () => {
  const point = (size: number, median = 10): SweepPoint => ({ operation: 'read', method: 's3-api', cache: 'none', series: 's3-api none', size, median, lo: median, hi: median, reps: 3, cached: false });
  /** The label texts of each axis of a size chart (x first when `sizes` tells it apart). */
  async function axisLabels(points: SweepPoint[], yFormat?: string): Promise<string[][]> {
    const charts = new ChartRenderer();
    const svg = await charts.svg(sizeSweepSpec({ points, yTitle: 'MiB/s', colors: methodColors(['s3-api']), operations: ['read'], linkLimit: null, yFormat }));
    expect(charts.warnings).toEqual([]);
    // Each axis's labels sit in their own group.
    return svg.split('role-axis-label').slice(1).map((g) => [...g.split('</g>')[0].matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]));
  }
  /** The x axis labels: one per size, left to right. */
  async function sizeLabels(sizes: number[]): Promise<string[]> {
    const groups = await axisLabels(sizes.map((s) => point(s)));
    return groups.find((g) => g.length === sizes.length) ?? groups.flat();
  }

  test('the y axis takes the format asked for (SI for wide ranges), plain numbers by default', async () => {
    const points = [point(1024, 20_000), point(2048, 3_000_000)];
    const yOf = (groups: string[][]) => groups.find((g) => !g.some((t) => /B$/.test(t)))!;
    const plain = yOf(await axisLabels(points));
    const si = yOf(await axisLabels(points, '~s'));
    expect(plain.some((t) => /^[\d,.]+$/.test(t) && Number(t.replace(/,/g, '')) >= 100_000)).toBe(true);
    expect(si.some((t) => /^\d+(\.\d+)?[kM]$/.test(t))).toBe(true);
    expect(si.every((t) => !/\d{4,}/.test(t))).toBe(true);
  });

  test('sizes are labelled in whole binary units, multiples of 1000 in decimal units, the rest to 3 significant digits', async () => {
    expect(await sizeLabels([512, 1000, 1024, 1e6, 1e6 + 1, 1536 * 1024, 16e6, 16 * 1024 ** 2, 2 * 1024 ** 3, 2.5e9]))
      .toEqual(['512 B', '1 kB', '1 KiB', '1 MB', '977 KiB', '1.5 MiB', '16 MB', '16 MiB', '2 GiB', '2.5 GB']);
  });
});
