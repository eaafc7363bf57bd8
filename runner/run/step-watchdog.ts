/**
 * The step watchdog: no step outlives its time budget plus a grace (or, without a budget, its
 * workload's default plus the grace), whatever hangs — a client, a mount, an endpoint, a wait
 * nobody bounded. The finer watchdogs (the stall watchdog, the endpoint watch, each request's own
 * bounds) name the cause first; this one is the floor under them.
 */

/** What a step may take beyond its budget to stop, unmount and clean up. */
export const WATCHDOG_GRACE_S = 60;

/** A step's limit when neither the matrix nor the workload gives one. */
export const DEFAULT_STEP_LIMIT_S = 3600;

/** A step that outlived its bound: recorded as failed with this message, and the run goes on. */
export class WatchdogFired extends Error {
  constructor(readonly afterS: number) {
    super(`did not end: watchdog after ${afterS} s`);
  }
}

/**
 * The step's bound in seconds: its budget (matrix `budget_s`, `--step-budget`), else its
 * workload's default for its parameters, else DEFAULT_STEP_LIMIT_S; plus the grace.
 */
export function stepBoundS(budgetS: number | null, workloadLimitS: number | null | undefined, graceS = WATCHDOG_GRACE_S): number {
  return (budgetS ?? workloadLimitS ?? DEFAULT_STEP_LIMIT_S) + graceS;
}

export interface ArmedWatchdog {
  /** Resolves with the WatchdogFired once the bound passed (after `onFire` ran); never rejects. */
  fired: Promise<WatchdogFired>;
  stop(): void;
}

/**
 * Arms the watchdog for `boundS`. When it fires, `onFire` ends what it can at once (abort the
 * step, abort the FUSE connection, kill the client), and `fired` resolves: the step stops waiting
 * for anything it started and is recorded as failed.
 */
export function armStepWatchdog(boundS: number, onFire: (fired: WatchdogFired) => void): ArmedWatchdog {
  let timer: NodeJS.Timeout | undefined;
  const fired = new Promise<WatchdogFired>((resolve) => {
    timer = setTimeout(() => {
      const err = new WatchdogFired(boundS);
      try {
        onFire(err);
      } finally {
        resolve(err);
      }
    }, boundS * 1000);
  });
  return { fired, stop: () => clearTimeout(timer) };
}
