import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../core/paths';
import { num } from '../format';

/**
 * Change points of a results history: a sustained shift across several runs, dated to the run where
 * it began. Found by Apache Otava (PyPI apache-otava, `npm run setup -- otava` into .tools/otava):
 * its E-Divisive split (Matteson and James's energy statistic over sliding windows) and its merge
 * step, which keeps a change point only where a two-sided t-test between the segments on each side
 * gives p below `maxPValue` and the segments' means differ by more than `minMagnitude`. Calling
 * Otava itself, not a port: the same method, its authors' code, the same answers as its own CLI
 * gives. Optional: without it the history says so and finds none.
 */

export interface ChangePointRules {
  /** Otava's significance threshold of its merge step (its default). @default 0.001 */
  maxPValue: number;
  /** The least relative change of the means either side (0.05: 5%, the speed flags' least change). @default 0.05 */
  minMagnitude: number;
  /** Otava's sliding window, in points (its default). @default 50 */
  windowLength: number;
}

export const CHANGE_POINT_RULES: ChangePointRules = { maxPValue: 0.001, minMagnitude: 0.05, windowLength: 50 };

/** A change point of one series: the index of the first value after the shift. */
export interface ChangePoint {
  index: number;
  meanBefore: number;
  meanAfter: number;
  /** (after − before) / before, in percent. */
  changePct: number;
  pValue: number;
}

export type ChangePointResult =
  | { available: true; /** Per series given, its change points, in order. */ found: ChangePoint[][] }
  | { available: false; /** Why none were looked for: the tool missing, or its failure. */ reason: string };

/** What finds the change points of several series at once (one call for a whole history). */
export type ChangePointFinder = (series: number[][]) => ChangePointResult;

/** Series shorter than this have no change point to find: a t-test between 1 and 2 values says nothing at p 0.001. */
const MIN_POINTS = 4;

/** Otava's Python: S3AB_OTAVA_PYTHON, else the project's venv (.tools/otava). */
function otavaPython(): string {
  return process.env.S3AB_OTAVA_PYTHON ?? join(projectRoot(), '.tools', 'otava', 'bin', 'python');
}

const OTAVA_MISSING = 'Apache Otava is not installed: `npm run setup -- otava` (PyPI apache-otava into .tools/otava), or set S3AB_OTAVA_PYTHON to a Python that has it';

/** Reads {series, rules} on stdin, prints one list of change points per series. */
const SCRIPT = `
import json, sys
from otava.analysis import compute_change_points
job = json.load(sys.stdin)
r = job["rules"]
out = []
for values in job["series"]:
    found = []
    if len(values) >= ${MIN_POINTS}:
        cps, _ = compute_change_points(values, window_len=r["windowLength"], max_pvalue=r["maxPValue"], min_magnitude=r["minMagnitude"])
        for c in cps:
            s = c.stats
            found.append({"index": int(c.index), "meanBefore": float(s.mean_1), "meanAfter": float(s.mean_2), "changePct": float(s.forward_change_percent()), "pValue": float(s.pvalue)})
    out.append(found)
json.dump(out, sys.stdout)
`;

/** Otava's change points of each series (values in run order). */
export function otavaChangePoints(series: number[][], rules: ChangePointRules = CHANGE_POINT_RULES): ChangePointResult {
  const python = otavaPython();
  if (!existsSync(python)) return { available: false, reason: OTAVA_MISSING };
  if (!series.some((s) => s.length >= MIN_POINTS)) return { available: true, found: series.map(() => []) };
  const r = spawnSync(python, ['-c', SCRIPT], { input: JSON.stringify({ series, rules }), encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    const why = r.error?.message ?? (r.stderr.trim().split('\n').pop() || `exit ${r.status ?? r.signal}`);
    return { available: false, reason: `Apache Otava failed (${why}): reinstall it with \`npm run setup -- otava\`` };
  }
  return { available: true, found: JSON.parse(r.stdout) as ChangePoint[][] };
}

/** "change point: a shift of +20% began here (mean 100 → 120 either side, t-test p 3.0e-13)". */
export function changePointText(cp: ChangePoint): string {
  return `change point: a shift of ${cp.changePct > 0 ? '+' : ''}${num(cp.changePct)}% began here (mean ${num(cp.meanBefore)} → ${num(cp.meanAfter)} either side, t-test p ${cp.pValue.toExponential(1)})`;
}
