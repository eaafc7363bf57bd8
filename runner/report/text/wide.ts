import { accessGroup, measured, movesPayload, notApplicable, semanticsMatrix, shownCache, tableOf } from '../analysis';
import { dnfText, durationText, num } from '../format';
import { methodLabel, seedLabel } from '../labels';
import type { Cell, ReportModel } from '../model';
import { byOrder } from '../order';
import { markOf } from './marks';
import { textTable, type Column } from './table';

/**
 * `--wide`: the methods side by side, as the seeds print their tables — one table per workload and
 * operation (and cache state), one row per size or test, one column per method. For terminals
 * wider than the long format needs; the figures are the model's, as in the long format.
 */

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** A cell's figure in a pivot: its rate (MiB/s, or operations per second), or why it has none. */
function figure(c: Cell | undefined): string {
  if (!c) return '–';
  if (measured(c)) return movesPayload(c) ? `${num(c.mib_s_median)}${markOf(c)}` : num(c.ops_s_median ?? (c.duration_ms_median ? 1000 / c.duration_ms_median : null));
  if (c.did_not_finish) return dnfText({ budgetS: c.dnf_budget_s, doneShare: c.dnf_done_share, extrapolatedS: c.dnf_extrapolated_s });
  return c.unsupported === c.records ? 'not supported' : 'FAILED';
}

function pivot(model: ReportModel, cells: Cell[], rowOf: (c: Cell) => string, title: string): string[] {
  const methods = byOrder([...new Set(cells.map(methodLabel))], model.methodOrder, (m) => m);
  const rows = [...new Set(cells.map(rowOf))];
  const columns: Column[] = [{ head: '' }, ...methods.map((m) => ({ head: m, align: 'right' as const }))];
  const body = rows.map((r) => [r, ...methods.map((m) => figure(cells.find((c) => rowOf(c) === r && methodLabel(c) === m)))]);
  return ['', title, ...textTable(columns, body, NO_LIMIT)];
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
      out.push('', `${workload} (${seed}) — probes × methods`, ...textTable([{ head: 'probe' }, ...matrix.methods.map((m) => ({ head: m }))], body, NO_LIMIT));
      continue;
    }
    if (tableOf(workload) === 'metadata-suite') {
      out.push(...pivot(model, cells, (c) => c.operation, `${workload} (${seed}) — operations/s, tests × methods`));
      continue;
    }
    for (const op of [...new Set(cells.map((c) => c.operation))]) {
      const mine = cells.filter((c) => c.operation === op);
      for (const group of [...new Set(mine.map((c) => accessGroup(c.cache)))]) {
        const g = mine.filter((c) => accessGroup(c.cache) === group);
        const cache = shownCache(g);
        const unit = g.some(movesPayload) ? 'MiB/s' : 'operations/s';
        out.push(...pivot(model, g, (c) => (c.object_size_bytes === null ? op : model.sizes.of(c.object_size_bytes)),
          `${workload} (${seed}) — ${op}${cache !== 'none' ? ` (${cache})` : ''}: ${unit}, medians`));
      }
    }
  }
  return out;
}
