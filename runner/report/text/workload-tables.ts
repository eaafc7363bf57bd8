import { caseKey, isSupportCheck, measured, movesPayload, ranked, notApplicable, semanticsMatrix, shownCache, tableOf, type ProbeState, verdictText } from '../analysis';
import { isVerdictOperation } from '../verdict-operations';
import { dnfText, durationText, latencyText, num, percentText } from '../format';
import { caseLabel, seedLabel, workloadSummary } from '../labels';
import { methodLabel } from '../../core/vocabulary';
import type { Cell, ReportModel } from '../model';
import { markOf } from './marks';
import { textTable, wrapText, type Column, type TextCell } from './table';

/**
 * The text summary's table of each workload, long format — one row per method (and case), the
 * figures as columns, "vs best" as the comparison — so it fits the width at nine methods: a
 * measurement table, the metadata suite's table, or the semantics probes' table.
 */

type Out = string[];

/** Every workload's table, in the order the workloads ran. */
export function workloadTableLines(model: ReportModel, width: number): string[] {
  const out: Out = [];
  for (const workload of [...new Set(model.cells.map((c) => c.workload))]) {
    const table = tableOf(workload);
    if (table === 'semantics') semanticsLines(model, workload, width, out);
    else if (table === 'metadata-suite') metadataLines(model, workload, width, out);
    else measurementLines(model, workload, width, out);
  }
  return out;
}

/** A cell's rate in the unit of its case: MiB/s where payload moved, else operations per second. */
export const rateOf = (c: Cell): number | null => (movesPayload(c) ? c.mib_s_median : c.ops_s_median);
export const unitOf = (c: Cell) => (movesPayload(c) ? 'MiB/s' : 'op/s');

/** "±4%": the largest distance from the median to the min or max over repetitions; '' with one repetition. */
export function spread(c: Cell): string {
  const [lo, med, hi] = [c.duration_ms_min, c.duration_ms_median, c.duration_ms_max];
  if (lo === null || med === null || hi === null || !(med > 0) || c.distinct_repetitions < 2) return '';
  return `±${num((100 * Math.max(hi - med, med - lo)) / med, 2)}%`;
}

/** Why a cell has no figures, across the figure columns. */
export function notMeasuredText(c: Cell): string {
  if (c.did_not_finish && !measured(c)) return dnfText({ budgetS: c.dnf_budget_s, doneShare: c.dnf_done_share, extrapolatedS: c.dnf_extrapolated_s });
  if (c.unsupported === c.records) return `not supported: ${c.first_error ?? ''}`.trim();
  return `FAILED: ${c.first_error ?? 'no error recorded'}`;
}

/** What a measured cell's figures leave out: repetitions that did not finish, failed ones. */
export function measuredNotes(c: Cell): string[] {
  return [
    ...(c.did_not_finish ? [dnfNote(c)] : []),
    ...(c.failed_batches ? [`${c.failed_batches} failed repetition${c.failed_batches === 1 ? '' : 's'} left out${c.first_error ? `: ${c.first_error}` : ''}`] : []),
  ];
}

function dnfNote(c: Cell): string {
  return `${c.did_not_finish} of ${c.records} repetitions ${notMeasuredText({ ...c, repetitions: 0 })}; not in the median; not ranked`;
}

/** Drops the columns no row has a figure in (a sustained rate without series, latency of one-operation jobs). */
function withoutEmpty(columns: Column[], rows: TextCell[][], keep: number): [Column[], TextCell[][]] {
  const used = columns.map((_, i) => i < keep || rows.some((r) => r.length === columns.length && r[i] !== '' && r[i] !== '–'));
  return [columns.filter((_, i) => used[i]), rows.map((r) => (r.length === columns.length ? r.filter((_, i) => used[i]) : spanTo(r, used)))];
}

/** A row with a spanning cell, its span shrunk by the dropped columns it covered. */
function spanTo(row: TextCell[], used: boolean[]): TextCell[] {
  const out: TextCell[] = [];
  let col = 0;
  for (const cell of row) {
    const span = typeof cell === 'string' ? 1 : cell.span;
    const kept = used.slice(col, col + span).filter(Boolean).length;
    if (kept) out.push(typeof cell === 'string' ? cell : { text: cell.text, span: kept });
    col += span;
  }
  return out;
}

const MEASUREMENT_COLUMNS: Column[] = [
  { head: 'case', wrap: true }, { head: 'method', wrap: true }, { head: 'time', align: 'right' }, { head: '±', align: 'right' },
  { head: 'rate', align: 'right' }, { head: 'p99', align: 'right' }, { head: 'sustained', align: 'right' }, { head: 'vs best', align: 'right' },
];

/** One case's rows: each method's figures, "vs best" against the best measured rate (or time). */
function caseRows(group: Cell[], showCase: string): TextCell[][] {
  const rates = group.filter(ranked).map(rateOf).filter((x): x is number => x !== null && x > 0);
  const best = rates.length ? Math.max(...rates) : null;
  const rows: TextCell[][] = [];
  for (const [i, c] of group.entries()) {
    const kase = i === 0 ? showCase : '';
    if (isSupportCheck(c)) {
      const kept = measured(c) ? 'kept' : c.failed_batches ? `NOT kept: ${c.first_error ?? ''}` : `not kept (${c.unsupported ? 'not supported' : 'failed'})`;
      rows.push([kase, methodLabel(c), { text: kept, span: 6 }]);
      continue;
    }
    if (isVerdictOperation(c)) {
      rows.push([kase, methodLabel(c), { text: verdictText(c), span: 6 }]);
      continue;
    }
    if (!measured(c)) {
      rows.push([kase, methodLabel(c), { text: notMeasuredText(c), span: 6 }]);
      continue;
    }
    const rate = rateOf(c);
    rows.push([
      kase, methodLabel(c), durationText(c.duration_ms_median), spread(c), rate !== null ? `${num(rate)} ${unitOf(c)}${markOf(c)}` : '–',
      latencyText(c.p99_us_median), c.series?.sustained !== null && c.series ? `${num(c.series.sustained)} ${c.series.unit === 'MiB/s' ? 'MiB/s' : 'op/s'}` : '',
      best !== null && rate && ranked(c) ? `${num(best / rate)}x` : '–',
    ]);
    for (const note of measuredNotes(c)) rows.push(['', '', { text: note, span: 6 }]);
  }
  return rows;
}

function measurementLines(model: ReportModel, workload: string, width: number, out: Out): void {
  const cells = model.cells.filter((c) => c.workload === workload && !notApplicable(c));
  if (!cells.length) return;
  const reps = Math.max(...cells.map((c) => c.distinct_repetitions));
  out.push('', ...wrapText(`${workload} (${seedLabel(workload)}): ${workloadSummary(workload)}`, width, '  '));
  out.push(...wrapText(`  one client; medians over ${reps} repetition${reps === 1 ? '' : 's'}; time: per batch, ± the farthest repetition; rate: MiB/s where payload moved, else operations/s; sustained: the median 1 s interval after the first 10%; vs best: the best rate of the case over this one`, width, '  '));
  const rows: TextCell[][] = [];
  const groups = new Map<string, Cell[]>();
  for (const c of cells) groups.set(caseKey(c), [...(groups.get(caseKey(c)) ?? []), c]);
  for (const group of groups.values()) rows.push(...caseRows(group, caseLabel({ ...group[0], cache: shownCache(group) }, model.sizes)));
  const [columns, shown] = withoutEmpty(MEASUREMENT_COLUMNS, rows, 2);
  out.push(...textTable(columns, shown, width));
}

function metadataLines(model: ReportModel, workload: string, width: number, out: Out): void {
  const cells = model.cells.filter((c) => c.workload === workload && !notApplicable(c));
  if (!cells.length) return;
  const perTest = Math.max(...cells.map((c) => (c.records ? c.ops / c.records : 0)));
  out.push('', ...wrapText(`${workload} (${seedLabel(workload)}) — ${num(perTest)} operations per test; one client; medians over repetitions; success rate over all operations`, width, '  '));
  const rows: TextCell[][] = [];
  for (const test of [...new Set(cells.map((c) => c.operation))]) {
    const group = cells.filter((c) => c.operation === test);
    const best = Math.max(0, ...group.filter(ranked).map((c) => c.ops_s_median ?? 0));
    for (const [i, c] of group.entries()) {
      const kase = i === 0 ? test : '';
      const refused = c.unsupported > 0 && c.ok === 0;
      if (refused || (c.did_not_finish && !measured(c))) {
        rows.push([kase, methodLabel(c), { text: notMeasuredText(c), span: 5 }]);
        continue;
      }
      const ops = measured(c) ? c.ops_s_median : c.ops_s_partial_median;
      rows.push([
        kase, methodLabel(c), num(ops), latencyText(c.mean_us_median), latencyText(c.p99_us_median),
        `${percentText(c.ops ? c.ok / c.ops : null)}${c.unverified ? ' (unverified!)' : ''}`, ranked(c) && best && ops ? `${num(best / ops)}x` : '–',
      ]);
      if (c.did_not_finish) rows.push(['', '', { text: dnfNote(c), span: 5 }]);
    }
  }
  const columns: Column[] = [
    { head: 'test', wrap: true }, { head: 'method', wrap: true }, { head: 'ops/s', align: 'right' }, { head: 'mean', align: 'right' },
    { head: 'p99', align: 'right' }, { head: 'success', align: 'right' }, { head: 'vs best', align: 'right' },
  ];
  out.push(...textTable(columns, rows, width));
  out.push(...metadataErrorLines(cells, width));
}

/** The metadata tests that lost operations, with the first error. */
export function metadataErrorLines(cells: Cell[], width: number): string[] {
  return cells.filter((x) => x.ok < x.ops && x.unsupported === 0 && !x.did_not_finish).flatMap((c) => wrapText(`  ${methodLabel(c)} ${c.operation}: ${c.first_error ?? 'see the records'}`, width, '    '));
}

const PROBE_MARK: Record<ProbeState['kind'], string> = { supported: 'yes', unsupported: 'NO', failed: 'FAILED', mixed: 'mixed', 'not-applicable': 'n/a', missing: '–' };

function semanticsLines(model: ReportModel, workload: string, width: number, out: Out): void {
  const matrix = semanticsMatrix(model.cells, model.methodOrder);
  if (!matrix) return;
  out.push('', ...wrapText(`${workload} (${seedLabel(workload)}) — POSIX semantics: each "yes" verified on the mount and, where files are objects, in the bucket`, width, '  '));
  out.push(...wrapText(`  probes: ${matrix.probes.join(', ')}`, width, '    '));
  const delays = matrix.probes.filter((p) => p.endsWith('-delay'));
  const rows: TextCell[][] = matrix.methods.map((m) => {
    const of = (kind: ProbeState['kind']) => matrix.probes.filter((p) => !p.endsWith('-delay') && matrix.state(p, m).kind === kind);
    const other = [...of('failed').map((p) => `${p} FAILED`), ...of('mixed').map((p) => `${p} mixed`), ...of('not-applicable').map((p) => `${p} n/a`)];
    return [
      m, `${matrix.supportedCount(m)} of ${matrix.probes.length}`, of('unsupported').join(', ') || '–', other.join(', ') || '–',
      ...delays.map((p) => {
        const s = matrix.state(p, m);
        return s.kind === 'supported' ? (s.delayMs === null ? 'yes' : durationText(s.delayMs)) : PROBE_MARK[s.kind];
      }),
    ];
  });
  const columns: Column[] = [
    { head: 'method', wrap: true }, { head: 'supported', align: 'right' }, { head: 'refused (NO)', wrap: true }, { head: 'failed, mixed, n/a', wrap: true },
    ...delays.map((p) => ({ head: p.replace(/-delay$/, '').replace(/-to-/, '→'), align: 'right' as const })),
  ];
  out.push(...textTable(columns, rows, width));
  out.push(...probeReasonLines(matrix, width));
}

/** Why, per probe: each reason once, with the methods that gave it ("hardlink: refused with ENOSYS (s3fs, mountpoint)"). */
export function probeReasonLines(matrix: NonNullable<ReturnType<typeof semanticsMatrix>>, width: number): string[] {
  const out: string[] = ['  why not "yes":'];
  for (const p of matrix.probes) {
    const reasons = new Map<string, string[]>();
    for (const m of matrix.methods) {
      const s = matrix.state(p, m);
      if (s.kind === 'supported' || s.kind === 'missing') continue;
      const reason = (s.reason ?? 'no reason recorded').replace(new RegExp(`^${p}: `), '');
      const why = `${s.kind === 'unsupported' ? '' : `${PROBE_MARK[s.kind]}: `}${reason}`;
      reasons.set(why, [...(reasons.get(why) ?? []), m]);
    }
    if (reasons.size) out.push(...wrapText(`    ${p}: ${[...reasons].map(([why, ms]) => `${why} (${ms.join(', ')})`).join('; ')}`, width, '      '));
  }
  return out;
}
