import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { README_MARKERS, costModel, costTable } from '../../scripts/cost-model';
import { WORKLOAD_DESCRIPTORS as WORKLOADS } from '../../runner/workloads/catalog';
import { ROOT } from '../helpers/cli';

describe('cost model of an AWS execution', () => {
  test('the README\'s cost table is the model\'s (regenerate with `npm run cost:aws -- --readme`)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const [open, close] = README_MARKERS;
    const block = readme.slice(readme.indexOf(open) + open.length, readme.indexOf(close)).trim();
    expect(block).toBe(costTable());
  });

  test('every workload has an activity estimate (a new workload cannot be costed as free)', () => {
    for (const profile of ['quick', 'mounts', 'seed', 'full']) expect(() => costModel(profile)).not.toThrow();
    const steps = new Set(['quick', 'mounts', 'seed', 'full'].flatMap((p) => Object.keys((JSON.parse(readFileSync(join(ROOT, 'assets', 'profiles', `${p}.json`), 'utf8')) as { workloads: object }).workloads)));
    expect([...steps].sort()).toEqual(WORKLOADS.map((w) => w.name).sort());
  });

  test('bigger profiles cost more; runners multiply instance time and requests, not the fixed items', () => {
    const [quick, seed, full] = ['quick', 'seed', 'full'].map((p) => costModel(p));
    expect(quick.total).toBeLessThan(seed.total);
    expect(seed.total).toBeLessThan(full.total);
    const three = costModel('seed', 3);
    expect(three.items['runner instance hours']).toBeCloseTo(3 * seed.items['runner instance hours'], 6);
    expect(three.items['S3 requests']).toBeCloseTo(3 * seed.items['S3 requests'], 6);
    expect(three.items['Lambda']).toBe(seed.items['Lambda']);
  });

  test('the seed profile fits in one execution\'s 12 h; full does not (the README says to split it)', () => {
    expect(costModel('seed').minutesPerRunner).toBeLessThan(12 * 60);
    expect(costModel('full').minutesPerRunner).toBeGreaterThan(12 * 60);
  });
});
