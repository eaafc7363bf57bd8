import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup, onEmergencyExit } from '../core/cleanup';
import { UserError } from '../core/errors';
import { processAlive } from '../core/process-state';

/**
 * One mount benchmark per host: a cold start drops the whole host's caches (and Mountpoint forgets
 * its local directories when the kernel does), so two runs that mount at once corrupt each
 * other's numbers. Anything that mounts or drops caches holds this lock: a file created with
 * O_EXCL holding the holder's pid and run id. A lock whose holder is gone is taken over.
 */
export interface LockHolder {
  pid: number;
  runId: string;
  startedAt: string;
  hostname: string;
}

/** The lock file (S3AB_LOCK_DIR overrides the folder, for tests). */
function hostLockPath(): string {
  return join(process.env.S3AB_LOCK_DIR ?? tmpdir(), 's3ab-mounts.lock');
}

/** What to do about the lock, given its holder (null: free), whether that holder is alive, and --wait. */
export function lockDecision(holder: LockHolder | null, holderAlive: boolean, wait: boolean): 'take' | 'take-over-stale' | 'wait' | 'refuse' {
  if (!holder) return 'take';
  if (!holderAlive) return 'take-over-stale';
  return wait ? 'wait' : 'refuse';
}

function readHolder(path: string): LockHolder | null {
  try {
    const h = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
    return Number.isInteger(h.pid) ? h : { pid: -1, runId: 'unknown', startedAt: 'unknown', hostname: 'unknown' };
  } catch (err) {
    // Gone between the failed create and the read, or half-written by a holder that died: stale.
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : { pid: -1, runId: 'unknown', startedAt: 'unknown', hostname: 'unknown' };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Takes the host's mount lock for `runId`; resolves with its release (also registered as a
 * cleanup and an emergency-exit step). Refuses (UserError, exit 2) naming the holder, or waits for
 * it with `wait`; a stale lock is taken over with a notice.
 */
export async function acquireHostLock(runId: string, opts: { wait?: boolean; log?: (m: string) => void; signal?: AbortSignal } = {}): Promise<() => void> {
  const path = hostLockPath();
  const me: LockHolder = { pid: process.pid, runId, startedAt: new Date().toISOString(), hostname: hostname() };
  let announced = false;
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o644);
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readHolder(path);
    const decision = lockDecision(holder, holder ? holder.pid > 0 && processAlive(holder.pid) : false, !!opts.wait);
    if (decision === 'take') continue;
    if (decision === 'take-over-stale') {
      opts.log?.(`taking over a stale mount lock (${path}) of run ${holder!.runId} (pid ${holder!.pid}, no longer running)`);
      try {
        unlinkSync(path);
      } catch {
        // another run took it over first: try again
      }
      continue;
    }
    if (decision === 'refuse') {
      throw new UserError(`another mount benchmark is running on this host: run ${holder!.runId} (pid ${holder!.pid}, since ${holder!.startedAt}) holds ${path}`,
        'one mount benchmark per host (a cold start drops the whole host\'s caches): wait for it to end, or rerun with --wait');
    }
    if (!announced) opts.log?.(`waiting for run ${holder!.runId} (pid ${holder!.pid}) to finish its mounts (${path})`);
    announced = true;
    if (opts.signal?.aborted) throw opts.signal.reason;
    await sleep(500);
  }
  const releaseNow = () => {
    try {
      const h = readHolder(path);
      if (h && h.pid === me.pid && h.runId === me.runId) unlinkSync(path);
    } catch {
      // already gone
    }
  };
  const unregisterCleanup = onCleanup(`mount lock ${path}`, releaseNow);
  const unregisterEmergency = onEmergencyExit(releaseNow);
  return () => {
    unregisterCleanup();
    unregisterEmergency();
    releaseNow();
  };
}
