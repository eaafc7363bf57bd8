import { readFileSync } from 'node:fs';

/** The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number | undefined): string[] | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** A process's state letter from /proc (R, S, D uninterruptible, T stopped, Z zombie), or null when it is gone. */
export function processState(pid: number | undefined): string | null {
  return statFields(pid)?.[0] ?? null;
}

/** CPU time (user + system clock ticks) a process has used, or null when it is gone. */
export function processCpuTicks(pid: number | undefined): number | null {
  const f = statFields(pid);
  return f ? Number(f[11]) + Number(f[12]) : null;
}

/** Whether a process of this host still exists (one owned by another user counts: EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
