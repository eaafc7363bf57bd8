import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBenchmark } from '../../runner/run';

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
