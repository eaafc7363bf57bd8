import { cacheCases, type CacheCase } from '../analysis';
import { latencyText, num, ratio } from '../format';
import { cacheShareOf } from '../cache-share';
import { cacheSpec, type CachePoint } from '../html/charts';
import { figure, noData, table, withFlag, type TCell } from '../html/parts';
import { byOrder } from '../order';
import { cacheRank, methodLabel } from '../../core/vocabulary';
import type { PageContext, ReportSection } from './section';

/** "Cold vs warm cache": seed 004's comparison, each method's warm figures against its cold one. */


async function charts(ctx: PageContext, cases: CacheCase[]): Promise<string[]> {
  const parts: string[] = [];
  for (const metric of ['mib_s_median', 'ops_s_median'] as const) {
    const mine = cases.filter((c) => c.metric === metric);
    if (!mine.length) continue;
    const points: CachePoint[] = mine.flatMap((cc) => cc.cells.map((c) => ({ panel: cc.panel, method: methodLabel(c), cache: c.cache, value: c[metric] ?? 0 })));
    const svg = await ctx.charts.svg(cacheSpec({ points, panels: mine.map((c) => c.panel), yTitle: metric === 'mib_s_median' ? 'MiB/s (log)' : 'operations/s (log)', colors: ctx.colors }));
    parts.push(figure(svg, `Cold and warm side by side (seed 004): median ${metric === 'mib_s_median' ? 'throughput' : 'operations per second'} per cache state, one line per method.`));
  }
  return parts;
}

function cacheTable(ctx: PageContext, cases: CacheCase[]): string {
  const rows: TCell[][] = [];
  for (const cc of cases) {
    for (const m of byOrder([...new Set(cc.cells.map(methodLabel))], ctx.methods, (x) => x)) {
      const states = cc.cells.filter((c) => methodLabel(c) === m).sort((a, b) => cacheRank(a.cache) - cacheRank(b.cache));
      const cold = states.find((c) => c.cache === 'cold');
      for (const c of states) {
        const v = c[cc.metric];
        rows.push([cc.panel, m, c.cache, withFlag(num(v), cacheShareOf(ctx.model, c), c.network_capped > 0), latencyText(c.p95_us_median),
          cold && c !== cold ? ratio(v, cold[cc.metric]) : c === cold ? '1x' : '–']);
      }
    }
  }
  return table(['case', 'method', 'cache', 'median MiB/s or ops/s', 'p95 latency', 'vs cold'], rows, { caption: 'Improvement over the same method\'s cold figure, as in seed 004.' });
}

async function html(ctx: PageContext): Promise<string> {
  const cases = cacheCases(ctx.model.cells, ctx.model.sizes);
  if (!cases.length) return noData('no operation was measured both cold and warm in this run.', 'Mount methods record cold (fresh mount, caches dropped) and warm (repeated) states, e.g. in fio-seq and web-serving.');
  return [...await charts(ctx, cases), cacheTable(ctx, cases)].join('\n');
}

export const cacheSection: ReportSection = {
  id: 'cache',
  title: 'Cold vs warm cache',
  hasData: (model) => cacheCases(model.cells, model.sizes).length > 0,
  html,
  // The text summary gives each cache state its own rows in its workload's table (workloads.ts).
  text: null,
};
