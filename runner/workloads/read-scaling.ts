import { formatSize } from '../core/units';
import { SIZE_SCHEMA, sizeOf } from './common';
import { fsMeasurement, type FsRunContext } from './fs-common';
import { runReaders, type CacheControl, type ReadableFile } from './readers';

export interface ReadScalingParams {
  /** Single-stream read sizes (seed 003: 1 MB to 1 GB). */
  sizes: (string | number)[];
  /** Files read one after another per size. */
  filesPerSize: number;
  /** Size of each concurrently read file (seed 003: about 200 MB). */
  concurrentSize: string | number;
  /** Numbers of concurrent readers, each reading its own file. */
  readers: number[];
  /** Bytes per read() call. */
  chunk: string | number;
}

export const READ_SCALING_PARAMS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    sizes: { type: 'array', minItems: 1, items: SIZE_SCHEMA, default: ['1MB', '10MB', '100MB', '1GB'] },
    filesPerSize: { type: 'integer', minimum: 1, maximum: 100, default: 1 },
    concurrentSize: { ...SIZE_SCHEMA, default: '200MB' },
    readers: { type: 'array', minItems: 0, items: { type: 'integer', minimum: 1, maximum: 256 }, default: [1, 4, 16] },
    chunk: { ...SIZE_SCHEMA, default: '1MiB' },
  },
};

/** The files the workload reads: `filesPerSize` per size, then max(readers) of `concurrentSize`. */
export function readScalingFiles(p: ReadScalingParams): { name: string; size: number }[] {
  const out: { name: string; size: number }[] = [];
  for (const raw of p.sizes) {
    const size = sizeOf(raw);
    for (let i = 0; i < p.filesPerSize; i++) out.push({ name: `single-${size}-${i}.bin`, size });
  }
  const most = Math.max(0, ...p.readers);
  for (let i = 0; i < most; i++) out.push({ name: `concurrent-${i}.bin`, size: sizeOf(p.concurrentSize) });
  return out;
}

/**
 * Seed 003's read scaling: single-stream reads of one file per size (cold: each size after a fresh
 * mount), the duration being the time inside open/read/close; then 1, 4, 16... readers, each
 * reading its own file at the same time (cold again), the duration being first open to last close.
 * Every byte is checked against the file's CRC-32.
 *
 * `files` is readScalingFiles(params) in order, placed on the file system under test.
 */
export async function runReadScaling(fs: FsRunContext, files: ReadableFile[], p: ReadScalingParams, cache: CacheControl): Promise<void> {
  const chunk = sizeOf(p.chunk);
  const state = cache.states.includes('cold') ? 'cold' : cache.states[0];
  const plan = readScalingFiles(p);
  const indexOf = (name: string) => plan.findIndex((f) => f.name === name);
  for (const raw of p.sizes) {
    if (fs.signal.aborted) return;
    const size = sizeOf(raw);
    fs.progress(`read-scaling: single stream ${formatSize(size)}`);
    await cache.enter(state);
    const sequence = Array.from({ length: p.filesPerSize }, (_, i) => indexOf(`single-${size}-${i}.bin`));
    const c = await runReaders(fs, files, [sequence], chunk, 'active');
    fs.record(fsMeasurement(c, { operation: 'single-stream', objectSizeBytes: size, verified: c.mismatches === 0 && c.ok > 0, verifyProblem: null, movesPayload: true, cache: state }));
  }
  for (const readers of p.readers) {
    if (fs.signal.aborted) return;
    fs.progress(`read-scaling: ${readers} concurrent readers`);
    await cache.enter(state);
    const sequences = Array.from({ length: readers }, (_, i) => [indexOf(`concurrent-${i}.bin`)]);
    const c = await runReaders(fs, files, sequences, chunk, 'wall');
    fs.record(fsMeasurement(c, {
      operation: `concurrent-${readers}`, objectSizeBytes: sizeOf(p.concurrentSize), verified: c.mismatches === 0 && c.ok > 0, verifyProblem: null, movesPayload: true, cache: state,
    }));
  }
}

export function describeReadScalingParams(p: ReadScalingParams): Record<string, string> {
  return {
    sizes: p.sizes.map((s) => formatSize(sizeOf(s))).join(','), filesPerSize: String(p.filesPerSize),
    concurrentSize: formatSize(sizeOf(p.concurrentSize)), readers: p.readers.join(','), chunk: formatSize(sizeOf(p.chunk)),
  };
}
