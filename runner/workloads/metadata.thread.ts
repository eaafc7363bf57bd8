import {
  closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync,
  statSync, unlinkSync, writeSync, constants as C,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { patternBuffer } from '../core/data';
import { Prng } from '../core/prng';
import { OpLog } from '../core/intervals';
import { describeFailure, nowNs, type ThreadContext, type ThreadJobHandler } from '../core/thread-job';
import { TRAVERSAL_TREE, type MetadataTest } from './metadata';

/**
 * The thread side of the `metadata` workload (seed 002's suite): each test's setup, its timed
 * operation loop (one plain system call sequence per operation, timed with hrtime around it) and
 * its verification. Runs in a measuring thread (runner/workloads/fs-thread.ts).
 */
/**
 * Operations only the performance script uses: the exact system call that fio's `filecreate`
 * (open O_CREAT|O_RDWR, 0600; the close is not timed) and `filestat` (stat) engines time, so the
 * difference between the two tools' latencies is the runner's own timing overhead.
 */
export type CalibrationTest = 'create' | 'stat';

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
  /** Log each operation's completion (on the operations' own clock) for the interval series. */
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
  /** The completions (OpLog.toArrays) when the job asked for them. */
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

function prepare(job: MetadataJob, ctx: ThreadContext): State {
  const state: State = { job, setupError: null, payload: patternBuffer(`${job.seed}/payload`, job.size), expected: null, offsets: [], expectedEntries: 0 };
  const rng = new Prng(`${job.seed}/offsets`);
  try {
    rmSync(job.dir, { recursive: true, force: true });
    // The step's directory again: on Mountpoint a directory lasts only while objects are under it,
    // so removing the previous test's files can take it away.
    mkdirSync(dirname(job.dir), { recursive: true });
    // Not recursive: Node's recursive mkdir reports ENOENT where the file system refused (EROFS).
    mkdirSync(job.dir);
    switch (job.test) {
      case 'data-modifications': {
        // A file ten times the write size, modified at random offsets (as seed 002's suite).
        state.expected = patternBuffer(`${job.seed}/data`, job.size * 10);
        writeWhole(join(job.dir, 'data.dat'), state.expected);
        for (let i = 0; i < job.ops; i++) state.offsets.push(rng.below(job.size * 9 + 1));
        break;
      }
      case 'single-file-append':
        closeSync(openSync(join(job.dir, 'append.dat'), 'w'));
        break;
      case 'file-moves':
        mkdirSync(join(job.dir, 'src'));
        mkdirSync(join(job.dir, 'dst'));
        // A file in the target directory makes it a real one on every client: Mountpoint forgets an
        // empty directory it made locally, and the rename would then fail for want of a target.
        writeWhole(join(job.dir, 'dst', KEEP), Buffer.alloc(0));
        for (let i = 0; i < job.ops; i++) {
          if (ctx.aborted()) break;
          writeWhole(join(job.dir, 'src', fileName(i)), state.payload);
          if (i % 100 === 99) ctx.progress(`file-moves: setup ${i + 1}/${job.ops}`);
        }
        break;
      case 'deletion':
      case 'stat':
        for (let i = 0; i < job.ops; i++) {
          if (ctx.aborted()) break;
          writeWhole(join(job.dir, fileName(i)), state.payload);
          if (i % 100 === 99) ctx.progress(`${job.test}: setup ${i + 1}/${job.ops}`);
        }
        break;
      case 'random-reads': {
        // A file a hundred times the read size, read at random offsets (as seed 002's suite).
        state.expected = patternBuffer(`${job.seed}/data`, job.size * 100);
        writeWhole(join(job.dir, 'data.dat'), state.expected);
        for (let i = 0; i < job.ops; i++) state.offsets.push(rng.below(job.size * 99 + 1));
        break;
      }
      case 'traversal':
        state.expectedEntries = buildTree(job.dir, TRAVERSAL_TREE.depth);
        break;
      default:
        break;
    }
  } catch (err) {
    state.setupError = describeFailure(err, job.dir);
  }
  return state;
}

/** Per-operation paths: `a[i]` (and `b[i]`, the rename target), or the one file a test works on. */
function operationPaths(job: MetadataJob): { a: string[]; b: string[]; single: string } {
  const dir = job.dir;
  const each = (f: (i: number) => string) => Array.from({ length: job.ops }, (_, i) => f(i));
  switch (job.test) {
    case 'empty-files': return { a: each((i) => join(dir, `empty_${String(i).padStart(6, '0')}.txt`)), b: [], single: '' };
    case 'empty-directories': return { a: each((i) => join(dir, `dir_${String(i).padStart(6, '0')}`)), b: [], single: '' };
    case 'file-moves': return { a: each((i) => join(dir, 'src', fileName(i))), b: each((i) => join(dir, 'dst', fileName(i))), single: '' };
    case 'data-modifications':
    case 'random-reads': return { a: [], b: [], single: join(dir, 'data.dat') };
    case 'single-file-append': return { a: [], b: [], single: join(dir, 'append.dat') };
    case 'traversal': return { a: [], b: [], single: dir };
    default: return { a: each((i) => join(dir, fileName(i))), b: [], single: '' };
  }
}

function run(state: State, ctx: ThreadContext): { result: MetadataResult; transfer: ArrayBuffer[] } {
  const { job } = state;
  const latencies = new Float64Array(job.ops);
  const result: MetadataResult = {
    test: job.test, ops: 0, ok: 0, failed: 0, latenciesNs: latencies, activeNs: 0, bytes: 0, errors: {}, firstError: null,
    setupError: state.setupError, verified: false, verifyProblem: null, cleanupProblem: null,
  };
  if (state.setupError) return finish(result, state);
  const log = job.opLog ? new OpLog() : null;

  const payload = state.payload;
  const size = job.size;
  let readBuffer = Buffer.alloc(size);
  // sequential-writes: files stay open until the batch sync, as seed 002's suite does.
  const openFds: number[] = [];
  const createdFds: number[] = [];
  // Paths are built before the loop so that no string work lands inside a timed operation.
  const paths = operationPaths(job);
  const succeeded: boolean[] = new Array(job.ops).fill(false);
  const syncOpen = () => {
    for (const fd of openFds) fsyncSync(fd);
    for (const fd of openFds.splice(0)) closeSync(fd);
  };

  // One operation each; `bytes` is the payload it moved.
  const operation = (i: number): number => {
    switch (job.test) {
      case 'sequential-writes': {
        const fd = openSync(paths.a[i], C.O_CREAT | C.O_WRONLY | C.O_TRUNC, 0o644);
        try {
          writeAll(fd, payload, null);
        } catch (err) {
          closeSync(fd);
          throw err;
        }
        openFds.push(fd);
        if (openFds.length >= job.syncEvery || i === job.ops - 1) syncOpen();
        return size;
      }
      case 'data-modifications': {
        const fd = openSync(paths.single, C.O_WRONLY);
        try {
          writeAll(fd, payload, state.offsets[i]);
          if ((i + 1) % job.syncEvery === 0 || i === job.ops - 1) fdatasyncSync(fd);
        } finally {
          closeSync(fd);
        }
        return size;
      }
      case 'single-file-append': {
        const fd = openSync(paths.single, C.O_WRONLY | C.O_APPEND);
        try {
          writeAll(fd, payload, null);
          if ((i + 1) % job.syncEvery === 0 || i === job.ops - 1) fdatasyncSync(fd);
        } finally {
          closeSync(fd);
        }
        return size;
      }
      case 'empty-files':
        closeSync(openSync(paths.a[i], C.O_CREAT | C.O_WRONLY | C.O_TRUNC, 0o644));
        return 0;
      case 'empty-directories':
        mkdirSync(paths.a[i]);
        return 0;
      case 'file-moves':
        renameSync(paths.a[i], paths.b[i]);
        return 0;
      case 'random-reads': {
        const fd = openSync(paths.single, C.O_RDONLY);
        let got = 0;
        try {
          while (got < size) {
            const n = readSync(fd, readBuffer, got, size - got, state.offsets[i] + got);
            if (n === 0) break;
            got += n;
          }
        } finally {
          closeSync(fd);
        }
        if (got < size) throw Object.assign(new Error(`short read: ${got} of ${size} bytes at offset ${state.offsets[i]}`), { code: 'ESHORT' });
        return got;
      }
      case 'deletion':
        unlinkSync(paths.a[i]);
        return 0;
      case 'traversal':
        return countEntries(paths.single);
      case 'stat':
        return statSync(paths.a[i]).size;
      case 'create':
        createdFds.push(openSync(paths.a[i], C.O_CREAT | C.O_RDWR, 0o600));
        return 0;
    }
  };

  let lastNote = nowNs();
  for (let i = 0; i < job.ops; i++) {
    if (ctx.aborted()) break;
    if (job.test === 'random-reads') readBuffer = Buffer.alloc(size);
    const t0 = nowNs();
    let bytes = 0;
    let failure: unknown = null;
    try {
      bytes = operation(i);
    } catch (err) {
      failure = err;
    }
    const dt = nowNs() - t0;
    if (createdFds.length) closeSync(createdFds.pop()!);
    // Untimed check of what a reading operation returned: wrong data is a failed operation.
    if (failure === null && job.test === 'random-reads') {
      const off = state.offsets[i];
      if (!readBuffer.equals(state.expected!.subarray(off, off + size))) failure = wrongResult(`read at offset ${off} returned wrong data`);
    } else if (failure === null && job.test === 'traversal' && bytes !== state.expectedEntries) {
      failure = wrongResult(`traversal saw ${bytes} entries, expected ${state.expectedEntries}`);
    }
    result.ops++;
    result.activeNs += dt;
    if (failure === null) {
      latencies[result.ok++] = dt;
      succeeded[i] = true;
      if (job.test !== 'traversal') result.bytes += bytes;
      log?.ok(result.activeNs, dt, job.test !== 'traversal' ? bytes : 0);
      ctx.count(job.test !== 'traversal' ? bytes : 0, 1);
      if (job.test === 'data-modifications') payload.copy(state.expected!, state.offsets[i]);
    } else {
      const f = describeFailure(failure, job.dir);
      log?.failed(result.activeNs);
      result.failed++;
      result.errors[f.code] = (result.errors[f.code] ?? 0) + 1;
      result.firstError ??= f.message;
    }
    if (dt > 0 && nowNs() - lastNote > 1e9) {
      lastNote = nowNs();
      ctx.progress(`${job.test}: ${i + 1}/${job.ops}`);
    }
  }
  // Files of a failed batch sync stay open: close them, untimed.
  for (const fd of openFds.splice(0)) {
    try { closeSync(fd); } catch { /* already reported */ }
  }
  const problem = verify(state, succeeded, result.ok);
  result.verified = problem === null && result.ok > 0;
  result.verifyProblem = problem;
  result.log = log?.toArrays() ?? null;
  return finish(result, state);
}

function finish(result: MetadataResult, state: State): { result: MetadataResult; transfer: ArrayBuffer[] } {
  if (!state.job.keep) {
    try {
      rmSync(state.job.dir, { recursive: true, force: true, maxRetries: 2 });
    } catch (err) {
      result.cleanupProblem = describeFailure(err, state.job.dir).message;
    }
  }
  const latencies = result.latenciesNs.slice(0, result.ok);
  result.latenciesNs = latencies;
  const logBuffers = result.log ? [result.log.at.buffer, result.log.latency.buffer, result.log.bytes.buffer] as ArrayBuffer[] : [];
  return { result, transfer: [latencies.buffer as ArrayBuffer, ...logBuffers] };
}

/** Checks, untimed, that the file system now holds what the successful operations made. Null when it does. */
function verify(state: State, succeeded: boolean[], ok: number): string | null {
  const { job } = state;
  const dir = job.dir;
  try {
    switch (job.test) {
      case 'sequential-writes': {
        for (let i = 0; i < job.ops; i++) {
          if (!succeeded[i]) continue;
          const data = readFileSync(join(dir, fileName(i)));
          if (!data.equals(state.payload)) return `${fileName(i)} holds ${data.length} bytes that differ from the ${job.size} written`;
        }
        return null;
      }
      case 'data-modifications': {
        const data = readFileSync(join(dir, 'data.dat'));
        return data.equals(state.expected!) ? null : `data.dat (${data.length} bytes) does not hold the ${ok} modifications made`;
      }
      case 'single-file-append': {
        const data = readFileSync(join(dir, 'append.dat'));
        if (data.length !== ok * job.size) return `append.dat holds ${data.length} bytes after ${ok} appends of ${job.size}`;
        for (let off = 0; off < data.length; off += job.size) {
          if (!data.subarray(off, off + job.size).equals(state.payload)) return `append.dat differs at byte ${off}`;
        }
        return null;
      }
      case 'empty-files': {
        const names = readdirSync(dir);
        if (names.length !== ok) return `the directory lists ${names.length} files after ${ok} were created`;
        const nonEmpty = names.filter((n) => statSync(join(dir, n)).size !== 0);
        return nonEmpty.length ? `${nonEmpty.length} "empty" files are not empty` : null;
      }
      case 'empty-directories': {
        const dirs = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory());
        return dirs.length === ok ? null : `the directory lists ${dirs.length} subdirectories after ${ok} were created`;
      }
      case 'file-moves': {
        const moved = readdirSync(join(dir, 'dst')).filter((n) => n !== KEEP);
        const left = readdirSync(join(dir, 'src'));
        if (moved.length !== ok || left.length !== job.ops - ok) return `after ${ok} moves dst/ lists ${moved.length} files and src/ ${left.length}`;
        for (const name of moved) {
          if (!readFileSync(join(dir, 'dst', name)).equals(state.payload)) return `moved file ${name} lost its content`;
        }
        return null;
      }
      case 'deletion': {
        const left = readdirSync(dir).length;
        return left === job.ops - ok ? null : `${left} files left after ${ok} of ${job.ops} were deleted`;
      }
      case 'random-reads':
      case 'traversal':
      case 'stat':
        return null;
      case 'create':
        return readdirSync(dir).length === ok ? null : `the directory does not list the ${ok} files created`; // checked operation by operation
    }
  } catch (err) {
    return `could not check the result: ${describeFailure(err, job.dir).message}`;
  }
}

export const metadataThreadJob: ThreadJobHandler<MetadataJob, State, MetadataResult> = { prepare, run };
