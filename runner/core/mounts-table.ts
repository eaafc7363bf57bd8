import { release } from 'node:os';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';

/** One line of /proc/self/mountinfo. */
export interface MountEntry {
  mountPoint: string;
  fsType: string;
  source: string;
  /** major:minor of the mount's device (FUSE: the connection number is the minor). */
  device: string;
}

/** Mount points in /proc/self/mountinfo escape space, tab, newline and backslash as octal. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

export function mountTable(): MountEntry[] {
  const text = readFileSync('/proc/self/mountinfo', 'utf8');
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    // id parent major:minor root mountpoint options [optional...] - fstype source superoptions
    const [left, right] = line.split(' - ');
    const f = left.split(' ');
    const r = (right ?? '').split(' ');
    out.push({ device: f[2], mountPoint: unescape(f[4]), fsType: r[0] ?? '', source: unescape(r[1] ?? '') });
  }
  return out;
}

export function mountAt(path: string): MountEntry | undefined {
  // The last entry wins: mounts stack.
  return mountTable().filter((m) => m.mountPoint === path).pop();
}

export interface CommandResult {
  code: number | null;
  output: string;
  timedOut: boolean;
}

/** Runs a short command with a time limit; never throws. */
export function runCommand(command: string, args: string[], timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { timeout: timeoutMs, killSignal: 'SIGKILL', env }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { killed?: boolean; code?: number | string }) | null;
      const output = `${stdout}${stderr}`.trim() || (e && typeof e.code === 'string' ? `${command}: ${e.code}` : '');
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, output, timedOut: !!e?.killed });
    });
    child.stdin?.end();
  });
}

/**
 * Drops the kernel's page, dentry and inode caches (as seed 004 did before each cold run).
 * Needs root; returns false where that is not allowed.
 */
export async function dropKernelCaches(): Promise<boolean> {
  const knob = '/proc/sys/vm/drop_caches';
  if (!existsSync(knob)) return false;
  await runCommand('sync', [], 30_000);
  try {
    await writeFile(knob, '3\n');
    return true;
  } catch {
    return false;
  }
}

/**
 * The kernel's NFS client from what the host says: loaded (listed in /proc/filesystems), loadable
 * (a module — Amazon Linux 2023 loads nfs only on first use, so a fresh runner has not loaded it
 * yet — or built in, per modules.dep / modules.builtin), or none.
 */
export function nfsClientState(host: { filesystems: string | null; modulesDep: string | null; modulesBuiltin: string | null }): 'loaded' | 'loadable' | 'none' {
  if (host.filesystems && /\bnfs4?\b/.test(host.filesystems)) return 'loaded';
  const listed = (text: string | null) => !!text && /(^|\/)fs\/nfs\/(nfsv4|nfs)\.ko(\.[a-z]+)?(:|$)/m.test(text);
  return listed(host.modulesDep) || listed(host.modulesBuiltin) ? 'loadable' : 'none';
}

/** Is there a NFS client in this kernel, loaded or loadable on first mount (needed by S3 Files and EFS)? */
export function kernelHasNfs(): boolean {
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return null;
    }
  };
  const modules = `/lib/modules/${release()}`;
  return nfsClientState({ filesystems: read('/proc/filesystems'), modulesDep: read(`${modules}/modules.dep`), modulesBuiltin: read(`${modules}/modules.builtin`) }) !== 'none';
}

/** Can this host mount FUSE file systems? Returns the reason when not. */
export function fuseProblem(): string | null {
  if (!existsSync('/dev/fuse')) return 'there is no /dev/fuse on this host (load the fuse module, or in a container pass --device /dev/fuse)';
  try {
    const fs = readFileSync('/proc/filesystems', 'utf8');
    if (!/\bfuse\b/.test(fs)) return 'this kernel has no FUSE support (modprobe fuse)';
  } catch {
    // no /proc/filesystems: let the mount itself tell
  }
  return null;
}
