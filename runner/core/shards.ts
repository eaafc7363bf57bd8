import type { Step } from './matrix';

/**
 * How an execution's steps are spread over its runners:
 * - `shard`: units of (workload, repetition) are placed on the runners, each unit whole, so every
 *   method of a unit is compared on one host while the runners work in parallel;
 * - `fleet`: runner r (0-based) runs every step whose `clients` exceeds r — a 1-client step on
 *   runner 0 only, a 4-client step on runners 0–3 — each in step order, so the clients of a fleet
 *   step reach its start barrier together; the execution needs max(clients) runners
 *   (`fleetRunners`).
 */
export const LAYOUTS = ['shard', 'fleet'] as const;
export type Layout = (typeof LAYOUTS)[number];

/**
 * The layout a matrix implies: `fleet` when any of its fleet sizes (`clients`) exceeds 1 — such
 * steps run only on several runners at once — else `shard`. Profiles and `s3ab aws estimate` take
 * it from here; an execution's input may name it, and ValidateInput refuses `shard` for a fleet.
 */
export function impliedLayout(clients: readonly number[]): Layout {
  return clients.some((c) => c > 1) ? 'fleet' : 'shard';
}

/** What a shard plan places whole on one runner: one repetition of one workload, every method of it. */
export interface ShardUnit {
  workload: string;
  repetition: number;
  /** Its step numbers, in run order. */
  steps: number[];
}

/** One runner's share: the step numbers it runs in one command, in run order. */
export interface Shard {
  /** The runner's position in the execution's instance list (0-based). */
  runner: number;
  steps: number[];
  workloads: string[];
  /** Its units' time together, as `UnitCost` gave it (step counts without a model). */
  load: number;
}

/**
 * How long a unit takes on a runner (the measured model, runner/plan/, in seconds), given the
 * workloads the runner already has — a runner prepares each workload's fixture once, so the
 * first unit of a workload on a runner costs more than the next. `fits` says whether the runner
 * suits the unit at all (a link-bound unit needs a runner whose link carries it).
 */
export interface UnitCost {
  seconds(unit: ShardUnit, runner: number, placed: readonly string[]): number;
  fits?(unit: ShardUnit, runner: number): boolean;
}

/** What the layouts need of a step. */
export type ShardStep = Pick<Step, 'index' | 'workload' | 'repetition'> & Partial<Pick<Step, 'clients'>>;

/** Without a model, a unit costs its step count. */
const BY_STEP_COUNT: UnitCost = { seconds: (u) => u.steps.length };

/** The units of a step list: one per (workload, repetition), in run order. */
export function shardUnits(steps: ShardStep[]): ShardUnit[] {
  const units = new Map<string, ShardUnit>();
  for (const s of steps) {
    const key = `${s.workload.name}\u0000${s.repetition}`;
    const unit = units.get(key) ?? { workload: s.workload.name, repetition: s.repetition, steps: [] };
    unit.steps.push(s.index);
    units.set(key, unit);
  }
  return [...units.values()];
}

/**
 * The shards of an execution, one per runner. `shard`: longest processing time first — units
 * are taken longest first (their longest time on any runner) and each goes to the runner, among
 * those it fits, where it would finish first — so the runners finish close together; then once
 * more, keeping each workload's units on one runner where they all end within the longest shard of
 * the first pass, or within `room` seconds if that is longer (each runner that runs a workload
 * writes its fixture once: fewer runners per workload, fewer fixtures written). A runner left
 * without a unit gets an empty share, which the caller reports (it would cost money and measure
 * nothing).
 */
export function planShards(steps: ShardStep[], runners: number, layout: Layout, cost: UnitCost = BY_STEP_COUNT, room = 0): Shard[] {
  if (!Number.isInteger(runners) || runners < 1) throw new Error(`runners must be a whole number ≥ 1, got ${runners}`);
  const names = [...new Set(steps.map((s) => s.workload.name))];
  const ids = Array.from({ length: runners }, (_, runner) => runner);
  if (layout === 'fleet') return fleetShards(steps, runners, cost);
  const units = shardUnits(steps).map((unit, order) => ({ unit, order, longest: Math.max(...ids.map((r) => cost.seconds(unit, r, []))) }));
  units.sort((a, b) => b.longest - a.longest || a.order - b.order);
  const plain = place(units.map((u) => u.unit), ids, cost, null);
  // Again, a unit preferring a runner that already has its workload (its fixture is written) as
  // long as it ends there within the first plan's longest shard (or `room`, when the caller has
  // time to spare): fewer fixtures written, and no shard longer than that.
  const bound = Math.max(room, ...plain.map((s) => s.load)) * (1 + 1e-9);
  const grouped = place(units.map((u) => u.unit), ids, cost, bound);
  const idle = (xs: Shard[]) => xs.filter((s) => !s.steps.length).length;
  const shards = Math.max(...grouped.map((s) => s.load)) <= bound && idle(grouped) <= idle(plain) ? grouped : plain;
  for (const s of shards) {
    s.steps.sort((a, b) => a - b);
    s.workloads.sort((a, b) => names.indexOf(a) - names.indexOf(b));
  }
  return shards;
}

/** The runners a `fleet` execution needs: its largest fleet (a step's `clients`; 1 when none is given). */
export function fleetRunners(steps: Pick<ShardStep, 'clients'>[]): number {
  return Math.max(1, ...steps.map((s) => s.clients ?? 1));
}

/**
 * The `fleet` layout's shards: runner r runs the steps with more than r clients, in step order
 * (its units cut to those steps). Runner 0 runs every step, so the others keep its pace: a fleet
 * step starts when runner 0 reaches it. A runner's load is therefore runner 0's time until the
 * end of the runner's last unit (runner 0 writes each workload's fixture once; the others read it)
 * — the time its command runs, and is billed, waiting at the barriers included.
 */
function fleetShards(steps: ShardStep[], runners: number, cost: UnitCost): Shard[] {
  const needed = fleetRunners(steps);
  if (runners !== needed) throw new Error(`layout "fleet" needs one runner per client of its largest fleet: ${needed}, got ${runners}`);
  // Runner 0's time at the end of each of its units.
  const placed: string[] = [];
  let elapsed = 0;
  const endOf = new Map<number, number>();
  for (const u of shardUnits(steps)) {
    elapsed += cost.seconds(u, 0, placed);
    if (!placed.includes(u.workload)) placed.push(u.workload);
    for (const i of u.steps) endOf.set(i, elapsed);
  }
  return Array.from({ length: runners }, (_, runner) => {
    const mine = steps.filter((s) => (s.clients ?? 1) > runner).map((s) => s.index).sort((a, b) => a - b);
    const workloads = [...new Set(steps.filter((s) => mine.includes(s.index)).map((s) => s.workload.name))];
    return { runner, steps: mine, workloads, load: mine.length ? endOf.get(mine[mine.length - 1])! : 0 };
  });
}

/**
 * Places units in order, each where it ends first among the runners it fits. With `bound`, a
 * workload stays together where it can: its first unit goes where all its units end within the
 * bound (the earliest such runner), and each later one to a runner that already has it if it ends
 * there within the bound.
 */
function place(units: ShardUnit[], ids: number[], cost: UnitCost, bound: number | null): Shard[] {
  const shards: Shard[] = ids.map((runner) => ({ runner, steps: [], workloads: [], load: 0 }));
  for (const [i, unit] of units.entries()) {
    const fitting = ids.filter((r) => cost.fits?.(unit, r) ?? true);
    // Every runner asked for gets work: once the units left are no more than the empty runners, they go there.
    const empty = ids.filter((r) => !shards[r].steps.length);
    const candidates = units.length - i <= empty.length ? empty : fitting.length ? fitting : ids;
    const finish = (r: number) => shards[r].load + cost.seconds(unit, r, shards[r].workloads);
    const earliest = (rs: number[]) => rs.reduce((best, r) => (finish(r) < finish(best) ? r : best));
    let preferred: number[] = [];
    if (bound !== null) {
      const held = candidates.filter((r) => shards[r].workloads.includes(unit.workload));
      const rest = units.slice(i + 1).filter((u) => u.workload === unit.workload);
      const whole = (r: number) => finish(r) + rest.reduce((a, u) => a + cost.seconds(u, r, [unit.workload]), 0);
      preferred = held.length ? held.filter((r) => finish(r) <= bound) : candidates.filter((r) => whole(r) <= bound);
    }
    const target = shards[earliest(preferred.length ? preferred : candidates)];
    target.load = finish(target.runner);
    target.steps.push(...unit.steps);
    if (!target.workloads.includes(unit.workload)) target.workloads.push(unit.workload);
  }
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
