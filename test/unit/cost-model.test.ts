import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MEASURED_PROFILES, README_MARKERS, SEED_TARGET, costModel, costTable, loadMeasurement, plannedModel } from '../../scripts/cost-model';
import { COUNT_PARAMS, measuredCostModel, sampleOf, type Measurement } from '../../scripts/cost/measured-model';
import { expandSteps, resolveMatrix } from '../../runner/core/matrix';
import { CATALOG } from '../../runner/catalog';
import { WORKLOAD_DESCRIPTORS as WORKLOADS } from '../../runner/workloads/catalog';
import { ROOT } from '../helpers/cli';

const profileJson = (name: string) => {
  const { $schema: _schema, ...json } = JSON.parse(readFileSync(join(ROOT, 'assets', 'profiles', `${name}.json`), 'utf8'));
  return json;
};

describe('cost model of an AWS execution', () => {
  test('the README\'s cost tables are the model\'s (regenerate with `npm run cost:aws -- --readme`)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const [open, close] = README_MARKERS;
    const block = readme.slice(readme.indexOf(open) + open.length, readme.indexOf(close)).trim();
    expect(block).toBe(costTable());
  });

  test('every workload has an activity estimate and count parameters (a new workload cannot be costed as free)', () => {
    for (const profile of ['quick', 'mounts', 'seed', 'full']) expect(() => costModel(profile)).not.toThrow();
    expect(Object.keys(COUNT_PARAMS).sort()).toEqual(WORKLOADS.map((w) => w.name).sort());
  });

  test.each(Object.keys(MEASURED_PROFILES))('the measurement of %s is of the profile as it is now, every step measured but those of methods that cannot run here', (name) => {
    const m = loadMeasurement(name)!;
    expect(m).not.toBeNull();
    const divisor = MEASURED_PROFILES[name];
    // A changed profile needs a new measurement: `npm run cost:aws -- --measure NAME`.
    expect(m.matrix).toEqual(divisor > 1 ? sampleOf(profileJson(name), divisor) : profileJson(name));
    const matrix = resolveMatrix(m.matrix, name, CATALOG);
    const optional = new Set(matrix.methods.filter((x) => x.optional).map((x) => x.name));
    const expected = new Set(expandSteps(matrix).filter((s) => !optional.has(s.method.name)).map((s) => `${s.method.name}/${s.method.variant}/${s.workload.name}`));
    expect(new Set(m.steps.map((s) => `${s.method}/${s.variant}/${s.workload}`))).toEqual(expected);
    for (const s of m.steps) expect(Object.values(s.requests).reduce((a, n) => a + n, 0)).toBeGreaterThan(0);
  });

  test(`a seed execution, modelled from measured requests: ≤ ${SEED_TARGET.minutes} min wall and ≤ $${SEED_TARGET.dollars}`, () => {
    const c = plannedModel(loadMeasurement('seed')!);
    expect(c.wallMinutes).toBeLessThanOrEqual(SEED_TARGET.minutes);
    expect(c.total).toBeLessThanOrEqual(SEED_TARGET.dollars);
  });

  describe('scaling a measurement', () => {
    const seed = loadMeasurement('seed')!;
    const twice: Measurement = { ...seed, steps: seed.steps.map((s) => ({ ...s, requests: Object.fromEntries(Object.entries(s.requests).map(([t, n]) => [t, 2 * n])) })) };

    test('requests scale with the measured counts; the sample\'s counts are multiplied back', () => {
      const [one, two] = [seed, twice].map((m) => measuredCostModel(m, 4));
      const prepared = 4 * Object.values(seed.preparation.requests).reduce((a, n) => a + n, 0);
      expect(two.requests.total - prepared).toBeGreaterThan(1.99 * (one.requests.total - prepared));
      const measuredOnce = seed.steps.reduce((a, s) => a + Object.values(s.requests).reduce((x, n) => x + n, 0), 0);
      // Three repetitions of a tenth of the counts' sample: many times what the sample made.
      expect(one.requests.total).toBeGreaterThan(3 * measuredOnce);
    });

    test('more runners: a shorter wall, the same requests besides each runner\'s preparation, never a runner without steps', () => {
      const [a, b] = [1, 6].map((n) => measuredCostModel(seed, n));
      expect(b.wallMinutes).toBeLessThan(a.wallMinutes);
      expect(b.runnerMinutes).toHaveLength(6);
      expect(b.items['runner instance hours']).toBeGreaterThan(a.items['runner instance hours']);
    });

    test('a method that cannot run here is modelled from its workload\'s other mounts, and said so', () => {
      const c = measuredCostModel(seed, 3);
      expect(c.proxied.length).toBeGreaterThan(0);
      expect(c.proxied.every((p) => p.startsWith('s3files/'))).toBe(true);
    });
  });
});
