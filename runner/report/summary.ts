import Table from 'cli-table3';
import { UserError } from '../core/errors';
import { methodRank } from '../methods/catalog';
import { cacheRank, didNotFinishLabel, methodCacheLabel } from '../core/vocabulary';
import { readRunManifests, unreadableManifestError } from '../results/manifests';
import { NEAR_BASELINE } from '../results/record';
import { inDeclaredOrder } from './order';
import { formatSize } from '../core/units';
import type { RunManifest } from '../results/writer';
import { num, ratio } from './format';
import { ScannedResults } from './load';
import { namedQueries, query } from './results-db';
import { printInstanceTypes, printScaleOut } from './scale-tables';
import { printRequests } from './requests';
import { WORKLOADS_WITH_SEED_TABLES, printMetadata, printNotApplicable, printReadScaling, printRealWorld, printUntar, printWebServing } from './workload-tables';

/** The mark after a throughput: above the link limit (a cache), or at or near the baseline (the network may have set it). */
const rateFlag = (r: Row | undefined) => (Number(r?.served_from_cache) ? ' (cache!)' : Number(r?.network_capped) ? ' (net-capped?)' : '');

type Row = Record<string, unknown>;

/** `s3fs:seed-000 (warm)`: method, variant unless default, cache state unless none or not part of the row. */
const methodLabel = (r: Row) => methodCacheLabel({ method: String(r.method), method_variant: String(r.method_variant), cache: r.cache });

/** Methods in registry order (S3 API first), variants after their default, cold before warm. */
function orderedMethods(rows: Row[]): string[] {
  const rank = (r: Row) => methodRank(String(r.method)) * 1000 + (r.method_variant === 'default' ? 0 : 10) + cacheRank(r.cache as string);
  return [...new Map([...rows].sort((a, b) => rank(a) - rank(b)).map((r) => [methodLabel(r), r])).keys()];
}

/**
 * Prints the summary of one run (default: the newest) in seed 000's shape: per operation a table of
 * object sizes × methods with batch time (min–median–max), IOPS, MiB/s and the ratio between
 * methods; then the other workloads; then the run's integrity.
 */
export async function printSummary(dir: string, runId: string | undefined, out: (line: string) => void): Promise<RunManifest> {
  const { manifests: runs, bad } = readRunManifests(dir);
  const unreadable = bad.find((b) => b.runId === runId);
  if (runId && unreadable) throw unreadableManifestError(unreadable);
  if (!runs.length) throw new UserError(`no benchmark runs in ${dir}${bad.length ? ` (only ${bad.length} unreadable manifest${bad.length > 1 ? 's' : ''}: ${bad.map((b) => b.path).join(', ')})` : ''}`, 'run `s3ab run` (or `npm run local`) first, or point --results at a results folder');
  const run = runId ? runs.find((r) => r.run_id === runId) : runs[runs.length - 1];
  if (!run) throw new UserError(`no run ${runId} in ${dir}`, `runs there: ${runs.map((r) => r.run_id).join(', ')}`);

  const status = run.status === 'complete' ? 'COMPLETE' : `${run.status.toUpperCase()} — results incomplete: ${run.problem ?? 'unknown cause'}`;
  out(`Run ${run.run_id} (${run.matrix}) — ${status}`);
  out(`  endpoint: ${run.endpoint?.kind ?? '?'} ${run.endpoint?.url ?? ''} ${run.endpoint?.server ?? ''}`.trimEnd());
  const unfinished = run.steps_did_not_finish ? `, ${run.steps_did_not_finish} did not finish within their budget` : '';
  out(`  steps: ${run.steps_done}/${run.steps_total} ran, ${run.steps_failed} failed${unfinished}; started ${run.started_at}, ended ${run.ended_at ?? '—'}`);
  // `s3ab step` on AWS: one manifest per runner of the run.
  const manifests = runs.filter((r) => r.run_id === run.run_id);
  if (manifests.length > 1) out(`  runners: ${manifests.length} manifests (${[...new Set(manifests.map((m) => m.status))].join(', ')})`);
  for (const s of skippedOf(manifests)) {
    out(`  SKIPPED (not measured, not failed): ${methodCacheLabel({ method: s.method, method_variant: s.variant }, false)} — ${s.reason} (${s.steps} steps; optional in the matrix)`);
  }
  for (const b of bad) out(`  DATA PROBLEM: ${b.path}: ${b.reason}${b.runId ? '; that run is not reported' : ''}`);

  // Read through the scan: one checked copy of the run's lines, however many step files it has.
  const scan = ScannedResults.open(dir);
  const db = await scan.openRun(run.run_id);
  if (!db) {
    scan.dispose();
    out('  (no readable measurements in this run)');
    return run;
  }
  try {
    if (scan.badLineCount) out(`  ${scan.badLineCount} unreadable lines left out (\`s3ab report --html FILE\` lists them)`);
    const [link] = await query(db.connection, 'SELECT host.link_limit_mib_s AS mib_s, host.link_baseline_mib_s AS baseline, host.link_limit_source AS source FROM results LIMIT 1');
    if (link) {
      out(`  link limit: ${link.mib_s === null ? 'unknown' : `${num(link.mib_s)} MiB/s`} (${link.source ?? 'no source'}); figures above it are marked "(cache!)"`);
      if (link.baseline !== null && link.baseline !== undefined) {
        out(`  sustained (baseline): ${num(link.baseline)} MiB/s; figures from ${num(NEAR_BASELINE * Number(link.baseline))} MiB/s up to the link limit are marked "(net-capped?)": the network, not the method, may have set them`);
      }
    }
    const queries = Object.fromEntries(namedQueries().map((q) => [q.name, q.sql]));
    const objects = await query(db.connection, queries.objects_by_size);
    if (objects.length) printObjects(objects, out);
    const fio = await query(db.connection, queries.fio_seq);
    if (fio.length) printFio(fio, out);
    printMetadata(await query(db.connection, queries.metadata_suite), out);
    const realWorld = await query(db.connection, queries.real_world_jobs);
    printRealWorld(realWorld, out);
    printUntar(realWorld, out);
    printWebServing(await query(db.connection, queries.web_serving), out);
    printReadScaling(await query(db.connection, queries.read_scaling), out);
    printNotApplicable(await query(db.connection, queries.not_applicable), out);
    printScaleOut(await query(db.connection, queries.scale_out), out);
    printInstanceTypes(await query(db.connection, queries.instance_types), out);
    const others = (await query(db.connection, queries.workload_summary)).filter((r) => !WORKLOADS_WITH_SEED_TABLES.includes(String(r.workload)));
    if (others.length) printWorkloads(others, out);
    const probes = await query(db.connection, queries.semantics_matrix);
    if (probes.length) printSemantics(probes, out);
    printRequests(await query(db.connection, queries.request_counts), out);
    printDidNotFinish(await query(db.connection, queries.did_not_finish), out);
    const health = await query(db.connection, queries.run_health);
    printHealth(health, out);
  } finally {
    db.close();
    scan.dispose();
  }
  return run;
}

/** Optional methods the run skipped (unavailable on the host), once each across the runners' manifests. */
export function skippedOf(manifests: RunManifest[]): NonNullable<RunManifest['skipped']> {
  const seen = new Map<string, NonNullable<RunManifest['skipped']>[number]>();
  for (const m of manifests) for (const s of m.skipped ?? []) seen.set(`${s.method}:${s.variant}`, s);
  return [...seen.values()];
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
      if (movesPayload) for (const m of methods) line.push(`${num(cell(m)?.mib_s_median)}${rateFlag(cell(m))}`);
      for (const m of methods) line.push(num(cell(m)?.mean_us_median));
      for (const [a, b] of pairs) line.push(ratio(cell(a)?.iops_median, cell(b)?.iops_median));
      table.push(line);
    }
    out(`${op.toUpperCase()}`);
    out(table.toString());
  }
  out('"A vs B" is A\'s IOPS over B\'s: above 1x A is faster.');
}

/**
 * Seed 000's fio tables, per I/O mode and cache state: read IOPS, read latency, write IOPS, write
 * latency, read MB/s, write MB/s — file sizes down, methods across, then the first method's figure
 * over each other method's, as the seed's "FUSE vs Files" column.
 */
function printFio(rows: Row[], out: (line: string) => void): void {
  out('');
  out('fio sequential I/O (seed 000) — medians over repetitions; latency from fio\'s lat_ns');
  const key = (r: Row) => `${r.io}|${r.cache}`;
  const groups = [...new Set(rows.map(key))].sort((a, b) => {
    const [ia, ca] = a.split('|');
    const [ib, cb] = b.split('|');
    return ia.localeCompare(ib) || cacheRank(ca) - cacheRank(cb);
  });
  const metrics: [string, 'read' | 'write', string, (r: Row | undefined) => string][] = [
    ['Sequential Read — IOPS', 'read', 'iops_median', (r) => num(r?.iops_median)],
    ['Sequential Read — Average Latency (µs)', 'read', 'mean_us_median', (r) => num(r?.mean_us_median)],
    ['Sequential Write — IOPS', 'write', 'iops_median', (r) => num(r?.iops_median)],
    ['Sequential Write — Average Latency (µs)', 'write', 'mean_us_median', (r) => num(r?.mean_us_median)],
    ['Read Throughput (MiB/s)', 'read', 'mib_s_median', (r) => `${num(r?.mib_s_median)}${rateFlag(r)}`],
    ['Write Throughput (MiB/s)', 'write', 'mib_s_median', (r) => `${num(r?.mib_s_median)}${rateFlag(r)}`],
  ];
  for (const group of groups) {
    const [io, cache] = group.split('|');
    const mine = rows.filter((r) => key(r) === group).map((r): Row => ({ ...r, cache: null }));
    const methods = orderedMethods(mine);
    const pairs = methods.slice(1).map((m) => [methods[0], m]);
    out(`— ${io === 'direct' ? 'O_DIRECT (direct=1)' : 'buffered (direct=0)'}, ${cache} cache —`);
    for (const [title, operation, field, show] of metrics) {
      const sizes = [...new Set(mine.filter((r) => r.operation === operation).map((r) => Number(r.object_size_bytes)))].sort((a, b) => a - b);
      if (!sizes.length) continue;
      const table = new Table({ head: ['size', ...methods, ...pairs.map(([a, b]) => `${a} vs ${b}`)], style: { head: [], border: [] } });
      for (const size of sizes) {
        const cell = (m: string) => mine.find((r) => r.operation === operation && Number(r.object_size_bytes) === size && methodLabel(r) === m);
        table.push([
          formatSize(size),
          ...methods.map((m) => (cell(m) && Number(cell(m)!.repetitions) === 0 ? 'FAILED' : show(cell(m)))),
          ...pairs.map(([a, b]) => ratio(cell(a)?.[field], cell(b)?.[field])),
        ]);
      }
      out(title);
      out(table.toString());
    }
  }
  for (const r of rows.filter((x) => Number(x.failed_batches) && x.first_error)) {
    out(`  ${methodLabel(r)} ${r.io} ${r.operation} ${formatSize(Number(r.object_size_bytes))} failed: ${r.first_error}`);
  }
  out('"A vs B" is A\'s figure over B\'s (for latency, below 1x A is faster). "(cache!)": faster than the link limit, served from a cache.');
}


/** Probes down, methods across: yes (with the delay where measured), NO [n] with the reason below, or FAILED. */
function printSemantics(rows: Row[], out: (line: string) => void): void {
  out('');
  out('POSIX semantics (each "yes" verified on the mount and, where files are objects, in the bucket)');
  const methods = orderedMethods(rows);
  const probes = inDeclaredOrder('semantics', rows.map((r) => String(r.probe)));
  const notes: string[] = [];
  const table = new Table({ head: ['probe', ...methods], style: { head: [], border: [] } });
  for (const probe of probes) {
    const line = [probe];
    for (const m of methods) {
      const r = rows.find((x) => x.probe === probe && methodLabel(x) === m);
      if (!r) {
        line.push('–');
        continue;
      }
      const ok = Number(r.supported_reps);
      const no = Number(r.unsupported_reps);
      const broken = Number(r.failed_reps);
      const na = Number(r.not_applicable_reps ?? 0);
      const delay = r.delay_ms_median === null || r.delay_ms_median === undefined ? '' : ` (${num(r.delay_ms_median)} ms)`;
      let cell = na && !ok && !no && !broken ? 'n/a'
        : ok && !no && !broken ? `yes${delay}` : no && !ok && !broken ? 'NO' : !ok && !no ? 'FAILED' : `mixed ${ok}/${ok + no + broken}`;
      if (cell !== `yes${delay}` && r.reason) {
        notes.push(`[${notes.length + 1}] ${m} ${probe}: ${r.reason}`);
        cell += ` [${notes.length}]`;
      }
      line.push(cell);
    }
    table.push(line);
  }
  out(table.toString());
  for (const n of notes) out(n);
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
        `${num(r.mib_s_median)}${rateFlag(r)}`, num(r.ops_s_median), num(r.p50_us_median), num(r.p99_us_median),
        Number(r.duration_ms_median) > 0 ? `${num(Number(r.duration_ms_median) / best)}x` : '–',
      ]);
    }
  }
  out(table.toString());
  out('"vs best": time relative to the fastest method for that operation (1x = fastest).');
}

/** Measurements whose step's budget ran out: listed apart, never in a table beside finished figures. */
function printDidNotFinish(rows: Row[], out: (line: string) => void): void {
  if (!rows.length) return;
  out('');
  out('did not finish — the step\'s time budget ran out; the totals are extrapolations, not measurements');
  for (const r of rows) {
    const progress = { budget_s: Number(r.budget_s), done: Number(r.done), planned: Number(r.planned), unit: String(r.unit) as 'ops',
      rate_per_s: Number(r.rate_per_s), extrapolated_total_s: r.extrapolated_total_s === null ? null : Number(r.extrapolated_total_s) };
    out(`  ${methodLabel(r)} ${r.workload} ${r.operation} rep ${r.repetition}: ${didNotFinishLabel(progress)} (${num(progress.done)} of ${num(progress.planned)} ${progress.unit})`);
  }
}

function printHealth(rows: Row[], out: (line: string) => void): void {
  out('');
  const bad = rows.filter((r) => Number(r.failed) || Number(r.unverified) || Number(r.in_failed_steps));
  const unfinished = rows.reduce((n, r) => n + Number(r.did_not_finish ?? 0), 0);
  const records = rows.reduce((n, r) => n + Number(r.records), 0) - unfinished;
  if (!bad.length) {
    out(`integrity: all ${records} ${unfinished ? 'finished ' : ''}measurements verified (checksums, sizes, listings); no failures${unfinished ? `; ${unfinished} did not finish within the step's budget (listed above)` : ''}`);
    return;
  }
  out('integrity: PROBLEMS — these numbers are not trustworthy:');
  const table = new Table({ head: ['method', 'workload', 'failed', 'unverified', 'in failed steps', 'first error'], style: { head: [], border: [] }, colWidths: [null, null, null, null, null, 70] as never, wordWrap: true });
  for (const r of bad) table.push([methodLabel(r), String(r.workload), num(r.failed), num(r.unverified), num(r.in_failed_steps), String(r.first_error ?? '')]);
  out(table.toString());
}
