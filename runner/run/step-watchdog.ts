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

/**
 * When a step's budget and watchdog start counting. A plain step's at once: its mounting and
 * fixtures are its own time. A fleet step's when its barrier first releases the client (the
 * common start): waiting there for the other clients is not this client's time — on AWS, client k
 * waits while client 1 runs the steps it runs alone — so every client gets its whole budget from
 * the same instant. Until that release the watchdog allows the step's bound plus the barrier's
 * timeout (the longest the wait may last), so a client that hangs while preparing is still ended.
 */
export interface StepClockPlan {
  /** The watchdog's bound until the release, in s (the step's bound when there is no barrier). */
  beforeReleaseS: number;
  /** The budget's and the watchdog's count start at the release (a fleet step), not at the step's start. */
  fromRelease: boolean;
}

export function stepClockPlan(boundS: number, barrierTimeoutMs: number | null): StepClockPlan {
  return barrierTimeoutMs === null ? { beforeReleaseS: boundS, fromRelease: false } : { beforeReleaseS: boundS + barrierTimeoutMs / 1000, fromRelease: true };
}

/** A step's budget timer and watchdog, armed as stepClockPlan says. */
export class StepClock {
  /** Resolves with the WatchdogFired once a bound passed (after `watchdogFired` ran); never rejects. */
  readonly fired: Promise<WatchdogFired>;
  private budget: NodeJS.Timeout | undefined;
  private watchdog: ArmedWatchdog;
  private resolveFired!: (fired: WatchdogFired) => void;
  private released = false;
  private stopped = false;

  constructor(
    private readonly o: { budgetS: number | null; boundS: number; barrierTimeoutMs: number | null },
    private readonly on: { budgetSpent: () => void; watchdogFired: (fired: WatchdogFired) => void },
  ) {
    this.fired = new Promise((resolve) => { this.resolveFired = resolve; });
    const plan = stepClockPlan(o.boundS, o.barrierTimeoutMs);
    this.watchdog = this.arm(plan.beforeReleaseS);
    if (!plan.fromRelease) this.startCounting();
  }

  /** The barrier released the client: a fleet step's budget and bound start now (later rounds change nothing). */
  release(): void {
    if (this.released || this.stopped || this.o.barrierTimeoutMs === null) return;
    this.watchdog.stop();
    this.watchdog = this.arm(this.o.boundS);
    this.startCounting();
  }

  stop(): void {
    this.stopped = true;
    this.watchdog.stop();
    clearTimeout(this.budget);
  }

  private startCounting(): void {
    this.released = true;
    if (this.o.budgetS !== null) this.budget = setTimeout(() => this.on.budgetSpent(), this.o.budgetS * 1000);
  }

  private arm(boundS: number): ArmedWatchdog {
    const dog = armStepWatchdog(boundS, (fired) => this.on.watchdogFired(fired));
    void dog.fired.then((fired) => this.resolveFired(fired));
    return dog;
  }
}
