import type { Step } from './matrix';

/**
 * How an execution's steps are spread over its runners:
 * - `shard`: each workload goes to one runner, which runs every method of it, so methods are
 *   always compared on one host while the runners work in parallel;
 * - `replicate`: every runner runs every step (scale-out and instance-type comparisons).
 */
export const LAYOUTS = ['shard', 'replicate'] as const;
export type Layout = (typeof LAYOUTS)[number];

/** One runner's share: the step numbers it runs in one command, in run order. */
export interface Shard {
  /** The runner's position in the execution's instance list (0-based). */
  runner: number;
  steps: number[];
  workloads: string[];
}

/**
 * The shards of an execution, one per runner. `shard`: workloads are dealt out largest first (by
 * step count) to the runner with the fewest steps so far, so the runners finish close together;
 * a runner left without a workload is an error the caller reports (it would cost money and
 * measure nothing).
 */
export function planShards(steps: Pick<Step, 'index' | 'workload'>[], runners: number, layout: Layout): Shard[] {
  if (!Number.isInteger(runners) || runners < 1) throw new Error(`runners must be a whole number ≥ 1, got ${runners}`);
  const all = steps.map((s) => s.index);
  const names = [...new Set(steps.map((s) => s.workload.name))];
  if (layout === 'replicate') return Array.from({ length: runners }, (_, runner) => ({ runner, steps: all, workloads: names }));
  const byWorkload = new Map<string, number[]>();
  for (const s of steps) byWorkload.set(s.workload.name, [...(byWorkload.get(s.workload.name) ?? []), s.index]);
  const shards: Shard[] = Array.from({ length: runners }, (_, runner) => ({ runner, steps: [], workloads: [] }));
  const largestFirst = [...byWorkload.entries()].sort((a, b) => b[1].length - a[1].length || names.indexOf(a[0]) - names.indexOf(b[0]));
  for (const [name, indexes] of largestFirst) {
    const target = shards.reduce((best, s) => (s.steps.length < best.steps.length ? s : best));
    target.steps.push(...indexes);
    target.workloads.push(name);
  }
  for (const s of shards) s.steps.sort((a, b) => a - b);
  return shards;
}

/** A shard's steps as the run-step document takes them: "1,2,5". */
export function stepList(steps: number[]): string {
  return steps.join(',');
}

/** A step list as the run-step document's `steps` parameter allows it (its allowedPattern). */
export const STEP_LIST_PATTERN = /^[1-9][0-9]{0,4}(,[1-9][0-9]{0,4})*$/;

/** The inverse of stepList; null when the text is not a comma list of step numbers. */
export function parseStepList(text: string): number[] | null {
  if (!STEP_LIST_PATTERN.test(text)) return null;
  return text.split(',').map(Number);
}
