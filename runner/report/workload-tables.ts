import Table from 'cli-table3';
import { formatSize } from '../core/units';
import { cacheRank, methodCacheLabel, methodLabel } from '../core/vocabulary';
import { methodRank } from '../methods/catalog';
import { inDeclaredOrder } from './order';
import { num, ratio } from './format';

/**
 * Text tables for the file-system workloads, each in the shape of the published table it
 * reproduces (seed 002's synthetic and real-world tables, seed 003's read scaling, seed 004's
 * small-file latency/throughput and untar tables). Rows come from the SQL files in assets/queries/.
 */
type Row = Record<string, unknown>;
type Out = (line: string) => void;

/** Workloads printed here rather than in the generic "other workloads" table. */
export const WORKLOADS_WITH_SEED_TABLES = ['metadata', 'git-clone', 'tar-extract', 'web-serving', 'read-scaling'];

const STYLE = { head: [] as string[], border: [] as string[] };

/** Microseconds as the seeds print latencies: µs below 1 ms, ms below 10 s, else s. */
function latency(us: unknown): string {
  if (us === null || us === undefined) return '–';
  const x = Number(us);
  if (x < 1000) return `${num(x)} µs`;
  if (x < 10_000_000) return `${num(x / 1000)} ms`;
  return `${num(x / 1e6)} s`;
}

/** Sizes as the seeds print them: decimal units when round (1 MB, 200 MB, 1 GB), else binary. */
function size(bytes: number): string {
  for (const [unit, name] of [[1e9, 'GB'], [1e6, 'MB'], [1e3, 'KB']] as const) {
    if (bytes >= unit && bytes % unit === 0) return `${bytes / unit} ${name}`;
  }
  return formatSize(bytes);
}

function seconds(ms: unknown): string {
  if (ms === null || ms === undefined) return '–';
  const x = Number(ms) / 1000;
  return x < 120 ? `${num(x)} s` : `${Math.floor(x / 60)} min ${Math.round(x % 60)} s`;
}

function percent(rate: unknown): string {
  const x = Number(rate);
  return Number.isFinite(x) ? `${num(x * 100)}%` : '–';
}

/** Column label of a method (and cache state, when a run measured several). */
function labeller(rows: Row[]): (r: Row) => string {
  const several = new Set(rows.map((r) => r.cache)).size > 1;
  return (r) => methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant), cache: r.cache }, several);
}

function columns(rows: Row[], label: (r: Row) => string): string[] {
  const rank = (r: Row) => methodRank(String(r.method)) * 1000 + (r.method_variant === 'default' ? 0 : 100) + cacheRank(String(r.cache));
  return [...new Map([...rows].sort((a, b) => rank(a) - rank(b)).map((r) => [label(r), r])).keys()];
}

/** Seed 002's title of a metadata test: `sequential-writes` → `Sequential Writes`. */
const testTitle = (test: string) => test.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');

/** Seed 002's "Synthetic Benchmarks": per test, ops/s, mean latency, p50/p95/p99 and success rate per method. */
export function printMetadata(rows: Row[], out: Out): void {
  if (!rows.length) return;
  const label = labeller(rows);
  const methods = columns(rows, label);
  const perTest = Number(rows[0].ops_per_repetition);
  out('');
  out(`metadata (seed 002) — ${num(perTest)} operations per test; medians over repetitions; success rate over all operations`);
  const head = ['test', 'metric', ...methods];
  if (methods.length === 2) head.push('difference');
  const table = new Table({ head, style: { ...STYLE, compact: true } });
  const tests = inDeclaredOrder('metadata', rows.map((r) => String(r.test)));
  for (const test of tests) {
    const cell = (m: string) => rows.find((r) => r.test === test && label(r) === m);
    const refused = (r: Row | undefined) => !!r && Number(r.unsupported_repetitions) > 0 && Number(r.ok) === 0;
    const metric = (name: string, f: (r: Row) => string, diff: string | null) => {
      const line = [name === 'ops/s' ? testTitle(test) : '', name, ...methods.map((m) => {
        const r = cell(m);
        return !r ? '–' : refused(r) && name !== 'success rate' ? 'N/A' : f(r);
      })];
      if (methods.length === 2) line.push(diff ?? '');
      table.push(line);
    };
    const [a, b] = methods.map(cell);
    metric('ops/s', (r) => num(r.ops_s_median), a && b ? ratio(a.ops_s_median, b.ops_s_median, true) : null);
    metric('mean latency', (r) => latency(r.mean_us_median), a && b ? ratio(a.mean_us_median, b.mean_us_median, false) : null);
    metric('p50 / p95 / p99', (r) => `${latency(r.p50_us_median)} / ${latency(r.p95_us_median)} / ${latency(r.p99_us_median)}`, null);
    metric('success rate', (r) => (refused(r) ? '0% (not supported)' : `${percent(r.success_rate)}${Number(r.unverified_repetitions) ? ' (unverified!)' : ''}`),
      a && b && (refused(a) || refused(b)) ? 'not supported' : null);
  }
  out(table.toString());
  if (methods.length === 2) out('"difference": the first method over the second (ops/s: higher is better; latency: lower is better).');
  const notes = rows.filter((r) => Number(r.ok) < Number(r.attempted) || Number(r.unsupported_repetitions) || Number(r.unverified_repetitions));
  for (const r of notes) out(`  ${label(r)} ${r.test}: ${r.first_error ?? 'see the records'}`);
}

/** Seed 002's "Real-World Operations": git clone and tar -xf, the time per method (and what tar kept). */
export function printRealWorld(rows: Row[], out: Out): void {
  if (!rows.length) return;
  const label = labeller(rows);
  const methods = columns(rows, label);
  out('');
  out('real-world operations (seeds 002, 004) — median time of the successful repetitions');
  const table = new Table({ head: ['operation', ...methods], style: STYLE, wordWrap: true });
  const describe = (r: Row | undefined): string => {
    if (!r) return '–';
    if (Number(r.succeeded) === 0) return Number(r.unsupported) ? `not supported (${r.first_error})` : `Failed (${r.first_error})`;
    const failedReps = Number(r.repetitions) - Number(r.succeeded);
    return `${seconds(r.duration_ms_median)}${failedReps ? ` (${failedReps} of ${r.repetitions} failed)` : ''}`;
  };
  const clone = rows.filter((r) => r.workload === 'git-clone' && r.operation === 'clone');
  if (clone.length) table.push(['git clone', ...methods.map((m) => describe(clone.find((r) => label(r) === m)))]);
  const extract = rows.filter((r) => r.workload === 'tar-extract' && r.operation === 'extract');
  if (extract.length) {
    table.push([`tar -xf (${num(extract[0].files)} files)`, ...methods.map((m) => describe(extract.find((r) => label(r) === m)))]);
    for (const op of ['permissions', 'timestamps', 'ownership'].filter((o) => rows.some((r) => r.operation === o))) {
      const kept = (r: Row | undefined) => (!r ? '–' : Number(r.unsupported) ? 'not kept (not supported)' : `${percent(r.kept_rate)} kept`);
      table.push([`  ${op} kept`, ...methods.map((m) => kept(rows.find((r) => r.workload === 'tar-extract' && r.operation === op && label(r) === m)))]);
    }
  }
  out(table.toString());
}

/**
 * Seed 004's "Performance – untar": one row per file system with the time, the write throughput
 * and the improvement over the first row. `rows` are the real-world rows; only tar's extract is used.
 */
export function printUntar(rows: Row[], out: Out): void {
  const extract = rows.filter((r) => r.workload === 'tar-extract' && r.operation === 'extract');
  if (!extract.length) return;
  const label = labeller(extract);
  const ordered = columns(extract, label).map((l) => extract.find((r) => label(r) === l)!);
  const ok = (r: Row) => Number(r.succeeded) > 0;
  const base = ordered.find(ok);
  out('');
  out(`untar (seed 004) — tar -xf of ${num(extract[0].files)} files; medians of the successful repetitions`);
  const head = ['file system', 'time', 'write throughput', ...(ordered.length > 1 ? ['improvement'] : []), 'files/s'];
  const table = new Table({ head, style: STYLE, wordWrap: true });
  for (const r of ordered) {
    const why = Number(r.unsupported) ? 'not supported' : 'Failed';
    table.push([
      label(r),
      ok(r) ? seconds(r.duration_ms_median) : `${why} (${r.first_error})`,
      ok(r) ? `${num(r.mb_s_median)} MB/s` : '–',
      ...(ordered.length > 1 ? [ok(r) && base ? ratio(r.mb_s_median, base.mb_s_median, true) : '–'] : []),
      ok(r) ? num(r.files_s_median) : '–',
    ]);
  }
  out(table.toString());
  if (ordered.length > 1 && base) out(`"improvement": write throughput over the first file system that succeeded (${label(base)}), as the seed's table.`);
}

/** Seed 004's two tables: p95 latency and throughput of small random reads, per method and cache state. */
export function printWebServing(rows: Row[], out: Out): void {
  if (!rows.length) return;
  const cacheName: Record<string, string> = {
    cold: 'cold cache', 'warm-memory': 'warm memory cache', 'warm-disk': 'warm disk cache', warm: 'warm cache', none: 'no client cache',
  };
  const label = (r: Row) => `${methodLabel({ method: String(r.method), method_variant: String(r.method_variant) })} (${cacheName[String(r.cache)] ?? r.cache})`;
  const ordered = columns(rows, label).map((l) => rows.find((r) => label(r) === l)!);
  out('');
  out(`web-serving (seed 004) — ${num(ordered[0].reads_per_repetition)} whole-file reads by parallel readers, 80/20 access; medians over repetitions`);
  const base = ordered[0];
  const table = new Table({ head: ['file system (cache)', 'latency (95th percentile)', 'improvement', 'read throughput', 'improvement', 'p50'], style: STYLE });
  for (const r of ordered) {
    const ok = Number(r.repetitions) > 0;
    table.push([
      label(r),
      ok ? latency(r.p95_us_median) : `FAILED (${r.first_error})`,
      ok ? ratio(base.p95_us_median, r.p95_us_median, true) : '–',
      ok ? `${num(r.mb_s_median)} MB/s${Number(r.served_from_cache) ? ' (above link: cache)' : ''}` : '–',
      ok ? ratio(r.mb_s_median, base.mb_s_median, true) : '–',
      ok ? latency(r.p50_us_median) : '–',
    ]);
  }
  out(table.toString());
  out(`"improvement" is relative to the first row (${label(base)}), as the seed's tables.`);
}

/** Seed 003's figures: single-stream MB/s by file size, aggregate MB/s by number of concurrent readers. */
export function printReadScaling(rows: Row[], out: Out): void {
  if (!rows.length) return;
  const label = labeller(rows);
  const methods = columns(rows, label);
  const cell = (r: Row | undefined) => (!r ? '–' : Number(r.repetitions) ? `${num(r.mb_s_median)}${Number(r.served_from_cache) ? ' (cache)' : ''}` : `FAILED (${r.first_error})`);
  out('');
  out('read-scaling (seed 003) — MB/s, medians over repetitions');
  const single = rows.filter((r) => r.operation === 'single-stream');
  if (single.length) {
    const table = new Table({ head: ['single stream: file size', ...methods.map((m) => `${m} MB/s`)], style: STYLE });
    for (const bytes of [...new Set(single.map((r) => Number(r.object_size_bytes)))].sort((a, b) => a - b)) {
      table.push([size(bytes), ...methods.map((m) => cell(single.find((r) => Number(r.object_size_bytes) === bytes && label(r) === m)))]);
    }
    out(table.toString());
  }
  const concurrent = rows.filter((r) => r.operation !== 'single-stream');
  if (concurrent.length) {
    const table = new Table({ head: [`concurrent readers (${size(Number(concurrent[0].object_size_bytes))} each)`, ...methods.map((m) => `${m} MB/s (aggregate)`)], style: STYLE });
    for (const readers of [...new Set(concurrent.map((r) => Number(r.readers)))].sort((a, b) => a - b)) {
      table.push([String(readers), ...methods.map((m) => cell(concurrent.find((r) => Number(r.readers) === readers && label(r) === m)))]);
    }
    out(table.toString());
  }
}

/** One line per workload and reason that some methods cannot run it for. */
export function printNotApplicable(rows: Row[], out: Out): void {
  const byCase = new Map<string, { workload: string; reason: string; methods: Set<string> }>();
  for (const r of rows) {
    const m = methodLabel({ method: String(r.method), method_variant: String(r.method_variant) });
    // The reason names the method ("…; s3-api is an object method"): keep the part about the workload.
    const reason = String(r.reason ?? '').split('; ').filter((part) => !part.includes(String(r.method))).join('; ')
      .replace(new RegExp(`^${String(r.workload)} `), '');
    const key = `${r.workload}\n${reason}`;
    const entry = byCase.get(key) ?? { workload: String(r.workload), reason, methods: new Set<string>() };
    entry.methods.add(m);
    byCase.set(key, entry);
  }
  if (!byCase.size) return;
  out('');
  for (const c of byCase.values()) out(`not applicable: ${c.workload} on ${[...c.methods].join(', ')}${c.reason ? ` (${c.reason})` : ''}`);
}
