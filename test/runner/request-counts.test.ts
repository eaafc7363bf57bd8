import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { printSummary } from '../../runner/report/summary';
import type { ResultRecord } from '../../runner/core/record.generated';
import { runBenchmark } from '../../runner/run';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const MIB = 1024 * 1024;

function readRecords(resultsDir: string): ResultRecord[] {
  const out: ResultRecord[] = [];
  for (const part of readdirSync(resultsDir).filter((d) => d.startsWith('dt='))) {
    for (const f of readdirSync(join(resultsDir, part))) out.push(...readFileSync(join(resultsDir, part, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ResultRecord));
  }
  return out;
}

/** Issue 15: each measurement's S3 requests, counted at the (embedded) server from its access log. */
describe('request counts from the server\'s access log', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-requests-'));
  let records: ResultRecord[] = [];
  let summary = '';
  const find = (method: string, workload: string, operation: string, size?: number) =>
    records.find((r) => r.method === method && r.workload === workload && r.operation === operation && (size === undefined || r.object_size_bytes === size))!;

  beforeAll(async () => {
    const matrixFile = join(dir, 'matrix.json');
    writeFileSync(matrixFile, JSON.stringify({
      name: 'requests-test', repetitions: 1, cache: ['cold'], methods: ['s3-api', 's3fs', 'mountpoint'],
      workloads: { objects: { sizes: ['1KiB', '16MiB'], files: 3 }, 'large-read': { files: 1, size: '64MiB' }, metadata: { ops: 10 } },
    }));
    const outcome = await runBenchmark({ matrixFile, resultsDir: join(dir, 'results'), quiet: true });
    records = readRecords(outcome.resultsDir);
    await printSummary(outcome.resultsDir, outcome.manifest.run_id, (l) => (summary += `${l}\n`));
  }, 600_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('s3-api\'s objects workload: exactly N PUTs (or the multipart triple and its parts), N HEADs, N GETs, N DELETEs', () => {
    const only = (r: ResultRecord) => Object.fromEntries(Object.entries(r.requests!).filter(([, v]) => v));
    expect(only(find('s3-api', 'objects', 'upload', 1024))).toEqual({ put: 3 });
    // 16 MiB in 8 MiB parts: create, two parts and complete per object.
    expect(only(find('s3-api', 'objects', 'upload', 16 * MIB))).toEqual({ mpu_create: 3, mpu_part: 6, mpu_complete: 3 });
    expect(only(find('s3-api', 'objects', 'list', 1024))).toEqual({ list: 1 });
    expect(only(find('s3-api', 'objects', 'head', 1024))).toEqual({ head: 3 });
    expect(only(find('s3-api', 'objects', 'download', 1024))).toEqual({ get: 3, get_bytes: 3 * 1024 });
    // Above the part size, parallel ranged GETs of 8 MiB: every byte once.
    expect(only(find('s3-api', 'objects', 'download', 16 * MIB))).toEqual({ get_ranged: 6, get_bytes: 3 * 16 * MIB });
    expect(only(find('s3-api', 'objects', 'delete', 1024))).toEqual({ delete: 3 });
  });

  test('a stat-heavy metadata test on s3fs shows HEAD requests', () => {
    const heads = records.filter((r) => r.method === 's3fs' && r.workload === 'metadata').reduce((n, r) => n + (r.requests?.head ?? 0), 0);
    expect(heads).toBeGreaterThan(0);
  });

  test('a Mountpoint large-read of one 64 MiB object: ranged GETs covering at least 64 MiB', () => {
    const read = find('mountpoint', 'large-read', 'read');
    expect(read.status).toBe('ok');
    expect(read.requests!.get_ranged).toBeGreaterThan(1);
    expect(read.requests!.get_bytes).toBeGreaterThanOrEqual(64 * MIB);
    expect(read.flags).not.toContain('served-from-cache');
  });

  test('a cold read the kernel served from its page cache is flagged: s3fs reading back what it has just written', () => {
    // The objects workload downloads through the same s3fs mount (kernel_cache) right after the
    // upload: the pass is labelled cold, yet the server sends no GET for the 16 MiB files.
    const read = find('s3fs', 'objects', 'download', 16 * MIB);
    expect(read.requests!.get_bytes).toBeLessThan(read.bytes);
    expect(read.flags).toContain('served-from-cache');
    // Mountpoint, which does not keep written data, fetched every byte: no flag.
    expect(find('mountpoint', 'objects', 'download', 16 * MIB).flags).not.toContain('served-from-cache');
  });

  test('the summary shows requests per operation, GET bytes per byte read and the cost per 1,000 operations', () => {
    expect(summary).toMatch(/Requests and request cost [^\n]*(\n[^\n]*)? S3 Standard request prices,\s+us-east-1/);
    // Cells wrap in 100 columns: a row's requests may go on under it, its case ("large-read read 64 MiB") too.
    expect(summary).toMatch(/^objects upload 16 MiB\s+s3-api\s+3\s+MPU create 1, MPU part(?: 2, MPU complete 1)?\s+–\s+\$0\.0200\n(?:\s+2, MPU complete 1\n)?/m);
    expect(summary).toMatch(/^large-read read 64(?: MiB)?\s+mountpoint \(cold\)\s+1\s+ranged GET \d+[^\n]*\s1(\.\d+)?\s+\$[\d.]+$/m);
    // The method cell names the share the server did not send, and may wrap: "(100%" then, on the next line, "from cache)".
    expect(summary).toMatch(/s3fs \(cold\) \(\d+(?:\.\d+)?%(?:\s+from\s+cache\)|[^\n]*\n[^\n]*\bfrom cache\))/);
    // The requests table has no rule between its rows: one rule, under its header.
    const requests = summary.slice(summary.indexOf('Requests and request cost'));
    expect(requests.slice(0, requests.indexOf('"GET B/B"')).split('\n').filter((l) => l.startsWith('─'))).toHaveLength(1);
  });
});

describe('an endpoint whose log the runner cannot read', () => {
  test('counts are null, never zero, and the summary says "not counted"', async () => {
    const server: EmbeddedEndpoint = await startEmbeddedEndpoint();
    const dir = mkdtempSync(join(tmpdir(), 's3ab-test-requests-named-'));
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = server.target.credentials!.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = server.target.credentials!.secretAccessKey;
    try {
      const outcome = await runBenchmark({
        profile: 'quick', methods: ['s3-api'], workloads: ['small-reads'], repetitions: 1, resultsDir: join(dir, 'results'), quiet: true,
        endpoint: server.target.endpointUrl, bucket: server.target.bucket,
      });
      const records = readRecords(outcome.resultsDir);
      expect(records.length).toBeGreaterThan(0);
      for (const r of records) expect(r.requests).toBeNull();
      let summary = '';
      await printSummary(outcome.resultsDir, outcome.manifest.run_id, (l) => (summary += `${l}\n`));
      expect(summary.replace(/\s+/g, ' ')).toMatch(/requests: not counted for s3-api \(1 measurements?\): the runner reads only the embedded server's access log/);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
