import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Advice } from '../../runner/report/advice';
import { s3ab } from '../helpers/cli';

/**
 * The advisor on a real run: small reads and the semantics probes on the SDK, s3fs and Mountpoint
 * (real FUSE mounts on the embedded versitygw, the server counting requests). Mountpoint refuses
 * rename and append on a general-purpose bucket, s3fs does both, the SDK has no probes: so
 * `--needs rename,append` rules out Mountpoint naming its probes, leaves the SDK "not measured",
 * and compares s3fs with figures the run measured, request cost included.
 */

describe('s3ab advise after a real run', () => {
  let dir: string;
  let results: string;
  let run: { code: number | null; stderr: string };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-advise-run-'));
    results = join(dir, 'results');
    const matrix = join(dir, 'matrix.json');
    writeFileSync(matrix, JSON.stringify({
      name: 'advise-test', repetitions: 2, methods: ['s3-api', 's3fs', 'mountpoint'],
      workloads: { 'small-reads': { files: 5, size: '8KiB' }, semantics: { propagation_timeout_s: 3 } },
    }));
    run = await s3ab(['run', '--matrix', matrix, '--results', results, '--no-html', '--wait'], { timeoutMs: 540_000 });
  }, 600_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the run completes', () => {
    expect({ code: run.code, stderr: run.stderr.slice(-2000) }).toMatchObject({ code: 0 });
  });

  test('--needs rename,append: Mountpoint ruled out by its probes, the SDK not measured, s3fs compared on measured figures', async () => {
    const r = await s3ab(['advise', '--results', results, '--workload', 'small-reads', '--needs', 'rename,append', '--format', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const advice = JSON.parse(r.stdout) as Advice;
    expect(advice.ruledOut.map((m) => m.method)).toEqual(['mountpoint']);
    const probes = advice.ruledOut[0].verdicts.map((v) => `${v.probe} ${v.detail}`);
    expect(probes).toEqual(expect.arrayContaining([expect.stringMatching(/^rename-file unsupported: .*ENOSYS/), expect.stringMatching(/^append unsupported/)]));
    expect(advice.notMeasured.map((m) => [m.method, m.verdicts.every((v) => v.detail === 'not probed')])).toEqual([['s3-api', true]]);
    expect(advice.cases.length).toBeGreaterThan(0);
    for (const c of advice.cases) {
      expect(c.compared.map((x) => x.method)).toEqual(['s3fs']);
      expect(c.dimensions).toContain('cost');
      const s3fs = c.compared[0];
      expect(s3fs.figures.throughput!.median).toBeGreaterThan(0);
      expect(s3fs.figures.costPerMillion).toBeGreaterThan(0);
      expect(s3fs.evidence).toMatchObject({ runId: advice.runId, repetitions: 2 });
      expect(s3fs.evidence.hostClass).toMatch(/^local:\d+vCPU:\d+GiB$/);
      expect(c.pick?.method).toBe('s3fs');
    }
  });

  test('without needs, the SDK and the mounts are compared side by side', async () => {
    const r = await s3ab(['advise', '--results', results, '--workload', 'small-reads', '--format', 'json']);
    expect(r.code).toBe(0);
    const advice = JSON.parse(r.stdout) as Advice;
    const methods = new Set(advice.cases.flatMap((c) => c.compared.map((x) => x.method)));
    expect([...methods].sort()).toEqual(['mountpoint', 's3-api', 's3fs']);
    for (const c of advice.cases) expect(c.pareto.length).toBeGreaterThan(0);
  });
});
