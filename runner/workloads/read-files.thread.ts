import { closeSync, openSync, readSync, constants as C } from 'node:fs';
import { crc32 } from 'node:zlib';
import { describeFailure, nowNs, type ThreadContext, type ThreadJobHandler } from '../core/thread-job';

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
}

interface State {
  job: ReadFilesJob;
  buffer: Buffer;
}

function prepare(job: ReadFilesJob): State {
  return { job, buffer: Buffer.allocUnsafe(job.chunkBytes) };
}

function run(state: State, ctx: ThreadContext): { result: ReadFilesResult; transfer: ArrayBuffer[] } {
  const { job, buffer } = state;
  const latencies = new Float64Array(job.sequence.length);
  const r: ReadFilesResult = {
    ops: 0, ok: 0, failed: 0, latenciesNs: latencies, activeNs: 0, startNs: nowNs(), endNs: 0, bytes: 0, mismatches: 0, errors: {}, firstError: null,
  };
  let lastNote = r.startNs;
  for (const index of job.sequence) {
    if (ctx.aborted()) break;
    const file = job.files[index];
    let spent = 0;
    let got = 0;
    let crc = 0;
    let fd = -1;
    try {
      let t = nowNs();
      fd = openSync(file.path, C.O_RDONLY);
      for (;;) {
        const n = readSync(fd, buffer, 0, buffer.length, null);
        const t2 = nowNs();
        spent += t2 - t;
        if (n === 0) break;
        got += n;
        crc = crc32(buffer.subarray(0, n), crc);
        t = nowNs();
      }
      t = nowNs();
      closeSync(fd);
      fd = -1;
      spent += nowNs() - t;
      r.ops++;
      r.activeNs += spent;
      if (got === file.size && crc === file.crc32) {
        latencies[r.ok++] = spent;
        r.bytes += got;
      } else {
        r.failed++;
        r.mismatches++;
        r.firstError ??= `${file.path}: read ${got} bytes with CRC-32 ${crc.toString(16)}, expected ${file.size} bytes with ${file.crc32.toString(16)}`;
      }
    } catch (err) {
      if (fd >= 0) {
        try { closeSync(fd); } catch { /* the read failure is what counts */ }
      }
      const f = describeFailure(err);
      r.ops++;
      r.failed++;
      r.activeNs += spent;
      r.errors[f.code] = (r.errors[f.code] ?? 0) + 1;
      r.firstError ??= `${file.path}: ${f.message}`;
    }
    if (job.reportProgress && nowNs() - lastNote > 1e9) {
      lastNote = nowNs();
      ctx.progress(`${r.ops}/${job.sequence.length} files`);
    }
  }
  r.endNs = nowNs();
  const out = latencies.slice(0, r.ok);
  r.latenciesNs = out;
  return { result: r, transfer: [out.buffer as ArrayBuffer] };
}

export const readFilesThreadJob: ThreadJobHandler<ReadFilesJob, State, ReadFilesResult> = { prepare, run };
