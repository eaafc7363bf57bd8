import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountTable } from '../../runner/core/mounts-table';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { printSummary } from '../../runner/report/summary';
import { recordErrors } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';
import { runBenchmark } from '../../runner/run';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/**
 * JuiceFS (issue 14) on a real FUSE mount, against versitygw as a named endpoint: its files are
 * not objects, so fixtures go through its own mount, checks of what it wrote read its own file
 * system, the bucket probes are not applicable — and every volume is gone from the bucket after.
 */
const MATRIX = {
  name: 'juicefs-test',
  repetitions: 1,
  cache: ['cold', 'warm'],
  methods: ['juicefs'],
  workloads: {
    objects: { sizes: ['1KiB', '9MiB'], files: 2 },
    'dir-walk': { objects: 150, size: '1KiB' },
    'small-reads': { files: 12, size: '8KiB' },
    'large-read': { files: 1, size: '24MiB' },
    semantics: { propagation_timeout_s: 5 },
    metadata: { ops: 10 },
    'git-clone': { files: 30, commits: 4 },
    'tar-extract': { files: 80, dirs: 8, totalSize: '600KB' },
  },
};

describe('JuiceFS, a file system whose files are not objects', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-juicefs-'));
  const records: ResultRecord[] = [];
  let summary = '';
  let server: EmbeddedEndpoint;
  let bucketAfter: string[] = [];
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  beforeAll(async () => {
    server = await startEmbeddedEndpoint();
    process.env.AWS_ACCESS_KEY_ID = server.target.credentials!.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = server.target.credentials!.secretAccessKey;
    const matrixFile = join(dir, 'matrix.json');
    writeFileSync(matrixFile, JSON.stringify(MATRIX));
    const outcome = await runBenchmark({ matrixFile, resultsDir: join(dir, 'results'), quiet: true, endpoint: server.target.endpointUrl, bucket: server.target.bucket });
    for (const part of readdirSync(outcome.resultsDir).filter((d) => d.startsWith('dt='))) {
      for (const f of readdirSync(join(outcome.resultsDir, part))) {
        for (const line of readFileSync(join(outcome.resultsDir, part, f), 'utf8').trim().split('\n')) records.push(JSON.parse(line));
      }
    }
    await printSummary(outcome.resultsDir, outcome.manifest.run_id, (l) => (summary += `${l}\n`));
    const client = makeS3Client(server.target, { maxSockets: 2 });
    bucketAfter = ((await client.send(new ListObjectsV2Command({ Bucket: server.target.bucket }))).Contents ?? []).map((o) => o.Key!);
    client.destroy();
  }, 600_000);
  afterAll(async () => {
    process.env.AWS_ACCESS_KEY_ID = saved.id;
    process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every record is valid; every measurement ran and was verified, except the probes that look at the bucket', () => {
    expect(records.length).toBeGreaterThan(40);
    for (const r of records) expect(recordErrors(r)).toEqual([]);
    const notOk = records.filter((r) => r.status !== 'ok');
    expect(notOk.map((r) => `${r.workload} ${r.operation} ${r.status}`).sort()).toEqual(
      ['semantics mount-to-s3-delay not-applicable', 'semantics read-after-write not-applicable', 'semantics s3-to-mount-delay not-applicable'],
    );
    for (const r of notOk) expect(r.error_sample).toMatch(/its files are not objects in the bucket/);
    expect(records.filter((r) => r.status === 'ok').every((r) => r.verified)).toBe(true);
  });

  test('options are recorded: the volume in the bucket, metadata in SQLite, cache size and writeback stated', () => {
    const o = records[0].method_options;
    expect(records[0].method_version).toMatch(/^juicefs 1\.4\.2/);
    expect(o).toMatchObject({ cache_size: '10240', writeback: 'false', format_trash_days: '0', meta: expect.stringMatching(/SQLite/) });
    expect(o.data).toMatch(/^blocks under s3ab-\d{8}t\d{6}z-[0-9a-f]{6}-\d+\/ in the bucket/);
  });

  test('fixture workloads run on it: the fixture written through its mount, read cold and warm', () => {
    for (const workload of ['dir-walk', 'small-reads', 'large-read']) {
      expect(records.filter((r) => r.workload === workload && r.status === 'ok').map((r) => r.cache).sort()).toEqual(expect.arrayContaining(['cold', 'warm']));
    }
  });

  test('POSIX answers are its own: rename, hardlink, locks and metadata all supported and verified', () => {
    const probe = (op: string) => records.find((r) => r.workload === 'semantics' && r.operation === op)!;
    for (const op of ['rename-file', 'rename-dir', 'hardlink', 'symlink', 'flock', 'fcntl-lock', 'chmod', 'utimes', 'append', 'random-write']) expect(probe(op).status).toBe('ok');
    expect(summary).toMatch(/^juicefs\s+\d+ of \d+\s+[^\n]*read-after-write n\/a/m);
    const tar = records.find((r) => r.workload === 'tar-extract' && r.operation === 'extract')!;
    expect(tar.status).toBe('ok');
    expect(records.filter((r) => r.workload === 'git-clone').every((r) => r.status === 'ok')).toBe(true);
  });

  test('nothing is left: no mount, no client, and no volume or object in the bucket', () => {
    expect(mountTable().filter((m) => m.fsType.includes('juicefs'))).toEqual([]);
    expect(bucketAfter).toEqual([]);
  });
});
