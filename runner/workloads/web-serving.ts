import { Prng } from '../core/prng';
import { formatSize } from '../core/units';
import { SIZE_SCHEMA, sizeOf } from './common';
import { fsMeasurement, type FsRunContext } from './fs-common';
import { runReaders, type CacheControl, type ReadableFile } from './readers';
import { fixtureFilesOn, type WorkloadDefinition } from '../core/workload';
import { fsRunContextOf } from './fs-common';
import { mountCacheControl } from './readers';
import { planTree, treeCapacity, type TreeSpec } from './tree';

export interface WebServingParams {
  /** Small files the readers pick from (seed 004: 10K). */
  files: number;
  /** Mean file size (seed 004's tree: 726 MB over ~54K files ≈ 13.4 KB). */
  meanSize: string | number;
  /** Every file is smaller than this (seed 004: 2 MB). */
  maxSize: string | number;
  /** Files read per cache state, over all readers. */
  reads: number;
  /** Parallel readers (seed 004: 16). */
  readers: number;
  /** The hot share of the files... */
  hotFraction: number;
  /** ...receives this share of the reads (seed 004: 80/20). */
  hotShare: number;
  /** Bytes per read() call. */
  chunk: string | number;
}

export const WEB_SERVING_PARAMS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // Defaults: seconds (quick); the seed and full profiles set seed 004's 10K files.
    files: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 200 },
    meanSize: { ...SIZE_SCHEMA, default: 13445 },
    maxSize: { ...SIZE_SCHEMA, default: '2MB' },
    reads: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 800 },
    readers: { type: 'integer', minimum: 1, maximum: 256, default: 16 },
    hotFraction: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.2 },
    hotShare: { type: 'number', minimum: 0, maximum: 1, default: 0.8 },
    chunk: { ...SIZE_SCHEMA, default: '256KiB' },
  },
};

/** The file set: a kernel-tree-shaped set of small files, ~15 per directory as in seed 004's tree. */
export function webServingTree(p: WebServingParams): TreeSpec {
  return {
    id: 'web-serving', files: p.files, dirs: Math.max(1, Math.round(p.files / 15)),
    totalBytes: p.files * sizeOf(p.meanSize), maxFileBytes: sizeOf(p.maxSize),
  };
}

/** Files of mean size `meanSize` must fit under `maxSize`. */
export function validateWebServingParams(p: WebServingParams): { problem: string; fix: string } | null {
  const mean = sizeOf(p.meanSize);
  const max = sizeOf(p.maxSize);
  if (p.files * mean <= treeCapacity(p.files, max)) return null;
  return {
    problem: `files of mean size ${formatSize(mean)} cannot all be smaller than maxSize ${formatSize(max)}`,
    fix: `raise maxSize above ${formatSize(mean)} (${mean + 1} bytes or more) or lower meanSize below ${formatSize(max)}`,
  };
}

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
export async function runWebServing(fs: FsRunContext, files: ReadableFile[], p: WebServingParams, cache: CacheControl): Promise<void> {
  // The same sequences in every pass and on every method: seeded by the fixture, not the step.
  const sequences = accessSequences(files.length, p, 'web-serving');
  for (const state of cache.states) {
    if (fs.signal.aborted) return;
    await cache.enter(state, files, sequences);
    fs.progress(`web-serving ${state}: ${p.readers} readers`);
    const c = await runReaders(fs, files, sequences, sizeOf(p.chunk), 'wall');
    fs.record(fsMeasurement(c, {
      operation: 'read', objectSizeBytes: null, verified: c.mismatches === 0 && c.ok > 0, verifyProblem: null, movesPayload: true, cache: state,
    }));
  }
}

export function describeWebServingParams(p: WebServingParams): Record<string, string> {
  return {
    files: String(p.files), meanSize: formatSize(sizeOf(p.meanSize)), maxSize: formatSize(sizeOf(p.maxSize)), reads: String(p.reads),
    readers: String(p.readers), hotFraction: String(p.hotFraction), hotShare: String(p.hotShare), chunk: formatSize(sizeOf(p.chunk)),
  };
}

/**
 * Seed 004's parallel small-file reads on the mounted bucket. The files are a fixture written once
 * per run through the S3 API (a kernel-tree-shaped set), so the mount first meets them cold.
 * Needs a file system.
 */
export const webServing: WorkloadDefinition<WebServingParams> = {
  name: 'web-serving',
  summary: 'seed 004\'s 16 parallel readers over 10K small files, 80/20 access: p95 latency and MB/s per cache state',
  seed: '004-efs-vs-objectivefs-small-files',
  requires: 'file-system',
  paramsSchema: WEB_SERVING_PARAMS_SCHEMA,
  validate: validateWebServingParams,
  describe: describeWebServingParams,
  fixture: (p) => {
    const plan = planTree(webServingTree(p));
    return {
      id: `web-serving-${p.files}x${sizeOf(p.meanSize)}-max${sizeOf(p.maxSize)}`, count: plan.files.length,
      size: Math.max(...plan.files.map((f) => f.size)), keyOf: (i) => plan.files[i].path, sizeOf: (i) => plan.files[i].size,
    };
  },
  async run(ctx) {
    const fs = await fsRunContextOf(ctx);
    const files = fixtureFilesOn(fs.mount, ctx.fixture!);
    const cache = mountCacheControl(fs.mount, ctx.cache, fs, sizeOf(ctx.params.chunk), { warmDisk: true, warmLabel: 'warm-memory' });
    await runWebServing(fs, files, ctx.params, cache);
  },
};
