/**
 * The statistics of a results history, pure: a new figure against the same case's earlier
 * comparable figures. Measured figures (medians) get a robust score and a p-value, the run's
 * p-values a false-discovery control; deterministic figures (request counts, probe outcomes) are
 * compared exactly. Nothing here reads files: history/load.ts gives the series.
 */

/** How a measured figure is judged against its history. */
export interface HistoryRules {
  /** Comparable runs looked back on, newest first. @default 10 */
  window: number;
  /** Fewer comparable runs than this: insufficient history, nothing flagged. @default 5 */
  minRuns: number;
  /** |robust score| above this may flag. @default 4 */
  scoreThreshold: number;
  /** The change must exceed this many percent… @default 5 */
  minChangePct: number;
  /** …and this multiple of the case's own variation (its robust coefficient of variation). @default 2 */
  variationMultiple: number;
  /** Benjamini–Hochberg false-discovery rate across a run's cases. @default 0.05 */
  fdr: number;
}

export const DEFAULT_RULES: HistoryRules = { window: 10, minRuns: 5, scoreThreshold: 4, minChangePct: 5, variationMultiple: 2, fdr: 0.05 };

/** 1.4826 × MAD estimates a normal distribution's standard deviation. */
const MAD_TO_SD = 1.4826;
/** sqrt(π/2) × mean absolute deviation estimates it too: the scale where the MAD is zero. */
const MEAN_AD_TO_SD = Math.sqrt(Math.PI / 2);

export function median(values: readonly number[]): number {
  if (!values.length) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Median absolute deviation from the median. */
export function mad(values: readonly number[]): number {
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m)));
}

/**
 * The history's robust scale (a standard deviation's estimate): 1.4826 × MAD; where more than half
 * the values are equal (MAD 0) but not all, sqrt(π/2) × the mean absolute deviation from the
 * median; 0 only when every value is the same.
 */
export function robustScale(history: readonly number[]): number {
  const byMad = MAD_TO_SD * mad(history);
  if (byMad > 0) return byMad;
  const m = median(history);
  return MEAN_AD_TO_SD * (history.reduce((n, v) => n + Math.abs(v - m), 0) / history.length);
}

/**
 * (value − median) / scale. A history without spread scores 0 for its own value and ±Infinity for
 * any other: every earlier run gave exactly that figure.
 */
export function robustScore(value: number, history: readonly number[]): number {
  const diff = value - median(history);
  const scale = robustScale(history);
  if (scale > 0) return diff / scale;
  return diff === 0 ? 0 : diff > 0 ? Infinity : -Infinity;
}

/** The case's own variation in percent: its robust scale over its median (a robust coefficient of variation). */
export function variationPct(history: readonly number[]): number {
  const m = median(history);
  return m === 0 ? 0 : (100 * robustScale(history)) / Math.abs(m);
}

/** (value − reference) / reference in percent; null when the reference is 0. */
function changePct(value: number, reference: number): number | null {
  return reference === 0 ? (value === 0 ? 0 : null) : (100 * (value - reference)) / Math.abs(reference);
}

/**
 * The MAD's efficiency as a scale estimate under a normal distribution (its asymptotic relative
 * efficiency against the standard deviation, 0.37): a scale from n values by the MAD is as
 * uncertain as a standard deviation from about 0.37 × n.
 */
export const MAD_EFFICIENCY = 0.367;

/**
 * The two-sided p-value of a score against a history of n figures: the chance that a new figure of
 * an unchanged case scores at least this far out. The score is taken as Student's t, widened by
 * sqrt(1 + π/(2n)) for the new figure's own uncertainty and the median's (a prediction interval
 * around a median), with 0.37 × (n − 1) degrees of freedom, the MAD's efficiency (MAD_EFFICIENCY):
 * with n − 1 a 5-run history's MAD would be trusted as much as a standard deviation, which it is
 * not. A rank among ten earlier values cannot go below 2/11 ≈ 0.18 and could never pass a
 * false-discovery control at 0.05; the t tail can. A history without spread: 1 for its own value,
 * 0 for any other.
 */
export function scorePValue(score: number, n: number): number {
  if (!Number.isFinite(score)) return 0;
  if (n < 2) return 1;
  const t = Math.abs(score) / Math.sqrt(1 + Math.PI / (2 * n));
  return studentTwoSidedP(t, MAD_EFFICIENCY * (n - 1));
}

/** P(|T| ≥ t) for Student's t with df degrees of freedom: the regularized incomplete beta I_{df/(df+t²)}(df/2, 1/2). */
export function studentTwoSidedP(t: number, df: number): number {
  if (t === 0) return 1;
  return Math.min(1, Math.max(0, incompleteBeta(df / (df + t * t), df / 2, 0.5)));
}

/** ln Γ(x) by Lanczos' approximation (g = 7, 9 terms), x > 0. */
function logGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0];
  for (let i = 1; i < 9; i++) a += c[i] / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The regularized incomplete beta function I_x(a, b), by its continued fraction (modified Lentz). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  // The fraction converges fast below (a + 1) / (a + b + 2); above, use I_x(a, b) = 1 − I_{1−x}(b, a).
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x)) / a;
  const tiny = 1e-300;
  let f = 1;
  let c = 1;
  let d = 0;
  for (let i = 0; i <= 300; i++) {
    const m = i >> 1;
    let numerator: number;
    if (i === 0) numerator = 1;
    else if (i % 2 === 0) numerator = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    else numerator = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + numerator * d;
    if (Math.abs(d) < tiny) d = tiny;
    d = 1 / d;
    c = 1 + numerator / c;
    if (Math.abs(c) < tiny) c = tiny;
    const step = c * d;
    f *= step;
    if (Math.abs(1 - step) < 1e-12) break;
  }
  return front * (f - 1);
}

/**
 * Benjamini–Hochberg at false-discovery rate q: which of the p-values are discoveries (the k
 * smallest, for the largest k with p_(k) ≤ k/m × q).
 */
export function benjaminiHochberg(pValues: readonly number[], q: number): boolean[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  let k = 0;
  order.forEach(([p], rank) => {
    if (p <= ((rank + 1) / m) * q) k = rank + 1;
  });
  const out = new Array<boolean>(m).fill(false);
  for (let r = 0; r < k; r++) out[order[r][1]] = true;
  return out;
}

/** The judgement of one measured figure against its history. */
export type SpeedVerdict =
  | { kind: 'insufficient'; runs: number; /** % change against the previous comparable run, or null. */ changePct: number | null }
  | {
    kind: 'compared';
    runs: number;
    historyMedian: number;
    /** % change against the history's median. */
    changePct: number | null;
    score: number;
    variationPct: number;
    pValue: number;
    /** Beyond the score threshold and both change thresholds: a candidate, before the false-discovery control. */
    candidate: boolean;
  };

/**
 * One figure against its history (oldest first; the window's newest `rules.window` are used). Not
 * yet flagged: flags need every case's p-value (flagSpeedChanges).
 */
export function judgeSpeed(value: number, history: readonly number[], rules: HistoryRules = DEFAULT_RULES): SpeedVerdict {
  const used = history.slice(-rules.window);
  if (used.length < rules.minRuns) {
    return { kind: 'insufficient', runs: used.length, changePct: used.length ? changePct(value, used[used.length - 1]) : null };
  }
  const historyMedian = median(used);
  const score = robustScore(value, used);
  const change = changePct(value, historyMedian);
  const variation = variationPct(used);
  const big = change === null || (Math.abs(change) > rules.minChangePct && Math.abs(change) > rules.variationMultiple * variation);
  return {
    kind: 'compared', runs: used.length, historyMedian, changePct: change, score, variationPct: variation,
    pValue: scorePValue(score, used.length), candidate: Math.abs(score) > rules.scoreThreshold && big,
  };
}

/** A run's speed verdicts flagged together: candidates that the false-discovery control keeps, and how many flags chance alone would raise. */
export interface SpeedFlags {
  flagged: boolean[];
  /** Σ over compared cases of P(|score| > threshold) for an unchanged case: the flags the matrix would raise by chance (before the change thresholds, so an upper bound). */
  expectedByChance: number;
  compared: number;
}

export function flagSpeedChanges(verdicts: readonly SpeedVerdict[], rules: HistoryRules = DEFAULT_RULES): SpeedFlags {
  const compared = verdicts.map((v, i) => [v, i] as const).filter(([v]) => v.kind === 'compared');
  const discoveries = benjaminiHochberg(compared.map(([v]) => (v.kind === 'compared' ? v.pValue : 1)), rules.fdr);
  const flagged = new Array<boolean>(verdicts.length).fill(false);
  compared.forEach(([v, i], j) => {
    flagged[i] = v.kind === 'compared' && v.candidate && discoveries[j];
  });
  const expectedByChance = compared.reduce((n, [v]) => n + scorePValue(rules.scoreThreshold, v.runs), 0);
  return { flagged, expectedByChance, compared: compared.length };
}

/** A deterministic figure's change: every value that differs, before and after (exact, or within a stated tolerance). */
export interface ExactChange {
  figure: string;
  before: string;
  after: string;
}

/**
 * Deterministic figures compared exactly: each name present in either side whose values differ
 * by more than its tolerance (relative; 0: exact). Numbers print with up to 4 decimals.
 */
export function exactChanges(before: Record<string, number | string>, after: Record<string, number | string>, tolerance: Record<string, number> = {}): ExactChange[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const text = (v: number | string | undefined) => (v === undefined ? 'none' : typeof v === 'number' ? String(Number(v.toFixed(4))) : v);
  return names.flatMap((figure) => {
    const a = before[figure];
    const b = after[figure];
    if (a === b) return [];
    if (typeof a === 'number' && typeof b === 'number') {
      const tol = tolerance[figure] ?? 0;
      // Sums over repetitions divided by operations: equal counts give equal floats, but allow rounding.
      if (Math.abs(a - b) <= Math.max(1e-9, tol) * Math.max(Math.abs(a), Math.abs(b))) return [];
    }
    return [{ figure, before: text(a), after: text(b) }];
  });
}
