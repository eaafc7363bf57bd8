import { expandSteps, resolveMatrix } from '../../runner/core/matrix';
import { CATALOG } from '../../runner/catalog';
import { fleetWaitMs } from '../../runner/run/fleet-wait';
import { WATCHDOG_GRACE_S } from '../../runner/run/step-watchdog';

describe('how long a fleet client waits at its barriers (runner/run/fleet-wait.ts)', () => {
  // Per (workload, repetition): 2 methods × clients 1, 2, 4 — steps 1–2 (1 client), 3–4 (2), 5–6 (4), then again for repetition 2.
  const matrix = resolveMatrix({ name: 'w', repetitions: 2, budget_s: 100, clients: [1, 2, 4], methods: ['s3-api', 'aws-cli'], workloads: { 'small-reads': { files: 4 } } }, 'w', CATALOG);
  const steps = expandSteps(matrix);
  const bound = 100 + WATCHDOG_GRACE_S;

  test('client 1 runs every step: it waits only for the others\' setup', () => {
    expect(fleetWaitMs(steps, 1, matrix.budgetS, 600_000)).toBe(600_000);
  });

  test('client k waits for the steps client 1 runs without it since its own last one, each at its watchdog bound', () => {
    // Client 2 skips the two 1-client steps before each of its runs.
    expect(fleetWaitMs(steps, 2, matrix.budgetS, 600_000)).toBe(600_000 + 2 * bound * 1000);
    // Client 4 skips four steps (1- and 2-client) before its first step, and again in repetition 2.
    expect(fleetWaitMs(steps, 4, matrix.budgetS, 600_000)).toBe(600_000 + 4 * bound * 1000);
    // A --step-budget overrides the matrix's.
    expect(fleetWaitMs(steps, 4, 10, 0)).toBe(4 * (10 + WATCHDOG_GRACE_S) * 1000);
  });
});
