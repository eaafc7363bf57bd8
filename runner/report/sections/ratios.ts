import { accessGroup, shownCache, sizeSweeps, type SweepGroup } from '../analysis';
import { num, ratio } from '../format';
import { esc } from '../html/format';
import { cacheShareOf } from '../cache-share';
import { noData, table, withFlag } from '../html/parts';
import type { Cell } from '../model';
import { byOrder } from '../order';
import { cacheRank, methodLabel } from '../../core/vocabulary';
import type { PageContext, ReportSection } from './section';

/** "Tables: A vs B": seed 000's tables — sizes down, methods across, then ratio columns against the first method. */

interface Metric {
  name: string;
  pick: (c: Cell) => number | null;
  higherIsBetter: boolean;
  fmt: (x: number | null) => string;
}

const METRICS: Metric[] = [
  { name: 'throughput (MiB/s)', pick: (c) => c.mib_s_median, higherIsBetter: true, fmt: (x) => num(x) },
  { name: 'IOPS (operations/s)', pick: (c) => c.ops_s_median, higherIsBetter: true, fmt: (x) => num(x) },
  { name: 'mean latency (µs)', pick: (c) => c.mean_us_median, higherIsBetter: false, fmt: (x) => num(x) },
];

/** One metric's table of one operation and cache group: a row per size. */
function metricTable(ctx: PageContext, cells: Cell[], methods: string[], metric: Metric, title: string): string {
  const sizes = [...new Set(cells.map((c) => c.object_size_bytes!))].sort((a, b) => a - b);
  const [a, ...others] = methods;
  const head = ['size', ...methods, ...others.map((b) => `${a} vs ${b}`)];
  const rows = sizes.map((s) => {
    const at = (m: string) => cells.find((c) => c.object_size_bytes === s && methodLabel(c) === m);
    return [
      ctx.model.sizes.of(s),
      ...methods.map((m) => {
        const c = at(m);
        const v = c ? metric.pick(c) : null;
        return { ...withFlag(metric.fmt(v), c && metric.higherIsBetter ? cacheShareOf(ctx.model, c) : null, !!c && c.network_capped > 0 && metric.higherIsBetter), title: c ? `median over ${c.distinct_repetitions} repetition${c.distinct_repetitions === 1 ? '' : 's'}` : undefined };
      }),
      ...others.map((b) => ratio(at(a) ? metric.pick(at(a)!) : null, at(b) ? metric.pick(at(b)!) : null)),
    ];
  });
  return table(head, rows, { caption: `${title} — ${metric.name}` });
}

/** Each operation's tables, object methods (no cache) beside the mounts' cold figures, warm states apart; `first` opens the first. */
function operationTables(ctx: PageContext, g: SweepGroup, op: string, first: () => boolean): string[] {
  const opCells = g.cells.filter((c) => c.operation === op);
  return [...new Set(opCells.map((c) => accessGroup(c.cache)))].sort((a, b) => cacheRank(a) - cacheRank(b)).map((group) => {
    const cells = opCells.filter((c) => accessGroup(c.cache) === group);
    const cache = shownCache(cells);
    const methods = byOrder([...new Set(cells.map(methodLabel))], ctx.methods, (m) => m);
    const title = `${g.workload} · ${op}${cache !== 'none' ? ` · ${cache}` : ''}`;
    const tables = METRICS.filter((metric) => cells.some((c) => metric.pick(c) !== null)).map((metric) => metricTable(ctx, cells, methods, metric, title));
    return `<details${first() ? ' open' : ''}><summary>${esc(title)}</summary>${tables.join('')}</details>`;
  });
}

function html(ctx: PageContext): string {
  if (!ctx.sweeps.length) return noData('no size sweeps in this run, so no per-size tables.', 'They come with the objects and fio-seq workloads.');
  let opened = false;
  const first = () => !opened && (opened = true);
  const tables = ctx.sweeps.flatMap((g) => g.operations.flatMap((op) => operationTables(ctx, g, op, first)));
  return [`<p class="lead">In seed 000's form: one row per size, each method's median, and "A vs B" = A's figure divided by B's. ` +
    'For throughput and IOPS above 1x means A is faster; for latency below 1x means A is faster.</p>', ...tables].join('\n');
}

export const ratiosSection: ReportSection = {
  id: 'ratios',
  title: 'Tables: A vs B',
  hasData: (model) => sizeSweeps(model.cells).length > 0,
  html,
  // `--wide` prints these tables' form (methods across) in the workloads' text (workloads.ts).
  text: null,
};
