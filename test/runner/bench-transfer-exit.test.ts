import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAGE_REPORTING_DIR_ENV } from '../../scripts/bench/host-memory';
import { alive, ROOT } from '../helpers/cli';

/** The largest page order of this host's buddy allocator: the bench pauses reporting one above it. */
const largestOrder = () => readFileSync('/proc/buddyinfo', 'utf8').split('\n').find((l) => l.includes('zone'))!.replace(/^.*zone\s+\S+/, '').trim().split(/\s+/).length - 1;

interface Started { out: () => string; exited: Promise<number | null>; pid: number }

/** `bench:transfer` in one node process (signals reach the bench itself), with the page-reporting folder injected. */
function startBench(dir: string, ...args: string[]): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', join('scripts', 'bench', 'transfer.ts'), '--methods', 's3-crt', '--size', '8MiB', '--warm-up', '0', '--skip-memory', ...args], {
    cwd: ROOT, env: { ...process.env, [PAGE_REPORTING_DIR_ENV]: dir }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (c: Buffer) => { text += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { text += c.toString(); });
  return { out: () => text, exited: new Promise((resolve) => child.once('close', (code) => resolve(code))), pid: child.pid! };
}

async function waitFor(started: Started, pattern: RegExp, ms = 90_000): Promise<RegExpExecArray> {
  const until = Date.now() + ms;
  for (;;) {
    const m = pattern.exec(started.out());
    if (m) return m;
    if (Date.now() > until) throw new Error(`no ${pattern} within ${ms} ms; output:\n${started.out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('bench:transfer puts the host setting back and stops its server on every exit', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-test-page-reporting-'));
    writeFileSync(join(dir, 'reported_kib'), '0');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  /** The bench's work folders in the temp folder (s3ab-bench-XXXXXX): none may outlive it. */
  const workFolders = () => readdirSync(tmpdir()).filter((f) => /^s3ab-bench-[A-Za-z0-9]{6}$/.test(f)).sort();
  const order = () => readFileSync(join(dir, 'page_reporting_order'), 'utf8').trim();

  test('SIGHUP mid-round: page_reporting_order is back at its value, the bench\'s own versitygw is gone', async () => {
    writeFileSync(join(dir, 'page_reporting_order'), '9');
    const before = workFolders();
    const bench = startBench(dir, '--rounds', '1000');
    try {
      const serverPid = Number((await waitFor(bench, /embedded versitygw pid (\d+)/))[1]);
      await waitFor(bench, /round 2\/1000/);
      expect(order()).toBe(String(largestOrder() + 1)); // paused while it runs
      expect(alive(serverPid)).toBe(true);
      process.kill(bench.pid, 'SIGHUP');
      expect(await bench.exited).toBe(130);
      expect({ order: order(), serverAlive: alive(serverPid) }).toEqual({ order: '9', serverAlive: false });
      expect(bench.out()).toMatch(/SIGHUP: stopping; cleaning up/);
      expect(workFolders()).toEqual(before);
    } finally {
      if (alive(bench.pid)) process.kill(bench.pid, 'SIGKILL');
    }
  }, 180_000);

  test('a start that finds reporting paused says so and puts the kernel default back, also with --host-memory as-is', async () => {
    writeFileSync(join(dir, 'page_reporting_order'), String(largestOrder() + 1));
    const bench = startBench(dir, '--rounds', '1000', '--host-memory', 'as-is');
    try {
      const found = await waitFor(bench, /free page reporting was found paused \(page_reporting_order \d+, left by an earlier run\): put back to the kernel's default, (\d+)/);
      const kernelDefault = Number(found[1]);
      expect(kernelDefault).toBeLessThanOrEqual(largestOrder());
      expect(order()).toBe(String(kernelDefault));
      await waitFor(bench, /embedded versitygw pid (\d+)/);
      process.kill(bench.pid, 'SIGQUIT');
      expect(await bench.exited).toBe(130);
      expect(order()).toBe(String(kernelDefault));
    } finally {
      if (alive(bench.pid)) process.kill(bench.pid, 'SIGKILL');
    }
  }, 180_000);
});
