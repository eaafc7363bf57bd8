import { LATE_START_LIMIT_MS, lateStart } from '../../runner/core/barrier';
import { CLOCK_BOUND_MS } from '../../runner/core/clock';
import { StepClock, stepClockPlan, WatchdogFired } from '../../runner/run/step-watchdog';

/** A clock whose budget and watchdog say when they went off, on jest's fake timers. */
function clockWith(o: { budgetS: number | null; boundS: number; barrierTimeoutMs: number | null }) {
  const events: string[] = [];
  const clock = new StepClock(o, { budgetSpent: () => events.push('budget'), watchdogFired: (f) => events.push(f.message) });
  return { clock, events };
}

describe('a step\'s budget and watchdog: a fleet client\'s start when its barrier releases it', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('the plan: a plain step counts from its start; a fleet step from the release, its watchdog allowing the barrier\'s wait before it', () => {
    expect(stepClockPlan(180, null)).toEqual({ beforeReleaseS: 180, fromRelease: false });
    expect(stepClockPlan(180, 600_000)).toEqual({ beforeReleaseS: 780, fromRelease: true });
  });

  test('a plain step: the budget runs out after budget_s from its start, the watchdog at its bound', () => {
    const { clock, events } = clockWith({ budgetS: 10, boundS: 70, barrierTimeoutMs: null });
    jest.advanceTimersByTime(9_999);
    expect(events).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(events).toEqual(['budget']);
    jest.advanceTimersByTime(60_000);
    expect(events).toEqual(['budget', 'did not end: watchdog after 70 s']);
    clock.stop();
  });

  test('a fleet client that waits at the barrier longer than its budget still gets its whole budget from the release', () => {
    const { clock, events } = clockWith({ budgetS: 10, boundS: 70, barrierTimeoutMs: 600_000 });
    // 5 minutes at the barrier (another client runs its earlier steps): nothing counts yet.
    jest.advanceTimersByTime(300_000);
    expect(events).toEqual([]);
    clock.release();
    jest.advanceTimersByTime(9_999);
    expect(events).toEqual([]);
    // A later round (the next pass, a threads gate) does not restart the count.
    clock.release();
    jest.advanceTimersByTime(1);
    expect(events).toEqual(['budget']);
    // The watchdog was re-armed at the release with the step's own bound.
    jest.advanceTimersByTime(59_999);
    expect(events).toEqual(['budget']);
    jest.advanceTimersByTime(1);
    expect(events).toEqual(['budget', 'did not end: watchdog after 70 s']);
    clock.stop();
  });

  test('a fleet client never released (it hangs while preparing) is ended at the bound plus the barrier\'s timeout', async () => {
    const { clock, events } = clockWith({ budgetS: 10, boundS: 70, barrierTimeoutMs: 600_000 });
    jest.advanceTimersByTime(669_999);
    expect(events).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(events).toEqual(['did not end: watchdog after 670 s']);
    await expect(clock.fired).resolves.toBeInstanceOf(WatchdogFired);
    clock.stop();
  });

  test('stopped, neither goes off', () => {
    const { clock, events } = clockWith({ budgetS: 10, boundS: 70, barrierTimeoutMs: 600_000 });
    clock.release();
    clock.stop();
    jest.advanceTimersByTime(1_000_000);
    expect(events).toEqual([]);
  });
});

describe('a fleet client\'s late start, against the common start', () => {
  test('on time or early is 0 ms late; later is recorded, and flagged past the limit (the clock bound a fleet\'s clients may differ by)', () => {
    expect(LATE_START_LIMIT_MS).toBe(CLOCK_BOUND_MS);
    expect(lateStart(10_000, 9_990)).toEqual({ lateMs: 0, breaks: false });
    expect(lateStart(10_000, 10_000 + LATE_START_LIMIT_MS)).toEqual({ lateMs: LATE_START_LIMIT_MS, breaks: false });
    expect(lateStart(10_000, 10_000 + LATE_START_LIMIT_MS + 1)).toEqual({ lateMs: LATE_START_LIMIT_MS + 1, breaks: true });
  });
});
