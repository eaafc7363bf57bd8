import Table from 'cli-table3';
import { formatSize } from '../core/units';
import { num } from './format';
import { methodCacheLabel } from '../core/vocabulary';

/**
 * Text tables for runs on several runners (AWS mode, issue 6): the aggregate throughput of one step
 * run by N runners at once (scale_out.sql), and instance types side by side (instance_types.sql).
 * Both are printed only when the run has more than one runner or instance type.
 */
type Row = Record<string, unknown>;
type Out = (line: string) => void;

const STYLE = { head: [] as string[], border: [] as string[] };

const label = (r: Row) => methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant), cache: r.cache });
const what = (r: Row) => `${r.workload} ${r.operation}${r.object_size_bytes !== null && r.object_size_bytes !== undefined ? ` ${formatSize(Number(r.object_size_bytes))}` : ''}${r.io ? ` ${r.io}` : ''}`;

/** Per step and operation: runners, bytes, window, overlap, aggregate MiB/s against the sum of the runners' own rates. */
export function printScaleOut(rows: Row[], out: Out): void {
  const scaled = rows.filter((r) => Number(r.runners) > 1);
  if (!scaled.length) return;
  out('');
  out('scale-out — one step on several runners at once: aggregate = total bytes / (latest end − earliest start)');
  const table = new Table({
    head: ['step', 'method', 'workload / operation', 'rep', 'runners', 'total', 'window s', 'overlap', 'aggregate MiB/s', 'sum of runners MiB/s', 'per runner MiB/s (min–max)'],
    style: STYLE,
  });
  for (const r of scaled) {
    const windowMs = Number(r.window_ms);
    const overlap = windowMs > 0 ? Math.round((100 * Number(r.overlap_ms)) / windowMs) : 0;
    const failed = Number(r.failed_measurements);
    table.push([
      String(r.step), label(r), what(r), String(r.repetition),
      `${r.runners}${Number(r.instance_types) > 1 ? ` (${r.instance_types} types)` : ` × ${r.instance_type}`}${failed ? ` (+${failed} failed)` : ''}`,
      formatSize(Number(r.total_bytes)), num(windowMs / 1000), `${overlap}%`,
      `${num(r.aggregate_mib_s)}${Number(r.served_from_cache) ? ' (cache!)' : ''}`, num(r.sum_of_runner_mib_s),
      `${num(r.runner_mib_s_min)}–${num(r.runner_mib_s_max)}`,
    ]);
  }
  out(table.toString());
  out('"overlap": share of the window during which every runner was measuring; a low overlap means the runners did not run at the same moment, and the aggregate understates what they could do together.');
}

/** Instance types across, per workload case and method: median MiB/s (or ops/s where no payload moves). */
export function printInstanceTypes(rows: Row[], out: Out): void {
  const types = [...new Set(rows.map((r) => String(r.instance_type)))].sort();
  if (types.length < 2) return;
  out('');
  out('instance types — median over each type\'s runners and repetitions (MiB/s, or ops/s where no payload moves)');
  const table = new Table({ head: ['workload / operation', 'method', ...types.map((t) => `${t}`)], style: STYLE });
  const cases = new Map<string, Row[]>();
  for (const r of rows) {
    const key = `${what(r)}|${label(r)}`;
    cases.set(key, [...(cases.get(key) ?? []), r]);
  }
  for (const group of cases.values()) {
    const cell = (t: string) => {
      const r = group.find((x) => x.instance_type === t);
      if (!r) return '–';
      if (Number(r.measurements) === 0) return `FAILED (${r.failed_measurements})`;
      const figure = r.mib_s_median !== null && r.mib_s_median !== undefined ? `${num(r.mib_s_median)} MiB/s` : `${num(r.ops_s_median)} ops/s`;
      return `${figure} (${r.runners} runner${Number(r.runners) === 1 ? '' : 's'})${Number(r.served_from_cache) ? ' (cache!)' : ''}`;
    };
    table.push([what(group[0]), label(group[0]), ...types.map(cell)]);
  }
  out(table.toString());
}
