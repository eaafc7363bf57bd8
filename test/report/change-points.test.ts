import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { otavaChangePoints } from '../../runner/report/history/change-points';
import { s3ab } from '../helpers/cli';
import { record } from '../helpers/history';

/**
 * Change points by Apache Otava itself (its Python, installed by `npm run setup -- otava`), on
 * synthetic series with known shifts: found where a sustained shift began, none in noise alone nor
 * for a shift smaller than the least change; then through `s3ab history` over a results folder.
 */

/** Deterministic noise: a linear congruential generator's uniform values, summed to a near-normal one (Irwin–Hall of 12). */
function noise(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  return () => Array.from({ length: 12 }, uniform).reduce((a, b) => a + b, 0) - 6;
}

/** `levels` as [value, runs] segments, each value with `cvPct` % noise. */
function series(levels: [number, number][], cvPct: number, seed: number): number[] {
  const n = noise(seed);
  return levels.flatMap(([value, runs]) => Array.from({ length: runs }, () => value * (1 + (cvPct / 100) * n())));
}

describe('change points by Apache Otava on synthetic series', () => {
  const cases: { name: string; values: number[]; at: number[] }[] = [
    { name: 'noise alone (2%)', values: series([[100, 20]], 2, 1), at: [] },
    { name: 'a 20% rise at run 13', values: series([[100, 12], [120, 8]], 2, 2), at: [12] },
    { name: 'a 25% drop at run 9 of 12 (few runs after it)', values: series([[100, 8], [75, 4]], 2, 3), at: [8] },
    { name: 'up 20% at run 11, then down to 90 at run 21', values: series([[100, 10], [120, 10], [90, 10]], 2, 4), at: [10, 20] },
    { name: 'a 2% shift, clear of its 0.2% noise but below the least change (5%)', values: series([[100, 10], [102, 10]], 0.2, 5), at: [] },
  ];

  test('each series at once: the shifts found where they began, nothing else', () => {
    const result = otavaChangePoints(cases.map((c) => c.values));
    if (!result.available) throw new Error(result.reason);
    expect(cases.map((c, i) => [c.name, result.found[i].map((cp) => cp.index)])).toEqual(cases.map((c) => [c.name, c.at]));
    const [rise] = result.found[1];
    expect(rise.changePct).toBeGreaterThan(15);
    expect(rise.changePct).toBeLessThan(25);
    expect(rise.meanBefore).toBeCloseTo(100, -1);
    expect(rise.pValue).toBeLessThan(0.001);
  });

  test('without Otava: not available, and the message names the fix', () => {
    const saved = process.env.S3AB_OTAVA_PYTHON;
    process.env.S3AB_OTAVA_PYTHON = '/nonexistent/python';
    try {
      expect(otavaChangePoints([[1, 2, 3, 4]])).toEqual({ available: false, reason: expect.stringContaining('npm run setup -- otava') });
    } finally {
      if (saved === undefined) delete process.env.S3AB_OTAVA_PYTHON;
      else process.env.S3AB_OTAVA_PYTHON = saved;
    }
  });

  test('`s3ab history` prints the change point at the run where the shift began, or says why none was looked for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-test-change-points-'));
    try {
      const values = series([[100, 8], [70, 6]], 2, 6);
      const day = join(dir, 'dt=2026-11-28');
      mkdirSync(day, { recursive: true });
      writeFileSync(join(day, 'history.jsonl'), values.map((v, i) => JSON.stringify(record(i, v))).join('\n') + '\n');
      const r = await s3ab(['history', '--results', dir, '--workload', 'small-reads']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('History of 14 runs');
      expect(r.stdout).toMatch(/Change points \(Apache Otava[^)]*\): 1 found/);
      const marked = r.stdout.split('\n').filter((l) => l.includes('CHANGE POINT'));
      expect(marked).toHaveLength(1);
      expect(marked[0]).toContain('20261118T000000Z-abcdef');
      const without = await s3ab(['history', '--results', dir], { env: { S3AB_OTAVA_PYTHON: '/nonexistent/python' } });
      expect(without.code).toBe(0);
      expect(without.stdout).toContain('Change points not looked for: Apache Otava is not installed: `npm run setup -- otava`');
      expect(without.stdout).not.toContain('CHANGE POINT');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
