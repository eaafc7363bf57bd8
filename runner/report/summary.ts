import Table from 'cli-table3';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors';
import { METHODS } from '../methods';
import { formatSize } from '../core/units';
import type { RunManifest } from '../results/writer';
import { namedQueries, openResults, query } from './results-db';
import { WORKLOADS_WITH_SEED_TABLES, printMetadata, printNotApplicable, printReadScaling, printRealWorld, printWebServing } from './workload-tables';

type Row = Record<string, unknown>;

export function listRuns(dir: string): RunManifest[] {
  const runsDir = join(dir, '_runs');
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(runsDir, f), 'utf8')) as RunManifest)
    .sort((a, b) => a.started_at.localeCompare(b.started_at));
}

function num(v: unknown, digits = 3): string {
  if (v === null || v === undefined) return '–';
  const x = Number(v);
  if (!Number.isFinite(x)) return '–';
  if (x === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(x)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return x.toLocaleString('en-US', { maximumFractionDigits: decimals, minimumFractionDigits: 0 });
}

function ratio(a: unknown, b: unknown): string {
  const x = Number(a);
  const y = Number(b);
  if (!(x > 0) || !(y > 0)) return '–';
  return `${num(x / y, 3)}x`;
}

const methodLabel = (r: Row) => (r.method_variant === 'default' ? String(r.method) : `${r.method}:${r.method_variant}`);

/** Methods in registry order (S3 API first), variants after their default. */
function orderedMethods(rows: Row[]): string[] {
  const rank = (r: Row) => METHODS.findIndex((m) => m.name === r.method) * 1000 + (r.method_variant === 'default' ? 0 : 1);
  return [...new Map([...rows].sort((a, b) => rank(a) - rank(b)).map((r) => [methodLabel(r), r])).keys()];
}

/**
 * Prints the summary of one run (default: the newest) in seed 000's shape: per operation a table of
 * object sizes × methods with batch time (min–median–max), IOPS, MiB/s and the ratio between
 * methods; then the other workloads; then the run's integrity.
 */
export async function printSummary(dir: string, runId: string | undefined, out: (line: string) => void): Promise<RunManifest> {
  const runs = listRuns(dir);
  if (!runs.length) throw new UserError(`no benchmark runs in ${dir}`, 'run `s3ab run` (or `npm run local`) first, or point --results at a results folder');
  const run = runId ? runs.find((r) => r.run_id === runId) : runs[runs.length - 1];
  if (!run) throw new UserError(`no run ${runId} in ${dir}`, `runs there: ${runs.map((r) => r.run_id).join(', ')}`);

  const status = run.status === 'complete' ? 'COMPLETE' : `${run.status.toUpperCase()} — results incomplete: ${run.problem ?? 'unknown cause'}`;
  out(`Run ${run.run_id} (${run.matrix}) — ${status}`);
  out(`  endpoint: ${run.endpoint?.kind ?? '?'} ${run.endpoint?.url ?? ''} ${run.endpoint?.server ?? ''}`.trimEnd());
  out(`  steps: ${run.steps_done}/${run.steps_total} ran, ${run.steps_failed} failed; started ${run.started_at}, ended ${run.ended_at ?? '—'}`);

  const db = await openResults(dir, run.run_id);
  try {
    const queries = Object.fromEntries(namedQueries().map((q) => [q.name, q.sql]));
    const objects = await query(db.connection, queries.objects_by_size);
    if (objects.length) printObjects(objects, out);
    printMetadata(await query(db.connection, queries.metadata_suite), out);
    printRealWorld(await query(db.connection, queries.real_world_jobs), out);
    printWebServing(await query(db.connection, queries.web_serving), out);
    printReadScaling(await query(db.connection, queries.read_scaling), out);
    printNotApplicable(await query(db.connection, queries.not_applicable), out);
    const others = (await query(db.connection, queries.workload_summary)).filter((r) => !WORKLOADS_WITH_SEED_TABLES.includes(String(r.workload)));
    if (others.length) printWorkloads(others, out);
    const health = await query(db.connection, queries.run_health);
    printHealth(health, out);
  } finally {
    db.close();
  }
  return run;
}

function printObjects(rows: Row[], out: (line: string) => void): void {
  const methods = orderedMethods(rows);
  const operations = ['upload', 'list', 'head', 'download', 'delete'].filter((op) => rows.some((r) => r.operation === op));
  const perBatch = Number(rows[0].objects_per_batch);
  out('');
  out(`objects (seed 000) — ${perBatch} objects per size, batch time min–median–max over repetitions`);
  for (const op of operations) {
    const sizes = [...new Set(rows.filter((r) => r.operation === op).map((r) => Number(r.object_size_bytes)))].sort((a, b) => a - b);
    const movesPayload = op === 'upload' || op === 'download';
    const head = ['size', ...methods.map((m) => `${m} ms`), ...methods.map((m) => `${m} IOPS`)];
    if (movesPayload) head.push(...methods.map((m) => `${m} MiB/s`));
    head.push(...methods.map((m) => `${m} mean µs`));
    const pairs = methods.slice(1).map((m) => [methods[0], m]);
    head.push(...pairs.map(([a, b]) => `${a} vs ${b}`));
    const table = new Table({ head, style: { head: [], border: [] } });
    for (const size of sizes) {
      const cell = (m: string) => rows.find((r) => r.operation === op && Number(r.object_size_bytes) === size && methodLabel(r) === m);
      const line: string[] = [formatSize(size)];
      for (const m of methods) {
        const r = cell(m);
        line.push(!r ? '–' : Number(r.repetitions) === 0 ? `FAILED (${r.failed_batches})` : `${num(r.batch_ms_min)}–${num(r.batch_ms_median)}–${num(r.batch_ms_max)}${Number(r.failed_batches) ? ` (${r.failed_batches} failed)` : ''}`);
      }
      for (const m of methods) line.push(num(cell(m)?.iops_median));
      if (movesPayload) for (const m of methods) line.push(`${num(cell(m)?.mib_s_median)}${Number(cell(m)?.served_from_cache) ? ' (cache!)' : ''}`);
      for (const m of methods) line.push(num(cell(m)?.mean_us_median));
      for (const [a, b] of pairs) line.push(ratio(cell(a)?.iops_median, cell(b)?.iops_median));
      table.push(line);
    }
    out(`${op.toUpperCase()}`);
    out(table.toString());
  }
  out('"A vs B" is A\'s IOPS over B\'s: above 1x A is faster.');
}

function printWorkloads(rows: Row[], out: (line: string) => void): void {
  out('');
  out('other workloads — medians over repetitions');
  const table = new Table({
    head: ['workload', 'operation', 'method', 'reps', 'ops', 'time ms (min–med–max)', 'MiB/s', 'ops/s', 'p50 µs', 'p99 µs', 'vs best'],
    style: { head: [], border: [] },
  });
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const key = `${r.workload}/${r.operation}/${r.object_size_bytes}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const group of groups.values()) {
    const best = Math.min(...group.map((r) => Number(r.duration_ms_median)).filter((x) => x > 0));
    for (const r of group) {
      const failed = Number(r.failed_batches);
      table.push([
        String(r.workload), `${r.operation}${r.object_size_bytes !== null ? ` ${formatSize(Number(r.object_size_bytes))}` : ''}`, methodLabel(r),
        `${r.repetitions}${failed ? ` (+${failed} failed)` : ''}`, num(r.ops_per_batch),
        Number(r.repetitions) ? `${num(r.duration_ms_min)}–${num(r.duration_ms_median)}–${num(r.duration_ms_max)}` : 'FAILED',
        `${num(r.mib_s_median)}${Number(r.served_from_cache) ? ' (cache!)' : ''}`, num(r.ops_s_median), num(r.p50_us_median), num(r.p99_us_median),
        Number(r.duration_ms_median) > 0 ? `${num(Number(r.duration_ms_median) / best)}x` : '–',
      ]);
    }
  }
  out(table.toString());
  out('"vs best": time relative to the fastest method for that operation (1x = fastest).');
}

function printHealth(rows: Row[], out: (line: string) => void): void {
  out('');
  const bad = rows.filter((r) => Number(r.failed) || Number(r.unverified) || Number(r.in_failed_steps));
  const records = rows.reduce((n, r) => n + Number(r.records), 0);
  if (!bad.length) {
    out(`integrity: all ${records} measurements verified (checksums, sizes, listings); no failures`);
    return;
  }
  out('integrity: PROBLEMS — these numbers are not trustworthy:');
  const table = new Table({ head: ['method', 'workload', 'failed', 'unverified', 'in failed steps', 'first error'], style: { head: [], border: [] }, colWidths: [null, null, null, null, null, 70] as never, wordWrap: true });
  for (const r of bad) table.push([methodLabel(r), String(r.workload), num(r.failed), num(r.unverified), num(r.in_failed_steps), String(r.first_error ?? '')]);
  out(table.toString());
}
