import { closeSync, openSync, readSync, constants as C } from 'node:fs';
import { crc32 } from 'node:zlib';
import { OpLog, opLogBuffers, PROGRESS_BYTES } from '../../core/intervals';
import { describeFailure, nowNs, type ThreadContext, type ThreadJobHandler } from '../../core/thread-job';

/**
 * The thread side of the reading workloads (`web-serving`, `read-scaling`): one reader that opens,
 * reads to the end and closes a sequence of files, timing the system calls of each file, and
 * checks every file's bytes against its known CRC-32 outside the timed calls. Many of these run
 * at once, one per thread, released together (runner/core/threads.ts).
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
   * Log each file's completion for the interval series, on this clock: 'wall' (the process-wide
   * clock, ns) or 'active' (time inside open/read/close so far); null: no log (series off).
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
  /** The completions (OpLog.toArrays) when the job asked for them. */
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

/** Where a file's progress goes (every PROGRESS_BYTES; one comparison per read() call while the log is on): the log, its clock ('wall', or 'active' time: the reader's calls before this file plus this file's so far). */
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
 * progress log, as every file smaller than PROGRESS_BYTES is read).
 */
function warmUp(withLog: boolean): void {
  const buffer = Buffer.allocUnsafe(WARM_UP_CHUNK);
  const read: FileRead = { got: 0, crc: 0, spentNs: 0, loggedBytes: 0, loggedAtNs: 0, closedNs: 0 };
  readWhole(__filename, buffer, read);
  const { got, crc } = read;
  // With the series on, each read's completion is logged here too (into a log that is dropped),
  // so the log's code is compiled before the common start, not by the measured threads at once.
  const log = withLog ? new OpLog(WARM_UP_READS) : null;
  for (let i = 0; i < WARM_UP_READS; i++) {
    readWhole(__filename, buffer, read);
    if (read.got !== got || read.crc !== crc) throw new Error(`warm-up: ${__filename} changed while being read`);
    log?.ok(read.closedNs, read.spentNs, read.got, read.spentNs);
  }
}

function prepare(job: ReadFilesJob): State {
  warmUp(!!job.opLog);
  return { job, buffer: Buffer.allocUnsafe(job.chunkBytes) };
}

function run(state: State, ctx: ThreadContext): { result: ReadFilesResult; transfer: ArrayBuffer[] } {
  const { job, buffer } = state;
  const latencies = new Float64Array(job.sequence.length);
  const r: ReadFilesResult = {
    ops: 0, ok: 0, failed: 0, latenciesNs: latencies, activeNs: 0, startNs: nowNs(), endNs: 0, bytes: 0, mismatches: 0, errors: {}, firstError: null, log: null,
  };
  // Room for every file's completion and its progress entries: the log does not grow inside the timed loop.
  const entries = job.sequence.reduce((n, i) => n + 1 + Math.floor(job.files[i].size / PROGRESS_BYTES), 0);
  const log = job.opLog ? new OpLog(entries) : null;
  const progress: ProgressLog | null = log ? { log, wall: job.opLog === 'wall', activeBeforeNs: 0 } : null;
  // A completion's time on the log's clock: the reader's active time, or the file's close (wall).
  const at = () => (job.opLog === 'active' ? r.activeNs : read.closedNs);
  const read: FileRead = { got: 0, crc: 0, spentNs: 0, loggedBytes: 0, loggedAtNs: 0, closedNs: 0 };
  let lastNote = r.startNs;
  for (const index of job.sequence) {
    if (ctx.aborted()) break;
    const file = job.files[index];
    try {
      if (progress) progress.activeBeforeNs = r.activeNs;
      // Only a file that can reach PROGRESS_BYTES is read with the log: handing the loop a log object
      // for every small file cost web-serving's 16 readers 20% of their rate (bench:series, from
      // its JIT-compiled read loop), and a small file never logs progress anyway.
      readWhole(file.path, buffer, read, file.size >= PROGRESS_BYTES ? progress : null);
      r.ops++;
      r.activeNs += read.spentNs;
      if (read.got === file.size && read.crc === file.crc32) {
        latencies[r.ok++] = read.spentNs;
        r.bytes += read.got;
        // The bytes not yet logged as progress, over the time since the last progress entry.
        const end = at();
        log?.ok(end, read.spentNs, read.got - read.loggedBytes, read.loggedBytes ? end - read.loggedAtNs : read.spentNs);
        ctx.count(read.got, 1);
      } else {
        log?.failed(at());
        r.failed++;
        r.mismatches++;
        r.firstError ??= `${file.path}: read ${read.got} bytes with CRC-32 ${read.crc.toString(16)}, expected ${file.size} bytes with ${file.crc32.toString(16)}`;
      }
    } catch (err) {
      const f = describeFailure(err);
      r.ops++;
      r.failed++;
      r.activeNs += read.spentNs;
      // Failed before its close: the file's close time is not this file's.
      log?.failed(job.opLog === 'active' ? r.activeNs : nowNs());
      r.errors[f.code] = (r.errors[f.code] ?? 0) + 1;
      r.firstError ??= `${file.path}: ${f.message}`;
    }
    ctx.done();
    if (job.reportProgress && nowNs() - lastNote > 1e9) {
      lastNote = nowNs();
      ctx.progress(`${r.ops}/${job.sequence.length} files`);
    }
  }
  r.endNs = nowNs();
  const out = latencies.slice(0, r.ok);
  r.latenciesNs = out;
  r.log = log?.toArrays() ?? null;
  const logBuffers = opLogBuffers(r.log);
  return { result: r, transfer: [out.buffer as ArrayBuffer, ...logBuffers] };
}

export const readFilesThreadJob: ThreadJobHandler<ReadFilesJob, State, ReadFilesResult> = { prepare, run };
