import {
  benjaminiHochberg, DEFAULT_RULES, MAD_EFFICIENCY, exactChanges, flagSpeedChanges, judgeSpeed, mad, median, robustScale, robustScore, scorePValue, studentTwoSidedP, variationPct,
} from '../../runner/report/history/stats';

/** A steady series: 100 ± a known, symmetric wobble (median 100, MAD 1). */
const STEADY = [99, 101, 100, 98, 102, 100, 99, 101, 100, 100];

describe('robust score', () => {
  test('median, MAD and the score on a series with known answers', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(mad(STEADY)).toBe(1);
    expect(robustScale(STEADY)).toBeCloseTo(1.4826, 6);
    expect(robustScore(110, STEADY)).toBeCloseTo(10 / 1.4826, 6);
    expect(robustScore(100, STEADY)).toBe(0);
    expect(variationPct(STEADY)).toBeCloseTo(1.4826, 6);
  });

  test('an outlier in the history barely moves the score (the point of median and MAD)', () => {
    expect(robustScore(110, [...STEADY.slice(1), 1000])).toBeCloseTo(robustScore(110, STEADY), 0);
  });

  test('no spread: MAD 0 falls back to the mean absolute deviation; all equal scores 0 or ±Infinity', () => {
    const mostlySame = [100, 100, 100, 100, 100, 100, 104];
    expect(mad(mostlySame)).toBe(0);
    expect(robustScale(mostlySame)).toBeCloseTo(Math.sqrt(Math.PI / 2) * (4 / 7), 9);
    expect(robustScore(5, [5, 5, 5, 5, 5])).toBe(0);
    expect(robustScore(6, [5, 5, 5, 5, 5])).toBe(Infinity);
    expect(robustScore(4, [5, 5, 5, 5, 5])).toBe(-Infinity);
  });
});

describe('p-values', () => {
  test("Student's t tail matches the table (two-sided 0.05 critical values)", () => {
    expect(studentTwoSidedP(2.776, 4)).toBeCloseTo(0.05, 3);
    expect(studentTwoSidedP(2.228, 10)).toBeCloseTo(0.05, 3);
    expect(studentTwoSidedP(1.96, 1e6)).toBeCloseTo(0.05, 3);
    expect(studentTwoSidedP(0, 5)).toBe(1);
    expect(studentTwoSidedP(12.706, 1)).toBeCloseTo(0.05, 3);
  });

  test('a score is widened for the new figure and the median, at the MAD\'s degrees of freedom: 4 over 10 runs is p ≈ 0.029; no spread gives 0 or 1', () => {
    // t = 4 / sqrt(1 + π/20) = 3.70 at 0.367 × 9 = 3.3 degrees of freedom.
    expect(MAD_EFFICIENCY).toBe(0.367);
    expect(scorePValue(4, 10)).toBeCloseTo(studentTwoSidedP(4 / Math.sqrt(1 + Math.PI / 20), 0.367 * 9), 12);
    expect(scorePValue(4, 10)).toBeGreaterThan(0.025);
    expect(scorePValue(4, 10)).toBeLessThan(0.033);
    // Five runs' MAD is trusted less: the same score is less surprising.
    expect(scorePValue(4, 5)).toBeGreaterThan(scorePValue(4, 10));
    expect(scorePValue(Infinity, 5)).toBe(0);
    expect(scorePValue(0, 5)).toBe(1);
  });

  test('Benjamini–Hochberg keeps the step-up set (worked example)', () => {
    // m = 5, q = 0.05: thresholds 0.01, 0.02, 0.03, 0.04, 0.05. p_(3) = 0.029 ≤ 0.03 is the largest passing rank,
    // so the three smallest are discoveries even though p_(2) = 0.021 > 0.02.
    expect(benjaminiHochberg([0.029, 0.5, 0.001, 0.021, 0.045], 0.05)).toEqual([true, false, true, true, false]);
    expect(benjaminiHochberg([0.2, 0.3], 0.05)).toEqual([false, false]);
    expect(benjaminiHochberg([], 0.05)).toEqual([]);
  });
});

describe('judging a figure against its history', () => {
  test('fewer than 5 comparable runs: insufficient history, the plain change against the previous run', () => {
    const v = judgeSpeed(150, [100, 100, 100, 120]);
    expect(v).toEqual({ kind: 'insufficient', runs: 4, changePct: 25 });
    expect(judgeSpeed(150, [])).toEqual({ kind: 'insufficient', runs: 0, changePct: null });
  });

  test('a 10% step on a steady series is a candidate; a 1% wobble is not', () => {
    const jump = judgeSpeed(110, STEADY);
    expect(jump).toMatchObject({ kind: 'compared', runs: 10, historyMedian: 100, changePct: 10, candidate: true });
    expect(judgeSpeed(101, STEADY)).toMatchObject({ kind: 'compared', candidate: false });
  });

  test('a large score alone does not flag: the change must exceed 5% …', () => {
    // Spread 0.1%: a 3% change scores ~20 but stays under 5%.
    const tight = [1000, 1001, 999, 1000, 1001, 999, 1000];
    const v = judgeSpeed(1030, tight);
    expect(v.kind === 'compared' && Math.abs(v.score) > DEFAULT_RULES.scoreThreshold).toBe(true);
    expect(v).toMatchObject({ candidate: false });
  });

  test('… and twice the case\'s own variation', () => {
    // A noisy case: MAD 10 (variation ≈ 14.8%); a 25% change is > 5% but < 2 × 14.8%, even where the score would pass.
    const noisy = [100, 90, 110, 100, 90, 110, 100];
    const v = judgeSpeed(125, noisy, { ...DEFAULT_RULES, scoreThreshold: 1 });
    expect(v).toMatchObject({ kind: 'compared', candidate: false });
    expect(v.kind === 'compared' && v.variationPct).toBeCloseTo(14.826, 3);
    expect(judgeSpeed(135, noisy, { ...DEFAULT_RULES, scoreThreshold: 1 })).toMatchObject({ candidate: true });
  });

  test('only the newest runs of the window count', () => {
    const old = [10, 10, 10, 10, 10];
    expect(judgeSpeed(100, [...old, ...STEADY])).toMatchObject({ runs: 10, historyMedian: 100, candidate: false });
  });

  test('flags: candidates that survive the false-discovery control; chance flags summed over compared cases', () => {
    const verdicts = [judgeSpeed(110, STEADY), judgeSpeed(100, STEADY), judgeSpeed(100, [1, 2, 3]), judgeSpeed(99, STEADY)];
    const f = flagSpeedChanges(verdicts);
    expect(f.flagged).toEqual([true, false, false, false]);
    expect(f.compared).toBe(3);
    expect(f.expectedByChance).toBeCloseTo(3 * scorePValue(4, 10), 12);
  });

  test('a candidate among many unchanged cases is not flagged where the false-discovery control does not keep it', () => {
    // A 10% step on ten steady runs: p ≈ 0.006, kept alone (≤ 0.05) but not as the best of 40 cases (≤ 0.05 / 40).
    const step = judgeSpeed(110, STEADY);
    expect(step).toMatchObject({ kind: 'compared', candidate: true });
    expect(step.kind === 'compared' && step.pValue).toBeGreaterThan(0.05 / 40);
    expect(flagSpeedChanges([step]).flagged[0]).toBe(true);
    expect(flagSpeedChanges([step, ...Array.from({ length: 39 }, () => judgeSpeed(100, STEADY))]).flagged[0]).toBe(false);
    // Twice that step is kept among the 40 too.
    expect(flagSpeedChanges([judgeSpeed(120, STEADY), ...Array.from({ length: 39 }, () => judgeSpeed(100, STEADY))]).flagged[0]).toBe(true);
  });

  test('five runs\' MAD is trusted less: a score of 10 on five runs is not flagged among ten cases', () => {
    const five = [99, 101, 100, 98, 102];
    const v = judgeSpeed(114.8, five);
    expect(v).toMatchObject({ kind: 'compared', candidate: true });
    expect(v.kind === 'compared' && v.score).toBeCloseTo(10, 1);
    expect(flagSpeedChanges([v, ...Array.from({ length: 9 }, () => judgeSpeed(100, five))]).flagged[0]).toBe(false);
  });
});

describe('deterministic figures compared exactly', () => {
  test('any difference is a change with before and after; equal figures are none', () => {
    expect(exactChanges({ head: 1, get: 1 }, { head: 1, get: 1 })).toEqual([]);
    expect(exactChanges({ head: 1, get: 1 }, { head: 3, get: 1 })).toEqual([{ figure: 'head', before: '1', after: '3' }]);
    expect(exactChanges({ get: 1 }, { get: 1, list: 0.5 })).toEqual([{ figure: 'list', before: 'none', after: '0.5' }]);
    expect(exactChanges({ support: 'supported' }, { support: 'unsupported' })).toEqual([{ figure: 'support', before: 'supported', after: 'unsupported' }]);
  });

  test('a stated tolerance admits protocol variation (retries), nothing else does', () => {
    expect(exactChanges({ get: 1 }, { get: 1.01 })).toHaveLength(1);
    expect(exactChanges({ get: 1 }, { get: 1.01 }, { get: 0.02 })).toEqual([]);
  });
});
