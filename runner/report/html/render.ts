import type { Cell, ReportModel } from '../model';
import { fleetLinkText, type ScalingCase } from '../scaling';
import {
  accessGroup, cacheCases, groupCaseLabels, isSupportCheck, jobCells, measured, movesPayload, semanticsMatrix, shownCache, sizeSweeps, tableOf,
  type SweepGroup,
} from '../analysis';
import { dnfText } from '../format';
import { caseLabel, methodCacheLabel, methodLabel, seedLabel, workloadSummary } from '../labels';
import { byOrder, cacheRank, operationOrder } from '../order';
import { peakUnlikeSustained, type CellSeries, type MeasurementSeries, type RatePoint } from '../series';
import { verdicts } from '../verdicts';
import {
  ChartRenderer, cacheSpec, methodColors, percentileSpec, rangeDotSpec, scalingSpec, sizeSweepSpec, timeSeriesSpec,
  type CachePoint, type ScalingChartPoint, type MethodColors, type PercentilePoint, type RangePoint, type SweepPoint, type TimePoint,
} from './charts';
import { bytesText, durationText, esc, latencyText, num, percentText, ratio, slug, spreadText } from './format';
import { STYLE } from './style';
import { NEAR_BASELINE } from '../../results/record';
import {
  FLEET_UNCOUNTED, hasFleetSteps, MEASURED_COST_HEAD, REQUEST_PRICES, requestCells, requestRowsShown, requestsCounted, REQUESTS_ONLY_NOTE, S3FILES_HEAD, s3filesCostText, s3filesFigures,
  s3filesMeteredText, s3filesNote,
} from '../requests';
import { isRequestsOnly } from '../../core/vocabulary';

/** A section of the page and whether this run had data for it. */
export interface SectionStatus {
  id: string;
  title: string;
  hasData: boolean;
}

export interface RenderedReport {
  html: string;
  sections: SectionStatus[];
  /** Chart warnings from Vega-Lite/Vega (none expected). */
  warnings: string[];
  charts: number;
}

interface Section extends SectionStatus {
  body: string;
}

interface Ctx {
  model: ReportModel;
  charts: ChartRenderer;
  methods: string[];
  colors: MethodColors;
  linkLimit: number | null;
  /** The runner's sustained bandwidth where known apart from the link limit (EC2's baseline). */
  linkBaseline: number | null;
}

/** One cell of an HTML table: text (escaped) or ready-made HTML. */
type TCell = string | number | { html: string; cls?: string; title?: string };

function table(head: string[], rows: TCell[][], opts: { cls?: string; caption?: string } = {}): string {
  const td = (c: TCell, tag: 'td' | 'th') => {
    if (typeof c === 'object') return `<${tag}${c.cls ? ` class="${c.cls}"` : ''}${c.title ? ` title="${esc(c.title)}"` : ''}>${c.html}</${tag}>`;
    return `<${tag}>${esc(c)}</${tag}>`;
  };
  return `${opts.caption ? `<p class="tcap">${esc(opts.caption)}</p>` : ''}<div class="table-wrap"><table${opts.cls ? ` class="${opts.cls}"` : ''}>` +
    `<thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows.map((r) => `<tr>${r.map((c, i) => td(c, i === 0 ? 'th' : 'td')).join('')}</tr>`).join('')}</tbody></table></div>`;
}

const CACHE_FLAG = '<span class="flag-cache" title="faster than the link to the store can carry: served from a cache, not the store">⚠ cache</span>';
const NET_FLAG = '<span class="flag-net" title="at or near the runner\'s baseline (sustained) bandwidth, up to its burst: the network, not the method, may have set this figure">⚠ net-capped?</span>';
/** A figure with its plausibility mark: above the link limit (a cache) outranks near the baseline (the network). */
const withFlag = (text: string, cached: boolean, capped = false) => ({
  html: `${esc(text)}${cached ? ` ${CACHE_FLAG}` : capped ? ` ${NET_FLAG}` : ''}`, cls: cached ? 'cached' : capped ? 'capped' : undefined,
});

function noData(what: string, hint: string): string {
  return `<p class="nodata"><strong>No data:</strong> ${esc(what)} ${esc(hint)}</p>`;
}

function figure(svg: string, caption: string): string {
  return `<figure class="chart">${svg}<figcaption>${caption}</figcaption></figure>`;
}

/** A workload's heading: its name, then its seeds and summary (its descriptor's). */
const workloadHeading = (workload: string, id: string) =>
  `<h3 id="${id}">${esc(workload)} <span class="seed">${esc(seedLabel(workload))}: ${esc(workloadSummary(workload))}</span></h3>`;

// ---------------------------------------------------------------- sections

function summarySection(ctx: Ctx): Section {
  const recs = verdicts(ctx.model);
  const base = { id: 'summary', title: 'Which method for which workload' };
  if (!recs.length) return { ...base, hasData: false, body: noData('this run has no successful measurements to compare.', 'Run a matrix with at least one workload.') };
  const single = ctx.methods.length < 2;
  const reps = Math.max(0, ...ctx.model.workloads.map((w) => w.repetitions));
  const rows = recs.map((r) => [r.workload, r.case, { html: `<strong>${esc(r.best)}</strong>` }, r.margin, r.basis, { html: r.notes.map(esc).join('<br>'), cls: 'notes' }]);
  return {
    ...base, hasData: true,
    body: `<p class="lead">Generated from this run's numbers: for each case the method with the best median, how far ahead of the next it is, and what limits the verdict. ` +
      `Where the min–max ranges over repetitions overlap the order could flip on another run.${reps < 3 ? ` <strong>Only ${reps} repetition${reps === 1 ? '' : 's'}: treat differences as indicative.</strong>` : ''}` +
      `${single ? ' <strong>Only one method ran: nothing to compare against.</strong>' : ''}</p>` +
      table(['workload', 'case', 'best', 'by how much', 'judged on', 'caveats'], rows, { cls: 'summary' }),
  };
}

function problemsSection(ctx: Ctx): Section {
  const { model: input } = ctx;
  const parts: string[] = [];
  const m = input.manifest;
  if (!m) parts.push(`<p class="warn">No run manifest (_runs/${esc(input.runId)}.json) was found: whether this run completed is unknown.</p>`);
  else if (m.status !== 'complete') parts.push(`<p class="bad"><strong>Run ${esc(m.status)} — results incomplete:</strong> ${esc(m.problem ?? 'unknown cause')}</p>`);
  for (const b of input.badManifests) {
    parts.push(`<p class="bad"><strong>Data problem: ${esc(b.path)} is not a readable run manifest</strong> (${esc(b.reason)})${b.runId ? `; run ${esc(b.runId)}'s status is unknown and it is not reported` : ''}.</p>`);
  }
  if (input.badLineCount) {
    const rows = input.badLines.map((b) => [b.file, String(b.line), b.reason]);
    parts.push(`<p class="bad"><strong>${num(input.badLineCount)} line${input.badLineCount === 1 ? '' : 's'} at the source could not be read</strong> and ${input.badLineCount === 1 ? 'was' : 'were'} left out; ` +
      `everything else is shown.${input.badLines.length < input.badLineCount ? ` The first ${input.badLines.length} are listed.` : ''}</p>` +
      table(['file', 'line', 'why'], rows, { cls: 'bad-lines' }));
  }
  const { broken, findings, didNotFinish } = input.integrity;
  if (broken.length) {
    parts.push('<p class="bad"><strong>Measurements that cannot be trusted</strong> (failed, unverified, or in a step that broke) — left out of every median, counted here:</p>' +
      table(['method', 'workload', 'records', 'failed', 'unverified', 'in failed steps', 'first error'],
        broken.map((b) => [b.method, b.workload, num(b.records), num(b.failed), num(b.unverified), num(b.inFailedSteps), b.firstError ?? ''])));
  }
  if (findings.length) {
    parts.push('<p class="warn"><strong>Findings about methods</strong> — what a method did wrong, caught by its checks; the measurements themselves are sound:</p>' +
      table(['method', 'workload', 'check', 'repetitions', 'what the check found'], findings.map((f) => [f.method, f.workload, f.operation, String(f.repetitions), f.what])));
  }
  if (didNotFinish.length) {
    parts.push('<p class="warn"><strong>Did not finish</strong> — the step\'s time budget ran out; shown as what they reached, never ranked beside finished times:</p>' +
      table(['method', 'workload', 'case', 'repetitions', 'reached'], didNotFinish.map((c) => [methodLabel(c), c.workload, caseLabel(c, input.sizes), `${c.did_not_finish} of ${c.records}`,
        dnfText({ budgetS: c.dnf_budget_s, doneShare: c.dnf_done_share, extrapolatedS: c.dnf_extrapolated_s })])));
  }
  const cached = input.cells.filter((c) => c.served_from_cache > 0);
  if (cached.length) {
    const n = cached.reduce((s, c) => s + c.served_from_cache, 0);
    parts.push(`<p class="warn"><strong>${num(n)} measurement${n === 1 ? '' : 's'} ran faster than the link limit${ctx.linkLimit !== null ? ` (${num(ctx.linkLimit)} MiB/s)` : ''}:</strong> ` +
      `they were served from a cache, not the store, and are marked ${CACHE_FLAG} in tables and with a red diamond in charts (${esc([...new Set(cached.map((c) => `${methodLabel(c)} ${c.workload} ${caseLabel(c, input.sizes)}`))].slice(0, 6).join('; '))}${cached.length > 6 ? '; …' : ''}).</p>`);
  }
  const capped = input.cells.filter((c) => c.network_capped > 0);
  if (capped.length) {
    const n = capped.reduce((s, c) => s + c.network_capped, 0);
    parts.push(`<p class="warn"><strong>${num(n)} measurement${n === 1 ? '' : 's'} ran at or near the runner's baseline bandwidth${ctx.linkBaseline !== null ? ` (${num(ctx.linkBaseline)} MiB/s sustained)` : ''}:</strong> ` +
      `the network, not the method, may have set ${n === 1 ? 'it' : 'them'} — at the baseline, or above it only while burst credits lasted — and ${n === 1 ? 'it is' : 'they are'} marked ${NET_FLAG} in tables ` +
      `(${esc([...new Set(capped.map((c) => `${methodLabel(c)} ${c.workload} ${caseLabel(c, input.sizes)}`))].slice(0, 6).join('; '))}${capped.length > 6 ? '; …' : ''}). A runner type with a higher baseline tells the method's own limit.</p>`);
  }
  if (!parts.length) {
    parts.push(`<p class="good">No problems: every line read is a valid record, and all ${num(input.integrity.records)} measurements of this run succeeded and were verified (checksums, sizes, listings).</p>`);
  }
  return { id: 'problems', title: 'Data problems', hasData: true, body: parts.join('\n') };
}

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

async function sizeSection(ctx: Ctx, sweeps: SweepGroup[]): Promise<Section> {
  const base = { id: 'size', title: 'Throughput, IOPS and latency against size' };
  if (!sweeps.length) {
    return { ...base, hasData: false, body: noData('this run measured no operation at two sizes or more.', 'The objects and fio-seq workloads sweep sizes (s3ab run --workloads objects,fio-seq).') };
  }
  const parts: string[] = [];
  const caption = (what: string, g: SweepGroup) => {
    // Repetitions, not records: one repetition may record a cell more than once.
    const reps = Math.max(...g.cells.map((c) => c.distinct_repetitions));
    return `${esc(what)} Lines: median over ${reps} repetition${reps === 1 ? '' : 's'}; shaded band: min–max over repetitions. Both axes are logarithmic.`;
  };
  for (const g of sweeps) {
    parts.push(workloadHeading(g.workload, `size-${slug(g.workload)}`));
    const payloadOps = g.operations.filter((op) => g.cells.some((c) => c.operation === op && movesPayload(c)));
    if (payloadOps.length) {
      const points = sweepPoints(g.cells.filter((c) => payloadOps.includes(c.operation)), (c) => [c.mib_s_min, c.mib_s_median, c.mib_s_max]);
      const svg = await ctx.charts.svg(sizeSweepSpec({ points, yTitle: 'throughput (MiB/s)', colors: ctx.colors, operations: payloadOps, linkLimit: ctx.linkLimit }));
      parts.push(figure(svg, `${caption(`Throughput of ${g.workload} (${payloadOps.join(', ')}) against size.`, g)}${ctx.linkLimit !== null ? ` Dashed red line: the link limit (${num(ctx.linkLimit)} MiB/s); red diamonds: figures above it served from a cache (one whose every byte of each object read the server's access log shows it sent is not marked: it is flagged link-estimate-low, the estimate was low).` : ''}`));
    }
    const iops = sweepPoints(g.cells, (c) => [c.ops_s_min, c.ops_s_median, c.ops_s_max]);
    if (iops.length) {
      const ops = g.operations.filter((op) => iops.some((p) => p.operation === op));
      const svg = await ctx.charts.svg(sizeSweepSpec({ points: iops.map((p) => ({ ...p, cached: false })), yTitle: 'operations/s (IOPS)', colors: ctx.colors, operations: ops, linkLimit: null }));
      parts.push(figure(svg, caption(`IOPS of ${g.workload} against size (seed 000's IOPS tables).`, g)));
    }
    const lat = sweepPoints(g.cells, (c) => [c.mean_us_min, c.mean_us_median, c.mean_us_max]);
    if (lat.length) {
      const ops = g.operations.filter((op) => lat.some((p) => p.operation === op));
      const svg = await ctx.charts.svg(sizeSweepSpec({ points: lat.map((p) => ({ ...p, cached: false })), yTitle: 'mean latency (µs)', colors: ctx.colors, operations: ops, linkLimit: null, yFormat: '~s' }));
      parts.push(figure(svg, caption(`Mean latency per operation of ${g.workload} against size (seed 000's latency tables).`, g)));
    }
  }
  return { ...base, hasData: true, body: parts.join('\n') };
}

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

/** Seed 000's tables: sizes down, methods across, then "A vs B" ratio columns against the first method. */
function ratioSection(ctx: Ctx, sweeps: SweepGroup[]): Section {
  const base = { id: 'ratios', title: 'Tables: A vs B' };
  if (!sweeps.length) return { ...base, hasData: false, body: noData('no size sweeps in this run, so no per-size tables.', 'They come with the objects and fio-seq workloads.') };
  const parts: string[] = [`<p class="lead">In seed 000's form: one row per size, each method's median, and "A vs B" = A's figure divided by B's. ` +
    'For throughput and IOPS above 1x means A is faster; for latency below 1x means A is faster.</p>'];
  for (const g of sweeps) {
    for (const op of g.operations) {
      const opCells = g.cells.filter((c) => c.operation === op);
      // Object methods (no cache) side by side with the mounts' cold figures; warm states apart.
      for (const group of [...new Set(opCells.map((c) => accessGroup(c.cache)))].sort((a, b) => cacheRank(a) - cacheRank(b))) {
        const cells = opCells.filter((c) => accessGroup(c.cache) === group);
        const cache = shownCache(cells);
        const methods = byOrder([...new Set(cells.map(methodLabel))], ctx.methods, (m) => m);
        const sizes = [...new Set(cells.map((c) => c.object_size_bytes!))].sort((a, b) => a - b);
        const title = `${g.workload} · ${op}${cache !== 'none' ? ` · ${cache}` : ''}`;
        const tables: string[] = [];
        for (const metric of METRICS) {
          if (!cells.some((c) => metric.pick(c) !== null)) continue;
          const [a, ...others] = methods;
          const head = ['size', ...methods, ...others.map((b) => `${a} vs ${b}`)];
          const rows = sizes.map((s) => {
            const at = (m: string) => cells.find((c) => c.object_size_bytes === s && methodLabel(c) === m);
            return [
              ctx.model.sizes.of(s),
              ...methods.map((m) => {
                const c = at(m);
                const v = c ? metric.pick(c) : null;
                return { ...withFlag(metric.fmt(v), !!c && c.served_from_cache > 0 && metric.higherIsBetter, !!c && c.network_capped > 0 && metric.higherIsBetter), title: c ? `median over ${c.distinct_repetitions} repetition${c.distinct_repetitions === 1 ? '' : 's'}` : undefined };
              }),
              ...others.map((b) => ratio(at(a) ? metric.pick(at(a)!) : null, at(b) ? metric.pick(at(b)!) : null)),
            ];
          });
          tables.push(table(head, rows, { caption: `${title} — ${metric.name}` }));
        }
        parts.push(`<details${parts.length === 1 ? ' open' : ''}><summary>${esc(title)}</summary>${tables.join('')}</details>`);
      }
    }
  }
  return { ...base, hasData: true, body: parts.join('\n') };
}

/** The measurement a cell's chart draws: the good one with the median sustained rate (a DNF's own when none finished). */
function representative(series: CellSeries): MeasurementSeries {
  const pool = series.measurements.filter((m) => m.good);
  const sorted = [...(pool.length ? pool : series.measurements)].sort((a, b) => a.sustained - b.sustained);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** The interval widths of these cells' series, as the caption says them: "1 s", or "50–1000 ms" when short measurements were cut finer. */
function widthsOf(cells: Cell[]): string {
  const widths = cells.flatMap((c) => c.series!.measurements.map((m) => m.intervalMs));
  const lo = Math.min(...widths);
  const hi = Math.max(...widths);
  const say = (ms: number) => (ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${num(ms)} ms`);
  return lo === hi ? say(lo) : `${num(lo)}–${num(hi)} ms: a measurement shorter than 10 intervals is cut into up to 10 finer ones`;
}

/** Throughput (or operations per second) over time for the measurements that kept a series: peak and sustained marked. */
async function timeSeriesSection(ctx: Ctx): Promise<Section> {
  const base = { id: 'over-time', title: 'Throughput over time' };
  const cells = ctx.model.cells.filter((c) => c.series && !isSupportCheck(c));
  if (!cells.length) {
    return { ...base, hasData: false, body: noData('no measurement of this run lasted long enough (0.5 s or more, with enough operations) to keep an interval series.', 'Larger sizes or more files make longer measurements (s3ab run --series-interval sets the interval).') };
  }
  const parts: string[] = [];
  for (const unit of ['MiB/s', 'ops/s'] as const) {
    const mine = cells.filter((c) => c.series!.unit === unit);
    if (!mine.length) continue;
    const panelOf = groupCaseLabels(mine, ctx.model.sizes);
    const panels = [...new Set(mine.map((c) => `${c.workload} · ${panelOf(c)}`))];
    const points: TimePoint[] = mine.flatMap((c) => {
      const s = representative(c.series!);
      const panel = `${c.workload} · ${panelOf(c)}`;
      const at = (p: RatePoint) => (p.offsetMs + p.durationMs / 2) / 1000;
      // The interval the peak rate came from (a sliver of a last interval is not counted as the peak).
      const peak = s.points.find((p) => p.rate === s.peak) ?? s.points.reduce((a, b) => (b.rate > a.rate ? b : a), s.points[0]);
      return [
        ...s.points.map((p) => ({ panel, method: methodLabel(c), kind: 'interval' as const, t: at(p), rate: p.rate })),
        { panel, method: methodLabel(c), kind: 'peak' as const, t: at(peak), rate: s.peak },
        { panel, method: methodLabel(c), kind: 'sustained' as const, t: 0, rate: s.sustained },
      ];
    });
    const svg = await ctx.charts.svg(timeSeriesSpec({ points, panels, colors: ctx.colors, yTitle: unit === 'MiB/s' ? 'throughput (MiB/s)' : 'operations/s' }));
    parts.push(figure(svg, `${unit === 'MiB/s' ? 'Throughput' : 'Operations per second'} over each measurement that kept a series, per interval (${esc(widthsOf(mine))}): one line per method (its repetition with the median sustained rate). ` +
      'Triangle: the peak interval; dashed line: the sustained rate, the median interval after the first 10% of the measurement. A peak far above the sustained rate is a burst that did not last.'));
    const rows = mine.map((c) => [`${c.workload} · ${panelOf(c)}`, methodLabel(c), `${num(c.series!.peak)} ${unit}`, `${num(c.series!.sustained)} ${unit}`,
      peakUnlikeSustained(c.series!) ? { html: `peak ${esc(num((100 * (c.series!.peak! - c.series!.sustained!)) / c.series!.peak!))}% above sustained`, cls: 'failed' } : '–',
      `${c.series!.measurements.length}`]);
    parts.push(`<details><summary>Peak and sustained ${unit === 'MiB/s' ? 'throughput' : 'operations per second'}, medians over the repetitions that succeeded</summary>` +
      `${table(['case', 'method', 'peak (median)', 'sustained (median)', 'caveat', 'series'], rows)}</details>`);
  }
  return { ...base, hasData: true, body: parts.join('\n') };
}

async function percentileSection(ctx: Ctx, sweeps: SweepGroup[]): Promise<Section> {
  const base = { id: 'percentiles', title: 'Latency percentiles' };
  const cells = ctx.model.cells.filter((c) => measured(c) && (c.p50_us_median ?? 0) > 0 && (c.p99_us_median ?? 0) > 0 && tableOf(c.workload) !== 'semantics');
  if (!cells.length) return { ...base, hasData: false, body: noData('no per-operation latencies were recorded in this run.', 'Workloads that time single operations record p50/p95/p99.') };
  const parts: string[] = ['<p class="lead">Per operation: p50 (circle), p95 (triangle) and p99 (square) of each method, medians over repetitions; the line spans p50 to p99. Log scale.</p>'];
  for (const workload of [...new Set(cells.map((c) => c.workload))]) {
    const mine = cells.filter((c) => c.workload === workload);
    const ops = operationOrder(workload, mine.map((c) => c.operation));
    // Size sweeps: one column per operation, a row per size; otherwise a row per operation.
    const swept = sweeps.some((g) => g.workload === workload);
    const ordered = [...mine].sort((a, b) => ops.indexOf(a.operation) - ops.indexOf(b.operation) || (a.object_size_bytes ?? 0) - (b.object_size_bytes ?? 0) || cacheRank(a.cache) - cacheRank(b.cache));
    const sizes = ctx.model.sizes;
    const rowOf = (c: Cell) => (swept ? `${sizes.of(c.object_size_bytes)}${c.cache !== 'none' ? ` (${c.cache})` : ''}` : caseLabel(c, sizes, tableOf(workload) !== 'metadata-suite' && new Set(mine.map((x) => x.object_size_bytes)).size > 1));
    const panelOf = (c: Cell) => (swept ? c.operation : workload);
    const rows = [...new Set([...ordered].sort((a, b) => (a.object_size_bytes ?? 0) - (b.object_size_bytes ?? 0) || cacheRank(a.cache) - cacheRank(b.cache)).map(rowOf))];
    const methods = byOrder([...new Set(mine.map(methodLabel))], ctx.methods, (m) => m);
    const points: PercentilePoint[] = mine.map((c) => ({ panel: panelOf(c), row: rowOf(c), method: methodLabel(c), p50: c.p50_us_median!, p95: c.p95_us_median!, p99: c.p99_us_median! }));
    const svg = await ctx.charts.svg(percentileSpec({ points, rows: swept ? rows : [...new Set(ordered.map(rowOf))], panels: swept ? ops : [workload], colors: ctx.colors, methods }));
    const tableRows = [...new Set(ordered.map((c) => `${c.operation}\u0000${c.object_size_bytes}\u0000${c.cache}`))].map((k) => {
      const group = ordered.filter((c) => `${c.operation}\u0000${c.object_size_bytes}\u0000${c.cache}` === k);
      return [caseLabel(group[0], sizes), ...methods.map((m) => {
        const c = group.find((x) => methodLabel(x) === m);
        return c ? `${latencyText(c.p50_us_median)} / ${latencyText(c.p95_us_median)} / ${latencyText(c.p99_us_median)}` : '–';
      })];
    });
    parts.push(workloadHeading(workload, `percentiles-${slug(workload)}`) + figure(svg, `Latency percentiles of ${esc(workload)}.`) +
      `<details><summary>${esc(workload)}: p50 / p95 / p99 table</summary>${table(['operation', ...methods.map((m) => `${m} p50 / p95 / p99`)], tableRows)}</details>`);
  }
  return { ...base, hasData: true, body: parts.join('\n') };
}

async function metadataSection(ctx: Ctx): Promise<Section> {
  const base = { id: 'metadata', title: 'Metadata operations' };
  const cells = ctx.model.cells.filter((c) => tableOf(c.workload) === 'metadata-suite' && c.not_applicable < c.records);
  if (!cells.length) return { ...base, hasData: false, body: noData('this run has no metadata measurements.', 'The metadata workload (seed 002) runs on mount methods: s3ab run --workloads metadata.') };
  const tests = operationOrder(cells[0].workload, cells.map((c) => c.operation));
  const methods = byOrder([...new Set(cells.map(methodLabel))], ctx.methods, (m) => m);
  const at = (t: string, m: string) => cells.find((c) => c.operation === t && methodLabel(c) === m);
  const success = (c: Cell) => percentText(c.ops ? c.ok / c.ops : null);
  const points: RangePoint[] = cells.map((c) => {
    const ops = measured(c) ? c.ops_s_median : c.ops_s_partial_median;
    const note = c.unsupported === c.records ? 'not supported' : `${success(c)} ok`;
    return { row: c.operation, method: methodLabel(c), median: ops ?? 0, lo: measured(c) ? c.ops_s_min ?? ops ?? 0 : ops ?? 0, hi: measured(c) ? c.ops_s_max ?? ops ?? 0 : ops ?? 0, note };
  });
  const svg = await ctx.charts.svg(rangeDotSpec({ points, rows: tests, xTitle: 'operations/s (log scale)', colors: ctx.colors, methods }));
  const [a, ...others] = methods;
  const head = ['test', ...methods.flatMap((m) => [`${m} ops/s`, `${m} latency`, `${m} ok`]), ...others.map((b) => `${a} vs ${b}`)];
  const rows = tests.map((t) => [t, ...methods.flatMap((m): TCell[] => {
    const c = at(t, m);
    if (!c) return ['–', '–', '–'];
    if (c.unsupported === c.records) return [{ html: 'not supported', cls: 'unsupported', title: c.first_error ?? '' }, '–', { html: '0%', cls: 'unsupported' }];
    if (!measured(c)) return [{ html: `${esc(num(c.ops_s_partial_median))} (partial)`, cls: 'failed', title: c.first_error ?? '' }, '–', { html: esc(success(c)), cls: 'failed', title: c.first_error ?? '' }];
    return [num(c.ops_s_median), latencyText(c.mean_us_median), { html: esc(success(c)), cls: c.ok < c.ops ? 'failed' : undefined }];
  }), ...others.map((b) => {
    const ca = at(t, a);
    const cb = at(t, b);
    return ratio(ca && measured(ca) ? ca.ops_s_median : null, cb && measured(cb) ? cb.ops_s_median : null);
  })]);
  return {
    ...base, hasData: true,
    body: figure(svg, 'Operations per second per metadata test (seed 002): dot = median over repetitions, line = min–max; the label gives the success rate (ok / attempted). Partial results are drawn from the operations that succeeded.') +
      table(head, rows, { caption: 'Metadata suite in seed 002\'s form; "A vs B" is A\'s operations/s over B\'s.' }),
  };
}

async function cacheSection(ctx: Ctx): Promise<Section> {
  const base = { id: 'cache', title: 'Cold vs warm cache' };
  const cases = cacheCases(ctx.model.cells, ctx.model.sizes);
  if (!cases.length) return { ...base, hasData: false, body: noData('no operation was measured both cold and warm in this run.', 'Mount methods record cold (fresh mount, caches dropped) and warm (repeated) states, e.g. in fio-seq and web-serving.') };
  const parts: string[] = [];
  for (const metric of ['mib_s_median', 'ops_s_median'] as const) {
    const mine = cases.filter((c) => c.metric === metric);
    if (!mine.length) continue;
    const points: CachePoint[] = mine.flatMap((cc) => cc.cells.map((c) => ({ panel: cc.panel, method: methodLabel(c), cache: c.cache, value: c[metric] ?? 0 })));
    const svg = await ctx.charts.svg(cacheSpec({ points, panels: mine.map((c) => c.panel), yTitle: metric === 'mib_s_median' ? 'MiB/s (log)' : 'operations/s (log)', colors: ctx.colors }));
    parts.push(figure(svg, `Cold and warm side by side (seed 004): median ${metric === 'mib_s_median' ? 'throughput' : 'operations per second'} per cache state, one line per method.`));
  }
  const rows: TCell[][] = [];
  for (const cc of cases) {
    for (const m of byOrder([...new Set(cc.cells.map(methodLabel))], ctx.methods, (x) => x)) {
      const states = cc.cells.filter((c) => methodLabel(c) === m).sort((a, b) => cacheRank(a.cache) - cacheRank(b.cache));
      const cold = states.find((c) => c.cache === 'cold');
      for (const c of states) {
        const v = c[cc.metric];
        rows.push([cc.panel, m, c.cache, withFlag(num(v), c.served_from_cache > 0, c.network_capped > 0), latencyText(c.p95_us_median),
          cold && c !== cold ? ratio(v, cold[cc.metric]) : c === cold ? '1x' : '–']);
      }
    }
  }
  parts.push(table(['case', 'method', 'cache', 'median MiB/s or ops/s', 'p95 latency', 'vs cold'], rows, { caption: 'Improvement over the same method\'s cold figure, as in seed 004.' }));
  return { ...base, hasData: true, body: parts.join('\n') };
}

async function semanticsSection(ctx: Ctx): Promise<Section> {
  const base = { id: 'semantics', title: 'POSIX semantics and propagation' };
  const matrix = semanticsMatrix(ctx.model.cells, ctx.methods);
  if (!matrix) return { ...base, hasData: false, body: noData('this run has no semantics probes.', 'The semantics workload probes rename, append, locks, permissions and propagation delays on mount methods: s3ab run --workloads semantics.') };
  const rows = matrix.probes.map((p) => [p, ...matrix.methods.map((m): TCell => {
    const s = matrix.state(p, m);
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
  })]);
  rows.push(['probes supported', ...matrix.methods.map((m) => ({ html: `<strong>${matrix.supportedCount(m)} of ${matrix.probes.length}</strong>` }))]);
  const reasons = matrix.probes.flatMap((p) => matrix.methods.flatMap((m) => {
    const s = matrix.state(p, m);
    return (s.kind === 'unsupported' || s.kind === 'failed' || s.kind === 'mixed' || s.kind === 'not-applicable') && s.reason ? [[m, p, s.kind, s.reason]] : [];
  }));
  const parts = [table(['probe', ...matrix.methods], rows, { cls: 'matrix', caption: 'Methods × probes: ✓ supported in every repetition (with the propagation delay where the probe measures one), ✗ refused by the method, mixed: supported in some repetitions only, n/a: the probe checks the bucket and the method does not keep its files as objects.' })];
  const delays: RangePoint[] = matrix.probes.filter((p) => p.endsWith('-delay')).flatMap((p) => matrix.methods.flatMap((m) => {
    const s = matrix.state(p, m);
    return s.kind === 'supported' && s.delayMs !== null ? [{ row: p, method: m, median: Math.max(s.delayMs, 0.001), lo: Math.max(s.delayMin ?? s.delayMs, 0.001), hi: Math.max(s.delayMax ?? s.delayMs, 0.001) }] : [];
  }));
  if (delays.length) {
    const svg = await ctx.charts.svg(rangeDotSpec({ points: delays, rows: [...new Set(delays.map((d) => d.row))], xTitle: 'delay until visible (ms, log scale)', colors: ctx.colors, methods: matrix.methods }));
    parts.push(figure(svg, 'Propagation delays: how long a change made through one path (S3 API or the mount) took to become visible through the other; dot = median, line = min–max over repetitions.'));
  }
  if (reasons.length) parts.push(`<details><summary>Why probes were refused or failed (${reasons.length})</summary>${table(['method', 'probe', 'outcome', 'reason'], reasons)}</details>`);
  return { ...base, hasData: true, body: parts.join('\n') };
}

/**
 * "Requests and request cost": what the server counted per operation, from the same rows as the
 * text summary; for s3files rows also S3 Files' own metering, modelled (counted or not: on AWS the
 * records carry no counts).
 */
/** One case of Scaling out: its chart (aggregate and p99 against client count), verdict and table. */
async function scalingCase(ctx: Ctx, c: ScalingCase): Promise<string> {
  const label = `${c.workload} · ${caseLabel(c, ctx.model.sizes)}`;
  const points: ScalingChartPoint[] = c.methods.flatMap((m) => m.points.flatMap((p) => [
    ...(p.aggregate !== null ? [{ method: m.label, clients: p.clients, kind: 'measured', value: p.aggregate }] : []),
    ...(p.ideal !== null ? [{ method: m.label, clients: p.clients, kind: 'ideal (linear)', value: p.ideal }] : []),
  ]));
  const p99 = c.methods.flatMap((m) => m.points.filter((p) => p.p99Us !== null).map((p) => ({ method: m.label, clients: p.clients, p99Ms: p.p99Us! / 1000 })));
  const all = c.methods.flatMap((m) => m.points);
  const clientCounts = [...new Set(all.map((p) => p.clients))].sort((a, b) => a - b);
  // The link limit of each fleet size: the least any method's hosts gave (they are the same runners).
  const links = c.unit !== 'MiB/s' ? [] : clientCounts.flatMap((k) => {
    const known = all.filter((p) => p.clients === k && p.linkLimitMibS !== null).map((p) => p.linkLimitMibS!);
    return known.length ? [{ clients: k, limit: Math.min(...known) }] : [];
  });
  const oneHost = all.every((p) => p.hosts <= 1);
  const svg = await ctx.charts.svg(scalingSpec({
    points, p99, links, clientCounts, colors: ctx.colors, yTitle: c.unit === 'MiB/s' ? 'aggregate throughput (MiB/s)' : 'aggregate operations/s',
    linkLabel: oneHost ? 'link limit (one host)' : 'link limit of N runners',
  }));
  const rows = c.methods.flatMap((m) => m.points.map((p) => [
    m.label, `${p.clients}${p.clientsFailed ? ` (${p.clientsOk} ok, ${p.clientsFailed} failed)` : ''}`,
    p.aggregate !== null ? num(p.aggregate) : p.repetitions && p.neverAllRunning === p.repetitions ? 'never all running' : '–',
    p.speedup === null ? '–' : ratio(p.speedup, 1), num(p.ideal), fleetLinkText(p, c.unit), latencyText(p.p99Us),
    p.clientMin === null ? '–' : num(p.clientMin) === num(p.clientMax) ? num(p.clientMin) : `${num(p.clientMin)}–${num(p.clientMax)}`, p.basis ?? '–', durationText(p.windowMs),
  ]));
  return `<h3 id="scaling-${slug(label)}">${esc(label)}</h3>` +
    figure(svg, `Left: aggregate ${c.unit === 'MiB/s' ? 'throughput' : 'operations per second'} against client count, one solid line per method; dashed in the same color, the ideal: ` +
      `the 1-client figure × clients${links.length ? `; red, the link limit ${oneHost ? 'of the one host the clients share' : 'of the N runners together'}` : ''}. Right: p99 of the clients' latencies merged.`) +
    `<p class="verdict"><strong>Verdict:</strong> ${esc(c.verdict)}</p>` +
    table(['method', 'clients', `aggregate ${c.unit}`, '× 1 client', 'ideal', 'link limit', 'p99', 'per client', 'from', 'all running'], rows);
}

/** Scaling out (fleet runs only): per case, aggregate and p99 against client count per method. */
async function scalingSection(ctx: Ctx): Promise<Section | null> {
  if (!ctx.model.scaling.length) return null;
  const parts = ['<p class="lead">One step run by several clients at once against one store. The aggregate counts each client\'s bytes (operations) inside the window in which all ' +
    'of them were running — the last start to the first finish — over that window: from the client\'s interval series where it kept one, else its mean rate × the window ("from"). ' +
    'p99 comes from the clients\' latency histograms merged bucket by bucket, never from averaged percentiles. Medians over repetitions.</p>'];
  for (const c of ctx.model.scaling) parts.push(await scalingCase(ctx, c));
  return { id: 'scaling', title: 'Scaling out', hasData: true, body: parts.join('\n') };
}

function requestsSection(ctx: Ctx): Section {
  const base = { id: 'requests', title: 'Requests and request cost' };
  const rows = ctx.model.requests;
  const shown = requestRowsShown(rows);
  const uncounted = rows.filter((r) => Number(r.not_counted) > 0);
  if (!shown.length) {
    return {
      ...base, hasData: false,
      body: noData(uncounted.length ? 'the requests of this run were not counted by the runner: it reads only the embedded server\'s access log' + (hasFleetSteps(ctx.model) ? `, and cannot tell apart the clients of a step run by several at once (${FLEET_UNCOUNTED})` : '') + ' (on AWS, `s3ab aws query requests` counts them from S3 server access logs once they are delivered).' : 'this run has no request counts.',
        'The embedded server counts every measurement\'s S3 requests from its access log; on AWS, `s3ab aws query requests` counts them from S3 server access logs.'),
    };
  }
  const withS3Files = shown.some((r) => s3filesFigures(r) !== null);
  // A counted row with nothing to show (no operations, no requests) is left out, as in the text summary.
  const body = shown.filter((r) => !requestsCounted(r) || requestCells(r)).map((r) => {
    const c = requestCells(r);
    const flags = [Number(r.served_from_cache) ? 'served from cache' : '', Number(r.not_warm) ? 'not warm' : ''].filter(Boolean).join(', ');
    const method = methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant), cache: r.cache });
    const cells: TCell[] = [
      String(r.workload), String(r.operation), r.object_size_bytes === null || r.object_size_bytes === undefined ? '–' : ctx.model.sizes.of(Number(r.object_size_bytes)),
      flags ? { html: `${esc(method)} <span class="flag-cache">⚠ ${esc(flags)}</span>`, cls: 'cached' } : method,
      c ? c.ops : num(Number(r.all_ops)), c ? c.requests : 'not counted', c ? c.getBytes : '–', c ? c.cost : 'not counted',
    ];
    if (withS3Files) {
      const m = s3filesFigures(r);
      cells.push(m ? s3filesMeteredText(m) : '–', m ? { html: esc(s3filesCostText(m)), cls: 'modelled', title: 'modelled (S3 Files metering): not measured' } : '–');
    }
    return cells;
  });
  const head = ['workload', 'operation', 'size', 'method', 'ops', 'requests per operation', 'GET bytes / byte read', withS3Files ? MEASURED_COST_HEAD : '$ per 1,000 ops'];
  const parts = [table(withS3Files ? [...head, ...S3FILES_HEAD] : head, body, {
    caption: `S3 requests the server answered per operation (summed over repetitions), by type; GET bytes sent per byte the operations read (read amplification); request cost per 1,000 operations at S3 Standard request prices, ${REQUEST_PRICES.region} (${REQUEST_PRICES.date}). "served from cache": a cold read for which the server sent fewer GET bytes than were read.`,
  })];
  if (shown.some((r) => isRequestsOnly(String(r.operation)))) parts.push(`<p>${esc(REQUESTS_ONLY_NOTE)}</p>`);
  if (withS3Files) parts.push(`<p class="modelled-note">${esc(s3filesNote())}</p>`);
  if (uncounted.length) parts.push(`<p>Not counted: ${esc([...new Set(uncounted.map((r) => String(r.method)))].join(', '))} (the runner reads only the embedded server's access log${hasFleetSteps(ctx.model) ? `, and cannot tell apart the clients of a step run by several at once: ${FLEET_UNCOUNTED}` : ''}; on AWS, \`s3ab aws query requests\` counts them from S3 server access logs).</p>`);
  return { ...base, hasData: true, body: parts.join('\n') };
}

/** A job's status cell: not supported, failed, did not finish (with what it reached), lost repetitions, a support check, or ok. */
function jobStatus(c: Cell): TCell {
  if (c.unsupported === c.records) return { html: 'not supported', cls: 'unsupported', title: c.first_error ?? '' };
  // A check's failure is what it found about the method (a finding), not a broken measurement.
  if (isSupportCheck(c)) return c.failed_batches ? { html: 'not kept', cls: 'failed', title: c.first_error ?? '' } : measured(c) ? { html: 'kept', cls: 'supported', title: 'a support check: untimed' } : 'FAILED';
  const dnf = c.did_not_finish ? dnfText({ budgetS: c.dnf_budget_s, doneShare: c.dnf_done_share, extrapolatedS: c.dnf_extrapolated_s }) : '';
  if (!measured(c) && dnf) return { html: esc(dnf), cls: 'dnf', title: 'the step\'s time budget ran out: an extrapolation, not a measurement; never ranked' };
  if (!measured(c)) return { html: 'FAILED', cls: 'failed', title: c.first_error ?? '' };
  if (dnf) return { html: esc(`${c.did_not_finish} ${dnf}`), cls: 'dnf' };
  return c.failed_batches ? { html: `${c.failed_batches} failed`, cls: 'failed', title: c.first_error ?? '' } : 'ok';
}

async function workloadsSection(ctx: Ctx, sweeps: SweepGroup[]): Promise<Section> {
  const base = { id: 'workloads', title: 'Workload times' };
  const all = jobCells(ctx.model.cells, sweeps);
  const notApplicable = all.filter((c) => c.not_applicable === c.records);
  const cells = all.filter((c) => c.not_applicable < c.records);
  if (!cells.length) return { ...base, hasData: false, body: noData('this run has no timed jobs besides the size sweeps.', 'dir-walk, large-read, small-reads, git-clone, tar-extract, web-serving and read-scaling report here.') };
  // One row per case: object methods (no cache) with the mounts' cold figures, so "vs best" spans both.
  const caseOf = groupCaseLabels(cells, ctx.model.sizes);
  const rowOf = (c: Cell) => `${c.workload} · ${caseOf(c)}`;
  const rowsOrder = [...new Set(cells.map(rowOf))];
  // Support checks (tar-extract's permissions, timestamps...) have no time: drawn as a verdict.
  const points: RangePoint[] = cells.map((c) => ({
    row: rowOf(c), method: methodLabel(c), median: isSupportCheck(c) ? 0 : c.duration_ms_median ?? 0, lo: c.duration_ms_min ?? 0, hi: c.duration_ms_max ?? 0,
    note: !measured(c) ? (c.unsupported ? 'not supported' : c.did_not_finish ? 'did not finish' : 'failed') : isSupportCheck(c) ? (c.failed_batches ? 'not kept' : 'kept') : c.failed_batches ? `${c.failed_batches} failed` : undefined,
  }));
  const parts: string[] = [];
  if (points.length) {
    const svg = await ctx.charts.svg(rangeDotSpec({ points, rows: rowsOrder.filter((r) => points.some((p) => p.row === r)), xTitle: 'time per batch (ms, log scale)', colors: ctx.colors, methods: ctx.methods }));
    parts.push(figure(svg, 'Time per batch for every other workload (seeds 001–004): dot = median over repetitions, line = min–max; lower is faster. Measurements that did not finish are not drawn.'));
  }
  const rows: TCell[][] = [];
  for (const r of rowsOrder) {
    const group = cells.filter((c) => rowOf(c) === r);
    const best = Math.min(...group.filter(measured).map((c) => c.duration_ms_median ?? Infinity));
    for (const c of group) {
      const timed = measured(c) && !isSupportCheck(c);
      rows.push([r, methodLabel(c), String(c.distinct_repetitions), !timed ? (isSupportCheck(c) ? 'not timed' : '–') : spreadText(c.duration_ms_min, c.duration_ms_median, c.duration_ms_max),
        withFlag(num(c.mib_s_median), c.served_from_cache > 0, c.network_capped > 0), num(c.ops_s_median), latencyText(c.p50_us_median), latencyText(c.p99_us_median),
        c.series?.sustained !== null && c.series ? `${num(c.series.sustained)} ${c.series.unit}` : '–',
        timed && c.duration_ms_median ? `${num(c.duration_ms_median / best)}x` : '–', jobStatus(c)]);
    }
  }
  parts.push(table(['workload · operation', 'method', 'reps', 'time min–median–max', 'MiB/s', 'ops/s', 'p50', 'p99', 'sustained', 'vs best', 'status'], rows,
    { caption: '"vs best": median time relative to the fastest method for that row (1x = fastest); "sustained": the median interval rate after the first 10% of the measurement, where it kept a series. Measurements that did not finish show what they reached and are never ranked.' }));
  if (notApplicable.length) {
    const byWorkload = new Map<string, Set<string>>();
    for (const c of notApplicable) byWorkload.set(c.workload, (byWorkload.get(c.workload) ?? new Set()).add(methodLabel(c)));
    parts.push(`<p class="lead">Not applicable (the workload needs a file system): ${esc([...byWorkload].map(([w, ms]) => `${w} for ${[...ms].join(', ')}`).join('; '))}.</p>`);
  }
  return { ...base, hasData: true, body: parts.join('\n') };
}

function factsSection(ctx: Ctx): Section {
  const { model: input } = ctx;
  const parts: string[] = [];
  const h = input.methods[0];
  const m = input.manifest;
  if (h) {
    const hosts = Math.max(...input.methods.map((x) => x.hosts));
    parts.push('<h3>Host and endpoint</h3>' + table(['fact', 'value'], [
      ['hostname', `${h.hostname}${hosts > 1 ? ` (and ${hosts - 1} more: records from several hosts)` : ''}`],
      ['instance type', h.instance_type],
      ['vCPUs / memory', `${h.vcpus ?? '–'} / ${bytesText(h.memory_bytes)}`],
      ['OS / kernel', `${h.os} / ${h.kernel}`],
      ['region / AZ', `${h.region ?? '–'} / ${h.availability_zone ?? '–'}`],
      ['link limit', h.link_limit_mib_s !== null ? `${num(h.link_limit_mib_s)} MiB/s (${h.link_limit_source ?? 'source unknown'})` : 'unknown: nothing can be flagged as served from a cache'],
      ...(h.link_baseline_mib_s !== null && h.link_baseline_mib_s !== undefined ? [['sustained (baseline)', `${num(h.link_baseline_mib_s)} MiB/s: figures from ${num(NEAR_BASELINE * h.link_baseline_mib_s)} MiB/s up are marked possibly network-capped`]] : []),
      ['endpoint', `${h.endpoint_kind} ${h.endpoint_url ?? '(AWS default)'}${h.endpoint_server ? ` — ${h.endpoint_server}` : ''}`],
    ], { cls: 'facts' }));
  }
  parts.push('<h3>Run</h3>' + table(['fact', 'value'], [
    ['run id', input.runId],
    ['matrix', m?.matrix ?? 'unknown (no manifest)'],
    ['status', m ? `${m.status}${m.problem ? ` — ${m.problem}` : ''}` : 'unknown (no manifest)'],
    ['steps', m ? `${m.steps_done} of ${m.steps_total} ran, ${m.steps_failed} failed` : '–'],
    ['started / ended', m ? `${m.started_at} / ${m.ended_at ?? '—'}` : `${h?.first_recorded_at ?? '–'} / ${h?.last_recorded_at ?? '–'} (first / last record)`],
    ['runner peak memory', m?.peak_rss_bytes ? bytesText(m.peak_rss_bytes) : '–'],
    ['source', input.source],
    ['records', `${num(input.methods.reduce((s, x) => s + x.records, 0))} in this run (${num(input.recordCount)} valid records read, ${num(input.badLineCount)} unreadable lines)`],
    ['other runs at the source', input.otherRuns === null ? 'not listed (query the results table: SELECT DISTINCT run_id FROM results)' : input.otherRuns.length ? input.otherRuns.join(', ') : 'none'],
    ['report generated', input.generatedAt],
  ], { cls: 'facts' }));
  if (input.methods.length) {
    const rows = byOrder(input.methods, ctx.methods, methodLabel).map((x) => [
      methodLabel(x), { cls: 'text', html: `${esc(x.method_version)}${x.method_versions > 1 ? ` <span class="warn">(${x.method_versions} versions in this run)</span>` : ''}` },
      { html: Object.entries(x.method_options).map(([k, v]) => `<code>${esc(k)}=${esc(v)}</code>`).join(' ') || '–', cls: 'options' }, num(x.records),
    ]);
    parts.push('<h3>Methods: versions and options</h3>' + table(['method', 'version', 'options', 'records'], rows));
  }
  if (input.workloads.length) {
    const rows = input.workloads.map((w): TCell[] => [
      w.workload, { html: Object.entries(w.workload_params).map(([k, v]) => `<code>${esc(k)}=${esc(v)}</code>`).join(' ') || '–', cls: 'options' },
      String(w.methods), String(w.repetitions), num(w.records),
    ]);
    parts.push('<h3>Workloads: parameters</h3>' + table(['workload', 'parameters', 'methods', 'repetitions', 'records'], rows));
  }
  return { id: 'facts', title: 'Run facts', hasData: input.methods.length > 0 || !!m, body: parts.join('\n') };
}

// ---------------------------------------------------------------- page

/**
 * The report page of one run, from the query rows (a pure function: rows in, HTML out). One
 * self-contained file: inline CSS, charts as inline SVG, no script, no remote resource.
 */
export async function renderHtmlReport(model: ReportModel): Promise<RenderedReport> {
  const methods = model.methodOrder;
  const ctx: Ctx = {
    model, charts: new ChartRenderer(), methods, colors: methodColors(methods),
    linkLimit: model.link?.limitMibS ?? null,
    linkBaseline: model.link?.baselineMibS ?? null,
  };
  const sweeps = sizeSweeps(model.cells);
  const sections: Section[] = [
    summarySection(ctx),
    problemsSection(ctx),
    await sizeSection(ctx, sweeps),
    ratioSection(ctx, sweeps),
    await timeSeriesSection(ctx),
    await percentileSection(ctx, sweeps),
    await metadataSection(ctx),
    await cacheSection(ctx),
    await semanticsSection(ctx),
    await workloadsSection(ctx, sweeps),
    // Fleet runs only: a run without a fleet step has no such section, rather than an empty one.
    ...[await scalingSection(ctx)].filter((x): x is Section => x !== null),
    requestsSection(ctx),
    factsSection(ctx),
  ];
  const html = page(model, sections);
  return { html, sections: sections.map(({ id, title, hasData }) => ({ id, title, hasData })), warnings: ctx.charts.warnings, charts: (html.match(/<svg /g) ?? []).length };
}

/** The page around the sections: header with the run's status and facts at a glance, contents, sections, footer. */
function page(input: ReportModel, sections: Section[]): string {
  const empty = sections.filter((s) => !s.hasData);
  const m = input.manifest;
  const status = !m ? { cls: 'warn', text: 'status unknown (no run manifest)' }
    : m.status === 'complete' ? { cls: 'good', text: 'complete' } : { cls: 'bad', text: `${m.status} — results incomplete` };
  // "Run complete" is not the whole story when lines at the source could not be read.
  const unreadable = input.badLineCount ? ` — <a href="#problems">${esc(num(input.badLineCount))} unreadable line${input.badLineCount === 1 ? '' : 's'} left out</a>` : '';
  const h = input.methods[0];
  const glance = [
    ['host', h ? `${h.hostname} (${h.instance_type}, ${h.vcpus ?? '?'} vCPUs)` : '–'],
    ['endpoint', h ? `${h.endpoint_kind}${h.endpoint_server ? ` — ${h.endpoint_server}` : ''}` : '–'],
    ['methods', input.methodOrder.join(', ') || '–'],
    ['workloads', input.workloads.map((w) => w.workload).join(', ') || '–'],
    ['records', num(input.methods.reduce((s, x) => s + x.records, 0))],
  ];
  const toc = sections.map((s) => `<li><a href="#${s.id}">${esc(s.title)}</a>${s.hasData ? '' : ' <span class="nodata-tag">no data</span>'}</li>`).join('');
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="s3-access-bench">
<title>s3-access-bench report — ${esc(input.runId)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>s3-access-bench report <span class="run">${esc(input.runId)}</span></h1>
<p class="status ${status.cls === 'good' && input.badLineCount ? 'warn' : status.cls}">Run ${esc(status.text)}${m?.problem ? `: ${esc(m.problem)}` : ''}${unreadable}</p>
<dl class="glance">${glance.map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${esc(v)}</dd></div>`).join('')}</dl>
<nav><ol>${toc}</ol></nav>
${empty.length ? `<p class="nodata-summary">Sections without data in this run: ${empty.map((s) => `<a href="#${s.id}">${esc(s.title)}</a>`).join(', ')}.</p>` : '<p class="nodata-summary">Every section has data.</p>'}
</header>
<main>
${sections.map((s) => `<section id="${s.id}" data-has-data="${s.hasData}">\n<h2>${esc(s.title)}</h2>\n${s.body}\n</section>`).join('\n')}
</main>
<footer>Generated by s3-access-bench from the SQL in assets/queries (the same files Athena runs). Medians and spreads count successful, verified batches only; failures are counted, never averaged in.</footer>
</body>
</html>
`;
  return html;
}
