import { Batch } from '../../runner/core/batch';
import { UserError } from '../../runner/core/errors';
import { applyOverrides, loadProfile, resolveMatrix } from '../../runner/core/matrix';
import { MeterScope, openMeter, WorkMeter } from '../../runner/core/meter';
import { parseDurationS } from '../../runner/core/units';
import { didNotFinishLabel } from '../../runner/core/vocabulary';
import { CATALOG } from '../../runner/catalog';
import { armStepWatchdog, DEFAULT_STEP_LIMIT_S, stepBoundS, WATCHDOG_GRACE_S, WatchdogFired } from '../../runner/run/step-watchdog';
import { tarExtractDescriptor } from '../../runner/workloads/tar-extract';

/** Budgeted steps (issue 21) and the step watchdog (issue 22), as pure rules. */
describe('the step budget in the matrix', () => {
  const matrix = (extra: object) => ({ methods: ['s3-api'], workloads: { 'small-reads': {} }, ...extra });

  test('budget_s is read from the matrix, and --step-budget overrides it', () => {
    expect(resolveMatrix(matrix({}), 'm', CATALOG).budgetS).toBeNull();
    expect(resolveMatrix(matrix({ budget_s: 600 }), 'm', CATALOG).budgetS).toBe(600);
    expect(resolveMatrix(applyOverrides(matrix({ budget_s: 600 }), { stepBudgetS: 90 }), 'm', CATALOG).budgetS).toBe(90);
  });

  test('a budget that is not a positive number is refused before anything runs', () => {
    expect(() => resolveMatrix(matrix({ budget_s: 0 }), 'm', CATALOG)).toThrow(UserError);
    expect(() => resolveMatrix(matrix({ budget_s: '10m' }), 'm', CATALOG)).toThrow(/budget_s/);
  });

  test('each AWS profile has its default budget in the profile itself (seed: 9 min)', () => {
    expect(resolveMatrix(loadProfile('seed'), 'seed', CATALOG).budgetS).toBe(540);
    for (const name of ['quick', 'mounts', 'full']) expect(resolveMatrix(loadProfile(name), name, CATALOG).budgetS).toBeGreaterThan(0);
  });

  test('--step-budget takes seconds or a number with s, m or h', () => {
    expect(parseDurationS('600')).toBe(600);
    expect(parseDurationS('90s')).toBe(90);
    expect(parseDurationS('10m')).toBe(600);
    expect(parseDurationS('10min')).toBe(600);
    expect(parseDurationS('1.5h')).toBe(5400);
    expect(parseDurationS('10 parsecs')).toBeNull();
    expect(parseDurationS('')).toBeNull();
  });
});

describe('the step watchdog\'s bound', () => {
  test('budget + 60 s; without a budget the workload\'s limit + 60 s; else the default + 60 s', () => {
    expect(WATCHDOG_GRACE_S).toBe(60);
    expect(stepBoundS(600, 9999)).toBe(660);
    expect(stepBoundS(null, 7200)).toBe(7260);
    expect(stepBoundS(null, undefined)).toBe(DEFAULT_STEP_LIMIT_S + 60);
  });

  test('tar-extract bounds an unbudgeted step by its file count (seed 004\'s kernel tree takes hours on a slow client)', () => {
    const limit = (files: number) => tarExtractDescriptor.stepLimitS({ files, dirs: 10, totalSize: '1MB', maxSize: '1MB' });
    expect(limit(200)).toBe(3600);
    expect(limit(54_000)).toBe(1800 + 27_000);
  });

  test('fires once its bound passed: what it ends runs first, then the step stops waiting', async () => {
    const order: string[] = [];
    const dog = armStepWatchdog(0.05, (fired) => order.push(`onFire ${fired.message}`));
    const fired = await dog.fired;
    order.push('fired');
    expect(fired).toBeInstanceOf(WatchdogFired);
    expect(order).toEqual(['onFire did not end: watchdog after 0.05 s', 'fired']);
  });

  test('stopped, it never fires', async () => {
    let fired = false;
    const dog = armStepWatchdog(0.05, () => { fired = true; });
    dog.stop();
    await new Promise((r) => setTimeout(r, 100));
    expect(fired).toBe(false);
  });
});

describe('meters: how far a measurement got when its budget ran out', () => {
  test('progress: done out of planned, the rate over the time it ran, the total that rate extrapolates to', () => {
    const meter = new WorkMeter('extract', null, 4280, 'files');
    meter.add(428);
    const p = meter.progress(600, meter.startedAtMs + 720_000);
    expect(p).toEqual({ budget_s: 600, done: 428, planned: 4280, unit: 'files', rate_per_s: 0.594, extrapolated_total_s: 7200 });
    expect(didNotFinishLabel(p)).toBe('DNF at 10 min — 10 % done, ≈ 2 h extrapolated');
  });

  test('nothing done: no extrapolation', () => {
    const p = new WorkMeter('clone', null, 1000, 'files').progress(60);
    expect(p.extrapolated_total_s).toBeNull();
    expect(didNotFinishLabel(p)).toBe('DNF at 60 s — 0 % done, no extrapolation (no progress counted)');
  });

  test('a scope counts the meters its workload opens, without passing them around; outside a step nothing is counted', async () => {
    const scope = new MeterScope(30);
    let inside: WorkMeter | null = null;
    await scope.run(async () => {
      await new Promise((r) => setImmediate(r));
      inside = openMeter('read', 8192, 10, 'files');
    });
    openMeter('elsewhere', null, 1, 'ops');
    scope.expire();
    expect(scope.unsettledCut()).toEqual([inside]);
    expect(inside!.budgetS).toBe(30);
  });

  test('a settled meter, or one opened after the budget ran out, is not reported as cut short', async () => {
    const scope = new MeterScope(30);
    await scope.run(async () => {
      openMeter('finished', null, 1, 'ops').end();
      scope.expire();
      openMeter('late', null, 1, 'ops');
    });
    expect(scope.unsettledCut()).toEqual([]);
  });

  test('a planned Batch cut by the budget finishes as did-not-finish: no figure, its progress, later operations not run', async () => {
    const scope = new MeterScope(5);
    let m: ReturnType<Batch['finish']> | null = null;
    let ran = 0;
    await scope.run(async () => {
      const batch = new Batch('upload', 1024).plan(10);
      for (let i = 0; i < 3; i++) await batch.op(async () => { ran++; }, () => 1024);
      scope.expire();
      // The budget's abort fails the operation in flight: not counted as a failure of the method.
      await batch.op(async () => { throw new Error('Request aborted'); });
      await batch.op(async () => { ran++; });
      m = batch.finish();
    });
    expect(ran).toBe(3);
    expect(m).toMatchObject({
      operation: 'upload', status: 'did-not-finish', verified: false, ok: 3, failed: 0, errorSample: null, rates: { throughputMibS: null, opsPerS: null },
      progress: { budget_s: 5, done: 3, planned: 10, unit: 'ops' },
    });
  });

  test('a Batch that finished before the budget ran out is an ordinary measurement', async () => {
    const scope = new MeterScope(5);
    let m: ReturnType<Batch['finish']> | null = null;
    await scope.run(async () => {
      const batch = new Batch('head', null, 'sequential', false).plan(2);
      await batch.op(async () => 1);
      await batch.op(async () => 1);
      batch.verify(true);
      m = batch.finish();
      scope.expire();
    });
    expect(m).toMatchObject({ status: 'ok', verified: true, ok: 2 });
    expect(m!.progress).toBeUndefined();
    expect(scope.unsettledCut()).toEqual([]);
  });
});
