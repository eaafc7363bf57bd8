import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runThread } from '../core/threads';
import type { WorkloadDefinition } from '../core/workload';
import { errorSummary } from '../core/errors';
import { formatSize } from '../core/units';
import { SIZE_SCHEMA, sizeOf, waitForObjects } from './common';
import { fsMeasurement, fsRunContextOf, isRefusal, notMeasured, type FsRunContext } from './fs-common';
import { METADATA_TESTS, type MetadataJob, type MetadataResult, type MetadataTest } from './metadata.thread';

export { METADATA_TESTS, type MetadataTest };

export interface MetadataParams {
  /** Operations per test (seed 002: 100, reduced from 10,000 for Mountpoint). */
  ops: number;
  /** Bytes per write or read (seed 002's suite: 4096). */
  size: string | number;
  /** fsync every N operations in the writing tests (seed 002's suite: 100). */
  syncEvery: number;
  tests: MetadataTest[];
}

export const METADATA_PARAMS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // Default: seconds (quick); the seed and full profiles set seed 002's 100 and 10,000.
    ops: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 20 },
    size: { ...SIZE_SCHEMA, default: '4KiB' },
    syncEvery: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 100 },
    tests: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...METADATA_TESTS] }, default: [...METADATA_TESTS] },
  },
};

/**
 * Seed 002's metadata suite on a directory of the file system under test: each test runs in a
 * measuring thread (plain system calls, hrtime around each operation), then its result is checked
 * (files read back, listings counted) and its directory removed. A test the file system refuses
 * is recorded as unsupported; a test never crashes the suite.
 */
export async function runMetadataSuite(fs: FsRunContext, params: MetadataParams, checks: MetadataChecks = {}): Promise<void> {
  const size = sizeOf(params.size);
  for (const test of params.tests) {
    if (fs.signal.aborted) return;
    fs.progress(`metadata ${test}`);
    const independent = test === 'sequential-writes' ? checks.sequentialWrites : undefined;
    const job: MetadataJob = {
      kind: 'metadata', test, dir: join(fs.root, `metadata-${test}`), ops: params.ops, size, syncEvery: params.syncEvery, seed: `${fs.dataSeed}/${test}`,
      keep: !!independent,
    };
    const objectSize = ['sequential-writes', 'data-modifications', 'single-file-append', 'random-reads', 'file-moves', 'deletion'].includes(test) ? size : null;
    let r: MetadataResult;
    try {
      r = await runThread<MetadataResult>(job, { signal: fs.signal, onProgress: (_, note) => fs.progress(note) });
    } catch (err) {
      if (fs.signal.aborted) return;
      fs.record(notMeasured(test, objectSize, `the measuring thread failed: ${errorSummary(err)}`, false));
      continue;
    }
    const m = metadataMeasurement(r, objectSize);
    if (independent) {
      // The files the thread wrote and read back, as the store sees them (untimed).
      const names = Array.from({ length: r.ok }, (_, i) => `file_${String(i).padStart(6, '0')}.dat`);
      const problem = r.ok && r.ok === r.ops ? await independent(`metadata-${test}/`, names, size).catch((err) => `could not check the bucket: ${errorSummary(err)}`) : null;
      if (problem) {
        m.status = 'failed';
        m.verified = false;
        m.errorSample ??= problem;
      }
      await rm(job.dir, { recursive: true, force: true }).catch(() => {});
    }
    fs.record(m);
  }
}

/** Independent checks through the store, where the runner has one (a mount of a bucket). */
export interface MetadataChecks {
  /** Null when every named file of `size` bytes is in the store under the step's `subdir`, else the problem. */
  sequentialWrites?(subdir: string, names: string[], size: number): Promise<string | null>;
}

/** A thread's result as the test's record. */
export function metadataMeasurement(r: MetadataResult, objectSize: number | null) {
  if (r.setupError) {
    return notMeasured(r.test, objectSize, `setup failed: ${r.setupError.message}`, isRefusal(r.setupError.code));
  }
  const m = fsMeasurement(
    { ops: r.ops, ok: r.ok, failed: r.failed, bytes: r.bytes, latenciesNs: r.latenciesNs, durationNs: r.activeNs, errors: r.errors, firstError: r.firstError },
    { operation: r.test, objectSizeBytes: objectSize, verified: r.verified, verifyProblem: r.verifyProblem, movesPayload: r.bytes > 0 },
  );
  if (r.cleanupProblem && m.status === 'ok') m.errorSample = `(cleanup: ${r.cleanupProblem})`;
  return m;
}

export function describeMetadataParams(p: MetadataParams): Record<string, string> {
  return { ops: String(p.ops), size: formatSize(sizeOf(p.size)), syncEvery: String(p.syncEvery), tests: p.tests.join(',') };
}

/**
 * Seed 002's metadata suite (ZeroFS's bench): nine tests of one operation each, on the mounted
 * bucket. Needs a file system: object methods record it as not applicable.
 */
export const metadata: WorkloadDefinition<MetadataParams> = {
  name: 'metadata',
  summary: 'seed 002\'s metadata suite: sequential writes, modifications, appends, empty files/dirs, moves, random reads, deletion, traversal',
  seed: '002-zerofs-vs-mountpoint-benchmarks',
  requires: 'file-system',
  // It writes its own files every time: a warm pass on the same mount would repeat the cold one.
  coldOnly: true,
  paramsSchema: METADATA_PARAMS_SCHEMA,
  describe: describeMetadataParams,
  async run(ctx) {
    const fs = await fsRunContextOf(ctx);
    await runMetadataSuite(fs, ctx.params, {
      // Written files must be objects in the bucket; a write-back client gets two minutes to upload.
      sequentialWrites: async (subdir, names, size) => (await waitForObjects(ctx.reference, `${ctx.prefix}${subdir}`, names, size, Math.max(fs.mount.uploadsAfterClose ? 120_000 : 0, fs.mount.bucketLag.exportMs))).problem,
    });
  },
};
