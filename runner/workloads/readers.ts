import { runThreads } from '../core/threads';
import type { FsCounts, FsRunContext } from './fs-common';
import type { ReadFilesJob, ReadFilesResult } from './read-files.thread';

/** A file on the file system under test with what it must contain. */
export interface ReadableFile {
  path: string;
  size: number;
  crc32: number;
}

/**
 * Cache states a reading workload measures, and how to reach each. A mount method provides
 * `cold` (fresh mount, client and kernel caches dropped), `warm-memory` (the same mount again) and,
 * where the client keeps a disk cache, `warm-disk` (remounted, disk cache kept, memory caches
 * dropped). A plain local directory has only `none`.
 */
export interface CacheControl {
  readonly states: readonly ('cold' | 'warm-memory' | 'warm-disk' | 'none')[];
  enter(state: 'cold' | 'warm-memory' | 'warm-disk' | 'none'): Promise<void>;
}

/** A local directory: no client caches to tell apart. */
export const NO_CACHE_CONTROL: CacheControl = { states: ['none'], enter: async () => {} };

/**
 * Runs one reader thread per sequence, all released at once, and merges their counts. `timing`
 * picks the batch duration: `wall` (first open to last close over all readers: aggregate
 * throughput) or `active` (time inside open/read/close only, the verification between reads left
 * out: one stream's own rate).
 */
export async function runReaders(
  fs: FsRunContext, files: ReadableFile[], sequences: number[][], chunkBytes: number, timing: 'wall' | 'active',
): Promise<FsCounts & { mismatches: number }> {
  const jobs: ReadFilesJob[] = sequences.map((sequence, i) => ({ kind: 'read-files', files, sequence, chunkBytes, reportProgress: i === 0 }));
  const results = await runThreads<ReadFilesResult>(jobs, { signal: fs.signal, onProgress: (_, note) => fs.progress(note) });
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
  const wall = Math.max(...results.map((r) => r.endNs)) - Math.min(...results.map((r) => r.startNs));
  return {
    ops: sum((r) => r.ops), ok: sum((r) => r.ok), failed: sum((r) => r.failed), bytes: sum((r) => r.bytes), mismatches: sum((r) => r.mismatches),
    latenciesNs: latencies, durationNs: timing === 'wall' ? wall : sum((r) => r.activeNs), errors, firstError,
  };
}
