import { accessGroup, isSupportCheck, isUntimed, measured, notApplicable, ranked, semanticsMatrix, shownCache, tableOf, verdictText } from '../analysis';
import { isVerdictOperation } from '../verdict-operations';
import { durationText, latencyText, num, percentText } from '../format';
import { seedLabel } from '../labels';
import { methodLabel } from '../../core/vocabulary';
import type { Cell, ReportModel } from '../model';
import { byOrder } from '../order';
import { markOf } from './marks';
import { textTable, wrapText, type Column } from './table';
import { measuredNotes, metadataErrorLines, notMeasuredText, probeReasonLines, rateOf, spread, unitOf } from './workload-tables';

/**
 * `--wide`: the methods side by side, as the seeds print their tables — one table per workload and
 * operation (and cache state), one column per method, and per size or test one row for each figure
 * the long format shows (time, ±, rate, p99, sustained, vs best; metadata: ops/s, mean, p99,
 * success, vs best). It reshapes the long format, it drops nothing: the notes under each table say
 * what a cell's figures leave out (repetitions that did not finish, failed ones), and why a probe
 * was not "yes". For terminals wider than the long format needs; the figures are the model's.
 */

const NO_LIMIT = Number.MAX_SAFE_INTEGER;
/** Notes wrap at this width: a note is prose, not a table. */
const NOTE_WIDTH = 100;

/** One figure row of a pivot: its label and each cell's text ('' or '–' where the cell has none). */
interface Figure {
  label: string;
  of(c: Cell): string;
}

/** A cell without figures: why, short (the notes give the whole of it). */
function shortStatus(c: Cell): string {
  if (isSupportCheck(c)) return measured(c) ? 'kept' : 'NOT kept';
  if (isVerdictOperation(c)) return verdictText({ ...c, first_error: null });
  if (c.did_not_finish && !measured(c)) return 'DNF';
  return c.unsupported === c.records ? 'not supported' : 'FAILED';
}

/** The long format's measurement columns, as figure rows; "vs best" over the ranked cells of the group. */
function measurementFigures(group: Cell[]): Figure[] {
  const rates = group.filter(ranked).map(rateOf).filter((x): x is number => x !== null && x > 0);
  const best = rates.length ? Math.max(...rates) : null;
  const timed = (c: Cell) => measured(c) && !isUntimed(c);
  return [
    // A row of support checks or verdicts has no time: its outcome only.
    { label: group.every(isUntimed) ? 'outcome' : 'time', of: (c) => (timed(c) ? durationText(c.duration_ms_median) : shortStatus(c)) },
    { label: '±', of: (c) => (timed(c) ? spread(c) : '') },
    { label: 'rate', of: (c) => (timed(c) && rateOf(c) !== null ? `${num(rateOf(c))} ${unitOf(c)}${markOf(c)}` : '') },
    { label: 'p99', of: (c) => (timed(c) ? latencyText(c.p99_us_median) : '') },
    { label: 'sustained', of: (c) => (timed(c) && c.series && c.series.sustained !== null ? `${num(c.series.sustained)} ${c.series.unit === 'MiB/s' ? 'MiB/s' : 'op/s'}` : '') },
    { label: 'vs best', of: (c) => (timed(c) && ranked(c) && best !== null && rateOf(c) ? `${num(best / rateOf(c)!)}x` : timed(c) ? 'not ranked' : '') },
  ];
}

/** The long format's metadata columns, as figure rows. */
function metadataFigures(group: Cell[]): Figure[] {
  const best = Math.max(0, ...group.filter(ranked).map((c) => c.ops_s_median ?? 0));
  const refused = (c: Cell) => (c.unsupported > 0 && c.ok === 0) || (c.did_not_finish > 0 && !measured(c));
  const ops = (c: Cell) => (measured(c) ? c.ops_s_median : c.ops_s_partial_median);
  return [
    { label: 'ops/s', of: (c) => (refused(c) ? shortStatus(c) : num(ops(c))) },
    { label: 'mean', of: (c) => (refused(c) ? '' : latencyText(c.mean_us_median)) },
    { label: 'p99', of: (c) => (refused(c) ? '' : latencyText(c.p99_us_median)) },
    { label: 'success', of: (c) => (refused(c) ? '' : `${percentText(c.ops ? c.ok / c.ops : null)}${c.unverified ? ' (unverified!)' : ''}`) },
    { label: 'vs best', of: (c) => (refused(c) ? '' : ranked(c) && best && ops(c) ? `${num(best / ops(c)!)}x` : 'not ranked') },
  ];
}

/**
 * A table with the methods across: per row (size or test) one line per figure, figure rows no cell
 * has a value in left out (as the long format leaves out empty columns); then the cells' notes.
 */
function pivot(model: ReportModel, cells: Cell[], rowOf: (c: Cell) => string, title: string, figures: (group: Cell[]) => Figure[]): string[] {
  const methods = byOrder([...new Set(cells.map(methodLabel))], model.methodOrder, (m) => m);
  const rows = [...new Set(cells.map(rowOf))];
  const columns: Column[] = [{ head: '' }, { head: '' }, ...methods.map((m) => ({ head: m, align: 'right' as const }))];
  const body: string[][] = [];
  const notes: string[] = [];
  for (const r of rows) {
    const group = cells.filter((c) => rowOf(c) === r);
    const at = (m: string) => group.find((c) => methodLabel(c) === m);
    const lines = figures(group).map((f) => ({ label: f.label, values: methods.map((m) => (at(m) ? f.of(at(m)!) : '–')) }))
      .filter((line) => line.values.some((v) => v !== '' && v !== '–'));
    lines.forEach((line, i) => body.push([i === 0 ? r : '', line.label, ...line.values]));
    for (const c of group) {
      const said = isVerdictOperation(c) ? [verdictText(c)] : measured(c) ? measuredNotes(c) : isSupportCheck(c) && !c.failed_batches && !c.unsupported ? [] : [notMeasuredText(c)];
      for (const note of said) notes.push(...wrapText(`  ${methodLabel(c)} ${r}: ${note}`, NOTE_WIDTH, '    '));
    }
  }
  return ['', title, ...textTable(columns, body, NO_LIMIT), ...notes];
}

export function wideLines(model: ReportModel): string[] {
  const out: string[] = [];
  for (const workload of [...new Set(model.cells.map((c) => c.workload))]) {
    const cells = model.cells.filter((c) => c.workload === workload && !notApplicable(c));
    if (!cells.length) continue;
    const seed = seedLabel(workload);
    if (tableOf(workload) === 'semantics') {
      const matrix = semanticsMatrix(model.cells, model.methodOrder)!;
      const body = matrix.probes.map((p) => [p, ...matrix.methods.map((m) => {
        const s = matrix.state(p, m);
        return s.kind === 'supported' ? (s.delayMs !== null ? durationText(s.delayMs) : 'yes') : s.kind === 'unsupported' ? 'NO' : s.kind;
      })]);
      out.push('', `${workload} (${seed}) — probes × methods`, ...textTable([{ head: 'probe' }, ...matrix.methods.map((m) => ({ head: m }))], body, NO_LIMIT),
        ...probeReasonLines(matrix, NOTE_WIDTH));
      continue;
    }
    if (tableOf(workload) === 'metadata-suite') {
      const perTest = Math.max(...cells.map((c) => (c.records ? c.ops / c.records : 0)));
      out.push(...pivot(model, cells, (c) => c.operation, `${workload} (${seed}) — ${num(perTest)} operations per test, one client; tests × methods, medians over repetitions`, metadataFigures),
        ...metadataErrorLines(cells, NOTE_WIDTH));
      continue;
    }
    for (const op of [...new Set(cells.map((c) => c.operation))]) {
      const mine = cells.filter((c) => c.operation === op);
      for (const group of [...new Set(mine.map((c) => accessGroup(c.cache)))]) {
        const g = mine.filter((c) => accessGroup(c.cache) === group);
        const cache = shownCache(g);
        out.push(...pivot(model, g, (c) => (c.object_size_bytes === null ? op : model.sizes.of(c.object_size_bytes)),
          `${workload} (${seed}) — ${op}${cache !== 'none' ? ` (${cache})` : ''}, one client; medians over repetitions`, measurementFigures));
      }
    }
  }
  return out;
}
