import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const S3AB = join(ROOT, 'dist', 's3ab.js');

export interface CliResult {
  /** The runner's process id (its mount points and client folders carry it). */
  pid: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundled CLI as a user would (`npm test` builds dist/s3ab.js first). */
export function s3ab(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [S3AB, ...args], { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 110_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ pid: child.pid!, code, stdout, stderr });
    });
  });
}

/**
 * True while a process with this id runs. A zombie (dead, not yet reaped by its new parent: on a
 * machine whose pid 1 is not an init, possibly never) does not count: it holds no resources.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Whether the process has stopped running within `ms`. A SIGKILL sent just before its parent exits
 * takes a moment to land, so a check right at the parent's exit would race it.
 */
export async function stopsWithin(pid: number, ms = 3000): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    if (!alive(pid)) return true;
  }
  return !alive(pid);
}
