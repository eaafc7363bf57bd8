import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutBucketVersioningCommand } from '@aws-sdk/client-s3';
import { startEmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { ReferenceStore } from '../../runner/endpoint/reference';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { isRequestsOnly } from '../../runner/core/vocabulary';
import { parseSize } from '../../runner/core/units';
import { loadReportModel, renderModel } from '../../runner/report/summary';
import { recordErrors } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';
import { runBenchmark } from '../../runner/run';
import { DIRECT_READ_THRESHOLDS } from '../../runner/workloads/sync-behaviour';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/**
 * What S3 Files documents, measured on this host's real FUSE mounts of the embedded versitygw (its
 * bucket versioned, as the AWS data bucket is): S3 Files itself mounts only on AWS, but every
 * figure of the workload is the same measurement on each mount.
 */
const PARAMS = { per_size: 3, read_sizes: ['64KiB', '127KiB', '128KiB', '256KiB'], write_sizes: ['120KiB', '128KiB', '1020KiB', '1MiB'], files: 10, list_repeats: 3, timeout_s: 3 };
const MATRIX = {
  name: 'sync-behaviour-test',
  repetitions: 1,
  cache: ['cold', 'warm'],
  methods: ['s3fs', 'mountpoint', 'rclone'],
  workloads: { 'sync-behaviour': PARAMS },
};
const MOUNTS = MATRIX.methods;
const CACHES = ['cold', 'warm'];

test('the reference view counts each key\'s object versions, and tells a bucket that keeps none', async () => {
  const server = await startEmbeddedEndpoint();
  try {
    const client = makeS3Client(server.target, { maxSockets: 2 });
    const reference = new ReferenceStore(client, server.target.bucket);
    await reference.putBytes('v/a', Buffer.from('1'));
    expect(await reference.versions('v/')).toEqual({ versioned: false, counts: new Map([['a', 1]]) });
    await client.send(new PutBucketVersioningCommand({ Bucket: server.target.bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    for (const body of ['2', '3']) await reference.putBytes('v/a', Buffer.from(body));
    await reference.putBytes('v/b', Buffer.from('1'));
    const after = await reference.versions('v/');
    expect(after.versioned).toBe(true);
    // The object written before versioning was turned on is kept as its "null" version.
    expect(after.counts).toEqual(new Map([['a', 3], ['b', 1]]));
  } finally {
    await server.stop();
  }
}, 60_000);

describe('sync-behaviour on s3fs, Mountpoint and rclone against a versioned embedded bucket', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-sync-'));
  const records: ResultRecord[] = [];
  let resultsDir = '';
  let versioning: Promise<unknown> = Promise.resolve();
  const mine = (method: string, operation: string, cache?: string) =>
    records.filter((r) => r.method === method && r.operation === operation && (!cache || r.cache === cache));
  const one = (method: string, operation: string, cache: string, size?: number) => {
    const found = mine(method, operation, cache).filter((r) => size === undefined || r.object_size_bytes === size);
    if (found.length !== 1) throw new Error(`${found.length} ${method} ${operation} ${cache} records`);
    return found[0];
  };

  beforeAll(async () => {
    const matrixFile = join(dir, 'matrix.json');
    writeFileSync(matrixFile, JSON.stringify(MATRIX));
    const outcome = await runBenchmark({
      matrixFile, resultsDir: join(dir, 'results'), quiet: true, waitForLock: true,
      // The AWS data bucket is versioned (S3 Files requires it): so is this one, before the first step (after the link probe).
      onEndpoint: (e) => {
        versioning = makeS3Client(e.target, { maxSockets: 2 }).send(new PutBucketVersioningCommand({ Bucket: e.target.bucket, VersioningConfiguration: { Status: 'Enabled' } }));
      },
    });
    await versioning;
    resultsDir = outcome.resultsDir;
    for (const part of readdirSync(outcome.resultsDir).filter((d) => d.startsWith('dt='))) {
      for (const f of readdirSync(join(outcome.resultsDir, part))) {
        for (const line of readFileSync(join(outcome.resultsDir, part, f), 'utf8').trim().split('\n')) {
          const r = JSON.parse(line) as ResultRecord;
          if (!isRequestsOnly(r.operation)) records.push(r);
        }
      }
    }
  }, 900_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('every record matches the schema, no step broke, and the import rule is recorded with each', () => {
    expect(records.length).toBeGreaterThan(100);
    for (const r of records) expect(recordErrors(r)).toEqual([]);
    expect(records.filter((r) => r.flags.includes('step-failed')).map((r) => `${r.method}: ${r.error_sample}`)).toEqual([]);
    expect(new Set(records.map((r) => r.workload_params.s3files_import_below))).toEqual(new Set(['128 KiB']));
  });

  test('reads of the S3-written files below, at and above the import threshold: each size, cold and warm, verified', () => {
    for (const m of MOUNTS) for (const cache of CACHES) for (const size of PARAMS.read_sizes.map(parseSize)) {
      const r = one(m, 'read', cache, size);
      expect({ m, cache, size, status: r.status, verified: r.verified, ok: r.ok, bytes: r.bytes }).toEqual({ m, cache, size, status: 'ok', verified: true, ok: 3, bytes: 3 * size });
      expect(r.latency_us!.min).toBeGreaterThan(0);
    }
  });

  test('export lag per size: every file in the bucket; a client that uploads at close shows it within a second', () => {
    for (const m of MOUNTS) for (const cache of CACHES) for (const size of PARAMS.write_sizes.map(parseSize)) {
      const r = one(m, 'export-lag', cache, size);
      expect({ m, cache, size, status: r.status, ok: r.ok }).toEqual({ m, cache, size, status: 'ok', ok: 3 });
      expect(r.delay_ms).toBeGreaterThanOrEqual(0);
      expect(r.delay_ms).toBeLessThan(m === 'rclone' ? 60_000 : 1000);
    }
  });

  test('the direct-read thresholds: a verdict per threshold, derived from the reads of the files written through the mount', () => {
    for (const m of MOUNTS) for (const cache of CACHES) {
      for (const size of PARAMS.write_sizes.map(parseSize)) expect(one(m, 'read-exported', cache, size).verified).toBe(true);
      for (const t of DIRECT_READ_THRESHOLDS) {
        const r = one(m, t.operation, cache);
        expect(['ok', 'unsupported']).toContain(r.status);
        expect(r.supported).toBe(r.status === 'ok');
        const below = one(m, 'read-exported', cache, t.bytes === 128 * 1024 ? parseSize('120KiB') : parseSize('1020KiB')).latency_us!.min;
        const at = one(m, 'read-exported', cache, t.bytes).latency_us!.min;
        // The verdict is the figures' own: the ratio of the two fastest reads against the step.
        expect(r.error_sample).toContain(`×${(at / below).toFixed(2)}`);
        expect(r.supported).toBe(at / below >= 2);
      }
    }
  });

  test('the text summary shows each threshold\'s verdict with its line, never a time', async () => {
    const text = renderModel(await loadReportModel(resultsDir)).join('\n');
    // Lines wrap within their column: read each table cell as one.
    const joined = text.replace(/\n\s+/g, ' ');
    for (const m of MOUNTS) for (const cache of CACHES) for (const t of DIRECT_READ_THRESHOLDS) {
      const r = one(m, t.operation, cache);
      expect(joined).toContain(`${r.status === 'ok' ? 'holds' : 'does not hold'}: ${r.error_sample}`);
    }
    for (const row of text.split('\n').filter((l) => /direct-read/.test(l))) expect(row).not.toMatch(/\b0 µs\b|\b0(\.0+)? ms\b|MiB\/s|op\/s/);
  });

  test('the first listing of a new folder and repeated ones', () => {
    for (const m of ['s3fs', 'mountpoint']) for (const cache of CACHES) {
      expect(one(m, 'list-first', cache)).toMatchObject({ status: 'ok', verified: true, ok: 1 });
      expect(one(m, 'list-repeat', cache)).toMatchObject({ status: 'ok', verified: true, ok: PARAMS.list_repeats });
    }
    // rclone lists a folder from its directory cache (5 min): a folder its cache already holds as absent stays absent.
    expect(one('rclone', 'list-first', 'cold')).toMatchObject({ status: 'ok', verified: true });
  });

  test('a folder rename: on the mount, then in the bucket; Mountpoint refuses it', () => {
    for (const m of ['s3fs', 'rclone']) for (const cache of CACHES) {
      const renamed = one(m, 'rename-dir', cache);
      expect({ m, cache, status: renamed.status, verified: renamed.verified }).toEqual({ m, cache, status: 'ok', verified: true });
      const inBucket = one(m, 'rename-dir-in-bucket', cache);
      expect(inBucket.status).toBe('ok');
      expect(inBucket.delay_ms).toBeGreaterThanOrEqual(renamed.duration_ms * 0.9);
    }
    for (const cache of CACHES) {
      expect(one('mountpoint', 'rename-dir', cache)).toMatchObject({ status: 'unsupported', supported: false });
      expect(one('mountpoint', 'rename-dir', cache).error_sample).toMatch(/ENOSYS/);
      expect(one('mountpoint', 'rename-dir-in-bucket', cache).status).toBe('unsupported');
    }
  });

  test('chmod: s3fs changes the mode (versions counted on the versioned bucket); Mountpoint refuses it; rclone accepts it and keeps nothing', () => {
    for (const cache of CACHES) {
      expect(one('s3fs', 'chmod', cache)).toMatchObject({ status: 'ok', verified: true, ok: PARAMS.files });
      // s3fs stores the mode with a CopyObject of the object onto itself. versitygw v1.8.0 updates the
      // object's metadata in place (no new version; S3 writes one): the count is the server's own.
      const versions = one('s3fs', 'chmod-versions', cache);
      expect({ status: versions.status, ops: versions.ops }).toEqual({ status: 'ok', ops: 0 });
      expect(one('mountpoint', 'chmod', cache)).toMatchObject({ status: 'unsupported', supported: false });
      expect(one('rclone', 'chmod', cache).status).toBe('unsupported');
      expect(one('rclone', 'chmod', cache).error_sample).toMatch(/^succeeded but 10 of 10 files do not read mode 640/);
    }
  });
});
