import { Prng } from '../core/prng';
import { parseSize } from '../core/units';
import { fsMeasurement, type FsRunContext } from './kit/fs-common';
import { runReaders, type CacheControl } from './kit/readers';
import { fixtureFilesOn, type FixtureFile, type WorkloadDefinition } from '../core/workload';
import { fsRunContextOf } from './kit/fs-common';
import { mountCacheControl } from './kit/readers';
import { webServingDescriptor, type WebServingParams } from './web-serving';


/**
 * Each reader's sequence of file indexes: `hotShare` of the picks go to a fixed random
 * `hotFraction` of the files, the rest to the others, uniformly within each group. The same seed
 * gives the same sequences, so every cache state and every method reads the same files.
 */
export function accessSequences(files: number, p: Pick<WebServingParams, 'reads' | 'readers' | 'hotFraction' | 'hotShare'>, seed: string): number[][] {
  const rng = new Prng(`access/${seed}`);
  const order = Array.from({ length: files }, (_, i) => i);
  for (let i = files - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const hotCount = Math.max(1, Math.min(files, Math.round(files * p.hotFraction)));
  const hot = order.slice(0, hotCount);
  const cold = order.slice(hotCount);
  const sequences: number[][] = Array.from({ length: p.readers }, () => []);
  for (let k = 0; k < p.reads; k++) {
    const fromHot = cold.length === 0 || rng.next() < p.hotShare;
    const group = fromHot ? hot : cold;
    sequences[k % p.readers].push(group[rng.below(group.length)]);
  }
  return sequences;
}

/**
 * Seed 004's small-file read test: `readers` threads read whole files (open, read to the end,
 * close) with an 80/20 access pattern; per-file latency (p95 in the summary) and aggregate
 * throughput. Measured once per cache state the method offers — cold (fresh mount, caches
 * dropped), warm-memory (the same reads again on that mount), warm-disk (remounted with the
 * client's disk cache kept) — each recorded with its own `cache` value. Every file read is checked
 * against its CRC-32.
 */
export async function runWebServing(fs: FsRunContext, files: FixtureFile[], p: WebServingParams, cache: CacheControl): Promise<void> {
  // The same sequences in every pass and on every method: seeded by the fixture, not the step.
  const sequences = accessSequences(files.length, p, 'web-serving');
  for (const state of cache.states) {
    if (fs.signal.aborted) return;
    await cache.enter(state, files, sequences);
    fs.progress(`web-serving ${state}: ${p.readers} readers`);
    const c = await runReaders(fs, files, sequences, parseSize(p.chunk), 'wall', { operation: 'read', objectSizeBytes: null, cache: state });
    fs.record(fsMeasurement(c, {
      operation: 'read', objectSizeBytes: null, verified: c.mismatches === 0 && c.ok > 0, verifyProblem: null, movesPayload: true, cache: state,
    }));
  }
}

/**
 * Seed 004's parallel small-file reads on the mounted bucket. The files are a fixture written once
 * per run through the S3 API (a kernel-tree-shaped set), so the mount first meets them cold.
 * Needs a file system.
 */
export const webServing: WorkloadDefinition<WebServingParams> = {
  ...webServingDescriptor,
  async run(ctx) {
    const fs = await fsRunContextOf(ctx);
    const files = fixtureFilesOn(fs.mount, ctx.fixture!);
    const cache = mountCacheControl(fs.mount, ctx.cache, fs, parseSize(ctx.params.chunk), { warmDisk: true, warmLabel: 'warm-memory' });
    await runWebServing(fs, files, ctx.params, cache);
  },
};
