import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunManifest } from '../../runner/results/writer';
import { s3ab, ROOT } from '../helpers/cli';

/**
 * Option grids on a real run, with the example matrix a user copies (docs/examples/tune.json):
 * Mountpoint over part size × max threads and s3fs over parallel_count, on large and small reads,
 * real FUSE mounts on the embedded versitygw, three repetitions with successive halving. The Tuning
 * section shows every setting, and whatever halving dropped, as the manifest recorded it.
 */

const EXAMPLE = join(ROOT, 'docs', 'examples', 'tune.json');

describe('s3ab run with option grids (tune)', () => {
  let dir: string;
  let results: string;
  let run: { code: number | null; stdout: string; stderr: string };
  let manifest: RunManifest;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-tune-run-'));
    results = join(dir, 'results');
    run = await s3ab(['run', '--matrix', EXAMPLE, '--results', results, '--no-html', '--wait'], { timeoutMs: 540_000 });
    const runs = join(results, '_runs');
    manifest = JSON.parse(readFileSync(join(runs, readdirSync(runs)[0]), 'utf8')) as RunManifest;
  }, 600_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the run completes; its opening line and manifest name both grids with every setting', () => {
    expect({ code: run.code, stderr: run.stderr.slice(-2000) }).toMatchObject({ code: 0 });
    expect(run.stdout).toMatch(/42 steps \(7 methods × 2 workloads × 3 repetitions; grid mountpoint: 4 settings of part_size × max_threads, successive halving on; grid s3fs: 3 settings of parallel_count, successive halving on\)/);
    expect(manifest.status).toBe('complete');
    expect(manifest.tuning!.map((g) => [g.grid, g.settings.map((s) => s.variant)])).toEqual([
      ['mountpoint', ['part_size=8MiB,max_threads=2', 'part_size=8MiB,max_threads=16', 'part_size=16MiB,max_threads=2', 'part_size=16MiB,max_threads=16']],
      ['s3fs', ['parallel_count=1', 'parallel_count=5', 'parallel_count=30']],
    ]);
  });

  test('halving\'s drops come after round 2 only, and each pruned the dropped setting\'s round 3: no step file, counted apart', () => {
    const drops = manifest.tuning!.flatMap((g) => g.dropped.map((d) => ({ ...d, method: g.method })));
    expect(manifest.steps_pruned ?? 0).toBe(drops.length);
    expect(manifest.steps_done + drops.length).toBe(manifest.steps_total);
    for (const d of drops) {
      expect(d.after_round).toBe(2);
      expect(d.why).toMatch(/below .*'s /);
      expect(run.stdout).toContain(`${d.variant} ${d.workload} rep 3: not run (successive halving dropped this setting)`);
    }
    const records = readdirSync(results).filter((f) => f.startsWith('dt=')).flatMap((p) => readdirSync(join(results, p)).map((f) => readFileSync(join(results, p, f), 'utf8')))
      .flatMap((text) => text.trim().split('\n').map((l) => JSON.parse(l) as { method: string; method_variant: string; workload: string; repetition: number }));
    for (const d of drops) expect(records.filter((r) => r.method === d.method && r.method_variant === d.variant && r.workload === d.workload && r.repetition === 3)).toEqual([]);
    // Each setting is its own variant in the records: its own comparability key.
    expect(new Set(records.filter((r) => r.method === 'mountpoint').map((r) => r.method_variant)).size).toBe(4);
  });

  test('the Tuning section shows every setting of each grid in each workload\'s read case, and what halving dropped', async () => {
    const json = await s3ab(['report', '--results', results, '--format', 'json']);
    expect(json.code).toBe(0);
    const tuning = JSON.parse(json.stdout).tuning as Record<string, unknown>[];
    for (const [workload, grid, n] of [['large-read', 'mountpoint', 4], ['small-reads', 's3fs', 3], ['large-read', 's3fs', 3], ['small-reads', 'mountpoint', 4]] as const) {
      const rows = tuning.filter((r) => r.workload === workload && r.grid === grid && r.operation === 'read');
      expect([workload, grid, rows.length]).toEqual([workload, grid, n]);
      for (const r of rows) expect(r.median as number).toBeGreaterThan(0);
      expect(rows.filter((r) => r.best)).toHaveLength(1);
    }
    const drops = manifest.tuning!.flatMap((g) => g.dropped.map((d) => ({ ...d, grid: g.grid })));
    for (const d of drops) expect(tuning.find((r) => r.workload === d.workload && r.grid === d.grid && r.method_variant === d.variant && r.operation === 'read')?.dropped_after_round).toBe(2);
    // The summary wraps its lines to the terminal: read it as one line.
    const text = (await s3ab(['report', '--results', results])).stdout.replace(/\s+/g, ' ');
    expect(text).toMatch(/Tuning — option grids/);
    expect(text).toMatch(/large-read, read 64 MiB \(cold\), mountpoint grid \(part_size × max_threads\), MiB\/s: (best part_size=|no clear winner: )/);
    expect(text).toMatch(drops.length ? /successive halving: mountpoint|successive halving: s3fs/ : /successive halving dropped no setting/);
    if (drops.length) expect(text).toContain(`steps: ${42 - drops.length}/42 ran, 0 failed, ${drops.length} pruned by successive halving`);
    expect(text).toMatch(/depends on: part_size ×[\d.,]+: 8MiB [\d.,]+, 16MiB [\d.,]+; max_threads ×[\d.,]+: 2 [\d.,]+, 16 [\d.,]+/);
  });

  test('s3ab advise names each method\'s best settings from the grid (or that their ranges overlap)', async () => {
    const r = await s3ab(['advise', '--results', results, '--workload', 'large-read']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/settings of mountpoint \(variants part_size=.*max_threads=.*\): (best|no clear winner)/);
    expect(r.stdout).toMatch(/settings of s3fs \(variants parallel_count=.*\): (best|no clear winner)/);
  });

  test('--dry-run prints the grids and the step count they cost, and creates nothing', async () => {
    const r = await s3ab(['run', '--dry-run', '--matrix', EXAMPLE, '--results', join(dir, 'dry')]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toContain('matrix tune-example: 42 steps (7 methods × 2 workloads × 3 repetitions), cache cold');
    expect(r.stdout).toContain('methods: mountpoint:part_size=8MiB,max_threads=2, mountpoint:part_size=8MiB,max_threads=16, mountpoint:part_size=16MiB,max_threads=2, mountpoint:part_size=16MiB,max_threads=16, s3fs:parallel_count=1, s3fs:parallel_count=5, s3fs:parallel_count=30');
    expect(r.stdout).toContain('grid mountpoint: 4 settings of part_size × max_threads, 24 steps; successive halving on');
    expect(r.stdout).toContain('grid s3fs: 3 settings of parallel_count, 18 steps; successive halving on');
    expect(existsSync(join(dir, 'dry'))).toBe(false);
  });

  test('a grid value outside the documented range is refused before anything runs: exit 2, the range named, no stack trace', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ methods: [{ name: 's3fs', tune: { parallel_count: [5, 0] } }], workloads: { 'small-reads': {} } }));
    const r = await s3ab(['run', '--matrix', bad, '--results', join(dir, 'bad-results'), '--no-html']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/methods\[0\]\.tune\.parallel_count: 0 is outside s3fs's documented range for parallel_count\n {2}fix: parallel_count takes a whole number from 1 to 1000/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
