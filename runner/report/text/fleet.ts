import { methodCacheLabel, type SizeLabels } from '../labels';
import { bytesText, num } from '../format';
import type { ReportModel, Row } from '../model';
import { markOf } from './marks';
import { textTable, wrapText, type Column } from './table';

/**
 * Runs on several runners (AWS mode): the aggregate throughput of one step run by N runners at
 * once (scale_out.sql), and instance types side by side (instance_types.sql). Printed only when
 * the run has more than one runner or instance type.
 */

/** A query row's method and cache state, as every table names them. */
const methodCacheOf = (r: Row) => methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant), cache: r.cache });
const what = (r: Row, sizes: SizeLabels) => `${r.workload} ${r.operation}${r.object_size_bytes !== null && r.object_size_bytes !== undefined ? ` ${sizes.of(Number(r.object_size_bytes))}` : ''}${r.io ? ` ${r.io}` : ''}`;

/** Per step and operation: runners, bytes, window, overlap, aggregate MiB/s against the sum of the runners' own rates. */
export function scaleOutLines(model: ReportModel, width: number): string[] {
  const scaled = model.scaleOut.filter((r) => Number(r.runners) > 1);
  if (!scaled.length) return [];
  const columns: Column[] = [
    { head: 'step', align: 'right' }, { head: 'case', wrap: true }, { head: 'method', wrap: true }, { head: 'runners', wrap: true }, { head: 'total', align: 'right' },
    { head: 'window', align: 'right' }, { head: 'overlap', align: 'right' }, { head: 'aggregate MiB/s', align: 'right' }, { head: 'sum of runners', align: 'right' },
  ];
  const rows = scaled.map((r) => {
    const windowMs = Number(r.window_ms);
    const failed = Number(r.failed_measurements);
    return [
      `${r.step}/${r.repetition}`, what(r, model.sizes), methodCacheOf(r),
      `${r.runners}${Number(r.instance_types) > 1 ? ` (${r.instance_types} types)` : ` × ${r.instance_type}`}${failed ? ` (+${failed} failed)` : ''}`,
      bytesText(r.total_bytes), `${num(windowMs / 1000)} s`, `${windowMs > 0 ? Math.round((100 * Number(r.overlap_ms)) / windowMs) : 0}%`,
      `${num(r.aggregate_mib_s)}${markOf(r)}`, num(r.sum_of_runner_mib_s),
    ];
  });
  return [
    '', ...wrapText('scale-out — one step on several runners at once: aggregate = total bytes / (latest end − earliest start); step/repetition', width, '  '),
    ...textTable(columns, rows, width),
    ...wrapText('"overlap": share of the window during which every runner was measuring; a low overlap means the runners did not run at the same moment, and the aggregate understates what they could do together.', width),
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
