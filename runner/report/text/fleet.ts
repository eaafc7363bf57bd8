import { caseLabel, methodCacheLabel, type SizeLabels } from '../labels';
import { durationText, latencyText, num, ratio } from '../format';
import type { ReportModel, Row } from '../model';
import { fleetLinkText, type ScalingCase, type ScalingPoint } from '../scaling';
import { markOf } from './marks';
import { textTable, wrapText, type Column } from './table';

/**
 * Fleet runs: "Scaling out" — one step run by 1, 2, 4… clients at once against one store
 * (the model's `scaling` table, from fleet_scaling.sql), printed when the run has a fleet step;
 * and instance types side by side (instance_types.sql), printed when the run has several.
 */

/** A query row's method and cache state, as every table names them. */
const methodCacheOf = (r: Row) => methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant), cache: r.cache });
const what = (r: Row, sizes: SizeLabels) => `${r.workload} ${r.operation}${r.object_size_bytes !== null && r.object_size_bytes !== undefined ? ` ${sizes.of(Number(r.object_size_bytes))}` : ''}${r.io ? ` ${r.io}` : ''}`;

/** "4", or "4 (3 ok, 1 failed)". */
const clientsText = (p: ScalingPoint) => `${p.clients}${p.clientsFailed ? ` (${p.clientsOk} ok, ${p.clientsFailed} failed)` : ''}`;

/** The aggregate, or why there is none. */
function aggregateText(p: ScalingPoint): string {
  if (p.aggregate !== null) return `${num(p.aggregate)}${p.neverAllRunning ? ` (${p.repetitions - p.neverAllRunning} of ${p.repetitions})` : ''}`;
  if (p.repetitions && p.neverAllRunning === p.repetitions) return 'never all running';
  return p.clientsOk ? '–' : 'FAILED';
}

/** One case's table: a row per method and client count. */
function scalingTable(c: ScalingCase, sizes: SizeLabels, width: number, wide: boolean): string[] {
  const columns: Column[] = [
    { head: 'method', wrap: true }, { head: 'clients', wrap: true }, { head: c.unit, align: 'right' }, { head: 'x 1 client', align: 'right' },
    { head: 'ideal', align: 'right' }, { head: 'link limit', align: 'right' }, { head: 'p99', align: 'right' }, { head: 'per client', align: 'right', wrap: true },
    { head: 'from', wrap: true }, ...(wide ? [{ head: 'all running', align: 'right' as const }] : []),
  ];
  const rows = c.methods.flatMap((m) => m.points.map((p, i) => [
    i === 0 ? m.label : '', clientsText(p), aggregateText(p), p.speedup === null ? '–' : ratio(p.speedup, 1), num(p.ideal), fleetLinkText(p, c.unit),
    latencyText(p.p99Us), p.clientMin === null ? '–' : num(p.clientMin) === num(p.clientMax) ? num(p.clientMin) : `${num(p.clientMin)}–${num(p.clientMax)}`,
    p.basis ?? '–', ...(wide ? [p.windowMs === null ? '–' : durationText(p.windowMs)] : []),
  ]));
  const label = `${c.workload} ${caseLabel(c, sizes)} — ${c.unit === 'MiB/s' ? 'aggregate MiB/s' : 'aggregate operations/s'}`;
  return ['', ...wrapText(label, width, '  '), ...textTable(columns, rows, width), ...wrapText(`  verdict: ${c.verdict}`, width, '    ')];
}

/**
 * "Scaling out": per case and method, the aggregate and merged p99 at each client count, its
 * multiple of one client's, the ideal (linear) figure and the link limit; a verdict per case.
 */
export function scalingLines(model: ReportModel, width: number, wide = false): string[] {
  if (!model.scaling.length) return [];
  return [
    '', ...wrapText('Scaling out — one step run by several clients at once against one store. Aggregate: the clients\' bytes (operations) inside the window in which all of them ran (first finish − last start), over that window; p99 from the clients\' latencies merged, never averaged; "from": the clients\' interval series, or their mean rate × the window. Medians over repetitions. The tables above show each workload\'s smallest fleet size only.', width),
    ...model.scaling.flatMap((c) => scalingTable(c, model.sizes, width, wide)),
  ];
}

/** Instance types across, per case and method: median MiB/s (or ops/s where no payload moves). */
export function instanceTypesLines(model: ReportModel, width: number): string[] {
  const types = [...new Set(model.instanceTypes.map((r) => String(r.instance_type)))].sort();
  if (types.length < 2) return [];
  const cases = new Map<string, Row[]>();
  for (const r of model.instanceTypes) {
    const key = `${what(r, model.sizes)}|${methodCacheOf(r)}`;
    cases.set(key, [...(cases.get(key) ?? []), r]);
  }
  const cell = (group: Row[], t: string) => {
    const r = group.find((x) => x.instance_type === t);
    if (!r) return '–';
    if (Number(r.measurements) === 0) return `FAILED (${r.failed_measurements})`;
    const figure = r.mib_s_median !== null && r.mib_s_median !== undefined ? `${num(r.mib_s_median)} MiB/s` : `${num(r.ops_s_median)} op/s`;
    return `${figure}${markOf(r)} (${r.runners})`;
  };
  const columns: Column[] = [{ head: 'case', wrap: true }, { head: 'method', wrap: true }, ...types.map((t) => ({ head: t, align: 'right' as const, wrap: true }))];
  return [
    '', ...wrapText('instance types — median over each type\'s runners and repetitions (MiB/s, or operations/s where no payload moves; runners in brackets)', width, '  '),
    ...textTable(columns, [...cases.values()].map((g) => [what(g[0], model.sizes), methodCacheOf(g[0]), ...types.map((t) => cell(g, t))]), width),
  ];
}
