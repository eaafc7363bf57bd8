import { compareWithHistory, type CaseComparison, type HistoryComparison } from './compare';
import { caseId, type RunPoint } from './points';

/**
 * A run's history as the page and `--format json` show it (pure, given the points): each case of
 * the run with its comparable series up to the run — every earlier point with the same case and
 * base key — and each point's verdict against the points before it (flagged, version or option
 * change, behaviour change).
 */

export interface SeriesPoint {
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
}

const byRun = (a: RunPoint, b: RunPoint) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0);

/** The run `runId`'s history out of every point read (any order). */
export function runHistory(points: readonly RunPoint[], runId: string, runs: number): RunHistory {
  const comparisons = new Map<string, HistoryComparison>();
  const comparisonOf = (id: string) => {
    if (!comparisons.has(id)) comparisons.set(id, compareWithHistory(points, id));
    return comparisons.get(id)!;
  };
  const series: CaseSeries[] = [];
  for (const point of points.filter((p) => p.runId === runId && p.median !== null)) {
    const id = caseId(point);
    const mine = points
      .filter((p) => p.runId <= runId && caseId(p) === id && p.comparability.base_key === point.comparability.base_key)
      .sort(byRun);
    series.push({
      id, point,
      points: mine.map((p) => {
        const c = comparisonOf(p.runId).cases.find((x) => x.point === p);
        return {
          runId: p.runId, date: p.date, version: p.facts.method_version, median: p.median,
          flagged: c?.flagged ?? false, change: c?.label ?? 'same', diff: c?.diff ?? [],
          behaviour: (c?.behaviour ?? []).map((b) => `${b.figure} ${b.before} → ${b.after}`),
        };
      }),
    });
  }
  return { runId, runs, comparison: comparisonOf(runId), series };
}
