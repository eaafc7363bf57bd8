import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cutSeries, OpLog, seriesSettings } from '../core/intervals';
import { runThread } from './kit/threads';
import type { WorkloadDefinition } from '../core/workload';
import { metadataDescriptor, type MetadataParams } from './metadata';
import { errorSummary } from '../core/errors';
import { bucketSyncBoundMs, waitForObjects } from './kit/common';
import { parseSize } from '../core/units';
import { fsMeasurement, fsRunContextOf, isRefusal, notMeasured, type FsRunContext } from './kit/fs-common';
import { isSizedTest, type MetadataJob, type MetadataResult } from './metadata.thread';


/**
 * Seed 002's metadata suite on a directory of the file system under test: each test runs in a
 * measuring thread (plain system calls, hrtime around each operation), then its result is checked
 * (files read back, listings counted) and its directory removed. A test the file system refuses
 * is recorded as unsupported; a test never crashes the suite.
 */
export async function runMetadataSuite(fs: FsRunContext, params: MetadataParams, checks: MetadataChecks = {}): Promise<void> {
  const size = parseSize(params.size);
  for (const test of params.tests) {
    if (fs.signal.aborted) return;
    fs.progress(`metadata ${test}`);
    const independent = test === 'sequential-writes' ? checks.sequentialWrites : undefined;
    const job: MetadataJob = {
      kind: 'metadata', test, dir: join(fs.root, `metadata-${test}`), ops: params.ops, size, syncEvery: params.syncEvery, seed: `${fs.dataSeed}/${test}`,
      keep: !!independent, opLog: seriesSettings.intervalMs > 0,
    };
    const objectSize = isSizedTest(test) ? size : null;
    let r: MetadataResult;
    try {
      r = await runThread<MetadataResult>(job, {
        signal: fs.signal, onProgress: (_, note) => fs.progress(note), meter: { operation: test, objectSizeBytes: objectSize, planned: params.ops, unit: 'ops' },
      });
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
function metadataMeasurement(r: MetadataResult, objectSize: number | null) {
  if (r.setupError) {
    return notMeasured(r.test, objectSize, `setup failed: ${r.setupError.message}`, isRefusal(r.setupError.code));
  }
  const m = fsMeasurement(
    {
      ops: r.ops, ok: r.ok, failed: r.failed, bytes: r.bytes, latenciesNs: r.latenciesNs, durationNs: r.activeNs, errors: r.errors, firstError: r.firstError,
      series: r.log ? cutSeries(OpLog.fromArrays(r.log), 0, r.activeNs, seriesSettings.intervalMs, 'active') : null,
    },
    { operation: r.test, objectSizeBytes: objectSize, verified: r.verified, verifyProblem: r.verifyProblem, movesPayload: r.bytes > 0 },
  );
  if (r.cleanupProblem && m.status === 'ok') m.errorSample = `(cleanup: ${r.cleanupProblem})`;
  return m;
}

/**
 * Seed 002's metadata suite (ZeroFS's bench): nine tests of one operation each, on the mounted
 * bucket. Needs a file system: object methods record it as not applicable.
 */
export const metadata: WorkloadDefinition<MetadataParams> = {
  ...metadataDescriptor,
  async run(ctx) {
    const fs = await fsRunContextOf(ctx);
    await runMetadataSuite(fs, ctx.params, {
      // Written files must be objects in the bucket; a write-back client gets two minutes to upload.
      sequentialWrites: async (subdir, names, size) => (await waitForObjects(ctx.stored, `${ctx.prefix}${subdir}`, names, size, bucketSyncBoundMs(fs.mount))).problem,
    });
  },
};
