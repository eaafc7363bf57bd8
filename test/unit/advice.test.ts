import { advise, dominates, paretoSet, type AdviceOptions, type Figures } from '../../runner/report/advice';
import { NEED_NAMES, NEEDS } from '../../runner/report/advice-needs';
import { adviceLines } from '../../runner/report/advice-text';
import type { Cell } from '../../runner/report/model';
import { PROBES } from '../../runner/workloads/semantics';
import { cell, facts, modelOf } from '../helpers/model';

/**
 * The advisor's policy on fixed fixtures: the needs' probes rule methods out (naming the probe and
 * what it measured) or leave them "not measured"; the Pareto set over throughput, p99 and cost;
 * "no clear winner" where ranges overlap; the limits; the evidence and its host-class warning.
 */

const MiB = 2 ** 20;
const base: AdviceOptions = { workload: 'large-read', needs: [], maxDelayMs: 1000, priority: 'throughput' };

/** A semantics probe of a method: supported in 3 of 3 unless told. */
function probe(method: string, operation: string, over: Partial<Cell> = {}): Cell {
  return cell({ workload: 'semantics', operation, method, object_size_bytes: null, cache: 'cold', records: 3, repetitions: 3, distinct_repetitions: 3, ...over });
}

/** Every probe supported, except those given. */
function probes(method: string, except: Record<string, Partial<Cell>> = {}): Cell[] {
  return PROBES.map((p) => probe(method, p, except[p] ?? (p.endsWith('-delay') ? { delay_ms_median: 50, delay_ms_min: 40, delay_ms_max: 60 } : {})));
}

/** A large-read cell: throughput median with its min–max, p99 in ms. */
function read(method: string, [min, median, max]: [number, number, number], p99Ms: number, over: Partial<Cell> = {}): Cell {
  return cell({
    workload: 'large-read', operation: 'read', object_size_bytes: 1024 * MiB, cache: 'cold', method,
    mib_s_min: min, mib_s_median: median, mib_s_max: max, p99_us_median: p99Ms * 1000, ...over,
  });
}

/** request_counts.sql's row of a large-read cell: `gets` and `puts` per operation over 30 operations. */
function requests(method: string, gets: number, puts = 0, over: Record<string, unknown> = {}) {
  return {
    workload: 'large-read', operation: 'read', object_size_bytes: 1024 * MiB, method, method_variant: 'default', cache: 'cold',
    measurements: 3, not_counted: 0, ops: 30, bytes: 30 * 1024 * MiB, get: 30 * gets, put: 30 * puts, ...over,
  };
}

const fig = (median: number, p99Us: number | null, cost: number | null, [min, max] = [median, median]): Figures => ({
  throughput: { median, min, max }, p99Us, costPerMillion: cost, costNote: '',
});

describe('the needs table', () => {
  it('decides every probe of the semantics workload by some need, and names only its probes', () => {
    const used = new Set(NEED_NAMES.flatMap((n) => NEEDS[n].probes.map((p) => p.probe as string)));
    expect([...PROBES].filter((p) => !used.has(p))).toEqual([]);
    expect([...used].filter((p) => !(PROBES as readonly string[]).includes(p))).toEqual([]);
  });
});

describe('need filters', () => {
  const cells = [
    ...probes('s3fs'),
    ...probes('mountpoint', {
      'rename-file': { repetitions: 0, distinct_repetitions: 0, unsupported: 3, first_error: 'rename-file: Function not implemented (ENOSYS)' },
      append: { repetitions: 1, distinct_repetitions: 1, unsupported: 2, first_error: 'append: refused' },
    }),
    ...probes('rclone', { 'mount-to-s3-delay': { delay_ms_median: 4000, delay_ms_min: 3000, delay_ms_max: 5000 } }),
    ...probes('juicefs', {
      flock: { repetitions: 0, distinct_repetitions: 0, failed_batches: 3, first_error: 'client died' },
      'fcntl-lock': { repetitions: 2, distinct_repetitions: 2, failed_batches: 1, first_error: 'store failed' },
    }),
    read('s3fs', [400, 420, 440], 50), read('mountpoint', [800, 810, 820], 30), read('rclone', [300, 310, 320], 60), read('juicefs', [700, 710, 720], 35),
    read('s3-api', [600, 620, 640], 40),
  ];
  const model = modelOf(cells);

  it('rules out a method whose probe is unsupported or mixed, naming the probe and its outcome', () => {
    const a = advise(model, { ...base, needs: ['rename', 'append'] });
    expect(a.ruledOut.map((r) => r.method)).toEqual(['mountpoint']);
    expect(a.ruledOut[0].verdicts.map((v) => [v.need, v.probe, v.detail])).toEqual([
      ['rename', 'rename-file', 'unsupported: Function not implemented (ENOSYS)'],
      ['append', 'append', 'mixed (1 of 3 ok, refused in 2): refused'],
    ]);
    expect(a.cases[0].compared.map((c) => c.method)).not.toContain('mountpoint');
  });

  it('rules out a propagation delay above the threshold, and keeps it below a higher one', () => {
    const strict = advise(model, { ...base, needs: ['read-after-write'] });
    expect(strict.ruledOut.map((r) => [r.method, r.verdicts[0].probe, r.verdicts[0].detail])).toEqual([['rclone', 'mount-to-s3-delay', 'took 4 s > 1 s (median of 3)']]);
    const lax = advise(model, { ...base, needs: ['read-after-write'], maxDelayMs: 5000 });
    expect(lax.ruledOut).toEqual([]);
    expect(lax.cases[0].compared.map((c) => c.method)).toContain('rclone');
  });

  it('never assumes a need met: no probe (an object method), or a probe that could not be judged, is "not measured"', () => {
    const a = advise(model, { ...base, needs: ['locks'] });
    expect(a.notMeasured.map((s) => [s.method, s.verdicts.map((v) => `${v.probe} ${v.detail}`)])).toEqual([
      ['s3-api', ['flock not probed', 'fcntl-lock not probed']],
      ['juicefs', ['flock could not be judged (failed in 3): client died', 'fcntl-lock supported in 2 of 3, could not be judged in the rest: store failed']],
    ]);
    const compared = a.cases[0].compared.map((c) => c.method);
    expect(compared).not.toContain('s3-api');
    expect(compared).not.toContain('juicefs');
  });

  it('without needs, every measured method is compared', () => {
    const a = advise(model, base);
    expect([...a.ruledOut, ...a.notMeasured]).toEqual([]);
    expect(a.cases[0].compared.map((c) => c.method).sort()).toEqual(['juicefs', 'mountpoint', 'rclone', 's3-api', 's3fs']);
  });
});

describe('the Pareto set', () => {
  it('keeps what no other method beats on every dimension, and names who dominates the rest', () => {
    const fast = { method: 'fast', figures: fig(800, 30_000, 2) };
    const cheap = { method: 'cheap', figures: fig(400, 50_000, 0.4) };
    const worse = { method: 'worse', figures: fig(300, 60_000, 0.5) };
    const { pareto, dominated } = paretoSet([fast, cheap, worse], ['throughput', 'p99', 'cost']);
    expect(pareto.map((c) => c.method)).toEqual(['fast', 'cheap']);
    expect(dominated).toEqual([{ method: 'worse', by: ['cheap'], overlapping: [] }]);
  });

  it('needs better on one dimension: equal figures dominate neither way', () => {
    expect(dominates(fig(500, 10, 1), fig(500, 10, 1), ['throughput', 'p99', 'cost'])).toBe(false);
    expect(dominates(fig(500, 10, 1), fig(500, 10, 2), ['throughput', 'p99', 'cost'])).toBe(true);
    // Left out of the comparison, cost cannot decide.
    expect(dominates(fig(500, 10, 1), fig(500, 10, 2), ['throughput', 'p99'])).toBe(false);
  });

  it('says where a dominated method\'s range still overlaps the one that dominates it', () => {
    const { dominated } = paretoSet([{ method: 'a', figures: fig(500, 10, 1, [450, 550]) }, { method: 'b', figures: fig(480, 20, 1, [470, 490]) }], ['throughput', 'p99', 'cost']);
    expect(dominated).toEqual([{ method: 'b', by: ['a'], overlapping: ['throughput'] }]);
  });

  it('is computed per case from the model, with request cost per million operations', () => {
    const model = modelOf([read('s3-api', [600, 620, 640], 40), read('mountpoint', [800, 810, 820], 30), read('s3fs', [300, 310, 320], 60)], {
      requests: [requests('s3-api', 1), requests('mountpoint', 4), requests('s3fs', 4)],
    });
    const c = advise(model, base).cases[0];
    expect(c.dimensions).toEqual(['throughput', 'p99', 'cost']);
    expect(c.compared.map((x) => [x.method, x.figures.costPerMillion])).toEqual([['mountpoint', 1.6], ['s3-api', 0.4], ['s3fs', 1.6]].map(([m, usd]) => [m, expect.closeTo(usd as number, 9)]));
    expect(c.pareto).toEqual(['mountpoint', 's3-api']);
    expect(c.dominated).toEqual([{ method: 's3fs', by: ['s3-api', 'mountpoint'], overlapping: [] }]);
    expect(c.pick?.method).toBe('mountpoint');
    expect(advise(model, { ...base, priority: 'cost' }).cases[0].pick?.method).toBe('s3-api');
  });

  it('leaves out a dimension no method measured, and does not compare a method missing one the others have', () => {
    const model = modelOf([read('s3-api', [600, 620, 640], 40), read('mountpoint', [800, 810, 820], 30), read('s3files', [700, 710, 720], 20)], {
      requests: [requests('s3-api', 1), requests('mountpoint', 4), requests('s3files', 4, 0, { not_counted: 3 })],
    });
    const c = advise(model, base).cases[0];
    expect(c.notCompared.map((n) => n.method)).toEqual(['s3files']);
    expect(c.notCompared[0].why).toMatch(/^cost not measured \(S3 requests not counted/);
    const none = advise(modelOf([read('s3-api', [600, 620, 640], 40), read('mountpoint', [800, 810, 820], 30)]), base).cases[0];
    expect(none.dimensions).toEqual(['throughput', 'p99']);
    expect(none.leftOut.map((l) => l.dimension)).toEqual(['cost']);
  });
});

describe('"no clear winner"', () => {
  it('picks none where the best method\'s range overlaps another compared method\'s', () => {
    const c = advise(modelOf([read('s3-api', [560, 620, 700], 40), read('mountpoint', [600, 650, 720], 45)]), base).cases[0];
    expect(c.pick).toBeNull();
    expect(c.noClearWinner?.among).toEqual(['mountpoint', 's3-api']);
    expect(c.noClearWinner?.why).toMatch(/throughput figures overlap: mountpoint 650 MiB\/s \(600–720\); s3-api 620 MiB\/s \(560–700\)/);
  });

  it('picks the best, saying why, where the ranges lie apart', () => {
    const c = advise(modelOf([read('s3-api', [560, 600, 640], 40), read('mountpoint', [700, 750, 800], 45)]), base).cases[0];
    expect(c.noClearWinner).toBeNull();
    expect(c.pick).toEqual({ method: 'mountpoint', why: 'best on throughput: 750 MiB/s (700–800); next s3-api 600 MiB/s (560–640), ranges apart; with p99 45 ms' });
  });
});

describe('a method\'s settings (its variants)', () => {
  it('names the best variant of each method measured in several, or no clear winner among them', () => {
    const c = advise(modelOf([
      read('s3fs', [400, 420, 440], 50), read('s3fs', [300, 310, 320], 60, { method_variant: 'seed-000' }),
      read('rclone', [300, 320, 340], 50), read('rclone', [310, 330, 350], 50, { method_variant: 'big-buffer' }), read('s3-api', [600, 620, 640], 40),
    ]), base).cases[0];
    expect(c.settings.map((st) => [st.method, st.variants, st.best])).toEqual([['s3fs', ['default', 'seed-000'], 'default'], ['rclone', ['big-buffer', 'default'], null]]);
    expect(c.settings[1].why).toMatch(/throughput figures overlap/);
  });
});

describe('limits and evidence', () => {
  const model = modelOf([read('s3-api', [600, 620, 640], 40), read('mountpoint', [800, 810, 820], 30), read('s3fs', [300, 310, 320], 60)], {
    requests: [requests('s3-api', 1), requests('mountpoint', 4), requests('s3fs', 4, 1)],
    methods: [facts('s3-api', 0, { instance_type: 'c7g.large' }), facts('mountpoint', 1, { instance_type: 'c7g.large' }), facts('s3fs', 2, { instance_type: 'c7g.large' })],
  });

  it('sets aside methods over the cost or p99 limit, saying by how much', () => {
    const c = advise(model, { ...base, maxCostPerMillion: 2, p99UnderUs: 50_000 }).cases[0];
    expect(c.overLimit).toEqual([{ method: 's3fs', why: '$6.60 per million operations > $2' }]);
    const p99 = advise(model, { ...base, p99UnderUs: 35_000 }).cases[0];
    expect(p99.overLimit.map((o) => o.why)).toEqual(['p99 40 ms ≥ 35 ms', 'p99 60 ms ≥ 35 ms']);
    expect(p99.compared.map((x) => x.method)).toEqual(['mountpoint']);
  });

  it('a limit on a figure not measured leaves the method not compared, never passed', () => {
    const c = advise(modelOf([read('s3-api', [600, 620, 640], 40)]), { ...base, maxCostPerMillion: 100 }).cases[0];
    expect(c.compared).toEqual([]);
    expect(c.notCompared[0]).toEqual({ method: 's3-api', why: 'cost not measured (no request counts), the cost limit cannot be checked' });
  });

  it('carries run, repetitions and host class, and warns where the host class is not the user\'s', () => {
    const same = advise(model, { ...base, hostClass: 'c7g.large' }).cases[0].compared[0].evidence;
    expect(same).toEqual({ runId: model.runId, repetitions: 3, hostClass: 'c7g.large', warning: null });
    const other = advise(model, { ...base, hostClass: 'm7i.xlarge' }).cases[0].compared[0].evidence;
    expect(other.warning).toBe('measured on c7g.large, not on m7i.xlarge: the figures may not hold there');
    // A local host's class is its vCPUs and memory, as the records' comparability key names it.
    expect(advise(modelOf([read('s3-api', [600, 620, 640], 40)]), base).cases[0].compared[0].evidence.hostClass).toBe('local:2vCPU:4GiB');
  });

  it('prints the ruled-out methods, the Pareto set with settings and evidence, and the pick', () => {
    const text = adviceLines(advise(model, { ...base, hostClass: 'm7i.xlarge' })).join('\n');
    expect(text).toContain('Pareto set');
    expect(text).toContain('settings: threads=4');
    expect(text).toContain(`evidence: run ${model.runId}, 3 repetitions, host class c7g.large`);
    expect(text).toContain('warning: measured on c7g.large, not on m7i.xlarge');
    expect(text).toContain('pick for throughput: mountpoint');
  });
});
