import { BudgetSpent } from '../../core/meter';
import { processCpuTicks, processState } from '../../core/process-state';
import type { FuseConnection } from './fuse-connection';

/**
 * The stall watchdog's bound: a FUSE client with file-system requests waiting in its kernel
 * connection that spends no CPU for this long has stopped responding (a stopped or hung client, or
 * a client blocked on a frozen endpoint). S3AB_STALL_SECONDS overrides it; recorded with the options.
 */
export function stallBoundMs(): number {
  const s = Number(process.env.S3AB_STALL_SECONDS ?? 30);
  return (Number.isFinite(s) && s > 0 ? s : 30) * 1000;
}

/** Requests waiting for the client: fusectl's count, else (no fusectl) 1 while the client is stopped; null once the connection is gone. */
function waitingOn(connection: FuseConnection | null, pid: number): number | null {
  try {
    return connection ? connection.waiting() : processState(pid) === 'T' ? 1 : 0;
  } catch {
    return null;
  }
}

export interface StallWatch {
  /** The client's name, for the message. */
  name: string;
  pid: number;
  connection: FuseConnection | null;
  /** False while the mount is not in use (mounting, unmounting): the watchdog then waits. */
  active(): boolean;
  /** Ends the hung mount (abort the connection, detach, kill the client) and fails the step with `why`. */
  stalled(why: string): void;
  /** The run's (or step's) signal: a Ctrl-C during a hang aborts the connection two seconds later. */
  signal: AbortSignal;
}

/**
 * Watches a FUSE client for a stall (see stallBoundMs): requests waiting in its kernel connection
 * while the client spends no CPU. Never touches the mount point itself — a stat of a hung mount
 * hangs too. Returns the function that stops watching.
 */
export function watchForStall(w: StallWatch): () => void {
  const bound = stallBoundMs();
  let lastCpu = processCpuTicks(w.pid);
  let stillSince = Date.now();
  const timer = setInterval(() => {
    if (!w.active()) return;
    const cpu = processCpuTicks(w.pid);
    const waiting = waitingOn(w.connection, w.pid);
    if (waiting === null) return; // the connection went away: the client's exit handler reports it
    if (cpu !== lastCpu || waiting === 0) {
      lastCpu = cpu;
      stillSince = Date.now();
      return;
    }
    if (Date.now() - stillSince < bound) return;
    clearInterval(timer);
    w.stalled(`the ${w.name} client (pid ${w.pid}) stopped responding: ${waiting} file-system request${waiting === 1 ? '' : 's'} unanswered and no CPU used for ${Math.round(bound / 1000)} s`);
  }, 1_000);
  timer.unref();
  // Ctrl-C (or an endpoint gone) during a hang: the step is told to stop, but a call blocked on
  // the mount never returns to hear it. Two seconds later, if requests still wait, the connection
  // is aborted. A spent budget is not a hang: the client finishes what it was asked and unmounts.
  const onAbort = () => w.signal.reason instanceof BudgetSpent || setTimeout(() => {
    if (!w.active()) return;
    const waiting = waitingOn(w.connection, w.pid);
    if (waiting) w.stalled(`the run was stopped while the ${w.name} client (pid ${w.pid}) had ${waiting} request${waiting === 1 ? '' : 's'} unanswered`);
  }, 2_000).unref();
  w.signal.addEventListener('abort', onAbort, { once: true });
  return () => {
    clearInterval(timer);
    w.signal.removeEventListener('abort', onAbort);
  };
}
