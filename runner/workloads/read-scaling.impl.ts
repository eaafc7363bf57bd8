import { formatSize, parseSize } from '../core/units';
import { fsMeasurement, type FsRunContext } from './kit/fs-common';
import { fixtureFilesOn, type FixtureFile, type WorkloadDefinition } from '../core/workload';
import { fsRunContextOf } from './kit/fs-common';
import { mountCacheControl, runReaders, type CacheControl } from './kit/readers';
import { readScalingDescriptor, readScalingFiles, type ReadScalingParams } from './read-scaling';



/**
 * Seed 003's read scaling: single-stream reads of `filesPerSize` files per size, the duration being
 * the time inside open/read/close; then 1, 4, 16... readers, each reading its own file at the same
 * time, the duration being first open to last close. Each measurement in each cache state the
 * control offers (cold: files not read since the last mount).
 * Every byte is checked against the file's CRC-32.
 *
 * `files` is readScalingFiles(params) in order, placed on the file system under test.
 */
export async function runReadScaling(fs: FsRunContext, files: FixtureFile[], p: ReadScalingParams, cache: CacheControl): Promise<void> {
  const chunk = parseSize(p.chunk);
  const plan = readScalingFiles(p);
  const indexOf = (name: string) => plan.findIndex((f) => f.name === name);
  for (const state of cache.states) {
    for (const raw of p.sizes) {
      if (fs.signal.aborted) return;
      const size = parseSize(raw);
      const sequence = Array.from({ length: p.filesPerSize }, (_, i) => indexOf(`single-${size}-${i}.bin`));
      await cache.enter(state, files, [sequence]);
      fs.progress(`read-scaling: single stream ${formatSize(size)} (${state})`);
      const c = await runReaders(fs, files, [sequence], chunk, 'active', { operation: 'single-stream', objectSizeBytes: size, cache: state });
      fs.record(fsMeasurement(c, { operation: 'single-stream', objectSizeBytes: size, verified: c.mismatches === 0 && c.ok > 0, verifyProblem: null, movesPayload: true, cache: state }));
    }
    for (const readers of p.readers) {
      if (fs.signal.aborted) return;
      const sequences = Array.from({ length: readers }, (_, i) => [indexOf(`concurrent-${i}.bin`)]);
      await cache.enter(state, files, sequences);
      fs.progress(`read-scaling: ${readers} concurrent readers (${state})`);
      const c = await runReaders(fs, files, sequences, chunk, 'wall', { operation: `concurrent-${readers}`, objectSizeBytes: parseSize(p.concurrentSize), cache: state });
      fs.record(fsMeasurement(c, {
        operation: `concurrent-${readers}`, objectSizeBytes: parseSize(p.concurrentSize), verified: c.mismatches === 0 && c.ok > 0, verifyProblem: null, movesPayload: true, cache: state,
      }));
    }
  }
}

/**
 * Seed 003's read scaling on the mounted bucket. The files are a fixture written once per run
 * through the S3 API, so the mount first meets them cold. Needs a file system.
 */
export const readScaling: WorkloadDefinition<ReadScalingParams> = {
  ...readScalingDescriptor,
  async run(ctx) {
    const fs = await fsRunContextOf(ctx);
    const files = fixtureFilesOn(fs.mount, ctx.fixture!);
    const cache = mountCacheControl(fs.mount, ctx.cache, fs, parseSize(ctx.params.chunk), { warmDisk: false, warmLabel: 'warm' });
    await runReadScaling(fs, files, ctx.params, cache);
  },
};
