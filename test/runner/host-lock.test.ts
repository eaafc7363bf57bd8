import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { s3ab } from '../helpers/cli';

/**
 * One mount benchmark per host, enforced: a second run that would mount refuses (exit 2), naming
 * the holder's pid and run id, or waits with --wait; a lock whose holder is gone is taken over.
 * The lock folder is the test's own (S3AB_LOCK_DIR), so these tests never block a real run.
 */
describe('the host mount lock', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const lockFile = () => join(dir, 'lock', 's3ab-mounts.lock');
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-lock-'));
    spawnSync('mkdir', ['-p', join(dir, 'lock')]);
    env = { S3AB_LOCK_DIR: join(dir, 'lock') };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const holder = (pid: number) => writeFileSync(lockFile(), JSON.stringify({ pid, runId: '20261122T101500Z-ab12cd', startedAt: '2026-11-22T10:15:00.000Z', hostname: 'test' }));

  test('held by a live run: a mount run refuses with exit 2, naming the holder; an object-only run is not held up', async () => {
    const other = spawn('sleep', ['60']);
    try {
      holder(other.pid!);
      const r = await s3ab(['run', '--methods', 's3fs', '--workloads', 'semantics', '--repetitions', '1', '--results', join(dir, 'r1')], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`another mount benchmark is running on this host: run 20261122T101500Z-ab12cd \\(pid ${other.pid}`));
      expect(r.stderr).toMatch(/fix: .*--wait/);
      expect(existsSync(join(dir, 'r1'))).toBe(false);
      const objects = await s3ab(['run', '--methods', 's3-api', '--workloads', 'small-reads', '--repetitions', '1', '--no-html', '--results', join(dir, 'r2')], { env });
      expect(objects.code).toBe(0);
      // The holder's lock is untouched.
      expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(other.pid);
    } finally {
      other.kill();
    }
  }, 120_000);

  test('held by a run that is gone: taken over with a notice, and released at the end', async () => {
    const gone = spawnSync('true').pid!;
    holder(gone);
    const r = await s3ab(['run', '--methods', 's3fs', '--workloads', 'semantics', '--repetitions', '1', '--no-html', '--results', join(dir, 'r3')], { env });
    expect(r.stdout + r.stderr).toMatch(new RegExp(`taking over a stale mount lock .* of run 20261122T101500Z-ab12cd \\(pid ${gone}, no longer running\\)`));
    expect(r.code).toBe(0);
    expect(existsSync(lockFile())).toBe(false);
  }, 180_000);
});
