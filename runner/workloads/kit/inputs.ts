import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Generated inputs (a tarball, a git repository) are the same for the same parameters on every
 * host, so they are built once into a local cache folder ($S3AB_INPUTS, else the OS temp folder)
 * and reused by every step and run. Built under a temporary name and renamed, so a half-built
 * input is never used.
 */
function inputsDir(): string {
  return process.env.S3AB_INPUTS ?? join(tmpdir(), 's3ab-inputs');
}

export async function cachedInput(name: string, build: (path: string) => Promise<void>): Promise<string> {
  const dir = inputsDir();
  await mkdir(dir, { recursive: true });
  const path = join(dir, name);
  if (existsSync(path)) return path;
  const partial = `${path}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  try {
    await build(partial);
    await rename(partial, path).catch(async (err) => {
      // Another process built it meanwhile.
      if (!existsSync(path)) throw err;
      await rm(partial, { recursive: true, force: true });
    });
  } catch (err) {
    await rm(partial, { recursive: true, force: true });
    throw err;
  }
  return path;
}

export interface ToolResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit, ns. */
  elapsedNs: number;
}

/**
 * Runs a tool (git, tar) to completion, timing it from spawn to exit; stops it when the run is
 * aborted. Output is kept (bounded) for the error sample; stdin gets `input` if given.
 */
export function runTool(command: string, args: string[], opts: {
  cwd?: string; env?: NodeJS.ProcessEnv; signal: AbortSignal; input?: string | Buffer;
  /** Sees the tool's output as it comes (a progress count). */
  onStdout?: (chunk: Buffer) => void;
}): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const keep = (s: string, chunk: Buffer) => (s.length < 1_000_000 ? s + chunk.toString() : s);
    child.stdout!.on('data', (c: Buffer) => {
      stdout = keep(stdout, c);
      opts.onStdout?.(c);
    });
    child.stderr!.on('data', (c: Buffer) => (stderr = keep(stderr, c)));
    // On abort: kill, and stop waiting at once (a tool blocked on a hung mount exits only once the
    // mount is detached, which happens after this step gives up).
    const onAbort = () => {
      child.kill('SIGKILL');
      reject(opts.signal.reason ?? new Error('aborted'));
    };
    if (opts.signal.aborted) onAbort();
    else opts.signal.addEventListener('abort', onAbort, { once: true });
    child.once('error', (err) => {
      opts.signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.once('close', (code, signal) => {
      const elapsedNs = Number(process.hrtime.bigint() - started);
      opts.signal.removeEventListener('abort', onAbort);
      resolve({ code, signal, stdout, stderr, elapsedNs });
    });
    if (opts.input !== undefined) {
      child.stdin!.on('error', () => {});
      child.stdin!.end(opts.input);
    }
  });
}

/** The first meaningful line of a tool's error output. */
export function firstLine(text: string): string {
  return text.split('\n').map((l) => l.trim()).find(Boolean) ?? '';
}
