import type { Step } from '../core/matrix';
import { findWorkloadDescriptor } from '../workloads/catalog';
import { stepBoundS, WATCHDOG_GRACE_S } from './step-watchdog';

/**
 * The longest a fleet client may wait at a barrier for the others, beyond `baseMs` (their setup,
 * a poll): client k runs the steps with at least k clients, client 1 every step, in step order — so
 * before each of its steps, client k may wait for the steps client 1 runs without it since its last
 * one (each at most its watchdog bound: the step budget, else the workload's limit, plus the grace).
 * The largest such stretch, in ms. A client that never arrives is then reported after at most
 * that long, never mistaken for a slow one.
 */
export function fleetWaitMs(steps: readonly Pick<Step, 'clients' | 'workload'>[], client: number, budgetS: number | null, baseMs: number): number {
  let gapS = 0;
  let longestS = 0;
  for (const s of steps) {
    if (s.clients >= client) {
      longestS = Math.max(longestS, gapS);
      gapS = 0;
    } else {
      gapS += stepBoundS(budgetS, findWorkloadDescriptor(s.workload.name)?.stepLimitS?.(s.workload.params as never), WATCHDOG_GRACE_S);
    }
  }
  return baseMs + longestS * 1000;
}
