import { durationText, latencyText, num, ratio } from '../format';
import { scalingSpec, type ScalingChartPoint } from '../html/charts';
import { esc, slug } from '../html/format';
import { figure, table } from '../html/parts';
import { caseLabel, type SizeLabels } from '../labels';
import type { ReportModel } from '../model';
import { fleetLinkText, type ScalingCase, type ScalingPoint } from '../scaling';
import { textTable, wrapText, type Column } from '../text/table';
import type { DataTable, PageContext, ReportSection, TextContext } from './section';

/**
 * "Scaling out" (fleet runs only): one step run by 1, 2, 4… clients at once against one store — per
 * case and method, the aggregate and merged p99 at each client count, its multiple of one client's,
 * the ideal (linear) figure and the link limit; a verdict per case (the model's `scaling` table).
 */

/** "4", or "4 (3 ok, 1 failed)". */
const clientsText = (p: ScalingPoint) => `${p.clients}${p.clientsFailed ? ` (${p.clientsOk} ok, ${p.clientsFailed} failed)` : ''}`;
/** How far apart the clients began (the 1-client row has no spread). */
const spreadText = (p: ScalingPoint) => (p.clients === 1 || p.startSpreadMs === null ? '–' : durationText(p.startSpreadMs));
/** The clients' own figures: one, or the range. */
const perClientText = (p: ScalingPoint) => (p.clientMin === null ? '–' : num(p.clientMin) === num(p.clientMax) ? num(p.clientMin) : `${num(p.clientMin)}–${num(p.clientMax)}`);

/** The link limit of each fleet size: the least any method's hosts gave (they are the same runners). */
function linkLimits(c: ScalingCase, clientCounts: number[]): { clients: number; limit: number }[] {
  const all = c.methods.flatMap((m) => m.points);
  return c.unit !== 'MiB/s' ? [] : clientCounts.flatMap((k) => {
    const known = all.filter((p) => p.clients === k && p.linkLimitMibS !== null).map((p) => p.linkLimitMibS!);
    return known.length ? [{ clients: k, limit: Math.min(...known) }] : [];
  });
}

/** A linear axis from zero draws a figure under a tenth of the highest as a flat line at zero: past this span, a log axis. */
const LOG_SPAN = 10;
/** The least share of the axis the figures keep when the link limit is drawn beside them. */
const DATA_SHARE_WITH_LINK = 1 / 3;

/**
 * How a case's chart draws its figures (measured and ideal, all > 0) and the link limits: a log axis
 * when they span more than LOG_SPAN×; the link limit only where the axis that reaches it still
 * gives the figures at least DATA_SHARE_WITH_LINK of its height (else it would flatten them, and
 * the table gives it).
 */
export function scalingAxis(values: number[], limits: number[]): { logScale: boolean; drawLinks: boolean } {
  const shown = values.filter((v) => v > 0);
  if (!shown.length) return { logScale: false, drawLinks: limits.length > 0 };
  const lo = Math.min(...shown);
  const hi = Math.max(...shown);
  const logScale = hi / lo > LOG_SPAN;
  if (!limits.length) return { logScale, drawLinks: false };
  const top = Math.max(hi, ...limits);
  const share = logScale ? Math.log(hi / lo) / Math.log(top / lo) : hi / top;
  return { logScale, drawLinks: share >= DATA_SHARE_WITH_LINK };
}

/** One case's chart: aggregate against client count with the ideal and the link limit (where it hides nothing), and the merged p99. */
async function scalingChart(ctx: PageContext, c: ScalingCase): Promise<string> {
  const figures: ScalingChartPoint[] = c.methods.flatMap((m) => m.points.flatMap((p) => [
    ...(p.aggregate !== null ? [{ method: m.label, clients: p.clients, kind: 'measured', value: p.aggregate }] : []),
    ...(p.ideal !== null ? [{ method: m.label, clients: p.clients, kind: 'ideal (linear)', value: p.ideal }] : []),
  ]));
  const p99 = c.methods.flatMap((m) => m.points.filter((p) => p.p99Us !== null).map((p) => ({ method: m.label, clients: p.clients, p99Ms: p.p99Us! / 1000 })));
  const all = c.methods.flatMap((m) => m.points);
  const clientCounts = [...new Set(all.map((p) => p.clients))].sort((a, b) => a - b);
  const links = linkLimits(c, clientCounts);
  const { logScale, drawLinks } = scalingAxis(figures.map((p) => p.value), links.map((l) => l.limit));
  // A log axis has no zero: a figure of 0 stays in the table only.
  const points = logScale ? figures.filter((p) => p.value > 0) : figures;
  const zeroLeftOff = points.length < figures.length ? '; figures of 0 are in the table only' : '';
  const oneHost = all.every((p) => p.hosts <= 1);
  const svg = await ctx.charts.svg(scalingSpec({
    points, p99, links: drawLinks ? links : [], clientCounts, colors: ctx.colors, logScale,
    yTitle: `${c.unit === 'MiB/s' ? 'aggregate throughput (MiB/s)' : 'aggregate operations/s'}${logScale ? ', log' : ''}`,
    linkLabel: oneHost ? 'link limit (one host)' : 'link limit of N runners',
  }));
  const linkWords = oneHost ? 'of the one host the clients share' : 'of the N runners together';
  const linkNote = !links.length ? '' : drawLinks ? `; red, the link limit ${linkWords}`
    : `; the link limit ${linkWords} (${num(Math.max(...links.map((l) => l.limit)))} MiB/s) is left off the chart: on one axis with it the figures would draw as flat lines (it is in the table)`;
  return figure(svg, `Left: aggregate ${c.unit === 'MiB/s' ? 'throughput' : 'operations per second'} against client count, one solid line per method; dashed in the same color, the ideal: ` +
    `the 1-client figure × clients${linkNote}${logScale ? `; a log axis, as the figures span more than ${LOG_SPAN}×${zeroLeftOff}` : ''}. Right: p99 of the clients' latencies merged.`);
}

/** One case of Scaling out: its chart, verdict and table. */
async function scalingCase(ctx: PageContext, c: ScalingCase): Promise<string> {
  const label = `${c.workload} · ${caseLabel(c, ctx.model.sizes)}`;
  const rows = c.methods.flatMap((m) => m.points.map((p) => [
    m.label, clientsText(p),
    p.aggregate !== null ? num(p.aggregate) : p.repetitions && p.neverAllRunning === p.repetitions ? 'never all running' : '–',
    p.speedup === null ? '–' : ratio(p.speedup, 1), num(p.ideal), fleetLinkText(p, c.unit), latencyText(p.p99Us), perClientText(p), p.basis ?? '–', spreadText(p), durationText(p.windowMs),
  ]));
  return `<h3 id="scaling-${slug(label)}">${esc(label)}</h3>` + await scalingChart(ctx, c) +
    `<p class="verdict"><strong>Verdict:</strong> ${esc(c.verdict)}</p>` +
    table(['method', 'clients', `aggregate ${c.unit}`, '× 1 client', 'ideal', 'link limit', 'p99', 'per client', 'from', 'start spread', 'all running'], rows);
}

async function html(ctx: PageContext): Promise<string> {
  const parts = ['<p class="lead">One step run by several clients at once against one store. The aggregate counts each client\'s bytes (operations) inside the window in which all ' +
    'of them were running — the last start to the first finish — over that window: from the client\'s interval series where it kept one, else its mean rate × the window ("from"). ' +
    '"start spread": how far apart the clients began (the last start − the first; the largest over repetitions). ' +
    'p99 comes from the clients\' latency histograms merged bucket by bucket, never from averaged percentiles. Medians over repetitions.</p>'];
  for (const c of ctx.model.scaling) parts.push(await scalingCase(ctx, c));
  return parts.join('\n');
}

/** The aggregate, or why there is none. */
function aggregateText(p: ScalingPoint): string {
  if (p.aggregate !== null) return `${num(p.aggregate)}${p.neverAllRunning ? ` (${p.repetitions - p.neverAllRunning} of ${p.repetitions})` : ''}`;
  if (p.repetitions && p.neverAllRunning === p.repetitions) return 'never all running';
  return p.clientsOk ? '–' : 'FAILED';
}

/** One case's text table: a row per method and client count. */
function scalingTable(c: ScalingCase, sizes: SizeLabels, width: number, wide: boolean): string[] {
  const columns: Column[] = [
    { head: 'method', wrap: true }, { head: 'clients', wrap: true }, { head: c.unit, align: 'right' }, { head: 'x 1 client', align: 'right' },
    { head: 'ideal', align: 'right' }, { head: 'link limit', align: 'right' }, { head: 'p99', align: 'right' }, { head: 'per client', align: 'right', wrap: true },
    { head: 'from', wrap: true }, { head: 'spread', align: 'right' }, ...(wide ? [{ head: 'all running', align: 'right' as const }] : []),
  ];
  const rows = c.methods.flatMap((m) => m.points.map((p, i) => [
    i === 0 ? m.label : '', clientsText(p), aggregateText(p), p.speedup === null ? '–' : ratio(p.speedup, 1), num(p.ideal), fleetLinkText(p, c.unit),
    latencyText(p.p99Us), perClientText(p), p.basis ?? '–', spreadText(p), ...(wide ? [p.windowMs === null ? '–' : durationText(p.windowMs)] : []),
  ]));
  const label = `${c.workload} ${caseLabel(c, sizes)} — ${c.unit === 'MiB/s' ? 'aggregate MiB/s' : 'aggregate operations/s'}`;
  return ['', ...wrapText(label, width, '  '), ...textTable(columns, rows, width), ...wrapText(`  verdict: ${c.verdict}`, width, '    ')];
}

/** The text form: the cases' tables; `wide` adds the window in which all clients ran. */
export function scalingLines({ model, width, wide }: TextContext): string[] {
  if (!model.scaling.length) return [];
  return [
    '', ...wrapText('Scaling out — one step run by several clients at once against one store. Aggregate: the clients\' bytes (operations) inside the window in which all of them ran (first finish − last start), over that window; p99 from the clients\' latencies merged, never averaged; "from": the clients\' interval series, or their mean rate × the window; "spread": how far apart the clients began (the last start − the first; the largest over repetitions). Medians over repetitions. The other tables show one client\'s figures only.', width),
    ...model.scaling.flatMap((c) => scalingTable(c, model.sizes, width, wide)),
  ];
}

function scalingTables(model: ReportModel): DataTable[] {
  return [{
    name: 'scaling', columns: ['workload', 'operation', 'object_size_bytes', 'cache', 'method', 'method_variant', 'label', 'unit', 'clients', 'repetitions',
      'never_all_running', 'clients_ok', 'clients_failed', 'failed_clients', 'start_spread_ms', 'aggregate', 'speedup', 'ideal', 'fleet_link_limit_mib_s', 'hosts', 'p99_us', 'client_min', 'client_max',
      'window_ms', 'basis', 'verdict'],
    rows: model.scaling.flatMap((c) => c.methods.flatMap((m) => m.points.map((p) => [
      c.workload, c.operation, c.object_size_bytes, c.cache, m.method, m.method_variant, m.label, c.unit, p.clients, p.repetitions,
      p.neverAllRunning, p.clientsOk, p.clientsFailed, p.failedClients.join(', ') || null, p.startSpreadMs, p.aggregate, p.speedup, p.ideal, p.linkLimitMibS, p.hosts, p.p99Us, p.clientMin, p.clientMax,
      p.windowMs, p.basis, c.verdict,
    ]))),
  }];
}

export const scalingSection: ReportSection = {
  id: 'scaling',
  title: 'Scaling out',
  hasData: (model) => model.scaling.length > 0,
  // A run without a fleet step has no such section, rather than an empty one.
  omitWithoutData: true,
  html,
  text: { lines: scalingLines },
  tables: scalingTables,
};
