import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountTable } from '../../runner/core/mounts-table';
import { startEmbeddedEndpoint } from '../../runner/endpoint/embedded';
import type { ResultRecord } from '../../runner/core/record.generated';
import { runBenchmark } from '../../runner/run';
import { S3AB, alive, s3ab, stopsWithin } from '../helpers/cli';
import { freezableRelay } from '../helpers/relay';

/**
 * Issue 22: the last endings that needed a Ctrl-C, and two error messages. Each fault is injected
 * into a real run; each test asserts the exit code, the message, a true manifest and that nothing
 * is left behind, within a bound (no test can hang CI: every child is killed in `finally`).
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

function readRecords(dir: string): ResultRecord[] {
  const out: ResultRecord[] = [];
  for (const part of readdirSync(dir).filter((d) => d.startsWith('dt='))) {
    for (const f of readdirSync(join(dir, part))) out.push(...readFileSync(join(dir, part, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ResultRecord));
  }
  return out;
}

function manifestOf(results: string): Record<string, unknown> {
  const runs = join(results, '_runs');
  const files = readdirSync(runs).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(1);
  return JSON.parse(readFileSync(join(runs, files[0]), 'utf8'));
}

/** The CLI as a user runs it, its output collected; `exited` resolves with the exit code. */
function startCli(args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [S3AB, ...args], { env: { ...process.env, ...env } });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, output: () => output, exited };
}

async function until(what: string, check: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return;
  throw new Error(`${what} did not happen within ${ms / 1000} s`);
}

/** Processes whose parent is `parent` (found by parent pid, never by name). */
function childrenOf(parent: number): { pid: number; name: string }[] {
  const found: { pid: number; name: string }[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === parent) found.push({ pid: Number(pid), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    } catch {
      // gone
    }
  }
  return found;
}

const mountsOf = (runnerPid: number) => mountTable().filter((e) => e.mountPoint.includes(`-${runnerPid}-`));

describe('case 1: a user endpoint that freezes mid-step', () => {
  test('the run ends by itself soon after the liveness verdict, failed, naming the endpoint and the cleanup command; no client or folder left', async () => {
    const backend = await startEmbeddedEndpoint();
    const relay = await freezableRelay(Number(new URL(backend.target.endpointUrl!).port));
    const dir = mkdtempSync(join(tmpdir(), 's3ab-frozen-user-endpoint-'));
    // A temp folder of its own: whatever the run leaves there is its own.
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const run = startCli(['run', '--methods', 's3-api', '--workloads', 'objects', '--repetitions', '3', '--results', join(dir, 'results'), '--no-html',
      '--endpoint', relay.url, '--bucket', backend.target.bucket], {
      AWS_ACCESS_KEY_ID: backend.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: backend.target.credentials!.secretAccessKey, TMPDIR: tmp,
    });
    try {
      // Frozen as the second step starts: its uploads, checks and listings now get no answer.
      await until('step 2', () => /step 2\/3/.test(run.output()), 60_000);
      relay.freeze();
      const frozenAt = Date.now();
      const code = await run.exited;
      const endedS = (Date.now() - frozenAt) / 1000;
      process.stdout.write(`case 1: the run ended ${endedS.toFixed(1)} s after the endpoint froze (verdict due within 36 s)\n`);
      expect(code).toBe(1);
      // The verdict: 3 checks 10 s apart, each given 6 s; then the step and the run end at once (it took ~100 s more before).
      expect(endedS).toBeLessThan(36 + 15);
      const out = run.output();
      expect(out).toMatch(new RegExp(`the endpoint ${relay.url} stopped answering: 3 checks 10 s apart got no reply within 6 s`));
      expect(out).toMatch(/remove them with `s3ab clean --run \S+ --endpoint \S+ --bucket \S+ --region \S+`/);
      const manifest = manifestOf(join(dir, 'results'));
      expect(manifest.status).toBe('failed');
      expect(String(manifest.problem)).toMatch(/stopped answering/);
      expect(manifest.steps_done).toBeLessThan(3);
      expect(childrenOf(run.child.pid!)).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      run.child.kill('SIGKILL');
      relay.close();
      await backend.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});

describe('case 2: a Mountpoint client killed the moment its mount appears', () => {
  test('its step fails naming the client and its signal, the run goes on and ends failed, nothing is left mounted or running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-kill-at-mount-'));
    writeFileSync(join(dir, 'matrix.json'), JSON.stringify({ repetitions: 2, methods: ['mountpoint'], workloads: { 'small-reads': { files: 200 } } }));
    const run = startCli(['run', '--matrix', join(dir, 'matrix.json'), '--results', join(dir, 'results'), '--no-html']);
    let killed: { pid: number; at: number } | null = null;
    const mountPoints = new Set<string>();
    // Polled from /proc/mounts: the first mount of this runner that appears, its client is killed at once.
    const poll = setInterval(() => {
      for (const m of mountsOf(run.child.pid!)) mountPoints.add(m.mountPoint);
      if (killed || !mountPoints.size) return;
      const client = childrenOf(run.child.pid!).find((c) => /mount-s3/.test(c.name));
      if (!client) return;
      process.kill(client.pid, 'SIGKILL');
      killed = { pid: client.pid, at: Date.now() };
    }, 2);
    try {
      const code = await Promise.race([run.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 120_000))]);
      clearInterval(poll);
      expect(killed).not.toBeNull();
      const endedS = (Date.now() - killed!.at) / 1000;
      process.stdout.write(`case 2: the run ended ${endedS.toFixed(1)} s after the client was killed\n`);
      expect(code).toBe(1);
      const out = run.output();
      expect(out).toMatch(new RegExp(`the mountpoint client \\(pid ${killed!.pid}\\) exited (while mounting|mid-run) \\(signal SIGKILL\\)`));
      const manifest = manifestOf(join(dir, 'results'));
      expect(manifest).toMatchObject({ status: 'failed', steps_done: 2, steps_failed: 1, problem: '1 of 2 steps failed' });
      // The second step ran on a fresh mount and measured.
      expect(readRecords(join(dir, 'results')).some((r) => r.repetition === 2 && r.operation === 'read' && r.status === 'ok')).toBe(true);
      expect(mountsOf(run.child.pid!)).toEqual([]);
      for (const m of mountPoints) expect(existsSync(m)).toBe(false);
      expect(await stopsWithin(killed!.pid)).toBe(true);
      expect(childrenOf(run.child.pid!)).toEqual([]);
      // The client's folder (its credentials) and the embedded server are gone.
      expect(readdirSync('/dev/shm').filter((f) => f.startsWith(`s3ab-mountpoint-${run.child.pid}-`))).toEqual([]);
      const server = Number(/embedded versitygw .* \(pid (\d+)\)/.exec(out)?.[1]);
      expect(await stopsWithin(server)).toBe(true);
    } finally {
      clearInterval(poll);
      run.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});

describe('cases 3 and 4: s3ab report on a read-only folder and on an unreadable run manifest', () => {
  let dir: string;
  let results: string;
  let goodManifest: string;
  const corruptRun = '20991231T235959Z-c0ffee';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-report-faults-'));
    results = join(dir, 'results');
    const outcome = await runBenchmark({ profile: 'quick', methods: ['s3-api'], workloads: ['small-reads'], repetitions: 1, resultsDir: results, quiet: true });
    expect(outcome.manifest.status).toBe('complete');
    goodManifest = readFileSync(outcome.manifestFile, 'utf8');
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const reportCopies = () => new Set(readdirSync('/dev/shm').filter((f) => f.startsWith('s3ab-report-')));

  test('case 3: --html into a read-only folder exits 2 naming the path, the cause and the fix; nothing written', async () => {
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', ro]).status).toBe(0);
    const copies = reportCopies();
    try {
      const page = join(ro, 'report.html');
      const r = await s3ab(['report', '--results', results, '--html', page], { timeoutMs: 60_000 });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`s3ab: the report cannot be written to ${page}: EROFS (the folder is on a read-only file system)`);
      expect(r.stderr).toMatch(/fix: give a path in a folder you may write to/);
      expect(r.stderr).not.toMatch(/unexpected error/);
      expect(readdirSync(ro)).toEqual([]);
      expect([...reportCopies()].filter((f) => !copies.has(f))).toEqual([]);
      expect(readdirSync(join(results, '_runs')).map((f) => readFileSync(join(results, '_runs', f), 'utf8'))).toEqual([goodManifest]);
    } finally {
      spawnSync('umount', [ro]);
    }
  }, 90_000);

  test('case 4: an unreadable run manifest is a data problem in the summary and the page; --run naming its run exits 2 naming the file', async () => {
    const corrupt = join(results, '_runs', `${corruptRun}.json`);
    writeFileSync(corrupt, '{"run_id": "20991231T235959Z-c0ffee", "status": "compl');
    const copies = reportCopies();
    try {
      const summary = await s3ab(['report', '--results', results], { timeoutMs: 60_000 });
      expect(summary.code).toBe(0);
      // The summary wraps at 100 columns: compare its words.
      const words = summary.stdout.replace(/\s+/g, ' ');
      expect(words).toContain(`DATA PROBLEM: ${corrupt}: not a run manifest:`);
      expect(words).toContain(`the status of run ${corruptRun} is unknown`);
      // The run reported is the readable one, and it says so; the unreadable one is never shown as complete.
      const header = summary.stdout.split('\n')[0];
      expect(header).toMatch(/^Run \S+ \(quick\) — COMPLETE$/);
      expect(header).not.toContain(corruptRun);

      const page = join(dir, 'page.html');
      const html = await s3ab(['report', '--results', results, '--html', page], { timeoutMs: 60_000 });
      expect(html.code).toBe(0);
      const text = readFileSync(page, 'utf8');
      expect(text).toContain('Data problems');
      expect(text).toContain(`_runs/${corruptRun}.json`);
      expect(text).toContain(`the status of run ${corruptRun} is unknown`);

      const named = await s3ab(['report', '--results', results, '--run', corruptRun], { timeoutMs: 60_000 });
      expect(named.code).toBe(2);
      expect(named.stderr).toContain(`s3ab: the manifest of run ${corruptRun}, ${corrupt}, cannot be read:`);
      expect(named.stderr).toMatch(/fix: restore that file/);
      const namedPage = await s3ab(['report', '--results', results, '--run', corruptRun, '--html', join(dir, 'named.html')], { timeoutMs: 60_000 });
      expect(namedPage.code).toBe(2);
      expect(existsSync(join(dir, 'named.html'))).toBe(false);
      // The readable manifest is untouched; no private copy of the records is left.
      expect(readFileSync(join(results, '_runs', readdirSync(join(results, '_runs')).find((f) => !f.startsWith('2099'))!), 'utf8')).toBe(goodManifest);
      expect([...reportCopies()].filter((f) => !copies.has(f))).toEqual([]);
    } finally {
      rmSync(corrupt, { force: true });
    }
  }, 120_000);
});

describe('the step watchdog', () => {
  const saved = process.env.S3AB_STALL_SECONDS;
  // The stall watchdog kept far away: only the step watchdog can end this hang.
  beforeAll(() => { process.env.S3AB_STALL_SECONDS = '600'; });
  afterAll(() => {
    if (saved === undefined) delete process.env.S3AB_STALL_SECONDS;
    else process.env.S3AB_STALL_SECONDS = saved;
  });

  test('a step that hangs past its bound: FUSE connection aborted, client killed, step failed "did not end: watchdog after N s", the run goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-step-watchdog-'));
    writeFileSync(join(dir, 'matrix.json'), JSON.stringify({ repetitions: 2, methods: ['s3fs'], workloads: { metadata: { ops: 100, tests: ['empty-files'] } } }));
    const mounted: { mountPoint: string; clientPid: number | null }[] = [];
    let stoppedAt = 0;
    try {
      const outcome = await runBenchmark({
        matrixFile: join(dir, 'matrix.json'), resultsDir: join(dir, 'results'), quiet: true,
        // No budget: each step's limit is 10 s here (the workload's default elsewhere), plus a 4 s grace.
        watchdog: { limitS: 10, graceS: 4 },
        onMounted: (m) => {
          mounted.push(m);
          // The first client frozen the moment its mount is up: the workload's first call on the mount never returns.
          if (mounted.length === 1) { stoppedAt = Date.now(); process.kill(m.clientPid!, 'SIGSTOP'); }
        },
      });
      const records = readRecords(join(dir, 'results'));
      const hung = records.find((r) => r.repetition === 1 && r.operation === 'step');
      expect(hung).toMatchObject({ status: 'failed', error_sample: 'did not end: watchdog after 14 s', flags: ['step-failed'] });
      process.stdout.write(`watchdog: the hung step ended ${((Date.parse(hung!.recorded_at) - stoppedAt) / 1000).toFixed(1)} s after the client froze (bound 14 s from the step's start)\n`);
      expect(Date.parse(hung!.recorded_at) - stoppedAt).toBeLessThan(16_000);
      // The run went on: the second step measured on a fresh mount.
      expect(records.some((r) => r.repetition === 2 && r.operation === 'empty-files' && r.status === 'ok')).toBe(true);
      expect(outcome.manifest).toMatchObject({ status: 'failed', steps_done: 2, steps_failed: 1 });
      expect(manifestOf(join(dir, 'results')).status).toBe('failed');
      expect(mounted).toHaveLength(2);
      for (const m of mounted) {
        expect(mountTable().some((e) => e.mountPoint === m.mountPoint)).toBe(false);
        expect(await stopsWithin(m.clientPid!)).toBe(true);
      }
      await until('the first mount point removed', () => !existsSync(mounted[0].mountPoint), 10_000);
      expect(existsSync(mounted[1].mountPoint)).toBe(false);
    } finally {
      for (const m of mounted) if (m.clientPid && alive(m.clientPid)) process.kill(m.clientPid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
