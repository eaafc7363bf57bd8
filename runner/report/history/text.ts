import { num } from '../format';
import { caseLabel, SizeLabels } from '../labels';
import { methodCacheLabel } from '../../core/vocabulary';
import { textTable, wrapText, type Column } from '../text/table';
import { changesOf, compareWithHistory, type CaseComparison, type HistoryComparison } from './compare';
import { caseId, type CaseIdentity, type RunPoint } from './points';
import { CHANGE_POINT_RULES, changePointText, type ChangePoint, type ChangePointFinder } from './change-points';
import { changePointsOf } from './series';
import type { SpeedVerdict } from './stats';

/**
 * The history in text: `s3ab history`'s series per case, and the run summary's closing
 * "Changes against N comparable runs".
 */

const SIZES = new SizeLabels();
const pct = (x: number | null) => (x === null ? 'n/a' : `${x > 0 ? '+' : ''}${num(x)}%`);
const scoreText = (s: number) => (Number.isFinite(s) ? num(s) : s > 0 ? '+∞' : '−∞');

/** "s3fs cold · small-reads read 8 KiB": the method and the case (the fleet size where above 1). */
export function caseText(c: CaseIdentity): string {
  const method = methodCacheLabel({ method: c.method, method_variant: c.method_variant });
  return `${c.workload} ${caseLabel({ ...c, cache: c.cache }, SIZES)} · ${method}${c.clients > 1 ? ` · ${c.clients} clients` : ''}`;
}

function speedText(speed: SpeedVerdict | null, flagged: boolean, higherIsBetter: boolean): string {
  if (!speed) return 'no figure (no good repetition)';
  if (speed.kind === 'insufficient') return `insufficient history (${speed.runs} run${speed.runs === 1 ? '' : 's'}${speed.changePct === null ? '' : `; ${pct(speed.changePct)} vs the previous`})`;
  const direction = speed.changePct === null || speed.changePct === 0 ? '' : (speed.changePct > 0) === higherIsBetter ? 'faster' : 'slower';
  const figures = `${pct(speed.changePct)} vs median of ${speed.runs}, score ${scoreText(speed.score)}, own variation ${num(speed.variationPct)}%, p ${speed.pValue.toExponential(1)}`;
  return flagged ? `FLAGGED ${direction}: ${figures}` : `no flag (${figures})`;
}

function behaviourText(c: CaseComparison): string {
  return c.behaviour.map((b) => `${b.figure} ${b.before} → ${b.after}`).join('; ');
}

/** One point's verdict against its own earlier runs, in one cell. */
function verdictText(c: CaseComparison | undefined, notComparable: string | undefined, changePoint: ChangePoint | undefined): string {
  const shift = changePoint ? [`CHANGE POINT: ${changePointText(changePoint).replace(/^change point: /, '')}`] : [];
  if (notComparable) return [`not comparable (${notComparable})`, ...shift].join('; ');
  if (!c) return 'first run of this case';
  const parts = [...shift];
  if (c.label !== 'same') parts.push(`${c.label}: ${c.diff.join('; ')}`);
  if (c.behaviour.length) parts.push(`BEHAVIOUR CHANGE: ${behaviourText(c)}`);
  parts.push(speedText(c.speed, c.flagged, c.point.metric?.higherIsBetter ?? true));
  return parts.join('; ');
}

export interface SeriesFilter {
  method?: string;
  workload?: string;
}

/**
 * Each case's series, oldest run first: date, run, version, median, and its verdict against the
 * runs before it, a change point where a sustained shift began (found over the points with one
 * base key, by `findChangePoints`); first, a line saying whether change points were looked for.
 */
export function historyLines(points: readonly RunPoint[], filter: SeriesFilter, findChangePoints: ChangePointFinder, width = 100): string[] {
  const shown = points.filter((p) => (!filter.method || p.method === filter.method) && (!filter.workload || p.workload === filter.workload));
  const byRun = new Map<string, HistoryComparison>();
  const comparisonOf = (runId: string) => {
    if (!byRun.has(runId)) byRun.set(runId, compareWithHistory(points, runId));
    return byRun.get(runId)!;
  };
  const series = new Map<string, RunPoint[]>();
  for (const p of shown) series.set(caseId(p), [...(series.get(caseId(p)) ?? []), p]);
  const comparable = [...series.values()].flatMap((list) => {
    const byKey = new Map<string, RunPoint[]>();
    for (const p of [...list].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))) byKey.set(p.comparability.base_key, [...(byKey.get(p.comparability.base_key) ?? []), p]);
    return [...byKey.values()];
  });
  const changes = changePointsOf(comparable, findChangePoints);
  if (!series.size) return [];
  const out: string[] = wrapText(changes.available
    ? `Change points (Apache Otava: E-Divisive, then a t-test at p < ${CHANGE_POINT_RULES.maxPValue} and a shift above ${100 * CHANGE_POINT_RULES.minMagnitude}%, over each case's runs under the same conditions): ${changes.at.size} found`
    : `Change points not looked for: ${changes.reason}`, width, '  ');
  const columns: Column[] = [
    { head: 'date' }, { head: 'run' }, { head: 'version', wrap: true }, { head: 'median', align: 'right' }, { head: 'against earlier runs', wrap: true },
  ];
  for (const list of [...series.values()].sort((a, b) => caseText(a[0]).localeCompare(caseText(b[0])))) {
    list.sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    const unit = list.find((p) => p.metric)?.metric;
    out.push('', ...wrapText(`${caseText(list[0])}${unit ? ` — median ${unit.name} (${unit.unit}), ${unit.higherIsBetter ? 'higher' : 'lower'} is better` : ''}`, width, '  '));
    const rows = list.map((p) => {
      const cmp = comparisonOf(p.runId);
      const c = cmp.cases.find((x) => x.point === p);
      const nc = cmp.notComparable.find((x) => x.point === p);
      return [p.date.slice(0, 16).replace('T', ' '), p.runId, p.facts.method_version, p.median === null ? '–' : num(p.median), verdictText(c, nc && `${nc.fields.join(', ')} differ from ${nc.against}`, changes.at.get(p))];
    });
    out.push(...textTable(columns, rows, width));
  }
  return out;
}

/**
 * The summary's closing part: behaviour changes first (every one, with before and after), then
 * flagged speed changes, then how many cases were compared without a flag, the insufficient ones,
 * the not comparable ones with their fields, and how many flags chance alone would raise.
 */
export function changesLines(cmp: HistoryComparison, width = 100): string[] {
  const say = (text: string, indent = '    ') => wrapText(text, width, indent);
  const { behaviour, speed, unflagged, insufficient } = changesOf(cmp);
  const out = ['', ...say(`Changes against ${cmp.comparableRuns} comparable run${cmp.comparableRuns === 1 ? '' : 's'} — ` +
    `each case against the earlier runs measured under the same conditions (the comparability key; a client's version or options may differ, and are named)`, '  ')];
  if (!cmp.cases.length && !cmp.notComparable.length) return [...out, ...say(`  insufficient history: no earlier run of these cases (${cmp.firstSeen} cases measured for the first time; nothing flagged before ${cmp.rules.minRuns} comparable runs)`)];
  out.push(...say(`  behaviour changes (requests per operation by type, GET bytes per byte read, probe outcomes, verification; compared exactly): ${behaviour.length}`));
  for (const c of behaviour) {
    const label = c.label !== 'same' ? ` [${c.label}: ${c.diff.join('; ')}]` : '';
    out.push(...say(`    ${caseText(c.point)}${label}: ${behaviourText(c)} (against ${c.behaviourAgainst})`, '      '));
  }
  out.push(...say(`  flagged speed changes: ${speed.length}`));
  for (const c of speed) {
    const label = c.label !== 'same' ? ` [${c.label}: ${c.diff.join('; ')}]` : '';
    const m = c.point.metric!;
    out.push(...say(`    ${caseText(c.point)}${label}: ${num(c.point.median)} ${m.unit} — ${speedText(c.speed, true, m.higherIsBetter)}`, '      '));
  }
  const labelled = cmp.cases.filter((c) => c.label !== 'same' && !c.behaviour.length && !c.flagged);
  for (const c of labelled) out.push(...say(`    ${c.label}, no change found: ${caseText(c.point)} (${c.diff.join('; ')})`, '      '));
  out.push(...say(`  not flagged: ${unflagged} cases compared; ${insufficient} with insufficient history (fewer than ${cmp.rules.minRuns} comparable runs: nothing flagged)` +
    `${cmp.firstSeen ? `; ${cmp.firstSeen} measured for the first time` : ''}`));
  if (cmp.compared) {
    out.push(...say(`  by chance alone about ${num(cmp.expectedByChance)} of the ${cmp.compared} compared cases would score beyond ${cmp.rules.scoreThreshold}; ` +
      `flags also need a change above ${cmp.rules.minChangePct}% and twice the case's own variation, and pass a false-discovery control at ${cmp.rules.fdr}`));
  }
  if (cmp.notComparable.length) {
    const fields = new Map<string, number>();
    for (const n of cmp.notComparable) fields.set(n.fields.join(', '), (fields.get(n.fields.join(', ')) ?? 0) + 1);
    out.push(...say(`  not comparable: ${cmp.notComparable.length} cases (${[...fields].map(([f, n]) => `${n} differ in ${f}`).join('; ')})`));
  }
  return out;
}
