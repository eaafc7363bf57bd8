import { createHash } from 'node:crypto';
import { formatSize } from '../core/units';
import { SIZE_SCHEMA, sizeOf } from './common';
import { fsMeasurement, type FsRunContext } from './fs-common';
import { fixtureFilesOn, type WorkloadDefinition } from '../core/workload';
import { fsRunContextOf } from './fs-common';
import { mountCacheControl, runReaders, type CacheControl, type ReadableFile } from './readers';

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
    // Defaults: seconds (quick); the seed and full profiles set seed 003's 1 MB–1 GB and 200 MB files.
    sizes: { type: 'array', minItems: 1, items: SIZE_SCHEMA, default: ['1MB', '16MB'] },
    filesPerSize: { type: 'integer', minimum: 1, maximum: 100, default: 1 },
    concurrentSize: { ...SIZE_SCHEMA, default: '4MB' },
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
 * Seed 003's read scaling: single-stream reads of `filesPerSize` files per size, the duration being
 * the time inside open/read/close; then 1, 4, 16... readers, each reading its own file at the same
 * time, the duration being first open to last close. Each measurement in each cache state the
 * control offers (cold: files not read since the last mount).
 * Every byte is checked against the file's CRC-32.
 *
 * `files` is readScalingFiles(params) in order, placed on the file system under test.
 */
export async function runReadScaling(fs: FsRunContext, files: ReadableFile[], p: ReadScalingParams, cache: CacheControl): Promise<void> {
  const chunk = sizeOf(p.chunk);
  const plan = readScalingFiles(p);
  const indexOf = (name: string) => plan.findIndex((f) => f.name === name);
  for (const state of cache.states) {
    for (const raw of p.sizes) {
      if (fs.signal.aborted) return;
      const size = sizeOf(raw);
      const sequence = Array.from({ length: p.filesPerSize }, (_, i) => indexOf(`single-${size}-${i}.bin`));
      await cache.enter(state, files, [sequence]);
      fs.progress(`read-scaling: single stream ${formatSize(size)} (${state})`);
      const c = await runReaders(fs, files, [sequence], chunk, 'active');
      fs.record(fsMeasurement(c, { operation: 'single-stream', objectSizeBytes: size, verified: c.mismatches === 0 && c.ok > 0, verifyProblem: null, movesPayload: true, cache: state }));
    }
    for (const readers of p.readers) {
      if (fs.signal.aborted) return;
      const sequences = Array.from({ length: readers }, (_, i) => [indexOf(`concurrent-${i}.bin`)]);
      await cache.enter(state, files, sequences);
      fs.progress(`read-scaling: ${readers} concurrent readers (${state})`);
      const c = await runReaders(fs, files, sequences, chunk, 'wall');
      fs.record(fsMeasurement(c, {
        operation: `concurrent-${readers}`, objectSizeBytes: sizeOf(p.concurrentSize), verified: c.mismatches === 0 && c.ok > 0, verifyProblem: null, movesPayload: true, cache: state,
      }));
    }
  }
}

export function describeReadScalingParams(p: ReadScalingParams): Record<string, string> {
  return {
    sizes: p.sizes.map((s) => formatSize(sizeOf(s))).join(','), filesPerSize: String(p.filesPerSize),
    concurrentSize: formatSize(sizeOf(p.concurrentSize)), readers: p.readers.join(','), chunk: formatSize(sizeOf(p.chunk)),
  };
}

/**
 * Seed 003's read scaling on the mounted bucket. The files are a fixture written once per run
 * through the S3 API, so the mount first meets them cold. Needs a file system.
 */
export const readScaling: WorkloadDefinition<ReadScalingParams> = {
  name: 'read-scaling',
  summary: 'seed 003\'s single-stream reads from 1 MB to 1 GB and 1/4/16 concurrent readers of ~200 MB files',
  seed: '003-s3fs-tuning-ibm-cos',
  requires: 'file-system',
  paramsSchema: READ_SCALING_PARAMS_SCHEMA,
  describe: describeReadScalingParams,
  fixture: (p) => {
    const files = readScalingFiles(p);
    const key = files.map((f) => f.size).join('-');
    return {
      id: `read-scaling-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`, count: files.length,
      size: Math.max(...files.map((f) => f.size)), keyOf: (i) => files[i].name, sizeOf: (i) => files[i].size,
    };
  },
  async run(ctx) {
    const fs = await fsRunContextOf(ctx);
    const files = fixtureFilesOn(fs.mount, ctx.fixture!);
    const cache = mountCacheControl(fs.mount, ctx.cache, fs, sizeOf(ctx.params.chunk), { warmDisk: false, warmLabel: 'warm' });
    await runReadScaling(fs, files, ctx.params, cache);
  },
};
