import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountTable } from '../../runner/core/mounts-table';
import type { ResultRecord } from '../../runner/core/record.generated';
import { runBenchmark } from '../../runner/run';
import { spawn } from 'node:child_process';
import { alive, S3AB, stopsWithin } from '../helpers/cli';

function readRecords(dir: string): ResultRecord[] {
  const out: ResultRecord[] = [];
  for (const part of readdirSync(dir).filter((d) => d.startsWith('dt='))) {
    for (const f of readdirSync(join(dir, part))) out.push(...readFileSync(join(dir, part, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ResultRecord));
  }
  return out;
}

/**
 * A FUSE client frozen mid-step (SIGSTOP) must not hang the run: the stall watchdog fails the step
 * within its bound naming the client, aborts the FUSE connection, detaches the mount, kills the
 * client, and the run goes on with the next step.
 */
describe('the stall watchdog', () => {
  const saved = process.env.S3AB_STALL_SECONDS;
  beforeAll(() => { process.env.S3AB_STALL_SECONDS = '3'; });
  afterAll(() => {
    if (saved === undefined) delete process.env.S3AB_STALL_SECONDS;
    else process.env.S3AB_STALL_SECONDS = saved;
  });

  test('a client stopped mid-step: the step fails within the bound, the next step runs, nothing is left behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-stall-'));
    const matrixFile = join(dir, 'matrix.json');
    writeFileSync(matrixFile, JSON.stringify({ repetitions: 2, methods: ['s3fs'], workloads: { metadata: { ops: 3000, tests: ['empty-files'] } } }));
    const mounted: { mountPoint: string; clientPid: number | null }[] = [];
    let stoppedAt = 0;
    const t0 = Date.now();
    const outcome = await runBenchmark({
      matrixFile, resultsDir: join(dir, 'results'), quiet: true,
      onMounted: (m) => {
        mounted.push(m);
        // Freeze the first mount's client once the workload is under way.
        if (mounted.length === 1 && m.clientPid) setTimeout(() => { stoppedAt = Date.now(); process.kill(m.clientPid!, 'SIGSTOP'); }, 400);
      },
    });
    try {
      const records = readRecords(join(dir, 'results'));
      const broken = records.find((r) => r.operation === 'step' && r.repetition === 1);
      expect(broken?.status).toBe('failed');
      expect(broken?.error_sample).toMatch(/the s3fs client \(pid \d+\) stopped responding: \d+ file-system requests? unanswered and no CPU used for 3 s/);
      expect(broken?.method_options.stall_watchdog_s).toBe('3');
      // The second step ran on a fresh mount and measured.
      expect(records.some((r) => r.repetition === 2 && r.operation === 'empty-files' && r.status === 'ok')).toBe(true);
      expect(outcome.manifest.status).toBe('failed');
      expect(outcome.manifest.steps_done).toBe(2);
      expect(stoppedAt).toBeGreaterThan(0);
      // Bounded: the stall bound, the watchdog's tick and the teardown, far from a hang.
      expect(Date.now() - t0).toBeLessThan(60_000);
      expect(mounted.length).toBe(2);
      for (const m of mounted) {
        expect(mountTable().some((e) => e.mountPoint === m.mountPoint)).toBe(false);
        expect(existsSync(m.mountPoint)).toBe(false);
        expect(alive(m.clientPid!)).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test('a single Ctrl-C during a hang ends the run within seconds, interrupted, nothing left behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-stall-int-'));
    const matrixFile = join(dir, 'matrix.json');
    writeFileSync(matrixFile, JSON.stringify({ repetitions: 1, methods: ['s3fs'], workloads: { metadata: { ops: 100000, tests: ['empty-files'] } } }));
    // The watchdog's own bound is far away: only the Ctrl-C can end this hang.
    const runner = spawn(process.execPath, [S3AB, 'run', '--matrix', matrixFile, '--results', join(dir, 'results'), '--no-html'], { env: { ...process.env, S3AB_STALL_SECONDS: '600' } });
    let output = '';
    runner.stdout.on('data', (d) => { output += d; });
    runner.stderr.on('data', (d) => { output += d; });
    const exited = new Promise<number | null>((r) => runner.on('exit', (code) => r(code)));
    try {
      // The s3fs client is the runner's child (found by parent pid, never by name), once the workload runs.
      let client = 0;
      for (let i = 0; i < 200 && !client; i++) {
        await new Promise((r) => setTimeout(r, 100));
        if (!/metadata rep 1/.test(output)) continue;
        for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
          try {
            const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
            if (stat.includes('(s3fs)') && Number(stat.replace(/^.*\) /, '').split(' ')[1]) === runner.pid) client = Number(pid);
          } catch {
            // gone
          }
        }
      }
      expect(client).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 1000));
      process.kill(client, 'SIGSTOP');
      await new Promise((r) => setTimeout(r, 1500));
      const t0 = Date.now();
      runner.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(Date.now() - t0).toBeLessThan(15_000);
      expect(await stopsWithin(client)).toBe(true);
      expect(mountTable().some((e) => e.mountPoint.includes(`s3ab-mnt-s3fs-${runner.pid}-`))).toBe(false);
      const manifests = readdirSync(join(dir, 'results', '_runs'));
      expect(JSON.parse(readFileSync(join(dir, 'results', '_runs', manifests[0]), 'utf8')).status).toBe('interrupted');
    } finally {
      if (runner.exitCode === null) runner.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a double Ctrl-C to the terminal\'s process group', () => {
  test('exits at once, the manifest says interrupted, the embedded server and its RAM folder are gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-double-int-'));
    const shmBefore = new Set(readdirSync('/dev/shm').filter((f) => f.startsWith('s3ab-versitygw-')));
    // Its own process group, as a terminal's foreground job: the signal reaches the server too.
    const runner = spawn(process.execPath, [S3AB, 'run', '--methods', 's3-api', '--workloads', 'objects', '--repetitions', '20', '--results', join(dir, 'results'), '--no-html'], { detached: true });
    let output = '';
    runner.stdout.on('data', (d) => { output += d; });
    runner.stderr.on('data', (d) => { output += d; });
    const exited = new Promise<number | null>((r) => runner.on('exit', (code) => r(code)));
    try {
      for (let i = 0; i < 300 && !/step 2\//.test(output); i++) await new Promise((r) => setTimeout(r, 100));
      expect(output).toMatch(/step 2\//);
      const server = Number(/embedded versitygw .* \(pid (\d+)\)/.exec(output)?.[1]);
      process.kill(-runner.pid!, 'SIGINT');
      await new Promise((r) => setTimeout(r, 50));
      process.kill(-runner.pid!, 'SIGINT');
      const t0 = Date.now();
      expect(await exited).toBe(130);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(await stopsWithin(server)).toBe(true);
      expect(readdirSync('/dev/shm').filter((f) => f.startsWith('s3ab-versitygw-') && !shmBefore.has(f))).toEqual([]);
      const runs = join(dir, 'results', '_runs');
      expect(JSON.parse(readFileSync(join(runs, readdirSync(runs)[0]), 'utf8')).status).toBe('interrupted');
    } finally {
      if (runner.exitCode === null) process.kill(-runner.pid!, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
