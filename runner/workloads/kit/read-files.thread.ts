import { closeSync, openSync, readSync, constants as C } from 'node:fs';
import { crc32 } from 'node:zlib';
import { OpLog, opLogBuffers, PROGRESS_BYTES } from '../../core/intervals';
import { describeFailure, nowNs, type ThreadContext, type ThreadJobHandler } from './thread-job';

/**
 * The thread side of the reading workloads (`web-serving`, `read-scaling`): one reader that opens,
 * reads to the end and closes a sequence of files, timing the system calls of each file, and
 * checks every file's bytes against its known CRC-32 outside the timed calls. Many of these run
 * at once, one per thread, released together (runner/workloads/kit/threads.ts).
 */
export interface ReadFilesJob {
  kind: 'read-files';
  /** Files this reader may read, with their size and CRC-32 (zlib). */
  files: { path: string; size: number; crc32: number }[];
  /** Indexes into `files`, in reading order. */
  sequence: number[];
  /** Bytes per read() call. */
  chunkBytes: number;
  /** Send progress notes (one reader of a group does). */
  reportProgress: boolean;
  /**
   * Keep each file's completion for the interval series, on this clock: 'wall' (the process-wide
   * clock, ns) or 'active' (time inside open/read/close so far); null: no log (series off). The
   * timed loop keeps the same per-file values either way; the log is built from them after it
   * (readFilesOpLog), untimed.
   */
  opLog?: 'wall' | 'active' | null;
}

export interface ReadFilesResult {
  ops: number;
  ok: number;
  failed: number;
  /** Time to open, read and close each file that was read correctly, ns (verification excluded). */
  latenciesNs: Float64Array;
  /** Time inside open/read/close over all files, ns. */
  activeNs: number;
  /** First open and last close on the process-wide clock, ns: the reader's wall-clock span. */
  startNs: number;
  endNs: number;
  bytes: number;
  /** Files whose bytes differed from what was stored (counted in `failed`). */
  mismatches: number;
  errors: Record<string, number>;
  firstError: string | null;
  /** The completions and progress entries (OpLog.toArrays) when the job asked for them, built after the timed loop. */
  log: ReturnType<OpLog['toArrays']> | null;
}

interface State {
  job: ReadFilesJob;
  buffer: Buffer;
}

/** One file's read, filled in as it goes (so a failure still tells the time spent). */
interface FileRead {
  got: number;
  crc: number;
  /** Time inside open/read/close so far, ns. */
  spentNs: number;
  /** Bytes already in the series' log as progress, and the log clock's reading when they were. */
  loggedBytes: number;
  loggedAtNs: number;
  /** When the file was closed (the process-wide clock): the series' wall clock reads it, no clock call of its own. */
  closedNs: number;
}

/**
 * Where a large file's progress goes (every PROGRESS_BYTES; one comparison per read() call while
 * the log is on): a log of progress entries only, its clock ('wall', or 'active' time: the reader's
 * calls before this file plus this file's so far). The files' completions join them after the
 * timed loop (readFilesOpLog).
 */
interface ProgressLog {
  log: OpLog;
  wall: boolean;
  activeBeforeNs: number;
}

function logProgress(p: ProgressLog, out: FileRead, wallNs: number): void {
  const at = p.wall ? wallNs : p.activeBeforeNs + out.spentNs;
  p.log.progress(at, out.got - out.loggedBytes, at - out.loggedAtNs);
  out.loggedBytes = out.got;
  out.loggedAtNs = at;
}

/**
 * Opens `path`, reads it to the end in `buffer`-sized calls, updating the CRC-32 of every byte
 * read between the calls (outside the timed system calls), and closes it. Throws the system call's
 * error; `out` then holds what was done until then. The measured loop and the warm-up both run
 * this one function, so the warm-up compiles exactly the code that is measured.
 */
function readWhole(path: string, buffer: Buffer, out: FileRead, progress: ProgressLog | null = null): void {
  out.got = 0;
  out.crc = 0;
  out.spentNs = 0;
  out.loggedBytes = 0;
  let fd = -1;
  try {
    let t = nowNs();
    out.loggedAtNs = progress && !progress.wall ? progress.activeBeforeNs : t;
    fd = openSync(path, C.O_RDONLY);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      const t2 = nowNs();
      out.spentNs += t2 - t;
      if (n === 0) break;
      out.got += n;
      if (progress && out.got - out.loggedBytes >= PROGRESS_BYTES) logProgress(progress, out, t2);
      out.crc = crc32(buffer.subarray(0, n), out.crc);
      t = nowNs();
    }
    t = nowNs();
    closeSync(fd);
    fd = -1;
    out.closedNs = nowNs();
    out.spentNs += out.closedNs - t;
  } finally {
    if (fd >= 0) {
      try { closeSync(fd); } catch { /* the read failure is what counts */ }
    }
  }
}

/**
 * How many whole-file reads warm a thread up. A fresh thread runs the read loop in V8's
 * interpreter and compiles it (and node's fs functions) on V8's background threads, which every
 * thread of the process shares: 16 fresh threads did that during the measurement and cut their
 * aggregate rate on small files by a third. The rate stops improving at about 10,000 reads.
 */
const WARM_UP_READS = 10_000;
/** The warm-up's read size: several reads per file, as in the measured loop (the script is ~20 KB). */
const WARM_UP_CHUNK = 4096;

/**
 * Warms the thread up untimed, before the common start: reads of this thread's own script (a file
 * of the runner, never one under test, so no cache of the file system under test is touched),
 * several calls per file as in the measured loop, each checked as the measured reads are (without a
 * progress log, as every file smaller than PROGRESS_BYTES is read). The series' log needs no
 * warming: the timed loop no longer writes completions into it, only stores per-file values into
 * typed arrays (with the series on or off alike), and a large file's progress entries (one per
 * PROGRESS_BYTES read) are too few for their code's compilation to matter.
 */
function warmUp(): void {
  const buffer = Buffer.allocUnsafe(WARM_UP_CHUNK);
  const read: FileRead = { got: 0, crc: 0, spentNs: 0, loggedBytes: 0, loggedAtNs: 0, closedNs: 0 };
  readWhole(__filename, buffer, read);
  const { got, crc } = read;
  for (let i = 0; i < WARM_UP_READS; i++) {
    readWhole(__filename, buffer, read);
    if (read.got !== got || read.crc !== crc) throw new Error(`warm-up: ${__filename} changed while being read`);
  }
}

function prepare(job: ReadFilesJob): State {
  warmUp();
  return { job, buffer: Buffer.allocUnsafe(job.chunkBytes) };
}

/**
 * The interval series' log of a timed loop, built after it (untimed) from what the loop kept per
 * file read, exactly as logging each completion in the loop gave it: for file read i, in order,
 * the progress entries logged while it was read (`progress`, in the loop's order; null when there
 * are none), then its completion at `endNs[i]` (the file's close on the process-wide clock, or the
 * failure's moment) for the 'wall' clock, at the running sum of `opNs` up to and including it (the
 * loop's `activeNs` after it) for 'active': `ok` with its time `opNs[i]` and the bytes of
 * `sizes[i]` not already in its progress entries, spread over its time (or, after progress
 * entries, over the time since the last one), or `failed` where `failed[i]` is set.
 *
 * A file's progress entries lie after the previous file's completion (at least its first
 * PROGRESS_BYTES read since, on either clock) and at or before its own (its time only grows until
 * its close; a read that throws right after a progress entry leaves the failure at that entry's
 * `at` on the active clock, hence at or before, progress first): merging by time puts each one
 * with its own file.
 */
export function readFilesOpLog(
  clock: 'wall' | 'active', ops: number, opNs: Float64Array, endNs: Float64Array, failed: Uint8Array, sizes: ArrayLike<number>, progress: OpLog | null,
): OpLog {
  const extra = progress?.length ?? 0;
  const log = new OpLog(ops + extra);
  let p = 0;
  let active = 0;
  for (let i = 0; i < ops; i++) {
    active += opNs[i];
    const at = clock === 'active' ? active : endNs[i];
    // This file's progress entries: the bytes they logged and when the last one was.
    let loggedBytes = 0;
    let loggedAtNs = 0;
    for (; p < extra; p++) {
      const [pAt, , bytes, over] = progress!.entry(p);
      if (pAt > at) break;
      log.progress(pAt, bytes, over);
      loggedBytes += bytes;
      loggedAtNs = pAt;
    }
    if (failed[i]) log.failed(at);
    else log.ok(at, opNs[i], sizes[i] - loggedBytes, loggedBytes ? at - loggedAtNs : opNs[i]);
  }
  return log;
}

/**
 * Per file read, in order, filled with the series on or off alike: its time inside open/read/close
 * (ok or failed; the ok ones' are the latencies), its end on the process-wide clock (the file's
 * close, or the failure's moment), and whether it failed (set on failures only). The loop writes
 * no completion into the series' log: the log is built from these after the loop, untimed, so
 * the series adds nothing to a small file's read, not even a branch on it.
 */
interface PerFile {
  opNs: Float64Array;
  endNs: Float64Array;
  failed: Uint8Array;
  /** Room for the progress entries of the files that reach PROGRESS_BYTES (the log does not grow inside the timed loop). */
  progressLog: OpLog | null;
  progress: ProgressLog | null;
}

function perFileRecords(job: ReadFilesJob): PerFile {
  const planned = job.sequence.length;
  const progressLog = job.opLog ? new OpLog(job.sequence.reduce((n, i) => n + Math.floor(job.files[i].size / PROGRESS_BYTES), 0)) : null;
  return {
    opNs: new Float64Array(planned), endNs: new Float64Array(planned), failed: new Uint8Array(planned), progressLog,
    progress: progressLog ? { log: progressLog, wall: job.opLog === 'wall', activeBeforeNs: 0 } : null,
  };
}

function run(state: State, ctx: ThreadContext): { result: ReadFilesResult; transfer: ArrayBuffer[] } {
  const { job, buffer } = state;
  const perFile = perFileRecords(job);
  const { opNs, endNs, failed, progress } = perFile;
  const r: ReadFilesResult = {
    ops: 0, ok: 0, failed: 0, latenciesNs: opNs, activeNs: 0, startNs: nowNs(), endNs: 0, bytes: 0, mismatches: 0, errors: {}, firstError: null, log: null,
  };
  const read: FileRead = { got: 0, crc: 0, spentNs: 0, loggedBytes: 0, loggedAtNs: 0, closedNs: 0 };
  let lastNote = r.startNs;
  for (const index of job.sequence) {
    if (ctx.aborted()) break;
    const file = job.files[index];
    const i = r.ops;
    try {
      // Only a file that can reach PROGRESS_BYTES is read with the progress log: handing the loop a
      // log object for every small file cost web-serving's 16 readers 20% of their rate (bench:series,
      // from its JIT-compiled read loop), and a small file never logs progress anyway. So a small
      // file's read is the same code with the series on or off.
      let withProgress: ProgressLog | null = null;
      if (file.size >= PROGRESS_BYTES && progress) {
        progress.activeBeforeNs = r.activeNs;
        withProgress = progress;
      }
      readWhole(file.path, buffer, read, withProgress);
      r.ops++;
      r.activeNs += read.spentNs;
      opNs[i] = read.spentNs;
      endNs[i] = read.closedNs;
      if (read.got === file.size && read.crc === file.crc32) {
        r.ok++;
        r.bytes += read.got;
        ctx.count(read.got, 1);
      } else {
        failed[i] = 1;
        countMismatch(r, file, read);
      }
    } catch (err) {
      r.ops++;
      r.activeNs += read.spentNs;
      opNs[i] = read.spentNs;
      // Failed before its close: the file's close time is not this file's.
      endNs[i] = nowNs();
      failed[i] = 1;
      countFailure(r, file, err);
    }
    ctx.done();
    if (job.reportProgress && nowNs() - lastNote > 1e9) {
      lastNote = nowNs();
      ctx.progress(`${r.ops}/${job.sequence.length} files`);
    }
  }
  r.endNs = nowNs();
  return finishResult(r, job, perFile);
}

function countMismatch(r: ReadFilesResult, file: ReadFilesJob['files'][number], read: FileRead): void {
  r.failed++;
  r.mismatches++;
  r.firstError ??= `${file.path}: read ${read.got} bytes with CRC-32 ${read.crc.toString(16)}, expected ${file.size} bytes with ${file.crc32.toString(16)}`;
}

function countFailure(r: ReadFilesResult, file: ReadFilesJob['files'][number], err: unknown): void {
  const f = describeFailure(err);
  r.failed++;
  r.errors[f.code] = (r.errors[f.code] ?? 0) + 1;
  r.firstError ??= `${file.path}: ${f.message}`;
}

/** Untimed, after the loop: the ok reads' times, in order, and the series' log. */
function finishResult(r: ReadFilesResult, job: ReadFilesJob, perFile: PerFile): { result: ReadFilesResult; transfer: ArrayBuffer[] } {
  const { opNs, endNs, failed, progressLog } = perFile;
  const latencies = new Float64Array(r.ok);
  for (let i = 0, k = 0; i < r.ops; i++) if (!failed[i]) latencies[k++] = opNs[i];
  r.latenciesNs = latencies;
  if (job.opLog) {
    const sizes = job.sequence.slice(0, r.ops).map((index) => job.files[index].size);
    r.log = readFilesOpLog(job.opLog, r.ops, opNs, endNs, failed, sizes, progressLog).toArrays();
  }
  return { result: r, transfer: [latencies.buffer as ArrayBuffer, ...opLogBuffers(r.log)] };
}

export const readFilesThreadJob: ThreadJobHandler<ReadFilesJob, State, ReadFilesResult> = { prepare, run };
