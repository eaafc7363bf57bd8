import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { startEmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { runBenchmark } from '../../runner/run';
import { s3ab } from '../helpers/cli';
import { freezableRelay } from '../helpers/relay';

/** A results folder that fills up mid-run (ENOSPC), and an embedded server that stops answering: bounded, clear ends. */
describe('a full results disk', () => {
  let dir: string;
  let mounted = false;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-full-'));
    mkdirSync(join(dir, 'disk'));
    // A small RAM disk of its own (root): just above the room a run asks for before it starts.
    mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=66m', 'tmpfs', join(dir, 'disk')]).status === 0;
  });
  afterAll(() => {
    if (mounted) spawnSync('umount', [join(dir, 'disk')]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('ENOSPC mid-run: the run is failed, the manifest names the full disk, no stack trace', async () => {
    expect(mounted).toBe(true);
    const results = join(dir, 'disk', 'results');
    const outcome = await runBenchmark({
      profile: 'quick', methods: ['s3-api'], workloads: ['small-reads'], repetitions: 3, resultsDir: results, quiet: true,
      onStep: (index) => {
        if (index !== 2) return;
        // Fill the disk: every later write fails with ENOSPC.
        const block = Buffer.alloc(1024 * 1024);
        try {
          for (let i = 0; ; i++) writeFileSync(join(dir, 'disk', `filler-${i}`), block);
        } catch {
          // full
        }
      },
    });
    expect(outcome.manifest.status).toBe('failed');
    expect(outcome.manifest.problem).toMatch(/ENOSPC/);
    const manifest = JSON.parse(readFileSync(join(results, '_runs', readdirSync(join(results, '_runs')).filter((f) => f.endsWith('.json'))[0]), 'utf8'));
    expect(manifest.status).toBe('failed');
    expect(manifest.problem).toMatch(/ENOSPC/);
  }, 120_000);
});

describe('a frozen embedded server', () => {
  test('stopped mid-run (SIGSTOP): the run ends within its bound, failed, naming the server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-frozen-'));
    let pid = 0;
    const t0 = Date.now();
    let stoppedAt = 0;
    try {
      const outcome = await runBenchmark({
        profile: 'quick', methods: ['s3-api'], workloads: ['small-reads'], repetitions: 5, resultsDir: join(dir, 'results'), quiet: true,
        onEndpoint: (e) => (pid = e.pid),
        onStep: (index) => { if (index === 2) { stoppedAt = Date.now(); process.kill(pid, 'SIGSTOP'); } },
      });
      expect(stoppedAt).toBeGreaterThan(0);
      expect(outcome.manifest.status).toBe('failed');
      expect(outcome.manifest.problem).toMatch(/the embedded S3 server \(versitygw, pid \d+\) stopped responding/);
      expect(Date.now() - stoppedAt).toBeLessThan(40_000);
      expect(Date.now() - t0).toBeLessThan(60_000);
    } finally {
      try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ }
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a named endpoint that stops answering mid-run', () => {
  test('the run ends within its bound, failed, naming the endpoint and the command that removes what it kept', async () => {
    const backend = await startEmbeddedEndpoint();
    const relay = await freezableRelay(Number(new URL(backend.target.endpointUrl!).port));
    const dir = mkdtempSync(join(tmpdir(), 's3ab-frozen-endpoint-'));
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = backend.target.credentials!.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = backend.target.credentials!.secretAccessKey;
    let frozenAt = 0;
    const stepFolders = () => new Set(readdirSync(tmpdir()).filter((f) => f.startsWith('s3ab-step')));
    const foldersBefore = stepFolders();
    try {
      // The CRT client bounds none of its own waits: only the runner's endpoint watch can end this run.
      const outcome = await runBenchmark({
        profile: 'quick', methods: ['s3-crt'], workloads: ['small-reads'], repetitions: 4, resultsDir: join(dir, 'results'), quiet: true,
        endpoint: relay.url, bucket: backend.target.bucket, endpointWatch: { intervalMs: 2_000, misses: 3 },
        onStep: (index) => { if (index === 2) { frozenAt = Date.now(); relay.freeze(); } },
      });
      expect(frozenAt).toBeGreaterThan(0);
      // The bound: 3 checks × 2 s plus one check's 6 s, and the step's own ending.
      expect(Date.now() - frozenAt).toBeLessThan(20_000);
      expect(outcome.manifest.status).toBe('failed');
      expect(outcome.manifest.steps_done).toBeLessThan(4);
      expect(outcome.manifest.problem).toMatch(new RegExp(`the endpoint ${relay.url} stopped answering: 3 checks 2 s apart got no reply`));
      const clean = /`(s3ab clean --run \S+ --endpoint \S+ --bucket \S+ --region \S+)`/.exec(outcome.manifest.problem!);
      expect(clean).not.toBeNull();
      // No client left running: the CRT client processes were children of this process.
      const children = spawnSync('pgrep', ['-P', String(process.pid), '-f', 's3ab-s3-crt']).stdout.toString().trim();
      expect(children).toBe('');
      expect([...stepFolders()].filter((f) => !foldersBefore.has(f))).toEqual([]);
      // The named command removes what the frozen endpoint kept (run against the server itself).
      relay.close();
      const args = clean![1].split(' ').slice(1).map((a) => (a === relay.url ? backend.target.endpointUrl! : a));
      const r = await s3ab(args, { env: { AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID!, AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY! } });
      expect(r.code).toBe(0);
      const client = makeS3Client(backend.target, { maxSockets: 2 });
      const left = await client.send(new ListObjectsV2Command({ Bucket: backend.target.bucket, Prefix: 's3ab/' }));
      client.destroy();
      expect(left.KeyCount).toBe(0);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      relay.close();
      await backend.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
