import { AsyncLocalStorage } from 'node:async_hooks';
import type { ResultRecord } from './record.generated';
import type { CacheState } from './vocabulary';

/**
 * The reason a step stops when its time budget runs out: the step ends cleanly and its running
 * measurements are recorded as did-not-finish — a result, not a failure.
 */
export class BudgetSpent extends Error {
  constructor(readonly budgetS: number) {
    super(`the step's time budget of ${budgetS} s ran out`);
  }
}

/** What a measurement's work is counted in (the result schema's `progress.unit`). */
export type WorkUnit = NonNullable<ResultRecord['progress']>['unit'];

/** How far a measurement got when its step's budget ran out (the result schema's `progress`). */
export type WorkProgress = NonNullable<ResultRecord['progress']>;

/**
 * The work of one measurement: how much it planned and how much is done, so that a step whose
 * time budget runs out can say how far each running measurement got (seed 002: "10 % done at
 * 12 min 27 s"). Batch keeps one for its operations; a measurement made elsewhere (a tool's run,
 * measuring threads) opens one with openMeter and counts into it.
 */
export class WorkMeter {
  private counted = 0;
  readonly startedAtMs = Date.now();
  /** When its step's budget ran out while it was running; null while it was not cut short. */
  cutAtMs: number | null = null;
  /** Its measurement was recorded (as finished, or by its own code as did-not-finish). */
  settled = false;
  /** The budget of the step it runs in (set when the step's scope tracks it). */
  budgetS: number | null = null;
  /** Opened after its step's budget ran out: it never ran. */
  openedLate = false;

  constructor(
    readonly operation: string,
    readonly objectSizeBytes: number | null,
    readonly planned: number,
    readonly unit: WorkUnit,
    /** Reads the work done from elsewhere (a counter shared with threads) instead of add(). */
    private readonly source?: () => number,
    /** The measurement's own cache state where it differs from its pass's (warm-disk, warm-memory). */
    readonly cache?: CacheState,
  ) {}

  add(n = 1): void {
    this.counted += n;
  }

  get done(): number {
    return this.source ? this.source() : this.counted;
  }

  /** Its measurement is being recorded: the step has nothing more to report for it. */
  end(): void {
    this.settled = true;
  }

  /** It was running when its step's budget ran out (a meter opened after that was never running). */
  get cutShort(): boolean {
    return this.cutAtMs !== null && !this.openedLate;
  }

  /**
   * Work done out of work planned, the rate over the time it ran, and the total that rate would
   * take: an extrapolation (null when nothing was done).
   */
  progress(budgetS = this.budgetS ?? 0, atMs = this.cutAtMs ?? Date.now()): WorkProgress {
    const seconds = Math.max(0.001, (atMs - this.startedAtMs) / 1000);
    const done = Math.min(this.done, this.planned);
    const rate = done / seconds;
    return {
      budget_s: budgetS, done, planned: this.planned, unit: this.unit,
      rate_per_s: round(rate), extrapolated_total_s: rate > 0 ? round(this.planned / rate) : null,
    };
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * The meters of one step, and its budget. A step runs its workload inside `run`, so every meter
 * the workload opens (a Batch, a tool run, measuring threads) is counted here without being passed
 * around; when the budget runs out, `expire` marks the meters still running as cut short.
 */
export class MeterScope {
  private readonly meters: WorkMeter[] = [];
  expiredAtMs: number | null = null;

  constructor(readonly budgetS: number | null) {}

  run<T>(fn: () => Promise<T>): Promise<T> {
    return scopes.run(this, fn);
  }

  track(meter: WorkMeter): void {
    meter.budgetS = this.budgetS;
    if (this.expiredAtMs !== null) {
      meter.cutAtMs = this.expiredAtMs;
      meter.openedLate = true;
    }
    this.meters.push(meter);
  }

  /** The budget ran out: every meter still running is cut short now. */
  expire(): void {
    this.expiredAtMs = Date.now();
    for (const m of this.meters) if (!m.settled) m.cutAtMs ??= this.expiredAtMs;
  }

  get expired(): boolean {
    return this.expiredAtMs !== null;
  }

  /** Meters cut short whose measurement nobody recorded (the workload stopped on the abort). */
  unsettledCut(): WorkMeter[] {
    return this.meters.filter((m) => m.cutShort && !m.settled);
  }
}

const scopes = new AsyncLocalStorage<MeterScope>();

/**
 * A meter for one measurement, counted in the step that runs it (none outside a step: a bench
 * script, a Lambda). `source` reads the work done from elsewhere (a counter threads share).
 */
export function openMeter(operation: string, objectSizeBytes: number | null, planned: number, unit: WorkUnit, source?: () => number, cache?: CacheState): WorkMeter {
  const meter = new WorkMeter(operation, objectSizeBytes, planned, unit, source, cache);
  scopes.getStore()?.track(meter);
  return meter;
}
