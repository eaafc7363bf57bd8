import { semanticsMatrix, type ProbeState, type SemanticsMatrix } from '../analysis';
import { durationText } from '../format';
import { rangeDotSpec, type RangePoint } from '../html/charts';
import { esc } from '../html/format';
import { figure, noData, table, type TCell } from '../html/parts';
import type { PageContext, ReportSection } from './section';

/** "POSIX semantics and propagation": methods × probes, and the propagation delays. */

function stateCell(s: ProbeState): TCell {
  switch (s.kind) {
    case 'supported':
      if (s.unverified) return { html: '✓ supported (unverified)', cls: 'supported', title: `${s.unverified} of ${s.reps + s.unverified} repetitions succeeded without their result being checked` };
      return s.delayMs !== null
        ? { html: `✓ ${esc(durationText(s.delayMs))}`, cls: 'supported', title: `delay until visible, median of ${s.reps}; min–max ${durationText(s.delayMin)}–${durationText(s.delayMax)}` }
        : { html: '✓ supported', cls: 'supported' };
    case 'unsupported':
      return { html: '✗ unsupported', cls: 'unsupported', title: s.reason ?? '' };
    case 'failed':
      return { html: `failed (${s.ok}/${s.records} ok)`, cls: 'failed', title: s.reason ?? '' };
    case 'mixed':
      return {
        html: `mixed (${s.ok}/${s.records} ok)`, cls: 'mixed',
        title: `supported in ${s.ok} of ${s.records} repetitions${s.unsupported ? `, refused in ${s.unsupported}` : ''}${s.reason ? `: ${s.reason}` : ''}`,
      };
    case 'not-applicable':
      return { html: 'n/a', cls: 'missing', title: s.reason ?? 'does not apply to this method' };
    default:
      return { html: 'not probed', cls: 'missing' };
  }
}

function matrixTable(matrix: SemanticsMatrix): string {
  const rows: TCell[][] = matrix.probes.map((p) => [p, ...matrix.methods.map((m) => stateCell(matrix.state(p, m)))]);
  rows.push(['probes supported', ...matrix.methods.map((m) => ({ html: `<strong>${matrix.supportedCount(m)} of ${matrix.probes.length}</strong>` }))]);
  return table(['probe', ...matrix.methods], rows, { cls: 'matrix', caption: 'Methods × probes: ✓ supported in every repetition (with the propagation delay where the probe measures one), ✗ refused by the method, mixed: supported in some repetitions only, n/a: the probe checks the bucket and the method does not keep its files as objects.' });
}

async function delayChart(ctx: PageContext, matrix: SemanticsMatrix): Promise<string[]> {
  const delays: RangePoint[] = matrix.probes.filter((p) => p.endsWith('-delay')).flatMap((p) => matrix.methods.flatMap((m) => {
    const s = matrix.state(p, m);
    return s.kind === 'supported' && s.delayMs !== null ? [{ row: p, method: m, median: Math.max(s.delayMs, 0.001), lo: Math.max(s.delayMin ?? s.delayMs, 0.001), hi: Math.max(s.delayMax ?? s.delayMs, 0.001) }] : [];
  }));
  if (!delays.length) return [];
  const svg = await ctx.charts.svg(rangeDotSpec({ points: delays, rows: [...new Set(delays.map((d) => d.row))], xTitle: 'delay until visible (ms, log scale)', colors: ctx.colors, methods: matrix.methods }));
  return [figure(svg, 'Propagation delays: how long a change made through one path (S3 API or the mount) took to become visible through the other; dot = median, line = min–max over repetitions.')];
}

function reasonsTable(matrix: SemanticsMatrix): string[] {
  const reasons = matrix.probes.flatMap((p) => matrix.methods.flatMap((m) => {
    const s = matrix.state(p, m);
    return (s.kind === 'unsupported' || s.kind === 'failed' || s.kind === 'mixed' || s.kind === 'not-applicable') && s.reason ? [[m, p, s.kind, s.reason]] : [];
  }));
  return reasons.length ? [`<details><summary>Why probes were refused or failed (${reasons.length})</summary>${table(['method', 'probe', 'outcome', 'reason'], reasons)}</details>`] : [];
}

async function html(ctx: PageContext): Promise<string> {
  const matrix = semanticsMatrix(ctx.model.cells, ctx.methods);
  if (!matrix) return noData('this run has no semantics probes.', 'The semantics workload probes rename, append, locks, permissions and propagation delays on mount methods: s3ab run --workloads semantics.');
  return [matrixTable(matrix), ...await delayChart(ctx, matrix), ...reasonsTable(matrix)].join('\n');
}

export const semanticsSection: ReportSection = {
  id: 'semantics',
  title: 'POSIX semantics and propagation',
  hasData: (model) => semanticsMatrix(model.cells, model.methodOrder) !== null,
  html,
  // The text summary prints the probes' table in the workloads' text, in workload order (workloads.ts).
  text: null,
};
