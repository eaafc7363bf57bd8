import { num } from '../format';
import { type SizeLabels } from '../labels';
import { methodCacheLabel } from '../../core/vocabulary';
import type { Row } from '../rows';
import { markOf } from '../text/marks';
import { textTable, wrapText, type Column } from '../text/table';
import type { ReportSection, TextContext } from './section';

/**
 * "Instance types": a run on several instance types, side by side (instance_types.sql) — in the
 * text summary only; the page has no such section yet.
 */

/** A query row's method and cache state, as every table names them. */
const methodCacheOf = (r: Row) => methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant), cache: r.cache });
const what = (r: Row, sizes: SizeLabels) => `${r.workload} ${r.operation}${r.object_size_bytes !== null && r.object_size_bytes !== undefined ? ` ${sizes.of(Number(r.object_size_bytes))}` : ''}${r.io ? ` ${r.io}` : ''}`;

const typesOf = (rows: Row[]) => [...new Set(rows.map((r) => String(r.instance_type)))].sort();

/** One case's figure on one type: median MiB/s (or ops/s), its mark, and its runners. */
function typeCell(group: Row[], t: string): string {
  const r = group.find((x) => x.instance_type === t);
  if (!r) return '–';
  if (Number(r.measurements) === 0) return `FAILED (${r.failed_measurements})`;
  const figure = r.mib_s_median !== null && r.mib_s_median !== undefined ? `${num(r.mib_s_median)} MiB/s` : `${num(r.ops_s_median)} op/s`;
  return `${figure}${markOf(r)} (${r.runners})`;
}

/** Instance types across, per case and method: median MiB/s (or ops/s where no payload moves). */
function instanceTypesLines({ model, width }: TextContext): string[] {
  const types = typesOf(model.instanceTypes);
  if (types.length < 2) return [];
  const cases = new Map<string, Row[]>();
  for (const r of model.instanceTypes) {
    const key = `${what(r, model.sizes)}|${methodCacheOf(r)}`;
    cases.set(key, [...(cases.get(key) ?? []), r]);
  }
  const columns: Column[] = [{ head: 'case', wrap: true }, { head: 'method', wrap: true }, ...types.map((t) => ({ head: t, align: 'right' as const, wrap: true }))];
  return [
    '', ...wrapText('instance types — median over each type\'s runners and repetitions (MiB/s, or operations/s where no payload moves; runners in brackets)', width, '  '),
    ...textTable(columns, [...cases.values()].map((g) => [what(g[0], model.sizes), methodCacheOf(g[0]), ...types.map((t) => typeCell(g, t))]), width),
  ];
}

export const instanceTypesSection: ReportSection = {
  id: 'instance-types',
  title: 'Instance types',
  hasData: (model) => typesOf(model.instanceTypes).length > 1,
  html: null,
  text: { lines: instanceTypesLines },
};
