import { movesPayload, sizeSweeps, type SweepGroup } from '../analysis';
import { sizeSweepSpec, type SweepPoint } from '../html/charts';
import { num } from '../format';
import { esc, slug } from '../html/format';
import { figure, noData, workloadHeading } from '../html/parts';
import { methodLabel } from '../../core/vocabulary';
import type { Cell } from '../model';
import type { PageContext, ReportSection } from './section';

/** "Throughput, IOPS and latency against size": seed 000's charts, one set per swept workload. */

function sweepPoints(cells: Cell[], pick: (c: Cell) => [number | null, number | null, number | null]): SweepPoint[] {
  return cells.flatMap((c) => {
    const [lo, median, hi] = pick(c);
    if (median === null || !(median > 0)) return [];
    return [{
      operation: c.operation, method: methodLabel(c), cache: c.cache, series: `${methodLabel(c)} ${c.cache}`, size: c.object_size_bytes!,
      median, lo: lo && lo > 0 ? lo : median, hi: hi ?? median, reps: c.distinct_repetitions, cached: c.served_from_cache > 0,
    }];
  });
}

function caption(what: string, g: SweepGroup): string {
  // Repetitions, not records: one repetition may record a cell more than once.
  const reps = Math.max(...g.cells.map((c) => c.distinct_repetitions));
  return `${esc(what)} Lines: median over ${reps} repetition${reps === 1 ? '' : 's'}; shaded band: min–max over repetitions. Both axes are logarithmic.`;
}

async function throughputChart(ctx: PageContext, g: SweepGroup): Promise<string[]> {
  const payloadOps = g.operations.filter((op) => g.cells.some((c) => c.operation === op && movesPayload(c)));
  if (!payloadOps.length) return [];
  const points = sweepPoints(g.cells.filter((c) => payloadOps.includes(c.operation)), (c) => [c.mib_s_min, c.mib_s_median, c.mib_s_max]);
  const svg = await ctx.charts.svg(sizeSweepSpec({ points, yTitle: 'throughput (MiB/s)', colors: ctx.colors, operations: payloadOps, linkLimit: ctx.linkLimit }));
  const link = ctx.linkLimit !== null
    ? ` Dashed red line: the link limit (${num(ctx.linkLimit)} MiB/s); red diamonds: figures above it served from a cache (one whose every byte of each object read the server's access log shows it sent is not marked: it is flagged link-estimate-low, the estimate was low).` : '';
  return [figure(svg, `${caption(`Throughput of ${g.workload} (${payloadOps.join(', ')}) against size.`, g)}${link}`)];
}

/** A chart without the cache marks (IOPS, latency): only throughput can be above the link limit. */
async function plainChart(ctx: PageContext, g: SweepGroup, points: SweepPoint[], yTitle: string, what: string, yFormat?: string): Promise<string[]> {
  if (!points.length) return [];
  const ops = g.operations.filter((op) => points.some((p) => p.operation === op));
  const svg = await ctx.charts.svg(sizeSweepSpec({ points: points.map((p) => ({ ...p, cached: false })), yTitle, colors: ctx.colors, operations: ops, linkLimit: null, ...(yFormat ? { yFormat } : {}) }));
  return [figure(svg, caption(what, g))];
}

async function html(ctx: PageContext): Promise<string> {
  if (!ctx.sweeps.length) {
    return noData('this run measured no operation at two sizes or more.', 'The objects and fio-seq workloads sweep sizes (s3ab run --workloads objects,fio-seq).');
  }
  const parts: string[] = [];
  for (const g of ctx.sweeps) {
    parts.push(workloadHeading(g.workload, `size-${slug(g.workload)}`));
    parts.push(...await throughputChart(ctx, g));
    parts.push(...await plainChart(ctx, g, sweepPoints(g.cells, (c) => [c.ops_s_min, c.ops_s_median, c.ops_s_max]), 'operations/s (IOPS)',
      `IOPS of ${g.workload} against size (seed 000's IOPS tables).`));
    parts.push(...await plainChart(ctx, g, sweepPoints(g.cells, (c) => [c.mean_us_min, c.mean_us_median, c.mean_us_max]), 'mean latency (µs)',
      `Mean latency per operation of ${g.workload} against size (seed 000's latency tables).`, '~s'));
  }
  return parts.join('\n');
}

export const sizeSection: ReportSection = {
  id: 'size',
  title: 'Throughput, IOPS and latency against size',
  hasData: (model) => sizeSweeps(model.cells).length > 0,
  html,
  // The text summary prints swept workloads' figures in their workload's table (workloads.ts).
  text: null,
};
