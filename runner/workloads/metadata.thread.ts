import {
  closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync,
  statSync, unlinkSync, writeSync, constants as C,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { patternBuffer } from '../core/data';
import { Prng } from '../core/prng';
import { OpLog, opLogBuffers } from '../core/intervals';
import { describeFailure, nowNs, type ThreadContext, type ThreadJobHandler } from './kit/thread-job';
import { TRAVERSAL_TREE, type MetadataTest } from './metadata';

/**
 * The thread side of the `metadata` workload (seed 002's suite): each test's setup, its timed
 * operation loop (one plain system call sequence per operation, timed with hrtime around it) and
 * its verification. Runs in a measuring thread (runner/workloads/kit/fs-thread.ts).
 */

/**
 * Operations only the performance script uses: the exact system call that fio's `filecreate`
 * (open O_CREAT|O_RDWR, 0600; the close is not timed) and `filestat` (stat) engines time, so the
 * difference between the two tools' latencies is the runner's own timing overhead.
 */
type CalibrationTest = 'create' | 'stat';

export interface MetadataJob {
  kind: 'metadata';
  test: MetadataTest | CalibrationTest;
  /** The test's own directory (created by the job, removed after verification). */
  dir: string;
  ops: number;
  /** Bytes per write or read. */
  size: number;
  /** fsync/fdatasync every N operations (seed 002: 100). */
  syncEvery: number;
  seed: string;
  /** Leave the test directory in place (the performance script inspects nothing; tests may). */
  keep?: boolean;
  /**
   * Keep each operation's completion (on the operations' own clock) for the interval series. The
   * timed loop is the same either way: the log is built from its per-operation arrays after it
   * (metadataOpLog), untimed.
   */
  opLog?: boolean;
}

export interface MetadataResult {
  test: string;
  ops: number;
  ok: number;
  failed: number;
  /** Latency of every successful operation, ns. */
  latenciesNs: Float64Array;
  /** Time spent in all operations, successful or not, ns. */
  activeNs: number;
  bytes: number;
  /** errno code → count, over failed operations. */
  errors: Record<string, number>;
  firstError: string | null;
  /** Set when the test could not be prepared: nothing was measured. */
  setupError: { code: string; message: string } | null;
  verified: boolean;
  verifyProblem: string | null;
  cleanupProblem: string | null;
  /** The completions (OpLog.toArrays) when the job asked for them, built after the timed loop. */
  log?: ReturnType<OpLog['toArrays']> | null;
}

interface State {
  job: MetadataJob;
  setupError: { code: string; message: string } | null;
  payload: Buffer;
  /** Expected content of the single data file (data-modifications, random-reads). */
  expected: Buffer | null;
  offsets: number[];
  expectedEntries: number;
}

const KEEP = '.keep';

/** An operation that returned without an error but with a wrong result (code EDATA: not a refusal). */
function wrongResult(message: string): Error {
  return Object.assign(new Error(message), { code: 'EDATA' });
}
const fileName = (i: number) => `file_${String(i).padStart(6, '0')}.dat`;

function writeWhole(path: string, data: Buffer): void {
  const fd = openSync(path, C.O_CREAT | C.O_WRONLY | C.O_TRUNC, 0o644);
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off, off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, data: Buffer, position: number | null): void {
  let off = 0;
  while (off < data.length) off += writeSync(fd, data, off, data.length - off, position === null ? null : position + off);
}

function buildTree(dir: string, depth: number): number {
  if (depth === 0) return 0;
  let entries = 0;
  for (let i = 0; i < TRAVERSAL_TREE.filesPerDir; i++) {
    closeSync(openSync(join(dir, `file_${i}.txt`), 'w'));
    entries++;
  }
  for (let i = 0; i < TRAVERSAL_TREE.dirsPerDir; i++) {
    const sub = join(dir, `dir_${i}`);
    mkdirSync(sub);
    entries += 1 + buildTree(sub, depth - 1);
  }
  return entries;
}

function countEntries(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    n++;
    if (e.isDirectory()) n += countEntries(join(dir, e.name));
  }
  return n;
}

/** What one test's timed loop works with: its state, the per-operation paths and the buffers. */
interface Loop {
  state: State;
  job: MetadataJob;
  /** Per-operation paths `a[i]` (and `b[i]`, a rename's target), or the one path a test works on; built before the loop, so no string work is timed. */
  paths: { a: string[]; b: string[]; single: string };
  /** sequential-writes: files stay open until the batch sync, as seed 002's suite does. */
  openFds: number[];
  /** create: the file the operation opened, closed untimed after it. */
  createdFds: number[];
  readBuffer: Buffer;
}

/**
 * One test of the suite, as data (fio's ioengine_ops are the model): its per-operation paths, its
 * untimed setup, the operation the loop times (returning the payload bytes it moved), the untimed
 * check of one operation's result, and the untimed check of what the successful operations made.
 */
interface TestSpec {
  /** The test works on objects of the write size (the record's object size). @default false */
  sized?: boolean;
  /** Per-operation paths under the test's directory. @default a[i] = file_NNNNNN.dat */
  paths?(job: MetadataJob): Partial<Loop['paths']>;
  /** Setup before the timed loop (untimed). @default nothing */
  prepare?(state: State, ctx: ThreadContext): void;
  op(l: Loop, i: number): number;
  /** Untimed, after the operation: wrong data is a failed operation (an error), else null. @default null */
  check?(l: Loop, i: number, result: number): Error | null;
  /** The operation's result counts as payload bytes. @default true */
  countsBytes?: boolean;
  /** Untimed: null when the file system now holds what the successful operations made, else the problem. */
  verify(state: State, succeeded: boolean[], ok: number): string | null;
}

const each = (job: MetadataJob, f: (i: number) => string) => Array.from({ length: job.ops }, (_, i) => f(i));
const pad = (i: number) => String(i).padStart(6, '0');

/** Writes `ops` files of the payload into the test's directory (untimed setup of deletion and stat). */
function writeFiles(state: State, ctx: ThreadContext, dir = state.job.dir): void {
  for (let i = 0; i < state.job.ops; i++) {
    if (ctx.aborted()) break;
    writeWhole(join(dir, fileName(i)), state.payload);
    if (i % 100 === 99) ctx.progress(`${state.job.test}: setup ${i + 1}/${state.job.ops}`);
  }
}

/** A file of `times` × the write size, and the random offsets the operations work at (as seed 002's suite). */
function dataFile(state: State, times: number): void {
  const { job } = state;
  const rng = new Prng(`${job.seed}/offsets`);
  state.expected = patternBuffer(`${job.seed}/data`, job.size * times);
  writeWhole(join(job.dir, 'data.dat'), state.expected);
  for (let i = 0; i < job.ops; i++) state.offsets.push(rng.below(job.size * (times - 1) + 1));
}

/** Opens, writes (at `position`, or appending) and closes one file; fdatasync every syncEvery operations and after the last. */
function writeAndClose(l: Loop, i: number, flags: number, position: number | null): number {
  const fd = openSync(l.paths.single, flags);
  try {
    writeAll(fd, l.state.payload, position);
    if ((i + 1) % l.job.syncEvery === 0 || i === l.job.ops - 1) fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return l.job.size;
}

/** Every test: seed 002's nine, then the performance script's two calibration operations. */
const TESTS: Record<MetadataTest | CalibrationTest, TestSpec> = {
  'sequential-writes': {
    sized: true,
    op: (l, i) => {
      const fd = openSync(l.paths.a[i], C.O_CREAT | C.O_WRONLY | C.O_TRUNC, 0o644);
      try {
        writeAll(fd, l.state.payload, null);
      } catch (err) {
        closeSync(fd);
        throw err;
      }
      l.openFds.push(fd);
      if (l.openFds.length >= l.job.syncEvery || i === l.job.ops - 1) {
        for (const open of l.openFds) fsyncSync(open);
        for (const open of l.openFds.splice(0)) closeSync(open);
      }
      return l.job.size;
    },
    verify: ({ job, payload }, succeeded) => {
      for (let i = 0; i < job.ops; i++) {
        if (!succeeded[i]) continue;
        const data = readFileSync(join(job.dir, fileName(i)));
        if (!data.equals(payload)) return `${fileName(i)} holds ${data.length} bytes that differ from the ${job.size} written`;
      }
      return null;
    },
  },
  'data-modifications': {
    sized: true,
    paths: (job) => ({ single: join(job.dir, 'data.dat') }),
    // A file ten times the write size, modified at random offsets (as seed 002's suite).
    prepare: (state) => dataFile(state, 10),
    op: (l, i) => {
      const bytes = writeAndClose(l, i, C.O_WRONLY, l.state.offsets[i]);
      l.state.payload.copy(l.state.expected!, l.state.offsets[i]);
      return bytes;
    },
    verify: ({ job, expected }, _s, ok) => {
      const data = readFileSync(join(job.dir, 'data.dat'));
      return data.equals(expected!) ? null : `data.dat (${data.length} bytes) does not hold the ${ok} modifications made`;
    },
  },
  'single-file-append': {
    sized: true,
    paths: (job) => ({ single: join(job.dir, 'append.dat') }),
    prepare: ({ job }) => closeSync(openSync(join(job.dir, 'append.dat'), 'w')),
    op: (l, i) => writeAndClose(l, i, C.O_WRONLY | C.O_APPEND, null),
    verify: ({ job, payload }, _s, ok) => {
      const data = readFileSync(join(job.dir, 'append.dat'));
      if (data.length !== ok * job.size) return `append.dat holds ${data.length} bytes after ${ok} appends of ${job.size}`;
      for (let off = 0; off < data.length; off += job.size) {
        if (!data.subarray(off, off + job.size).equals(payload)) return `append.dat differs at byte ${off}`;
      }
      return null;
    },
  },
  'empty-files': {
    paths: (job) => ({ a: each(job, (i) => join(job.dir, `empty_${pad(i)}.txt`)) }),
    op: (l, i) => { closeSync(openSync(l.paths.a[i], C.O_CREAT | C.O_WRONLY | C.O_TRUNC, 0o644)); return 0; },
    verify: ({ job }, _s, ok) => {
      const names = readdirSync(job.dir);
      if (names.length !== ok) return `the directory lists ${names.length} files after ${ok} were created`;
      const nonEmpty = names.filter((n) => statSync(join(job.dir, n)).size !== 0);
      return nonEmpty.length ? `${nonEmpty.length} "empty" files are not empty` : null;
    },
  },
  'empty-directories': {
    paths: (job) => ({ a: each(job, (i) => join(job.dir, `dir_${pad(i)}`)) }),
    op: (l, i) => { mkdirSync(l.paths.a[i]); return 0; },
    verify: ({ job }, _s, ok) => {
      const dirs = readdirSync(job.dir, { withFileTypes: true }).filter((e) => e.isDirectory());
      return dirs.length === ok ? null : `the directory lists ${dirs.length} subdirectories after ${ok} were created`;
    },
  },
  'file-moves': {
    sized: true,
    paths: (job) => ({ a: each(job, (i) => join(job.dir, 'src', fileName(i))), b: each(job, (i) => join(job.dir, 'dst', fileName(i))) }),
    prepare: (state, ctx) => {
      mkdirSync(join(state.job.dir, 'src'));
      mkdirSync(join(state.job.dir, 'dst'));
      // A file in the target directory makes it a real one on every client: Mountpoint forgets an
      // empty directory it made locally, and the rename would then fail for want of a target.
      writeWhole(join(state.job.dir, 'dst', KEEP), Buffer.alloc(0));
      writeFiles(state, ctx, join(state.job.dir, 'src'));
    },
    op: (l, i) => { renameSync(l.paths.a[i], l.paths.b[i]); return 0; },
    verify: ({ job, payload }, _s, ok) => {
      const moved = readdirSync(join(job.dir, 'dst')).filter((n) => n !== KEEP);
      const left = readdirSync(join(job.dir, 'src'));
      if (moved.length !== ok || left.length !== job.ops - ok) return `after ${ok} moves dst/ lists ${moved.length} files and src/ ${left.length}`;
      for (const name of moved) {
        if (!readFileSync(join(job.dir, 'dst', name)).equals(payload)) return `moved file ${name} lost its content`;
      }
      return null;
    },
  },
  'random-reads': {
    sized: true,
    paths: (job) => ({ single: join(job.dir, 'data.dat') }),
    // A file a hundred times the read size, read at random offsets (as seed 002's suite).
    prepare: (state) => dataFile(state, 100),
    op: (l, i) => {
      const { size } = l.job;
      const fd = openSync(l.paths.single, C.O_RDONLY);
      let got = 0;
      try {
        while (got < size) {
          const n = readSync(fd, l.readBuffer, got, size - got, l.state.offsets[i] + got);
          if (n === 0) break;
          got += n;
        }
      } finally {
        closeSync(fd);
      }
      if (got < size) throw Object.assign(new Error(`short read: ${got} of ${size} bytes at offset ${l.state.offsets[i]}`), { code: 'ESHORT' });
      return got;
    },
    check: (l, i) => {
      const off = l.state.offsets[i];
      const ok = l.readBuffer.equals(l.state.expected!.subarray(off, off + l.job.size));
      // A fresh buffer for the next read, untimed: a read that returns nothing cannot pass on old bytes.
      l.readBuffer = Buffer.alloc(l.job.size);
      return ok ? null : wrongResult(`read at offset ${off} returned wrong data`);
    },
    verify: () => null,
  },
  deletion: {
    sized: true,
    prepare: (state, ctx) => writeFiles(state, ctx),
    op: (l, i) => { unlinkSync(l.paths.a[i]); return 0; },
    verify: ({ job }, _s, ok) => {
      const left = readdirSync(job.dir).length;
      return left === job.ops - ok ? null : `${left} files left after ${ok} of ${job.ops} were deleted`;
    },
  },
  traversal: {
    paths: (job) => ({ single: job.dir }),
    prepare: (state) => { state.expectedEntries = buildTree(state.job.dir, TRAVERSAL_TREE.depth); },
    op: (l) => countEntries(l.paths.single),
    check: (l, _i, entries) => (entries === l.state.expectedEntries ? null : wrongResult(`traversal saw ${entries} entries, expected ${l.state.expectedEntries}`)),
    countsBytes: false,
    verify: () => null,
  },
  stat: {
    prepare: (state, ctx) => writeFiles(state, ctx),
    op: (l, i) => statSync(l.paths.a[i]).size,
    verify: () => null,
  },
  create: {
    op: (l, i) => { l.createdFds.push(openSync(l.paths.a[i], C.O_CREAT | C.O_RDWR, 0o600)); return 0; },
    // checked operation by operation
    verify: ({ job }, _s, ok) => (readdirSync(job.dir).length === ok ? null : `the directory does not list the ${ok} files created`),
  },
};

/** Whether a test works on objects of the write size (its records carry the size). */
export const isSizedTest = (test: MetadataTest): boolean => !!TESTS[test].sized;

function prepare(job: MetadataJob, ctx: ThreadContext): State {
  const state: State = { job, setupError: null, payload: patternBuffer(`${job.seed}/payload`, job.size), expected: null, offsets: [], expectedEntries: 0 };
  try {
    rmSync(job.dir, { recursive: true, force: true });
    // The step's directory again: on Mountpoint a directory lasts only while objects are under it,
    // so removing the previous test's files can take it away.
    mkdirSync(dirname(job.dir), { recursive: true });
    // Not recursive: Node's recursive mkdir reports ENOENT where the file system refused (EROFS).
    mkdirSync(job.dir);
    TESTS[job.test].prepare?.(state, ctx);
  } catch (err) {
    state.setupError = describeFailure(err, job.dir);
  }
  return state;
}

/**
 * The interval series' log of a timed loop, built after it from its per-operation arrays (untimed):
 * operation i, in order, completed at the sum of the operations' own times up to and including
 * it (the loop's `activeNs` after it) — `ok` with its time and bytes, or `failed`.
 */
export function metadataOpLog(opNs: Float64Array, opBytes: Float64Array, succeeded: ArrayLike<boolean>, ops: number): OpLog {
  const log = new OpLog(ops);
  let at = 0;
  for (let i = 0; i < ops; i++) {
    at += opNs[i];
    if (succeeded[i]) log.ok(at, opNs[i], opBytes[i]);
    else log.failed(at);
  }
  return log;
}

/**
 * Every operation's own time (ok or failed, in order), its payload bytes and whether it succeeded,
 * filled with the series on or off alike: the loop never logs, so the series adds nothing to the
 * timed loop (not even a branch on it); its log is cut from these arrays after the loop, untimed.
 */
interface PerOperation {
  opNs: Float64Array;
  opBytes: Float64Array;
  succeeded: boolean[];
}

function run(state: State, ctx: ThreadContext): { result: MetadataResult; transfer: ArrayBuffer[] } {
  const { job } = state;
  const spec = TESTS[job.test];
  const result: MetadataResult = {
    test: job.test, ops: 0, ok: 0, failed: 0, latenciesNs: new Float64Array(0), activeNs: 0, bytes: 0, errors: {}, firstError: null,
    setupError: state.setupError, verified: false, verifyProblem: null, cleanupProblem: null,
  };
  if (state.setupError) return finish(result, state);
  const l: Loop = {
    state, job, openFds: [], createdFds: [], readBuffer: Buffer.alloc(job.size),
    paths: { a: each(job, (i) => join(job.dir, fileName(i))), b: [], single: '', ...spec.paths?.(job) },
  };
  const perOp: PerOperation = { opNs: new Float64Array(job.ops), opBytes: new Float64Array(job.ops), succeeded: new Array(job.ops).fill(false) };
  const { opNs, opBytes, succeeded } = perOp;
  let lastNote = nowNs();
  for (let i = 0; i < job.ops; i++) {
    if (ctx.aborted()) break;
    const t0 = nowNs();
    let value = 0;
    let failure: unknown = null;
    try {
      value = spec.op(l, i);
    } catch (err) {
      failure = err;
    }
    const dt = nowNs() - t0;
    if (l.createdFds.length) closeSync(l.createdFds.pop()!);
    if (failure === null) failure = spec.check?.(l, i, value) ?? null;
    result.ops++;
    result.activeNs += dt;
    opNs[i] = dt;
    ctx.done();
    if (failure === null) {
      result.ok++;
      succeeded[i] = true;
      const bytes = spec.countsBytes !== false ? value : 0;
      opBytes[i] = bytes;
      result.bytes += bytes;
      ctx.count(bytes, 1);
    } else countFailure(result, failure, job.dir);
    if (dt > 0 && nowNs() - lastNote > 1e9) {
      lastNote = nowNs();
      ctx.progress(`${job.test}: ${i + 1}/${job.ops}`);
    }
  }
  settle(result, l, perOp);
  return finish(result, state);
}

function countFailure(result: MetadataResult, failure: unknown, dir: string): void {
  const f = describeFailure(failure, dir);
  result.failed++;
  result.errors[f.code] = (result.errors[f.code] ?? 0) + 1;
  result.firstError ??= f.message;
}

/** Untimed, after the loop: closes what a failed batch sync left open, then the latencies, the check and the series' log. */
function settle(result: MetadataResult, l: Loop, { opNs, opBytes, succeeded }: PerOperation): void {
  for (const fd of l.openFds.splice(0)) {
    try { closeSync(fd); } catch { /* already reported */ }
  }
  // The successful operations' times, in order.
  const latencies = new Float64Array(result.ok);
  for (let i = 0, k = 0; i < result.ops; i++) if (succeeded[i]) latencies[k++] = opNs[i];
  result.latenciesNs = latencies;
  const problem = verifyState(l.state, succeeded, result.ok);
  result.verified = problem === null && result.ok > 0;
  result.verifyProblem = problem;
  result.log = l.job.opLog ? metadataOpLog(opNs, opBytes, succeeded, result.ops).toArrays() : null;
}

function finish(result: MetadataResult, state: State): { result: MetadataResult; transfer: ArrayBuffer[] } {
  if (!state.job.keep) {
    try {
      rmSync(state.job.dir, { recursive: true, force: true, maxRetries: 2 });
    } catch (err) {
      result.cleanupProblem = describeFailure(err, state.job.dir).message;
    }
  }
  return { result, transfer: [result.latenciesNs.buffer as ArrayBuffer, ...opLogBuffers(result.log)] };
}

/** Checks, untimed, that the file system now holds what the successful operations made. Null when it does. */
function verifyState(state: State, succeeded: boolean[], ok: number): string | null {
  try {
    return TESTS[state.job.test].verify(state, succeeded, ok);
  } catch (err) {
    return `could not check the result: ${describeFailure(err, state.job.dir).message}`;
  }
}

export const metadataThreadJob: ThreadJobHandler<MetadataJob, State, MetadataResult> = { prepare, run };
