/**
 * What the interval series costs a measurement (issue 24: ≤ 1 % of its time, or the interval
 * widens). The same measurement runs with the series on (the default 1 s interval: every
 * completion goes into the OpLog) and off (`--series-interval 0`: no log), interleaved over rounds
 * in one run, the order alternating, on tmpfs so the operations are as short as they get and the
 * per-operation cost of the log is at its largest share:
 *
 * 1. the metadata thread: `create` and `stat` of N files (the thread's own timed time);
 * 2. 16 read-files threads, web-serving's 80/20 reads of small files (wall time, first open to last close;
 *    192,000 reads: about 2 s here);
 * 3. the Batch path every object workload times its operations with (core/batch.ts): N reads of a
 *    4 KiB file, one at a time (the batch's time: the sum of its operations).
 *
 * The separate runs' figure per round is (on − off) / off of the measurement's own recorded time,
 * printed with its median over rounds. On a shared machine a round varies by far more than 1 %, so
 * the script also prints the log's own cost per operation (an OpLog entry, in a tight loop) over
 * each measurement's time per operation: what the series adds where nothing else differs. Separate
 * runs vary by more than the target here (±25–40% a round), so every measurement's verdict is a
 * same-run comparison of what logs against what does not, in one measurement: for the metadata
 * thread, its operations after a logged one against those after an unlogged one, a random half
 * logging (`metadataSplit`: the entry is written off the operation's clock, so only the next
 * operation can pay for it); for the 16 readers, half the threads logging (`split`); for the Batch
 * path, two batches with their operations alternating (`batchSplit`). The separate runs' median is
 * printed beside each verdict.
 * Usage:
 *   npm run bench:series [-- --rounds 21 --files 20000 --reads 192000 --dir /dev/shm --only create,stat,readers,batch]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Batch } from '../../runner/core/batch';
import { DEFAULT_INTERVAL_MS, OpLog, seriesSettings } from '../../runner/core/intervals';
import { runThread, runThreads } from '../../runner/core/threads';
import { planTree } from '../../runner/core/tree-plan';
import type { FixtureFile } from '../../runner/core/workload';
import { splitPicks, type MetadataJob, type MetadataResult } from '../../runner/workloads/metadata.thread';
import type { ReadFilesJob, ReadFilesResult } from '../../runner/workloads/kit/read-files.thread';
import { runReaders } from '../../runner/workloads/kit/readers';
import { treeCrcs, writeTree } from '../../runner/workloads/kit/tree';
import { accessSequences } from '../../runner/workloads/web-serving.impl';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '21' },
    files: { type: 'string', default: '20000' },
    // Reads of the 16 readers: 192,000 make a measurement of about 2 s here, the length from which
    // the issue asks for a series (48,000 took 0.5 s, where a round varied by ±30%).
    reads: { type: 'string', default: '192000' },
    dir: { type: 'string', default: '/dev/shm' },
    // Some of the measurements only: create, stat, readers, batch (comma list).
    only: { type: 'string', default: 'create,stat,readers,batch' },
  },
});
const ONLY = new Set(values.only!.split(',').map((x) => x.trim()));
for (const x of ONLY) if (!['create', 'stat', 'readers', 'batch'].includes(x)) throw new Error(`--only: ${x} is not one of create, stat, readers, batch`);
const ROUNDS = Number(values.rounds);
const FILES = Number(values.files);
const TARGET_PCT = 1;
const signal = new AbortController().signal;

/** How much longer `on` took than `off`, in %. */
const overPct = (on: number, off: number) => (100 * (on - off)) / off;
const sign = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One measurement: its recorded time in ms, with the series on or off. */
type Measure = ((seriesOn: boolean) => Promise<number>) & { ops: number };

/** ns per OpLog entry: a fresh log (growing by doubling, as in a measurement) of 2,000,000 entries, the median of 7 runs. */
function logCostNs(): number {
  const n = 2_000_000;
  const runs: number[] = [];
  for (let r = 0; r < 7; r++) {
    const log = new OpLog();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) log.ok(i * 1000, 500, 4096);
    runs.push(Number(process.hrtime.bigint() - t0) / n);
    if (log.length !== n) throw new Error('log lost entries');
  }
  return median(runs);
}

/** The metadata thread's timed time for one test over FILES files. */
function metadata(dir: string, test: 'create' | 'stat'): Measure {
  return Object.assign(async (seriesOn: boolean) => {
    const root = mkdtempSync(join(dir, 'meta-'));
    try {
      const job: MetadataJob = { kind: 'metadata', test, dir: join(root, 't'), ops: FILES, size: 4096, syncEvery: 100, seed: 'bench', opLog: seriesOn };
      const r = await runThread<MetadataResult>(job, { signal });
      if (r.ok !== FILES || !r.verified) throw new Error(`metadata ${test}: ${r.ok}/${FILES} ok, ${r.firstError ?? r.verifyProblem ?? r.setupError?.message}`);
      if (seriesOn !== !!r.log) throw new Error(`metadata ${test}: the log was ${r.log ? 'kept' : 'not kept'} with the series ${seriesOn ? 'on' : 'off'}`);
      return r.activeNs / 1e6;
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, { ops: FILES });
}

/**
 * The same run for the metadata thread: one measurement in which the thread logs a pseudo-random
 * half of its operations (`opLog: 'split'`, a fresh half each round). The thread writes an entry
 * after the operation's clock stops, so the log can add to the recorded time (the sum of the
 * operations' own times) only through the operation that follows; the figure is the mean time of
 * an operation after a logged one over the mean after an unlogged one, − 1, without the slowest 1%
 * of the operations (one cut for both groups). Both groups meet the machine at the same moments,
 * interleaved op by op. A round whose groups are implausible (either
 * empty, the logged share away from half, the log not holding exactly the logged operations, the
 * sums not those of the operations' latencies) throws.
 *
 * Why the cut: a mean over thousands of operations of 5–15 µs moves by tens of % when the thread is
 * descheduled for a few ms once (rounds of the plain means ranged −31 to +82 % here), and such a
 * stall lands on either group at random. The log cannot stall an operation by milliseconds: its
 * arrays are allocated before the loop, so an entry makes no allocation (no GC) and no system
 * call. `untrimmed` keeps each round's figure over all operations, printed beside the verdict.
 */
function metadataSplit(dir: string, test: 'create' | 'stat'): (() => Promise<number>) & { untrimmed: number[] } {
  let round = 0;
  const untrimmed: number[] = [];
  return Object.assign(async () => {
    const root = mkdtempSync(join(dir, 'meta-'));
    try {
      const job: MetadataJob = { kind: 'metadata', test, dir: join(root, 't'), ops: FILES, size: 4096, syncEvery: 100, seed: `bench/split-${round++}`, opLog: 'split' };
      const r = await runThread<MetadataResult>(job, { signal });
      if (r.ok !== FILES || !r.verified) throw new Error(`metadata ${test} split: ${r.ok}/${FILES} ok, ${r.firstError ?? r.verifyProblem ?? r.setupError?.message}`);
      const s = r.split;
      if (!s || !r.log) throw new Error(`metadata ${test} split: the thread returned ${s ? 'no log' : 'no split'}`);
      const half = (n: number, of: number) => Math.abs(n / of - 0.5) <= 0.02;
      if (!s.afterLogged || !s.afterUnlogged || s.afterLogged + s.afterUnlogged !== FILES - 1 || s.logged !== r.log.at.length || !half(s.logged, FILES) || !half(s.afterLogged, FILES - 1)) {
        throw new Error(`metadata ${test} split: implausible groups over ${FILES} operations: ${s.logged} logged (${r.log.at.length} log entries), ` +
          `${s.afterLogged} after a logged one, ${s.afterUnlogged} after an unlogged one`);
      }
      // The same groups from the latencies (every operation succeeded: latency i is operation i's),
      // in the same order: the thread's sums must be these exactly.
      const picks = splitPicks(job.seed, FILES);
      const lat = r.latenciesNs;
      const sums = [0, 0];
      for (let i = 1; i < FILES; i++) sums[picks[i - 1]] += lat[i];
      if (sums[1] !== s.afterLoggedNs || sums[0] !== s.afterUnloggedNs) {
        throw new Error(`metadata ${test} split: the thread's sums (${s.afterLoggedNs}, ${s.afterUnloggedNs} ns) are not its latencies' (${sums[1]}, ${sums[0]} ns)`);
      }
      const cut = [...lat].sort((a, b) => a - b)[Math.floor(0.99 * (FILES - 1))];
      const kept = [[0, 0], [0, 0]];
      for (let i = 1; i < FILES; i++) {
        if (lat[i] > cut) continue;
        kept[picks[i - 1]][0] += lat[i];
        kept[picks[i - 1]][1]++;
      }
      untrimmed.push(overPct(s.afterLoggedNs / s.afterLogged, s.afterUnloggedNs / s.afterUnlogged));
      return overPct(kept[1][0] / kept[1][1], kept[0][0] / kept[0][1]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, { untrimmed });
}

/** 16 reader threads, web-serving's 80/20 small-file reads: wall time; and the same-run split (below). */
async function readers(dir: string): Promise<{ measure: Measure; split: () => Promise<number> }> {
  const plan = planTree({ id: 'bench', files: 2000, dirs: 130, totalBytes: 2000 * 13445, maxFileBytes: 2e6 });
  await writeTree(plan, join(dir, 'web'));
  const crcs = treeCrcs(plan);
  const files: FixtureFile[] = plan.files.map((f, i) => ({ path: join(dir, 'web', f.path), size: f.size, crc32: crcs[i] }));
  const ctx = { root: dir, scratchDir: dir, dataSeed: 'bench', signal, record: () => {}, progress: () => {} };
  const sequences = accessSequences(files.length, { reads: Number(values.reads), readers: 16, hotFraction: 0.2, hotShare: 0.8 }, 'bench');
  // Wall time over 16 threads on the CPUs there are: the log's cost per read is spread over them.
  const reads = sequences.reduce((n, s) => n + s.length, 0);
  const measure = Object.assign(async () => {
    const r = await runReaders(ctx, files, sequences, 256 * 1024, 'wall');
    if (r.failed || r.mismatches) throw new Error(`readers: ${r.failed} failed: ${r.firstError}`);
    return r.durationNs / 1e6;
  }, { ops: reads / Math.min(16, cpus().length) });
  let round = 0;
  /**
   * One measurement in which half the readers log (the series on) and half do not, released at
   * once: every thread meets the same machine at the same moments, so the two halves differ by the
   * log alone. The figure is the logging half's mean time per read over the other half's, − 1;
   * which half logs alternates per round (even or odd threads). A slower half runs its last reads
   * with fewer threads beside it, so the figure can understate the log's cost by up to half: the
   * log's own cost per read is printed with it.
   */
  const split = async () => {
    const logs = (i: number) => i % 2 === round % 2;
    round++;
    const jobs: ReadFilesJob[] = sequences.map((sequence, i) => ({ kind: 'read-files', files, sequence, chunkBytes: 256 * 1024, reportProgress: false, opLog: logs(i) ? 'wall' : null }));
    const results = await runThreads<ReadFilesResult>(jobs, { signal });
    const perRead = (on: boolean) => {
      const group = results.filter((_, i) => logs(i) === on);
      if (group.some((r) => r.failed || r.ok !== r.ops || !!r.log !== on)) throw new Error('readers split: a read failed, or a log was (not) kept');
      return group.reduce((t, r) => t + (r.endNs - r.startNs), 0) / group.reduce((n, r) => n + r.ops, 0);
    };
    return overPct(perRead(true), perRead(false));
  };
  return { measure, split };
}

/** The Batch path: FILES sequential reads of a 4 KiB file, timed as object workloads time theirs. */
function batch(dir: string): Measure {
  const path = join(dir, 'object.bin');
  writeFileSync(path, Buffer.alloc(4096, 7));
  return Object.assign(async () => {
    const b = new Batch('read', 4096).plan(FILES);
    b.start();
    for (let i = 0; i < FILES; i++) await b.op(() => readFile(path), (buf) => buf.length);
    b.verify(true);
    const m = b.finish();
    if (m.ok !== FILES) throw new Error(`batch: ${m.ok}/${FILES} ok: ${m.errorSample}`);
    return m.durationMs;
  }, { ops: FILES });
}

/**
 * The same run for the Batch path: two batches, one with the series on and one off, their
 * operations alternating (A, B, A, B…), so both meet the machine at the same moments: the logging
 * batch's time per operation over the other's, − 1 (which one goes first alternates per round).
 */
function batchSplit(dir: string): () => Promise<number> {
  const path = join(dir, 'object.bin');
  let round = 0;
  return async () => {
    const make = (on: boolean) => {
      seriesSettings.intervalMs = on ? DEFAULT_INTERVAL_MS : 0;
      return new Batch('read', 4096).plan(FILES);
    };
    const on = make(true);
    const off = make(false);
    const pair = round++ % 2 ? [off, on] : [on, off];
    for (const b of pair) b.start();
    for (let i = 0; i < FILES; i++) for (const b of pair) await b.op(() => readFile(path), (buf) => buf.length);
    const perOp = (b: Batch) => {
      b.verify(true);
      const m = b.finish();
      if (m.ok !== FILES) throw new Error(`batch split: ${m.ok}/${FILES} ok: ${m.errorSample}`);
      return m.durationMs / m.ok;
    };
    return overPct(perOp(on), perOp(off));
  };
}

/** Runs `measure` on and off, alternating which goes first, and prints each round and the median overhead. */
async function compare(name: string, measure: Measure, entryNs: number): Promise<number> {
  const overheads: number[] = [];
  const on: number[] = [];
  const off: number[] = [];
  const run = async (seriesOn: boolean) => {
    seriesSettings.intervalMs = seriesOn ? DEFAULT_INTERVAL_MS : 0;
    (seriesOn ? on : off).push(await measure(seriesOn));
  };
  await run(true); // warm-up, not counted
  on.length = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const seriesOn of round % 2 === 0 ? [true, false] : [false, true]) await run(seriesOn);
    overheads.push(overPct(on[round], off[round]));
    console.log(`   ${name} round ${String(round + 1).padStart(2)}: on ${on[round].toFixed(1)} ms, off ${off[round].toFixed(1)} ms: ${overheads[round] >= 0 ? '+' : ''}${overheads[round].toFixed(2)}%`);
  }
  const m = median(overheads);
  const fastest = overPct(Math.min(...on), Math.min(...off));
  // The log's own cost: one entry per operation, over the operation's time with the series off.
  const perOpUs = (median(off) * 1000) / measure.ops;
  const estimate = (100 * entryNs) / 1000 / perOpUs;
  console.log(`   => ${name}: median on ${median(on).toFixed(1)} ms, off ${median(off).toFixed(1)} ms; measured overhead: median of rounds ${sign(m)}%, ` +
    `fastest on vs fastest off ${sign(fastest)}%; the log's own cost: ${entryNs.toFixed(1)} ns per ${perOpUs.toFixed(2)} µs operation = ${estimate.toFixed(3)}% — ` +
    `target ≤ ${TARGET_PCT}% (median of rounds): ${m <= TARGET_PCT ? 'PASS' : 'FAIL'}`);
  return m;
}

/**
 * The same-run comparison over ROUNDS rounds: each round's figure, then the median — the verdict
 * where separate runs vary by more than the target (`separate`: their median, printed beside it).
 */
async function sameRun(name: string, what: string, split: () => Promise<number>, separate: number): Promise<number> {
  console.log(`   the same run, ${what}`);
  const splits: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    splits.push(await split());
    console.log(`   ${name} split round ${String(round + 1).padStart(2)}: ${sign(splits[round])}%`);
  }
  const m = median(splits);
  console.log(`   => ${name}, same run: median of rounds ${sign(m)}% (${sign(Math.min(...splits))} to ${sign(Math.max(...splits))}%); separate runs gave ${sign(separate)}% — ` +
    `target ≤ ${TARGET_PCT}% (same-run median): ${m <= TARGET_PCT ? 'PASS' : 'FAIL'}`);
  return m;
}

async function main(): Promise<void> {
  console.log(`series-overhead bench: ${cpus().length} CPUs, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${ROUNDS} rounds, series on (${DEFAULT_INTERVAL_MS} ms) vs off, interleaved; ${values.dir}`);
  const dir = mkdtempSync(join(values.dir!, 's3ab-bench-series-'));
  const results: number[] = [];
  const entryNs = logCostNs();
  console.log(`\n0. the log's own cost: ${entryNs.toFixed(1)} ns per entry (OpLog.ok into a fresh, growing log)`);
  try {
    if (ONLY.has('create') || ONLY.has('stat')) console.log(`\n1. metadata thread, ${FILES} operations (its timed time)`);
    // The metadata thread writes the entry after the operation's clock stops: the series can add to
    // the measured time only through its effects on the operation that follows (caches, TLB, branch
    // predictor). Separate runs vary by more than the target, and two threads side by side, one
    // logging, differed by ±30–50% a round here (tmpfs: they share its locks), so the verdict is
    // the same-run split inside one thread: operations after a logged one against those after an
    // unlogged one (metadataSplit).
    for (const test of ['create', 'stat'] as const) {
      if (!ONLY.has(test)) continue;
      const separate = await compare(`metadata ${test}`, metadata(dir, test), entryNs);
      const split = metadataSplit(dir, test);
      results.push(await sameRun(`metadata ${test}`, 'one thread logging a random half of its operations: the mean time of an operation after a logged one over one after an unlogged one, the slowest 1% of operations left out', split, separate));
      console.log(`   (not the verdict) metadata ${test}, same run over all operations, descheduling stalls included: ${split.untrimmed.map(sign).join(', ')}%; median ${sign(median(split.untrimmed))}%`);
    }
    if (ONLY.has('readers')) {
      console.log(`\n2. 16 read-files threads, ${Number(values.reads).toLocaleString('en')} small-file reads (80/20), wall time`);
      const r = await readers(dir);
      const separate = await compare('readers', r.measure, entryNs);
      // Separate runs of 16 threads on this machine vary by ±25%: the same-run split is the verdict.
      results.push(await sameRun('readers', 'half the readers logging: their time per read over the other half\'s', r.split, separate));
    }
    if (ONLY.has('batch')) {
      console.log(`\n3. Batch (object workloads' timing), ${FILES} sequential 4 KiB reads (sum of operation times)`);
      const separate = await compare('batch', batch(dir), entryNs);
      results.push(await sameRun('batch', 'two batches, their operations alternating, one logging: its time per operation over the other\'s', batchSplit(dir), separate));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const pass = results.every((m) => m <= TARGET_PCT);
  console.log(`\nload average ${loadavg().map((x) => x.toFixed(2)).join(' ')} after`);
  console.log(pass ? `the series adds ≤ ${TARGET_PCT}% to every measurement: the ${DEFAULT_INTERVAL_MS} ms interval stays` : `TARGET MISSED: with the series on, a measurement took more than ${TARGET_PCT}% longer (the same-run median over rounds; see above)`);
  process.exitCode = pass ? 0 : 1;
}

void main();
