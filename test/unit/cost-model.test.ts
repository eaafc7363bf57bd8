import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MEASURED_PROFILES, README_MARKERS, SEED_TARGET, costModel, costTable, loadMeasurement, plannedModel } from '../../scripts/cost-model';
import { COUNT_PARAMS, METHODS_REQUESTS, measuredCostModel, sampleOf, type Measurement } from '../../scripts/cost/measured-model';
import { expandSteps, resolveMatrix } from '../../runner/core/matrix';
import { CATALOG } from '../../runner/catalog';
import { findMethodDescriptor } from '../../runner/methods/catalog';
import { findWorkloadDescriptor } from '../../runner/workloads/catalog';
import { notApplicableReason } from '../../runner/run/policy';
import { WORKLOAD_DESCRIPTORS as WORKLOADS } from '../../runner/workloads/catalog';
import { ROOT } from '../helpers/cli';

const profileJson = (name: string) => {
  const { $schema: _schema, ...json } = JSON.parse(readFileSync(join(ROOT, 'assets', 'profiles', `${name}.json`), 'utf8'));
  return json;
};
const total = (r: Record<string, number>) => Object.values(r).reduce((a, n) => a + n, 0);

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
    // Each method's steps of a workload it can run made requests (a step that does not apply records
    // at once), and the runner's own are a part of them.
    const byLabel = new Map<string, number>();
    for (const s of m.steps) {
      if (notApplicableReason(findMethodDescriptor(s.method)!, findWorkloadDescriptor(s.workload)!)) continue;
      byLabel.set(`${s.method}/${s.variant}/${s.workload}`, (byLabel.get(`${s.method}/${s.variant}/${s.workload}`) ?? 0) + total(s.requests));
    }
    expect(byLabel.size).toBeGreaterThan(0);
    for (const [label, n] of byLabel) expect({ label, n: n > 0 }).toEqual({ label, n: true });
    for (const s of m.steps) for (const [t, n] of Object.entries(s.runnerRequests)) expect(n).toBeLessThanOrEqual(s.requests[t as keyof typeof s.requests] ?? 0);
    for (const s of m.steps) expect(s.measuredSeconds).toBeLessThanOrEqual(s.seconds);
  });

  describe('scaling a measurement', () => {
    const seed = loadMeasurement('seed')!;
    const twice: Measurement = { ...seed, steps: seed.steps.map((s) => ({ ...s, requests: Object.fromEntries(Object.entries(s.requests).map(([t, n]) => [t, 2 * n])) })) };

    test('requests scale with the measured counts; the sample\'s counts are multiplied back', () => {
      const [one, two] = [seed, twice].map((m) => measuredCostModel(m, 4));
      expect(two.methodsRequests.total).toBeGreaterThan(1.99 * one.methodsRequests.total);
      const measuredOnce = seed.steps.reduce((a, s) => a + total(s.requests), 0);
      // Three repetitions of a tenth of the counts' sample: many times what the sample made.
      expect(one.requests.total).toBeGreaterThan(3 * measuredOnce);
    });

    test('the methods\' own requests and the runner\'s are apart; the execution\'s cost is everything but the methods\' requests', () => {
      const c = measuredCostModel(seed, 4);
      expect(c.methodsRequests.total).toBeLessThan(c.requests.total);
      expect(c.executionDollars).toBeCloseTo(c.total - c.items[METHODS_REQUESTS], 9);
      expect(Object.values(c.byWorkload).reduce((a, w) => a + w.methodsDollars, 0)).toBeCloseTo(c.items[METHODS_REQUESTS], 6);
    });

    test('a step\'s own setup is not scaled, its measurements are', () => {
      const slowSetup: Measurement = { ...seed, steps: seed.steps.map((s) => ({ ...s, seconds: s.seconds + 10 })) };
      const slowMeasuring: Measurement = { ...seed, steps: seed.steps.map((s) => ({ ...s, seconds: s.seconds + 10, measuredSeconds: s.measuredSeconds + 10 })) };
      const [base, setup, measuring] = [seed, slowSetup, slowMeasuring].map((m) => measuredCostModel(m, 1));
      const steps = base.modelled.length;
      expect((setup.runnerMinutes[0] - base.runnerMinutes[0]) * 60).toBeCloseTo(10 * steps, 0);
      expect(measuring.runnerMinutes[0] - setup.runnerMinutes[0]).toBeGreaterThan(0);
    });

    test('more runners: a shorter wall, the same requests besides each runner\'s preparation, never a runner without steps', () => {
      const [a, b] = [1, 6].map((n) => measuredCostModel(seed, n));
      expect(b.wallMinutes).toBeLessThan(a.wallMinutes);
      expect(b.runnerMinutes).toHaveLength(6);
      expect(b.items['runner instance hours']).toBeGreaterThan(a.items['runner instance hours']);
      expect(b.methodsRequests.total).toBeCloseTo(a.methodsRequests.total, 6);
    });

    test('a method that cannot run here is modelled from its workload\'s other mounts, and said so', () => {
      const c = measuredCostModel(seed, 3);
      expect(c.proxied.length).toBeGreaterThan(0);
      expect(c.proxied.every((p) => p.startsWith('s3files/'))).toBe(true);
    });

    test(`the planned runner count is the cheapest that ends within ${SEED_TARGET.minutes} min, else the fastest`, () => {
      const planned = plannedModel(seed);
      const all = Array.from({ length: Object.keys(seed.matrix.workloads).length }, (_, i) => measuredCostModel(seed, i + 1));
      const fitting = all.filter((c) => c.wallMinutes <= SEED_TARGET.minutes);
      if (fitting.length) expect(planned.total).toBe(Math.min(...fitting.map((c) => c.total)));
      else expect(planned.wallMinutes).toBe(Math.min(...all.map((c) => c.wallMinutes)));
    });
  });
});
