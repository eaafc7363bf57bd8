import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { CACHE_ORDER } from '../../core/vocabulary';

/**
 * Charts: Vega-Lite specs compiled to Vega and rendered to SVG text at report time (View.toSVG,
 * no browser, no canvas), so the page carries finished pictures and needs no script.
 */

export const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

/** One color per method across every chart of the page (Tableau 10). */
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

export interface MethodColors {
  domain: string[];
  range: string[];
}

export function methodColors(methods: string[]): MethodColors {
  return { domain: methods, range: methods.map((_, i) => PALETTE[i % PALETTE.length]) };
}

/** The page's colors for the methods one chart shows (its legend lists only those). */
function subset(colors: MethodColors, methods: string[]): MethodColors {
  const keep = colors.domain.map((m, i) => [m, colors.range[i]] as const).filter(([m]) => methods.includes(m));
  return keep.length ? { domain: keep.map(([m]) => m), range: keep.map(([, c]) => c) } : colors;
}

/**
 * Text widths for layout. Without a canvas Vega guesses 0.8 em per character, which leaves wide
 * gaps and cuts labels early; this per-character table of a sans-serif face is close to what the
 * browser draws. `textMetrics.width` is Vega's hook for exactly this (vl-convert sets it too).
 */
function textWidth(item: { fontSize?: number; fontWeight?: string | number }, text: unknown): number {
  const str = String(text ?? '');
  const size = item.fontSize != null ? Number(item.fontSize) || 0 : 11;
  let em = 0;
  for (const ch of str) {
    if ('ijl|.,:;!\'`'.includes(ch)) em += 0.28;
    else if ('frt()[]{} -/'.includes(ch)) em += 0.36;
    else if ('mwMW@%'.includes(ch)) em += 0.86;
    else if (ch >= 'A' && ch <= 'Z') em += 0.68;
    else if (ch >= '0' && ch <= '9') em += 0.58;
    else em += ch >= 'a' && ch <= 'z' ? 0.56 : 0.62;
  }
  const bold = item.fontWeight === 'bold' || Number(item.fontWeight) >= 600;
  // A little generous: a label drawn wider than measured would be clipped at the SVG's edge.
  return em * size * (bold ? 1.15 : 1.06);
}
(vega as unknown as { textMetrics: { width: typeof textWidth } }).textMetrics.width = textWidth;

const BASE_CONFIG = {
  font: FONT,
  padding: { left: 5, top: 5, right: 24, bottom: 5 },
  background: 'white',
  view: { stroke: '#d0d7de' },
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal', gridColor: '#eef0f2', domainColor: '#8c959f', tickColor: '#8c959f' },
  header: { labelFontSize: 12, titleFontSize: 12, labelFontWeight: 'bold' },
  legend: { labelFontSize: 11, titleFontSize: 11, orient: 'bottom', direction: 'horizontal', columns: 5, labelLimit: 320 },
  title: { fontSize: 13, anchor: 'start', fontWeight: 'bold' },
};

const BINARY_UNITS: [number, string][] = [[1024 ** 3, 'GiB'], [1024 ** 2, 'MiB'], [1024, 'KiB']];
const DECIMAL_UNITS: [number, string][] = [[1e9, 'GB'], [1e6, 'MB'], [1e3, 'kB']];

/** Vega expression: `pick(unit, name)` for the largest unit not above the value, else `below`. */
const byUnit = (units: [number, string][], pick: (unit: number, name: string) => string, below: string) =>
  units.reduceRight((rest, [unit, name]) => `datum.value >= ${unit} ? ${pick(unit, name)} : ${rest}`, below);

/**
 * Vega expression that labels a byte count: whole binary units (1 KiB, 16 MiB, 1 GiB), multiples
 * of 1000 in decimal units (1 MB, 16 MB, 2.5 GB), anything else in binary units to 3 significant
 * digits (977 KiB) — never "976.563 KiB".
 */
const SIZE_LABEL = (() => {
  const binaryRest = byUnit(BINARY_UNITS, (unit) => `datum.value % ${unit}`, '1');
  const whole = (unit: number, name: string) => `(datum.value / ${unit}) + ' ${name}'`;
  // '.3~r': 3 significant digits in fixed notation (977, 15.3, 1540), trailing zeros dropped.
  const fmt = (unit: number, name: string) => `format(datum.value / ${unit}, '.3~r') + ' ${name}'`;
  return `datum.value < 1000 ? datum.value + ' B' : (${binaryRest}) === 0 ? ${byUnit(BINARY_UNITS, whole, "datum.value + ' B'")} : ` +
    `datum.value % 1000 === 0 ? ${byUnit(DECIMAL_UNITS, fmt, "datum.value + ' B'")} : ${byUnit(BINARY_UNITS, fmt, "datum.value + ' B'")}`;
})();

/** Renders specs to SVG; collects what Vega-Lite and Vega complain about (the tests expect none). */
export class ChartRenderer {
  readonly warnings: string[] = [];
  private count = 0;

  async svg(spec: TopLevelSpec): Promise<string> {
    const warnings = this.warnings;
    const sink = (level: string) => (...args: unknown[]) => {
      warnings.push(`${level}: ${args.map(String).join(' ')}`);
      return logger;
    };
    const logger = {
      level: () => logger,
      error: sink('error'),
      warn: sink('warn'),
      info: () => logger,
      debug: () => logger,
    } as unknown as vega.LoggerInterface;
    const { spec: compiled } = compile({ config: BASE_CONFIG, ...spec } as TopLevelSpec, { logger: logger as never });
    const view = new vega.View(vega.parse(compiled), { renderer: 'none', logger, logLevel: vega.Warn });
    try {
      const svg = await view.toSVG();
      // Several SVGs share one page: give each its own ids (clip paths, gradients).
      const prefix = `c${++this.count}-`;
      return svg
        .replace(/ id="([^"]+)"/g, ` id="${prefix}$1"`)
        .replace(/url\(#([^)]+)\)/g, `url(#${prefix}$1)`)
        .replace(/href="#([^"]+)"/g, `href="#${prefix}$1"`)
        .replace('<svg ', '<svg role="img" ');
    } finally {
      view.finalize();
    }
  }
}

export interface SweepPoint {
  operation: string;
  method: string;
  cache: string;
  series: string;
  size: number;
  median: number;
  lo: number;
  hi: number;
  reps: number;
  cached: boolean;
}

/**
 * A metric against object/file size, both on log scales: one line per method (median over
 * repetitions) with a min–max band, one panel per operation, cache states as dash patterns,
 * measurements faster than the link marked, and the link limit drawn on throughput charts.
 */
export function sizeSweepSpec(opts: {
  points: SweepPoint[];
  yTitle: string;
  colors: MethodColors;
  operations: string[];
  linkLimit: number | null;
  /** d3 format of the y axis: '~g' (plain) by default, '~s' (SI: 10k, 2M) for wide ranges. */
  yFormat?: string;
}): TopLevelSpec {
  const sizes = [...new Set(opts.points.map((p) => p.size))].sort((a, b) => a - b);
  const caches = CACHE_ORDER.filter((c) => opts.points.some((p) => p.cache === c));
  // Half a decade of room either side, so the first and last sizes keep their labels.
  const domain = [sizes[0] / 2, sizes[sizes.length - 1] * 2];
  const x = { field: 'size', type: 'quantitative', title: 'size', scale: { type: 'log', domain, nice: false }, axis: { values: sizes, labelExpr: SIZE_LABEL, grid: true } } as const;
  const y = { type: 'quantitative', title: opts.yTitle, scale: { type: 'log' }, axis: { format: opts.yFormat ?? '~g' } } as const;
  const methods = opts.colors.domain.filter((m) => opts.points.some((p) => p.method === m));
  const strokeLegend = { symbolType: 'stroke', symbolStrokeWidth: 2, symbolSize: 240 };
  const color = { field: 'method', type: 'nominal', title: 'method', scale: subset(opts.colors, methods), legend: strokeLegend } as const;
  // Vega-Lite leaves the stroke off a strokeDash legend when the line has filled points (the dash
  // pattern is then drawn in nothing): give the symbols a stroke of their own.
  const dashLegend = { ...strokeLegend, symbolStrokeColor: '#57606a', encode: { symbols: { update: { stroke: { value: '#57606a' } } } } };
  const layers: unknown[] = [
    {
      mark: { type: 'line', point: { filled: true, size: 28 }, strokeWidth: 1.8 },
      encoding: {
        x, y: { ...y, field: 'median' }, color, detail: { field: 'series' },
        ...(caches.length > 1 ? { strokeDash: { field: 'cache', type: 'nominal', title: 'cache', scale: { domain: caches }, legend: dashLegend } } : {}),
      },
    },
    { mark: { type: 'area', opacity: 0.16 }, encoding: { x, y: { ...y, field: 'lo' }, y2: { field: 'hi' }, color, detail: { field: 'series' } } },
  ];
  if (opts.points.some((p) => p.cached)) {
    layers.push({
      name: 'cached_flags',
      transform: [{ filter: 'datum.cached' }, { calculate: "'above the link limit: served from a cache'", as: 'flag' }],
      mark: { type: 'point', filled: false, size: 150, strokeWidth: 2, color: '#d00000' },
      encoding: { x, y: { ...y, field: 'median' }, shape: { field: 'flag', type: 'nominal', title: null, scale: { range: ['diamond'] }, legend: { symbolType: 'diamond' } } },
    });
  }
  if (opts.linkLimit !== null) {
    // One datum per panel (an aggregate over the facet's rows): else the rule and its label are
    // drawn once per data row, dozens on top of each other.
    const onePerPanel = [{ aggregate: [{ op: 'count', as: 'points' }] }];
    layers.push({
      name: 'link_limit',
      transform: onePerPanel,
      mark: { type: 'rule', color: '#d00000', strokeDash: [4, 3], strokeWidth: 1 },
      encoding: { y: { datum: opts.linkLimit, type: 'quantitative' } },
    });
    layers.push({
      name: 'link_limit_label',
      transform: onePerPanel,
      mark: { type: 'text', color: '#d00000', align: 'left', baseline: 'bottom', dx: 3, dy: -2, fontSize: 10 },
      encoding: { x: { value: 0 }, y: { datum: opts.linkLimit, type: 'quantitative' }, text: { value: 'link limit' } },
    });
  }
  const panelWidth = opts.operations.length > 3 ? 190 : opts.operations.length > 1 ? 280 : 420;
  return {
    data: { values: opts.points },
    facet: { column: { field: 'operation', type: 'nominal', title: null, sort: opts.operations } },
    spec: { width: panelWidth, height: 210, layer: layers },
    resolve: { scale: { y: 'shared' } },
  } as unknown as TopLevelSpec;
}

export interface RangePoint {
  /** Row label (operation, size, probe, test...). */
  row: string;
  method: string;
  median: number;
  lo: number;
  hi: number;
  /** Text printed right of the point (success rate, "not supported"...). */
  note?: string;
}

/** Pixels per method within a row: rows hold one slot per method. */
const SLOT = 9;

/**
 * A dot plot on a log axis: for each row and method the median as a dot and the min–max over
 * repetitions as a line; rows keep their order, methods sit side by side within a row.
 */
export function rangeDotSpec(opts: { points: RangePoint[]; rows: string[]; xTitle: string; colors: MethodColors; methods: string[]; title?: string }): TopLevelSpec {
  const methods = opts.methods.filter((m) => opts.points.some((p) => p.method === m));
  const y = { field: 'row', type: 'nominal', title: null, sort: opts.rows, axis: { labelLimit: 360 } } as const;
  const yOffset = { field: 'method', type: 'nominal', sort: methods, scale: { domain: methods } } as const;
  const x = { type: 'quantitative', title: opts.xTitle, scale: { type: 'log' }, axis: { format: '~g' } } as const;
  const color = { field: 'method', type: 'nominal', title: 'method', scale: subset(opts.colors, methods) } as const;
  const measured = opts.points.filter((p) => p.median > 0);
  const layers: unknown[] = [
    { transform: [{ filter: 'datum.median > 0' }], mark: { type: 'point', filled: true, size: 36, opacity: 1 }, encoding: { y, yOffset, x: { ...x, field: 'median' }, color } },
    { transform: [{ filter: 'datum.median > 0' }], mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { y, yOffset, x: { ...x, field: 'lo' }, x2: { field: 'hi' }, color } },
  ];
  if (opts.points.some((p) => p.note)) {
    // Notes sit right of the max, or at the left edge for rows without a measurement.
    const left = measured.length ? Math.min(...measured.map((p) => p.lo)) : 1;
    const data = opts.points.filter((p) => p.note).map((p) => ({ ...p, at: p.median > 0 ? p.hi : left }));
    layers.push({
      data: { values: data },
      mark: { type: 'text', align: 'left', baseline: 'middle', dx: 5, fontSize: 9, color: '#57606a' },
      encoding: { y, yOffset, x: { ...x, field: 'at' }, text: { field: 'note' } },
    });
  }
  return {
    ...(opts.title ? { title: opts.title } : {}),
    data: { values: opts.points },
    width: 560,
    // With an offset channel the step is the size of one method's slot.
    height: { step: SLOT },
    layer: layers,
  } as unknown as TopLevelSpec;
}

export interface PercentilePoint {
  /** Facet column (an operation), when the chart has several. */
  panel: string;
  row: string;
  method: string;
  p50: number;
  p95: number;
  p99: number;
}

/**
 * p50, p95 and p99 per row and method on a log axis: a line from p50 to p99 and a mark at each;
 * one column per operation when `panels` has several.
 */
export function percentileSpec(opts: { points: PercentilePoint[]; rows: string[]; panels: string[]; colors: MethodColors; methods: string[] }): TopLevelSpec {
  const points = opts.points.filter((p) => p.p50 > 0 && p.p99 > 0);
  const methods = opts.methods.filter((m) => points.some((p) => p.method === m));
  const y = { field: 'row', type: 'nominal', title: null, sort: opts.rows, axis: { labelLimit: 300 } } as const;
  const yOffset = { field: 'method', type: 'nominal', sort: methods, scale: { domain: methods } } as const;
  const x = { type: 'quantitative', title: 'latency (µs, log scale)', scale: { type: 'log' }, axis: { format: '~s', labelOverlap: true } } as const;
  const color = { field: 'method', type: 'nominal', title: 'method', scale: subset(opts.colors, methods) } as const;
  const layer = [
    {
      transform: [{ fold: ['p50', 'p95', 'p99'], as: ['percentile', 'us'] }],
      mark: { type: 'point', filled: true, size: 30, opacity: 1 },
      encoding: {
        y, yOffset, x: { ...x, field: 'us' }, color,
        shape: { field: 'percentile', type: 'nominal', title: 'percentile', scale: { domain: ['p50', 'p95', 'p99'], range: ['circle', 'triangle-right', 'square'] } },
      },
    },
    { mark: { type: 'rule', strokeWidth: 1.2 }, encoding: { y, yOffset, x: { ...x, field: 'p50' }, x2: { field: 'p99' }, color } },
  ];
  if (opts.panels.length > 1) {
    return {
      data: { values: points },
      facet: { column: { field: 'panel', type: 'nominal', title: null, sort: opts.panels } },
      spec: { width: opts.panels.length > 3 ? 170 : 260, height: { step: SLOT }, layer },
      resolve: { scale: { x: 'shared' } },
    } as unknown as TopLevelSpec;
  }
  return { data: { values: points }, width: 560, height: { step: SLOT }, layer } as unknown as TopLevelSpec;
}

export interface CachePoint {
  panel: string;
  method: string;
  cache: string;
  value: number;
}

/** Cold and warm side by side: per panel (workload, operation, size) a line per method across cache states. */
export function cacheSpec(opts: { points: CachePoint[]; panels: string[]; yTitle: string; colors: MethodColors }): TopLevelSpec {
  const caches = CACHE_ORDER.filter((c) => opts.points.some((p) => p.cache === c));
  return {
    data: { values: opts.points.filter((p) => p.value > 0) },
    facet: { field: 'panel', type: 'nominal', title: null, sort: opts.panels, header: { labelLimit: 260 } },
    columns: 3,
    spec: {
      width: 230,
      height: 170,
      layer: [
        {
          mark: { type: 'line', point: { filled: true, size: 40 }, strokeWidth: 1.8 },
          encoding: {
            x: { field: 'cache', type: 'ordinal', title: null, sort: caches, scale: { domain: caches }, axis: { labelAngle: 0 } },
            y: { field: 'value', type: 'quantitative', title: opts.yTitle, scale: { type: 'log' }, axis: { format: '~g' } },
            color: { field: 'method', type: 'nominal', title: 'method', scale: subset(opts.colors, [...new Set(opts.points.map((p) => p.method))]) },
          },
        },
      ],
    },
    resolve: { scale: { y: 'independent' } },
  } as unknown as TopLevelSpec;
}

export interface ChangePoint {
  label: string;
  change: number;
  better: boolean;
}

/** Per-metric change between two runs, in percent, better green and worse red. */
export function changeSpec(opts: { points: ChangePoint[]; title: string }): TopLevelSpec {
  return {
    title: opts.title,
    data: { values: opts.points.map((p) => ({ ...p, verdict: p.better ? 'better' : 'worse' })) },
    width: 520,
    height: { step: 14 },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'label', type: 'nominal', title: null, sort: opts.points.map((p) => p.label), axis: { labelLimit: 360 } },
      x: { field: 'change', type: 'quantitative', title: 'change from run A to run B (%)' },
      color: { field: 'verdict', type: 'nominal', title: null, scale: { domain: ['better', 'worse'], range: ['#2da44e', '#cf222e'] } },
    },
  } as unknown as TopLevelSpec;
}

/** One datum of a time-series chart: an interval's rate, or a method's peak or sustained rate. */
export interface TimePoint {
  panel: string;
  method: string;
  kind: 'interval' | 'peak' | 'sustained';
  /** Seconds into the measurement (the interval's middle; the peak interval's for 'peak'). */
  t: number;
  rate: number;
}

/**
 * Throughput over time, one panel per case, one line per method (one measurement each: the
 * repetition with the median sustained rate), its peak marked by a triangle and its sustained rate
 * (the median interval after the first 10%) by a dashed rule.
 */
export function timeSeriesSpec(opts: { points: TimePoint[]; panels: string[]; colors: MethodColors; yTitle: string }): TopLevelSpec {
  const methods = opts.colors.domain.filter((m) => opts.points.some((p) => p.method === m));
  const color = { field: 'method', type: 'nominal', title: 'method', scale: subset(opts.colors, methods) } as const;
  const x = { field: 't', type: 'quantitative', title: 'seconds into the measurement' } as const;
  const y = { field: 'rate', type: 'quantitative', title: opts.yTitle, scale: { zero: true } } as const;
  const layer = [
    { name: 'intervals', transform: [{ filter: "datum.kind === 'interval'" }], mark: { type: 'line', strokeWidth: 1.4 }, encoding: { x, y, color } },
    { name: 'sustained', transform: [{ filter: "datum.kind === 'sustained'" }], mark: { type: 'rule', strokeDash: [5, 3], strokeWidth: 1.2 }, encoding: { y, color } },
    { name: 'peak', transform: [{ filter: "datum.kind === 'peak'" }], mark: { type: 'point', shape: 'triangle-up', filled: true, size: 90 }, encoding: { x, y, color } },
  ];
  return {
    data: { values: opts.points },
    facet: { field: 'panel', type: 'nominal', title: null, sort: opts.panels, header: { labelLimit: 420 } },
    columns: 2,
    spec: { width: 380, height: 170, layer },
    resolve: { scale: { y: 'independent', x: 'independent' } },
  } as unknown as TopLevelSpec;
}

export interface ScalingChartPoint {
  method: string;
  clients: number;
  /** 'measured' (the aggregate) or 'ideal (linear)' (clients × the 1-client figure). */
  kind: string;
  value: number;
}

/**
 * Scaling out, one case: the aggregate against client count per method (solid), its ideal linear
 * line from the 1-client figure (dashed, same color), the link limit of the fleet's hosts where
 * known (red, dashed; flat where the clients share one host); beside it p99 against client count.
 */
export function scalingSpec(opts: {
  points: ScalingChartPoint[];
  p99: { method: string; clients: number; p99Ms: number }[];
  links: { clients: number; limit: number }[];
  linkLabel: string;
  clientCounts: number[];
  yTitle: string;
  /** A log axis: the figures span so many powers of ten that a linear one would draw the lower ones flat at zero. */
  logScale: boolean;
  colors: MethodColors;
}): TopLevelSpec {
  const methods = opts.colors.domain.filter((m) => opts.points.some((p) => p.method === m) || opts.p99.some((p) => p.method === m));
  const yScale = opts.logScale ? { type: 'log' } : { zero: true };
  const color = { field: 'method', type: 'nominal', title: 'method', scale: subset(opts.colors, methods), legend: { symbolType: 'stroke', symbolStrokeWidth: 2 } } as const;
  const x = { field: 'clients', type: 'quantitative', title: 'clients', scale: { domain: [Math.min(...opts.clientCounts), Math.max(...opts.clientCounts)], nice: false }, axis: { values: opts.clientCounts, format: 'd' } } as const;
  const kinds = ['measured', 'ideal (linear)'].filter((k) => opts.points.some((p) => p.kind === k));
  const throughput: unknown[] = [{
    name: 'aggregate',
    data: { values: opts.points },
    mark: { type: 'line', point: { filled: true, size: 30 }, strokeWidth: 1.8 },
    encoding: {
      x, y: { field: 'value', type: 'quantitative', title: opts.yTitle, scale: yScale, ...(opts.logScale ? { axis: { format: '~g' } } : {}) }, color, detail: { field: 'kind' },
      strokeDash: { field: 'kind', type: 'nominal', title: null, scale: { domain: kinds, range: kinds.map((k) => (k === 'measured' ? [1, 0] : [4, 3])) }, legend: { symbolType: 'stroke', symbolStrokeColor: '#57606a', symbolStrokeWidth: 2, symbolSize: 240, encode: { symbols: { update: { stroke: { value: '#57606a' } } } } } },
    },
  }];
  if (opts.links.length) {
    const last = [...opts.links].sort((a, b) => b.clients - a.clients)[0];
    throughput.push(
      { name: 'link_limit', data: { values: opts.links }, mark: { type: 'line', color: '#d00000', strokeDash: [4, 3], strokeWidth: 1, point: false }, encoding: { x, y: { field: 'limit', type: 'quantitative' } } },
      {
        name: 'link_limit_label', data: { values: [last] }, mark: { type: 'text', color: '#d00000', align: 'right', baseline: 'bottom', dy: -3, fontSize: 10 },
        encoding: { x, y: { field: 'limit', type: 'quantitative' }, text: { value: opts.linkLabel } },
      },
    );
  }
  const latency = {
    data: { values: opts.p99 },
    mark: { type: 'line', point: { filled: true, size: 30 }, strokeWidth: 1.8 },
    encoding: { x, y: { field: 'p99Ms', type: 'quantitative', title: 'p99 latency (ms, merged over the clients)', scale: { zero: true } }, color },
  };
  return {
    hconcat: [{ width: 360, height: 220, layer: throughput }, { width: 260, height: 220, ...latency }],
    resolve: { scale: { color: 'shared', strokeDash: 'independent' } },
  } as unknown as TopLevelSpec;
}
