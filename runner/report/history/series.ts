import type { ChangePoint, ChangePointFinder } from './change-points';
import { compareWithHistory, type CaseComparison, type HistoryComparison } from './compare';
import { caseId, type RunPoint } from './points';

/**
 * A run's history as the page and `--format json` show it (pure, given the points): each case of
 * the run with its comparable series up to the run — every earlier point with the same case and
 * base key — and each point's verdict against the points before it (flagged, version or option
 * change, behaviour change), and the change points of its medians (change-points.ts: the finder is
 * given, so this stays pure).
 */

interface SeriesPoint {
  runId: string;
  date: string;
  version: string;
  median: number | null;
  /** Its speed figure flagged against the runs before it. */
  flagged: boolean;
  /** Its client's version or options against the previous point of the series ('same' for the first). */
  change: CaseComparison['label'];
  /** That change's diff ("version 1.2 → 1.3", "option stat_cache: on → off"). */
  diff: string[];
  /** Its deterministic figures that differ from the previous point's ("requests/op head 1 → 3"). */
  behaviour: string[];
  /** A sustained shift of the series began at this run (its change point), or null. */
  changePoint: ChangePoint | null;
}

export interface CaseSeries {
  /** The case's identity (points.ts caseId). */
  id: string;
  point: RunPoint;
  /** Oldest first, the run's own point last. */
  points: SeriesPoint[];
}

export interface RunHistory {
  runId: string;
  /** Runs read as history (the run's own included). */
  runs: number;
  /** The run against the comparable runs before it: the summary's closing part. */
  comparison: HistoryComparison;
  /** The run's cases with a measured figure, each with its series. */
  series: CaseSeries[];
  /** Whether change points were looked for, and if not, why (the tool missing). */
  changePoints: { available: boolean; reason: string | null; found: number };
}

/**
 * The change points of several series of points (each in run order, one case and base key): each
 * series' medians to the finder at once, its answers dated to the points where the shift began.
 */
export function changePointsOf(series: RunPoint[][], find: ChangePointFinder): { available: boolean; reason: string | null; at: Map<RunPoint, ChangePoint> } {
  const measured = series.map((list) => list.filter((p) => p.median !== null));
  const result = find(measured.map((list) => list.map((p) => p.median!)));
  const at = new Map<RunPoint, ChangePoint>();
  if (!result.available) return { available: false, reason: result.reason, at };
  result.found.forEach((found, i) => found.forEach((cp) => at.set(measured[i][cp.index], cp)));
  return { available: true, reason: null, at };
}

const byRun = (a: RunPoint, b: RunPoint) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0);

/** The run `runId`'s history out of every point read (any order). */
export function runHistory(points: readonly RunPoint[], runId: string, runs: number, findChangePoints: ChangePointFinder): RunHistory {
  const comparisons = new Map<string, HistoryComparison>();
  const comparisonOf = (id: string) => {
    if (!comparisons.has(id)) comparisons.set(id, compareWithHistory(points, id));
    return comparisons.get(id)!;
  };
  const own = points.filter((p) => p.runId === runId && p.median !== null);
  // Each point's series: its case's points (grouped once: a history of 50 runs holds thousands) with its base key, up to the run.
  const byCase = new Map<string, RunPoint[]>();
  for (const p of points.filter((x) => x.runId <= runId)) {
    const id = caseId(p);
    if (!byCase.has(id)) byCase.set(id, []);
    byCase.get(id)!.push(p);
  }
  const lists = own.map((point) => byCase.get(caseId(point))!.filter((p) => p.comparability.base_key === point.comparability.base_key).sort(byRun));
  const changes = changePointsOf(lists, findChangePoints);
  const series: CaseSeries[] = own.map((point, i) => ({
    id: caseId(point), point,
    points: lists[i].map((p) => {
        const c = comparisonOf(p.runId).cases.find((x) => x.point === p);
      return {
        runId: p.runId, date: p.date, version: p.facts.method_version, median: p.median,
        flagged: c?.flagged ?? false, change: c?.label ?? 'same', diff: c?.diff ?? [],
        behaviour: (c?.behaviour ?? []).map((b) => `${b.figure} ${b.before} → ${b.after}`),
        changePoint: changes.at.get(p) ?? null,
      };
    }),
  }));
  return {
    runId, runs, comparison: comparisonOf(runId), series,
    changePoints: { available: changes.available, reason: changes.reason, found: changes.at.size },
  };
}
