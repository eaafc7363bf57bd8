import { fleetRunners, parseStepList, planShards, shardUnits, stepList, STEP_LIST_PATTERN, type ShardUnit, type UnitCost } from '../../runner/core/shards';

/** Steps of a matrix in run order: per workload, per repetition, `methods` steps. */
const steps = (spec: Record<string, number>, methods = 2) => {
  const out: { index: number; repetition: number; workload: { name: string; params: Record<string, unknown> } }[] = [];
  for (const [name, reps] of Object.entries(spec)) {
    for (let repetition = 1; repetition <= reps; repetition++) for (let m = 0; m < methods; m++) out.push({ index: out.length + 1, repetition, workload: { name, params: {} } });
  }
  return out;
};
/** A cost from each workload's seconds per unit. */
const byWorkload = (seconds: Record<string, number>, prep: Record<string, number> = {}): UnitCost => ({
  seconds: (u: ShardUnit, _r: number, placed: readonly string[]) => seconds[u.workload] + (placed.includes(u.workload) ? 0 : prep[u.workload] ?? 0),
});
const every = (shards: { steps: number[] }[]) => shards.flatMap((s) => s.steps).sort((x, y) => x - y);

describe('shard units', () => {
  test('one per (workload, repetition), with every method of it, in run order', () => {
    expect(shardUnits(steps({ a: 2, b: 1 }))).toEqual([
      { workload: 'a', repetition: 1, steps: [1, 2] }, { workload: 'a', repetition: 2, steps: [3, 4] }, { workload: 'b', repetition: 1, steps: [5, 6] },
    ]);
  });
});

describe('planShards: longest processing time first over units', () => {
  test('without a model a unit costs its step count; every step once, in run order on its runner', () => {
    const shards = planShards(steps({ a: 3, b: 1 }), 2, 'shard');
    expect(shards.map((s) => s.load)).toEqual([4, 4]);
    expect(every(shards)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const s of shards) expect(s.steps).toEqual([...s.steps].sort((x, y) => x - y));
  });

  test('by modelled time: the long units first, each where it ends first, so the runners end close together', () => {
    // a: 3 units of 40 s, b: 2 of 30 s, c: 4 of 10 s — 220 s over 3 runners: at best 80 s (a + a).
    const shards = planShards(steps({ a: 3, b: 2, c: 4 }), 3, 'shard', byWorkload({ a: 40, b: 30, c: 10 }));
    expect(Math.max(...shards.map((s) => s.load))).toBe(80);
    expect(shards.reduce((t, s) => t + s.load, 0)).toBe(220);
    // Within that bound the second pass keeps repetitions together: a on 2 runners, b and c on one each.
    expect(['a', 'b', 'c'].map((w) => shards.filter((s) => s.workloads.includes(w)).length)).toEqual([2, 1, 1]);
    // A workload's repetitions may go to several runners; each unit's methods stay on one.
    for (const s of shards) for (const u of shardUnits(steps({ a: 3, b: 2, c: 4 }))) {
      const held = u.steps.filter((i) => s.steps.includes(i)).length;
      expect([0, u.steps.length]).toContain(held);
    }
  });

  test('the second pass keeps a workload\'s units where its fixture is written, never past the first pass\'s longest shard', () => {
    // Each runner that runs b writes its fixture first (20 s).
    const cost = byWorkload({ a: 60, b: 10 }, { b: 20 });
    const shards = planShards(steps({ a: 2, b: 3 }), 3, 'shard', cost);
    const holding = shards.filter((s) => s.workloads.includes('b'));
    expect(holding).toHaveLength(1);
    expect(holding[0].load).toBe(50);
    expect(Math.max(...shards.map((s) => s.load))).toBe(60);
  });

  test('room: a caller with time to spare lets a runner take more of a workload it already has', () => {
    // a and c: a unit of 20 s each; b: 2 of 15 s, and 5 s for its fixture on each runner that runs it.
    const cost = byWorkload({ a: 20, b: 15, c: 20 }, { b: 5 });
    const tight = planShards(steps({ a: 1, c: 1, b: 2 }), 2, 'shard', cost);
    expect(tight.filter((s) => s.workloads.includes('b'))).toHaveLength(2);
    expect(Math.max(...tight.map((s) => s.load))).toBe(40);
    const roomy = planShards(steps({ a: 1, c: 1, b: 2 }), 2, 'shard', cost, 60);
    expect(roomy.filter((s) => s.workloads.includes('b'))).toHaveLength(1);
    expect(roomy.map((s) => s.load).sort()).toEqual([20, 55]);
  });

  test('a unit goes only to runners it fits (a link-bound unit to a fast link) while one fits', () => {
    const cost: UnitCost = { ...byWorkload({ big: 50, small: 10 }), fits: (u, r) => (u.workload === 'big' ? r === 0 : true) };
    const shards = planShards(steps({ big: 2, small: 2 }), 2, 'shard', cost);
    expect(shards[0].workloads).toEqual(['big']);
    expect(shards[0].load).toBe(100);
    expect(shards[1]).toMatchObject({ workloads: ['small'], load: 20 });
  });

  test('keeping a workload together never leaves a runner asked for without work', () => {
    const cost = byWorkload({ a: 10 }, { a: 50 });
    expect(planShards(steps({ a: 2 }), 2, 'shard', cost, 1000).map((s) => s.steps.length)).toEqual([2, 2]);
  });

  test('a runner without a unit gets an empty share (the caller refuses it)', () => {
    expect(planShards(steps({ a: 1 }), 2, 'shard').map((s) => s.steps)).toEqual([[1, 2], []]);
  });

  test('fleet: runner r runs the steps with more than r clients, in step order; only runner 0 writes fixtures', () => {
    // One workload, one repetition, clients [1, 2, 4], two methods: steps 1–2 (1 client), 3–4 (2), 5–6 (4).
    const fleet = [1, 1, 2, 2, 4, 4].map((clients, i) => ({ index: i + 1, repetition: 1, clients, workload: { name: 'a', params: {} } }));
    expect(fleetRunners(fleet)).toBe(4);
    const shards = planShards(fleet, 4, 'fleet', byWorkload({ a: 6 }, { a: 10 }));
    expect(shards.map((s) => s.steps)).toEqual([[1, 2, 3, 4, 5, 6], [3, 4, 5, 6], [5, 6], [5, 6]]);
    expect(shards.map((s) => s.workloads)).toEqual([['a'], ['a'], ['a'], ['a']]);
    // Runner 0: its unit and the fixture (10). The others keep its pace (a fleet step starts when
    // runner 0 reaches it): each runs until runner 0 ends its last unit.
    expect(shards.map((s) => s.load)).toEqual([16, 16, 16, 16]);
  });

  test('fleet: a runner whose last step comes before runner 0\'s end is done at the end of that unit', () => {
    // Two workloads; b has only 1-client steps (say its fleet steps were left out): runner 1 ends with a.
    const fleet = [
      { index: 1, repetition: 1, clients: 1, workload: { name: 'a', params: {} } }, { index: 2, repetition: 1, clients: 2, workload: { name: 'a', params: {} } },
      { index: 3, repetition: 1, clients: 1, workload: { name: 'b', params: {} } },
    ];
    const shards = planShards(fleet, 2, 'fleet', byWorkload({ a: 5, b: 7 }, { a: 1, b: 2 }));
    expect(shards.map((s) => [s.steps, s.load])).toEqual([[[1, 2, 3], 15], [[2], 6]]);
  });

  test('fleet: the runner count must be the largest fleet', () => {
    const fleet = [1, 3].map((clients, i) => ({ index: i + 1, repetition: 1, clients, workload: { name: 'a', params: {} } }));
    expect(() => planShards(fleet, 2, 'fleet')).toThrow(/needs one runner per client of its largest fleet: 3, got 2/);
  });

  test('a runner count below one is an error', () => {
    expect(() => planShards(steps({ a: 1 }), 0, 'shard')).toThrow(/runners must be a whole number/);
  });
});

describe('step lists', () => {
  test('round trip, and what the document parameter refuses', () => {
    expect(parseStepList(stepList([1, 5, 12]))).toEqual([1, 5, 12]);
    for (const bad of ['', '0', '1,,2', '1, 2', '-1', 'a', '123456']) {
      expect(parseStepList(bad)).toBeNull();
      expect(STEP_LIST_PATTERN.test(bad)).toBe(false);
    }
  });
});
