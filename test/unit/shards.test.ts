import { parseStepList, planShards, stepList, STEP_LIST_PATTERN } from '../../runner/core/shards';

const steps = (spec: Record<string, number>) => {
  const out: { index: number; workload: { name: string; params: Record<string, unknown> } }[] = [];
  for (const [name, n] of Object.entries(spec)) for (let i = 0; i < n; i++) out.push({ index: out.length + 1, workload: { name, params: {} } });
  return out;
};

describe('planShards', () => {
  test('shard: whole workloads, largest first, to the runner with the fewest steps; steps stay in run order', () => {
    const shards = planShards(steps({ a: 6, b: 3, c: 3, d: 2 }), 2, 'shard');
    expect(shards.map((s) => s.workloads)).toEqual([['a', 'd'], ['b', 'c']]);
    expect(shards.map((s) => s.steps.length)).toEqual([8, 6]);
    for (const s of shards) expect(s.steps).toEqual([...s.steps].sort((x, y) => x - y));
    // Every step exactly once.
    expect(shards.flatMap((s) => s.steps).sort((x, y) => x - y)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
  });
  test('shard: a runner without a workload gets an empty share (the caller refuses it)', () => {
    expect(planShards(steps({ a: 2 }), 2, 'shard').map((s) => s.steps)).toEqual([[1, 2], []]);
  });
  test('replicate: every runner runs every step', () => {
    expect(planShards(steps({ a: 2, b: 1 }), 3, 'replicate').map((s) => s.steps)).toEqual([[1, 2, 3], [1, 2, 3], [1, 2, 3]]);
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
