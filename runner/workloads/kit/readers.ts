import type { FileSystemAccess } from '../../core/method';
import { cutSeries, OpLog, seriesSettings } from '../../core/intervals';
import { runThreads } from './threads';
import type { FixtureFile } from '../../core/workload';
import type { FsCounts, FsRunContext } from './fs-common';
import type { ReadFilesJob, ReadFilesResult } from './read-files.thread';
import type { CacheState, PassCache } from '../../core/vocabulary';

/**
 * The cache states a reading workload measures in this pass, and how to reach each before a
 * measurement that will read `sequences` of `files`.
 */
export interface CacheControl {
  readonly states: readonly CacheState[];
  enter(state: CacheState, files: FixtureFile[], sequences: number[][]): Promise<void>;
}

/** A local directory: no client caches to tell apart. */
export const NO_CACHE_CONTROL: CacheControl = { states: ['none'], enter: async () => {} };

/**
 * Cache control on a mount, for one pass of the runner (runner/run/step.ts runs a cold pass on a fresh
 * mount, then optionally a warm pass on the same mount):
 * - cold pass: `cold` — a file read since the last mount is made cold again by remounting (caches
 *   emptied, kernel caches dropped) before it is measured; then, where the client keeps a disk
 *   cache and `warmDisk` is asked, `warm-disk` — remounted with the disk cache kept, so reads come
 *   from that cache and not from memory;
 * - warm pass: `warmLabel` — the same reads are made once, unrecorded, then measured.
 */
export function mountCacheControl(
  mount: FileSystemAccess, pass: PassCache, fs: FsRunContext, chunkBytes: number,
  opts: { warmDisk: boolean; warmLabel: 'warm' | 'warm-memory' },
): CacheControl {
  const readSinceMount = new Set<number>();
  const states: CacheState[] = pass === 'warm' ? [opts.warmLabel] : ['cold', ...(opts.warmDisk && mount.diskCache ? ['warm-disk' as const] : [])];
  return {
    states,
    async enter(state, files, sequences) {
      const wanted = sequences.flat();
      if (state === 'cold') {
        if (wanted.some((i) => readSinceMount.has(i))) {
          fs.progress('remounting for cold reads');
          await mount.remount();
          readSinceMount.clear();
        }
        for (const i of wanted) readSinceMount.add(i);
      } else if (state === 'warm-disk') {
        fs.progress('remounting with the disk cache kept');
        await mount.remount({ keepDiskCache: true });
        readSinceMount.clear();
      } else {
        fs.progress('warming the caches: the same reads, unrecorded');
        await runReaders(fs, files, sequences, chunkBytes, 'wall');
      }
    },
  };
}

/** The measurement a group of readers makes (left out for unrecorded reads such as warming). */
export interface MeasuredReads {
  operation: string;
  objectSizeBytes: number | null;
  cache?: CacheState;
}

/**
 * Runs one reader thread per sequence, all released at once, and merges their counts. `timing`
 * picks the batch duration: `wall` (first open to last close over all readers: aggregate
 * throughput) or `active` (time inside open/read/close only, the verification between reads left
 * out: one stream's own rate).
 */
export async function runReaders(
  fs: FsRunContext, files: FixtureFile[], sequences: number[][], chunkBytes: number, timing: 'wall' | 'active', measured?: MeasuredReads,
): Promise<FsCounts & { mismatches: number }> {
  // The series' clock is the batch's: wall time across readers, or one reader's own time in its calls.
  const clock = timing === 'wall' ? 'wall' : sequences.length === 1 ? 'active' : null;
  const opLog = seriesSettings.intervalMs > 0 ? clock : null;
  const jobs: ReadFilesJob[] = sequences.map((sequence, i) => ({ kind: 'read-files', files, sequence, chunkBytes, reportProgress: i === 0, opLog }));
  // Files read out of files planned, for the step's budget.
  const meter = measured && { ...measured, planned: sequences.reduce((n, s) => n + s.length, 0), unit: 'files' as const };
  const results = await runThreads<ReadFilesResult>(jobs, { signal: fs.signal, onProgress: (_, note) => fs.progress(note), meter });
  const latencies = new Float64Array(results.reduce((n, r) => n + r.latenciesNs.length, 0));
  let offset = 0;
  const errors: Record<string, number> = {};
  let firstError: string | null = null;
  for (const r of results) {
    latencies.set(r.latenciesNs, offset);
    offset += r.latenciesNs.length;
    for (const [code, n] of Object.entries(r.errors)) errors[code] = (errors[code] ?? 0) + n;
    firstError ??= r.firstError;
  }
  const sum = (f: (r: ReadFilesResult) => number) => results.reduce((n, r) => n + f(r), 0);
  const start = Math.min(...results.map((r) => r.startNs));
  const wall = Math.max(...results.map((r) => r.endNs)) - start;
  const durationNs = timing === 'wall' ? wall : sum((r) => r.activeNs);
  const log = opLog ? OpLog.merge(results.flatMap((r) => (r.log ? [OpLog.fromArrays(r.log)] : []))) : null;
  const series = log && opLog ? cutSeries(log, opLog === 'wall' ? start : 0, (opLog === 'wall' ? start : 0) + durationNs, seriesSettings.intervalMs, opLog) : null;
  return {
    ops: sum((r) => r.ops), ok: sum((r) => r.ok), failed: sum((r) => r.failed), bytes: sum((r) => r.bytes), mismatches: sum((r) => r.mismatches),
    latenciesNs: latencies, durationNs, errors, firstError, series,
  };
}
