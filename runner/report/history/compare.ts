import { comparableOptions, keyDifferences } from '../../core/comparability';
import { caseId, type RunPoint } from './points';
import { DEFAULT_RULES, exactChanges, flagSpeedChanges, judgeSpeed, type ExactChange, type HistoryRules, type SpeedVerdict } from './stats';

/**
 * A run against the comparable runs before it (pure): per case, its measured figure judged by the
 * statistics of stats.ts against the earlier points with the same base key (the same case measured
 * under the same conditions, whatever the client's version and options), and its deterministic
 * figures compared exactly with the newest of them. A version or option change between them is
 * named with its diff; a case whose earlier points all differ in anything else is "not comparable",
 * with the fields.
 */

/** How the compared points' keys differ: not at all, or in the client's version and/or options only. */
type ChangeLabel = 'same' | 'version change' | 'option change' | 'version and option change';

export interface CaseComparison {
  point: RunPoint;
  /** The comparable earlier points the figure was judged against, oldest first (the rules' window). */
  history: RunPoint[];
  label: ChangeLabel;
  /** The version and option changes against the newest comparable point: "version 1.2 → 1.3", "option stat_cache: on → off". */
  diff: string[];
  speed: SpeedVerdict | null;
  flagged: boolean;
  /** Deterministic figures that differ from the newest earlier point that has them, and that point's run. */
  behaviour: ExactChange[];
  behaviourAgainst: string | null;
}

interface NotComparable {
  point: RunPoint;
  /** The newest earlier point of the same case, and the comparability fields in which it differs. */
  against: string;
  fields: string[];
}

export interface HistoryComparison {
  runId: string;
  rules: HistoryRules;
  /** Earlier runs that held at least one comparable case. */
  comparableRuns: number;
  cases: CaseComparison[];
  notComparable: NotComparable[];
  /** Cases measured for the first time (no earlier point of the case at all). */
  firstSeen: number;
  /** Compared cases, and the flags the matrix would raise by chance (see flagSpeedChanges). */
  compared: number;
  expectedByChance: number;
}

/** Which runs come before which: run ids start with their UTC start time. */
const before = (a: RunPoint, runId: string) => a.runId < runId;

function labelOf(point: RunPoint, reference: RunPoint): { label: ChangeLabel; diff: string[] } {
  const fields = keyDifferences(reference.facts, point.facts);
  const diff: string[] = [];
  if (fields.includes('method_version')) diff.push(`version ${reference.facts.method_version} → ${point.facts.method_version}`);
  if (fields.includes('method_options')) {
    const a = comparableOptions(reference.facts);
    const b = comparableOptions(point.facts);
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (a[k] !== b[k]) diff.push(`option ${k}: ${a[k] ?? '(unset)'} → ${b[k] ?? '(unset)'}`);
    }
  }
  const version = fields.includes('method_version');
  const options = fields.includes('method_options');
  return { label: version && options ? 'version and option change' : version ? 'version change' : options ? 'option change' : 'same', diff };
}

/** The run `runId` against every earlier point of `points` (any order). */
export function compareWithHistory(points: readonly RunPoint[], runId: string, rules: HistoryRules = DEFAULT_RULES): HistoryComparison {
  const bySeries = new Map<string, RunPoint[]>();
  for (const p of points) {
    const id = caseId(p);
    let list = bySeries.get(id);
    if (!list) bySeries.set(id, (list = []));
    list.push(p);
  }
  for (const list of bySeries.values()) list.sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
  const cases: CaseComparison[] = [];
  const notComparable: NotComparable[] = [];
  let firstSeen = 0;
  const runsUsed = new Set<string>();
  for (const point of points.filter((p) => p.runId === runId)) {
    const earlier = bySeries.get(caseId(point))!.filter((p) => before(p, runId));
    const comparable = earlier.filter((p) => p.comparability.base_key === point.comparability.base_key);
    if (!comparable.length) {
      if (!earlier.length) firstSeen++;
      else {
        const newest = earlier[earlier.length - 1];
        notComparable.push({ point, against: newest.runId, fields: keyDifferences(newest.facts, point.facts) });
      }
      continue;
    }
    const newest = comparable[comparable.length - 1];
    const { label, diff } = labelOf(point, newest);
    const figures = comparable.filter((p) => p.median !== null && point.metric && p.metric?.name === point.metric.name);
    const window = figures.slice(-rules.window);
    const speed = point.median !== null && point.metric ? judgeSpeed(point.median, window.map((p) => p.median!), rules) : null;
    // Request figures are compared with the newest point whose requests were counted; the probe's outcomes with the newest point.
    const counted = point.requestsCounted ? [...comparable].reverse().find((p) => p.requestsCounted) : undefined;
    const reference = counted ?? newest;
    const pick = (b: Record<string, number | string>, withRequests: boolean) =>
      Object.fromEntries(Object.entries(b).filter(([k]) => withRequests || typeof b[k] === 'string'));
    const behaviour = exactChanges(pick(reference.behaviour, !!counted), pick(point.behaviour, !!counted));
    for (const p of comparable) runsUsed.add(p.runId);
    cases.push({ point, history: window, label, diff, speed, flagged: false, behaviour, behaviourAgainst: reference.runId });
  }
  const flags = flagSpeedChanges(cases.map((c) => c.speed ?? { kind: 'insufficient', runs: 0, changePct: null }), rules);
  cases.forEach((c, i) => (c.flagged = flags.flagged[i]));
  return {
    runId, rules, comparableRuns: runsUsed.size, cases, notComparable, firstSeen, compared: flags.compared, expectedByChance: flags.expectedByChance,
  };
}

/** Behaviour changes (deterministic figures that differ) first, then flagged speed changes, then the count of the rest. */
export function changesOf(cmp: HistoryComparison): { behaviour: CaseComparison[]; speed: CaseComparison[]; unflagged: number; insufficient: number } {
  const behaviour = cmp.cases.filter((c) => c.behaviour.length);
  const speed = cmp.cases.filter((c) => c.flagged);
  return {
    behaviour, speed,
    unflagged: cmp.cases.filter((c) => !c.flagged && c.speed?.kind === 'compared').length,
    insufficient: cmp.cases.filter((c) => c.speed?.kind === 'insufficient').length,
  };
}
