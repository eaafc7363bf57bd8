import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreTarget } from '../../runner/core/target';

export interface S3fsMount {
  dir: string;
  version: string;
  unmount(): Promise<void>;
}

const mounted = (dir: string) => readFileSync('/proc/mounts', 'utf8').split('\n').some((l) => l.split(' ')[1] === dir);

/**
 * Mounts a bucket of a local S3-compatible endpoint with s3fs-fuse (foreground process of our
 * own, so it is stopped by its pid), for tests that need a real FUSE mount of the bucket.
 */
export async function mountS3fs(target: StoreTarget): Promise<S3fsMount> {
  const base = mkdtempSync(join(tmpdir(), 's3ab-s3fs-'));
  const dir = join(base, 'mnt');
  const passwd = join(base, 'passwd');
  spawnSync('mkdir', [dir]);
  writeFileSync(passwd, `${target.credentials!.accessKeyId}:${target.credentials!.secretAccessKey}\n`, { mode: 0o600 });
  const version = spawnSync('s3fs', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0].match(/V[\d.]+/)?.[0] ?? 'unknown';
  const child = spawn('s3fs', [target.bucket, dir, '-f', '-o', `passwd_file=${passwd},url=${target.endpointUrl},use_path_request_style,allow_other,stat_cache_expire=1`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const deadline = Date.now() + 10_000;
  while (!mounted(dir)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(base, { recursive: true, force: true });
      throw new Error(`s3fs did not mount: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    dir, version: `s3fs ${version}`,
    unmount: async () => {
      if (mounted(dir)) spawnSync('umount', [dir], { timeout: 15_000 }); // never wait for ever on a hung mount
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
      if (mounted(dir)) spawnSync('umount', ['-l', dir], { timeout: 15_000 });
      rmSync(base, { recursive: true, force: true });
    },
  };
}
