import { architectureOf, MAX_RUNNERS } from '../../lib/instance-types';
import { FLEET_BARRIER } from '../core/barrier';
import { NEAR_BASELINE } from '../core/host';
import type { ResolvedMatrix } from '../core/matrix';
import { fleetRunners, impliedLayout, planShards, shardUnits, type Layout, type ShardUnit } from '../core/shards';
import { FIXTURE_WRITES, fixtureWrites } from '../core/workload';
import { findWorkloadDescriptor } from '../workloads/catalog';
import { AWS_FACTS, baselineMiBps, instanceHourly, PRICES, pricedTypes, runnerHourly } from './aws-facts';
import { measurementFor, MEASUREMENTS, type Counts, type Measurement } from './measurement';
import { installFor, setupSeconds, type BuildCache, type SetupEstimate } from './setup-model';
import { modelSteps, ownRequests, sampleMatrix, tally, type RequestTally, type StepEstimate } from './step-model';

export interface RunnerSpec { instanceType: string; count: number }

/** What an execution is modelled from: its matrix and the choices of its input. */
export interface PlanInput {
  matrix: ResolvedMatrix;
  /** The steps' time budget (matrix `budget_s`), or null for none. */
  budgetSeconds: number | null;
  /** The runners asked for; absent: the model's plan (`defaultRunners`). */
  runners?: RunnerSpec[];
  /** The stack's runner type: the default plan's type for link-bound units. */
  defaultType: string;
  /** @default the matrix's (`impliedLayout`: fleet when a step has clients > 1) */
  layout?: Layout;
  /** The document functions' benchmark (execution input `lambdas`). @default { documents: 20, repetitions: 3 } */
  lambdas?: { documents: number; repetitions: number };
  measurements?: Readonly<Record<string, Measurement>>;
  /**
   * The build cache (setup-model.ts BuildCache) the wall time and cost are modelled with, and the
   * default plan optimizes for: `warm`, what an execution meets but the first after
   * crates/s3-crt-client changes (per architecture). Timeouts do not depend on it: they always
   * allow for a cold cache (PlannedShard.coldSetup, ExecutionEstimate.setupBudgetSeconds).
   * @default 'warm'
   */
  buildCache?: BuildCache;
}

/** One runner's share as planned: the contract ValidateInput hands the state machine (shards[i]). */
export interface PlannedShard {
  runner: number;
  steps: number[];
  workloads: string[];
  instanceType: string;
  /** Its command's modelled time: the fixtures it writes and its steps. */
  modelledSeconds: number;
  /** Its command's timeout: SHARD_TIMEOUT applied to modelledSeconds. */
  timeoutSeconds: number;
  /** The assets/install.json components its setup installs. */
  install: string[];
  /** Its setup as modelled, with the input's build cache. */
  setup: SetupEstimate;
  /** Its setup with a cold build cache (it builds the s3-crt client, if it installs it): what the timeouts allow it. */
  coldSetup: SetupEstimate;
  /** Its steps expected to hit their budget. */
  didNotFinish: number;
}

/** The modelled execution: its runners and shards, its phases, its cost. */
export interface ExecutionEstimate {
  matrix: string;
  /** The measurement it is modelled from (assets/measured/PROFILE.json). */
  measuredProfile: string;
  layout: Layout;
  runners: RunnerSpec[];
  shards: PlannedShard[];
  /** Seconds: before the runners are up; the setup and the command of the runner that ends last; the states after them; teardown. */
  phases: { before: number; setup: number; runners: number; after: number; teardown: number };
  wallSeconds: number;
  /** The build cache it is modelled with (PlanInput.buildCache). */
  buildCache: BuildCache;
  /** The longest setup of any of its runners with a cold build cache: what a shard's time limit leaves for setup (shardLimitSeconds). */
  setupBudgetSeconds: number;
  /** What a cold build cache adds to the setup of a runner that builds the s3-crt client, at most, over a warm one (0: no runner installs it). */
  coldBuildExtraSeconds: number;
  /** This plan's wall time with a cold build cache (equal to wallSeconds when it is modelled cold). */
  coldWallSeconds: number;
  /** Every step as the plan runs it (on its shard's runner type). */
  steps: StepEstimate[];
  /** Dollars by item; the measured methods' own requests are `methodsDollars`, apart. */
  items: Record<string, number>;
  executionDollars: number;
  methodsDollars: number;
  /** The measured methods' own requests, per method (its label: name, or name:variant). */
  methodsRequests: { method: string; requests: RequestTally; dollars: number }[];
  /** Steps expected to hit their budget, by method and workload. */
  budgetHits: { method: string; workload: string; steps: number }[];
  versionsWritten: number;
  transitions: number;
  historyEvents: number;
  /** Runner types without a price in assets/prices.json: their hours are left out of the cost. */
  unpriced: string[];
  /** Runner-seconds, from launch to termination, over all runners. */
  runnerSeconds: number;
  /** What the runners would cost if each lived until Teardown (the pipeline without its runners ending with their shard). */
  runnersUntilTeardownDollars: number;
}

/**
 * A shard's command timeout: twice its modelled time plus 10 minutes, in whole minutes. Twice,
 * because the model's one assumption that moves a shard most is the request latency (10 ms);
 * a day twice as slow still ends in time, and a hung shard is still caught within about twice
 * its expected time. The budget bounds each step besides.
 */
const SHARD_TIMEOUT = { factor: 2, slackSeconds: 600 };
export const shardTimeoutSeconds = (modelled: number) => Math.ceil((SHARD_TIMEOUT.factor * modelled + SHARD_TIMEOUT.slackSeconds) / 60) * 60;

/** An execution's own timeout: the pipeline's default `executionTimeout` (lib/pipeline/index.ts; a test holds them equal). */
export const EXECUTION_TIMEOUT_SECONDS = 12 * 3600;

/**
 * What an execution of `executionTimeout` seconds leaves a shard's command: all but this plan's
 * states before and after the runners, and the longest setup of its runners with a cold build
 * cache (a first execution after the s3-crt client changes builds it: it must not time out for that).
 */
export function shardLimitSeconds(e: Pick<ExecutionEstimate, 'phases' | 'setupBudgetSeconds'>, executionTimeout = EXECUTION_TIMEOUT_SECONDS): number {
  return executionTimeout - e.phases.before - e.setupBudgetSeconds - e.phases.after - e.phases.teardown;
}

/** The wall time the default plan aims at (≤ 45 min for seed: an execution a person waits for): the cheapest runner count within it, else the fastest. */
export const WALL_TARGET_SECONDS = 45 * 60;

const STATE_MS = (m: Measurement, name: string) => m.states?.[name] ?? { count: 0, totalMs: 0, longestMs: 0 };

/** What the model knows of a matrix before runners are chosen: its steps on each runner type, its units, its fixtures. */
class Model {
  readonly measurement: Measurement;
  readonly units: ShardUnit[];
  private readonly stepsByType = new Map<string, StepEstimate[]>();
  private readonly prepByType = new Map<string, Map<string, { seconds: number; requests: Counts }>>();

  readonly layout: Layout;
  readonly buildCache: BuildCache;

  constructor(readonly input: PlanInput) {
    this.measurement = measurementFor(input.matrix, input.measurements ?? MEASUREMENTS);
    this.layout = input.layout ?? impliedLayout(input.matrix.clients);
    this.buildCache = input.buildCache ?? 'warm';
    this.units = shardUnits(this.shardSteps(input.defaultType));
  }

  /** The steps as the layouts place them. */
  shardSteps(type: string) {
    return this.steps(type).map((s) => ({ index: s.index, repetition: s.repetition, clients: s.clients, workload: { name: s.workload, params: {} } }));
  }

  /** Each step on a runner of this type (its link sets the transfer time). */
  steps(type: string): StepEstimate[] {
    const link = baselineMiBps(type);
    if (!link) throw new Error(`no network figures for ${type} in assets/instance-network.json: add its baseline bandwidth (AWS's Network specifications tables)`);
    if (!this.stepsByType.has(type)) this.stepsByType.set(type, modelSteps(this.input.matrix, this.measurement, { linkMiBps: link, budgetSeconds: this.input.budgetSeconds, barrierLeadSeconds: FLEET_BARRIER.s3.leadMs / 1000 }));
    return this.stepsByType.get(type)!;
  }

  /** A workload's fixtures, written once by each runner that runs it: seconds and requests on this type. */
  prep(type: string, workload: string): { seconds: number; requests: Counts } {
    if (!this.prepByType.has(type)) this.prepByType.set(type, preparation(this.input.matrix, this.measurement, baselineMiBps(type)));
    return this.prepByType.get(type)!.get(workload) ?? { seconds: 0, requests: {} };
  }

  private readonly unitSteps = new Map<string, number>();

  /** A unit's time on a runner of this type: its steps, and its workload's fixture unless the runner already wrote it. */
  unitSeconds(unit: ShardUnit, type: string, placed: readonly string[]): number {
    const key = `${type} ${unit.steps[0]}`;
    if (!this.unitSteps.has(key)) {
      const steps = this.steps(type);
      this.unitSteps.set(key, unit.steps.reduce((a, i) => a + steps[i - 1].seconds, 0));
    }
    return this.unitSteps.get(key)! + (placed.includes(unit.workload) ? 0 : this.prep(type, unit.workload).seconds);
  }

  /** Whether a workload's measured rates stay below the possibly-network-capped mark of this type's link, in every step. */
  carries(type: string, workload: string): boolean {
    return this.steps(type).filter((s) => s.workload === workload).every((s) => s.peakMiBps < NEAR_BASELINE * baselineMiBps(type));
  }

  /**
   * The type each workload runs on — every repetition of a workload on one type, so that its
   * repetitions are comparable: among `types`, the cheapest whose link carries it (the one with
   * more runners on a tie); if none carries it, the widest link.
   */
  typesFor(types: string[]): Map<string, string> {
    const distinct = [...new Set(types)];
    const runners = (t: string) => types.filter((x) => x === t).length;
    const price = (t: string) => instanceHourly(t) ?? Infinity;
    const better = (a: string, b: string) => (price(b) < price(a) || (price(b) === price(a) && runners(b) > runners(a)) ? b : a);
    return new Map(this.input.matrix.workloads.map((w) => {
      const carrying = distinct.filter((t) => this.carries(t, w.name));
      const pick = carrying.length ? carrying.reduce(better) : distinct.reduce((a, b) => (baselineMiBps(b) > baselineMiBps(a) ? b : a));
      return [w.name, pick];
    }));
  }
}

/**
 * What preparing a workload's fixture takes a runner: the loader's requests (runner/core/workload.ts
 * `fixtureWrites`: a PUT per small object, 16 at a time; a multipart upload per large one, 4
 * parts in flight), AWS's latency on them and the link for the bytes, plus the work measured
 * here — the measured preparation's seconds per byte of the sample's fixtures (generating and
 * hashing the data).
 */
function preparation(matrix: ResolvedMatrix, m: Measurement, linkMiBps: number): Map<string, { seconds: number; requests: Counts }> {
  const writesOf = (workloads: { name: string; params: Record<string, unknown> }[]) => new Map(workloads.map((w) => [w.name, fixtureWritesOf(w)] as const));
  const sample = sampleMatrix(m);
  const sampleBytes = [...writesOf(sample.workloads).values()].reduce((a, w) => a + (w?.bytes ?? 0), 0);
  const herePerByte = sampleBytes ? m.preparation.seconds / sampleBytes : 0;
  const out = new Map<string, { seconds: number; requests: Counts }>();
  for (const [name, w] of writesOf(matrix.workloads)) {
    if (!w) continue;
    const requests: Counts = { put: w.puts, mpu_create: w.multipart, mpu_part: w.parts, mpu_complete: w.multipart };
    const latency = (w.puts / FIXTURE_WRITES.parallel + w.parts / FIXTURE_WRITES.partsInFlight + 2 * w.multipart) * AWS_FACTS.requestSeconds;
    out.set(name, { seconds: herePerByte * w.bytes + latency + w.bytes / 2 ** 20 / linkMiBps, requests });
  }
  return out;
}

const writes = new Map<string, ReturnType<typeof fixtureWrites> | null>();

/** What writing a workload's fixture takes (null: it has none), once per workload and parameters: a fixture's spec can take a while to derive. */
function fixtureWritesOf(w: { name: string; params: Record<string, unknown> }): ReturnType<typeof fixtureWrites> | null {
  const key = `${w.name} ${JSON.stringify(w.params)}`;
  if (!writes.has(key)) {
    const spec = findWorkloadDescriptor(w.name)?.fixture?.(w.params as never);
    writes.set(key, spec ? fixtureWrites(spec) : null);
  }
  return writes.get(key)!;
}

/** The cheapest priced type of the same architecture as `type` with a known link, if it is cheaper: where latency-bound units may run. */
export function cheaperType(type: string): string | null {
  const arch = architectureOf(type);
  const price = instanceHourly(type);
  const cheapest = pricedTypes().find((t) => architectureOf(t) === arch && baselineMiBps(t) > 0);
  return cheapest && price !== null && (instanceHourly(cheapest) ?? Infinity) < price ? cheapest : null;
}

/** Runner i's type under these specs (specs in order, each `count` runners). */
const typeOf = (specs: RunnerSpec[]) => specs.flatMap((s) => Array.from({ length: s.count }, () => s.instanceType));

/** The plan of an execution with these runners: shards by modelled time, then its phases and cost. */
function planWith(model: Model, specs: RunnerSpec[], room = 0): ExecutionEstimate {
  const types = typeOf(specs);
  const layout = model.layout;
  const typeFor = model.typesFor(types);
  const shards = planShards(model.shardSteps(types[0]), types.length, layout, {
    seconds: (u, r, placed) => model.unitSeconds(u, types[r], placed),
    // A fleet's clients run the same steps side by side, on whatever types were asked for.
    fits: (u, r) => layout === 'fleet' || typeFor.get(u.workload) === types[r],
  }, Math.max(0, room));
  const planned: PlannedShard[] = shards.map((sh) => {
    const type = types[sh.runner];
    const mine = sh.steps.map((i) => model.steps(type)[i - 1]);
    const install = installFor(mine);
    return {
      runner: sh.runner, steps: sh.steps, workloads: sh.workloads, instanceType: type, modelledSeconds: sh.load, timeoutSeconds: shardTimeoutSeconds(sh.load),
      install, setup: setupSeconds(install, baselineMiBps(type), model.buildCache), coldSetup: setupSeconds(install, baselineMiBps(type), 'cold'),
      didNotFinish: mine.filter((s) => s.didNotFinish).length,
    };
  });
  const estimate = costOf(model, specs, layout, planned);
  // Time to spare before the wall target: spend it keeping each workload's units on fewer
  // runners (each writes the workload's fixture once), if that still ends within the target.
  const spare = WALL_TARGET_SECONDS - estimate.wallSeconds;
  if (room !== 0 || spare <= 0 || layout === 'fleet') return estimate;
  const grouped = planWith(model, specs, Math.max(...planned.map((s) => s.modelledSeconds)) + spare);
  const cheaper = estimate.unpriced.length ? grouped.runnerSeconds < estimate.runnerSeconds : grouped.executionDollars < estimate.executionDollars;
  return grouped.wallSeconds <= WALL_TARGET_SECONDS && cheaper ? grouped : estimate;
}

/** The phases, requests, versions, transitions and dollars of a planned execution. */
function costOf(model: Model, specs: RunnerSpec[], layout: Layout, shards: PlannedShard[]): ExecutionEstimate {
  const m = model.measurement;
  const lambdas = model.input.lambdas ?? { documents: 20, repetitions: 3 };
  const perCall = (name: string) => { const s = STATE_MS(m, name); return s.count ? s.totalMs / s.count / 1000 : 0; };
  const measuredDocuments = m.lambdas?.documents ?? lambdas.documents;
  const documentFunctions = lambdas.repetitions * (perCall('InvokeBefore') + perCall('InvokeAfter')) * (lambdas.documents / measuredDocuments);
  const before = perCall('ValidateInput') + AWS_FACTS.bootSeconds + AWS_FACTS.ssmOnlineSeconds + AWS_FACTS.readyPollSeconds / 2;
  // Each runner sets up, then runs its shard (the Map of RunBenchmarkShards, one iteration per runner).
  const busy = shards.map((s) => s.setup.seconds + s.modelledSeconds);
  const last = shards[busy.indexOf(Math.max(...busy))];
  const setup = last.setup.seconds;
  const runners = last.modelledSeconds;
  const after = documentFunctions + AWS_FACTS.athenaQuerySeconds + perCall('Report');
  const steps = shards.flatMap((sh) => sh.steps.map((i) => model.steps(sh.instanceType)[i - 1])).sort((a, b) => a.index - b.index);
  const prepRequests = shards.flatMap((sh) => sh.workloads.map((w) => model.prep(sh.instanceType, w).requests));
  const written = (r: Counts) => (r.put ?? 0) + (r.mpu_complete ?? 0) + (r.copy ?? 0);
  const versionsWritten = Math.round(steps.reduce((a, s) => a + written(s.requests), 0) + prepRequests.reduce((a, r) => a + written(r), 0));
  // Teardown deletes every version and the delete markers the steps' own deletes left (about as many).
  const teardown = Math.max(perCall('Teardown'), (2 * versionsWritten) / AWS_FACTS.deletesPerSecond);
  const phases = { before, setup, runners, after, teardown };
  // With a cold build cache the same plan: each runner that installs the s3-crt client builds it.
  const coldBusy = Math.max(...shards.map((s) => s.coldSetup.seconds + s.modelledSeconds));
  const warmSetup = (s: PlannedShard) => setupSeconds(s.install, baselineMiBps(s.instanceType), 'warm').seconds;
  // Runners live from launch until Teardown terminates them (lib/pipeline/teardown-flow.ts): a runner done early waits for the others.
  const runnerLife = before + setup + runners + after;
  const ownLives = shards.map((s) => before + s.setup.seconds + s.modelledSeconds);
  const lives = AWS_FACTS.runnersEndWithTheirShard ? ownLives : shards.map(() => runnerLife);
  const dollarsFor = (xs: number[]) => shards.reduce((a, s, i) => a + (xs[i] / 3600) * (runnerHourly(s.instanceType) ?? 0), 0);
  const runnerDollars = dollarsFor(lives);
  const unpriced = [...new Set(shards.map((s) => s.instanceType).filter((t) => runnerHourly(t) === null))];
  const price = PRICES.s3StandardRequestsPer1000;
  const dollars = (r: RequestTally) => (r.tier1 / 1000) * price.tier1 + (r.tier2 / 1000) * price.tier2;
  const runnerRequests = tally(...steps.map((s) => s.runnerRequests), ...prepRequests);
  const { transitions, historyEvents } = stateMachineCounts(shards.length, specs.length, lambdas.repetitions, teardown, before);
  const lambdaSeconds = perCall('ValidateInput') + documentFunctions + perCall('Report') + teardown;
  const p = PRICES.runner;
  const items: Record<string, number> = {
    'runners (instance, public IPv4, root volume)': runnerDollars,
    'S3 requests: the runner\'s own (fixtures, checks, cleanup)': dollars(runnerRequests),
    'Lambda': lambdaSeconds * 1.769 * p.lambdaArmPerGBSecond,
    'Athena (10 MB minimum per query)': AWS_FACTS.summaryQueries * (p.athenaMinimumMB / 1e6) * p.athenaPerTB,
    'Step Functions transitions': (transitions / 1000) * p.stepFunctionsPer1000Transitions,
  };
  const methodsRequests = perMethod(steps, dollars);
  return {
    matrix: model.input.matrix.name, measuredProfile: m.profile, layout, runners: specs, shards, phases,
    wallSeconds: before + setup + runners + after + teardown, buildCache: model.buildCache,
    setupBudgetSeconds: Math.max(...shards.map((s) => s.coldSetup.seconds)),
    coldBuildExtraSeconds: Math.max(...shards.map((s) => s.coldSetup.seconds - warmSetup(s))),
    coldWallSeconds: before + coldBusy + after + teardown, steps, items,
    executionDollars: Object.values(items).reduce((a, b) => a + b, 0), methodsDollars: methodsRequests.reduce((a, x) => a + x.dollars, 0),
    methodsRequests, budgetHits: budgetHits(steps), versionsWritten, transitions, historyEvents, unpriced, runnerSeconds: lives.reduce((a, b) => a + b, 0),
    runnersUntilTeardownDollars: dollarsFor(shards.map(() => runnerLife)),
  };
}

/** A step's method as the tables name it: the method, with its variant unless it is the default. */
const methodOf = (s: Pick<StepEstimate, 'method' | 'variant'>) => (s.variant === 'default' ? s.method : `${s.method}:${s.variant}`);

function perMethod(steps: StepEstimate[], dollars: (r: RequestTally) => number): ExecutionEstimate['methodsRequests'] {
  const by = new Map<string, Counts[]>();
  for (const s of steps) by.set(methodOf(s), [...(by.get(methodOf(s)) ?? []), ownRequests(s)]);
  return [...by].map(([method, counts]) => { const requests = tally(...counts); return { method, requests, dollars: dollars(requests) }; });
}

function budgetHits(steps: StepEstimate[]): ExecutionEstimate['budgetHits'] {
  const by = new Map<string, { method: string; workload: string; steps: number }>();
  for (const s of steps.filter((x) => x.didNotFinish)) {
    const key = `${methodOf(s)} ${s.workload}`;
    by.set(key, { method: methodOf(s), workload: s.workload, steps: (by.get(key)?.steps ?? 0) + 1 });
  }
  return [...by.values()];
}

/**
 * State transitions and history events of the execution with task-token callbacks (runners send
 * success or failure, and heartbeats, which add neither), counted from the pipeline's shape: each
 * state entered is a transition; a Task state writes 5 events (entered, scheduled, started,
 * succeeded, exited) and a callback Task one more (submitted), any other state 2, a Map 2 plus 2
 * per iteration. WaitUntilReady checks every `readyPollSeconds` until the runners are online;
 * Teardown runs one round per 90-s call.
 */
export function stateMachineCounts(runners: number, specs: number, lambdaRepetitions: number, teardownSeconds: number, beforeSeconds: number): { transitions: number; historyEvents: number } {
  const readyChecks = Math.ceil(beforeSeconds / AWS_FACTS.readyPollSeconds);
  const rounds = Math.max(1, Math.ceil(teardownSeconds / 30));
  const states = {
    task: 1 + specs + readyChecks + lambdaRepetitions * 2 + AWS_FACTS.summaryQueries * 2 + 1 + rounds,
    callback: 2 * runners,
    other: 4 + 2 * readyChecks + runners + 1 + 3 + 2 * rounds + 2,
    mapIterations: specs + 2 * runners + lambdaRepetitions + AWS_FACTS.summaryQueries,
    maps: 5,
  };
  const transitions = states.task + states.callback + states.other + states.maps;
  const historyEvents = 2 + 5 * states.task + 6 * states.callback + 2 * states.other + 2 * states.maps + 2 * states.mapIterations;
  return { transitions, historyEvents };
}

/** Runner specs from a list of types, in order, consecutive equal types merged. */
function specsOf(types: string[]): RunnerSpec[] {
  const out: RunnerSpec[] = [];
  for (const t of types) {
    if (out.length && out[out.length - 1].instanceType === t) out[out.length - 1].count++;
    else out.push({ instanceType: t, count: 1 });
  }
  return out;
}

/** One runner type's share of the default plan with n runners of it: how long its busiest runner works, and what its fixtures cost. */
interface PoolOption { type: string; n: number; busy: number; work: number; prepDollars: number; versions: number }

/** The units of one type, planned alone on 1…N runners of it (the other type's units never share its runners). */
function poolOptions(model: Model, type: string, workloads: Set<string>, room: number): PoolOption[] {
  const units = model.units.filter((u) => workloads.has(u.workload));
  const steps = units.flatMap((u) => u.steps.map((index) => ({ index, repetition: u.repetition, workload: { name: u.workload, params: {} } })));
  const price = PRICES.s3StandardRequestsPer1000;
  const out: PoolOption[] = [];
  for (let n = 1; n <= Math.min(units.length, MAX_RUNNERS); n++) {
    const shards = planShards(steps, n, 'shard', { seconds: (u, _r, placed) => model.unitSeconds(u, type, placed) }, room);
    const setups = shards.map((sh) => setupSeconds(installFor(sh.steps.map((i) => model.steps(type)[i - 1])), baselineMiBps(type), model.buildCache).seconds);
    const prep = shards.flatMap((sh) => sh.workloads.map((w) => model.prep(type, w).requests));
    const t = tally(...prep);
    out.push({ type, n, busy: Math.max(...shards.map((sh, i) => setups[i] + sh.load)), work: shards.reduce((a, sh, i) => a + setups[i] + sh.load, 0), prepDollars: (t.tier1 / 1000) * price.tier1 + (t.tier2 / 1000) * price.tier2, versions: prep.reduce((a, r) => a + (r.put ?? 0) + (r.mpu_complete ?? 0), 0) });
  }
  return out;
}

/**
 * The model's own choice of runners: link-bound workloads on the stack's type, the rest on the
 * cheaper type of its architecture (cheaperType) — every count of each, up to MAX_RUNNERS in all
 * and one runner per unit; the cheapest plan whose wall is within WALL_TARGET_SECONDS, else the
 * fastest (the cheaper on a tie). The two types' runners never share units, so each type's
 * counts are planned alone and their combinations priced from those plans; the chosen one is
 * then planned whole.
 */
function defaultPlan(input: PlanInput): ExecutionEstimate {
  const model = new Model(input);
  // A fleet: one runner of the stack's type per client of its largest fleet.
  if (model.layout === 'fleet') return planWith(model, [{ instanceType: input.defaultType, count: fleetRunners(input.matrix.clients.map((clients) => ({ clients }))) }]);
  const cheap = cheaperType(input.defaultType) ?? input.defaultType;
  const onCheap = new Set(input.matrix.workloads.filter((w) => model.carries(cheap, w.name)).map((w) => w.name));
  const onFast = new Set(input.matrix.workloads.map((w) => w.name).filter((w) => !onCheap.has(w)));
  // The rest of an execution, from a one-runner-per-type plan: what a runner's shard may take within the target.
  const probe = planWith(model, specsOf([...(onFast.size ? [input.defaultType] : []), ...(onCheap.size ? [cheap] : [])]), -1);
  const fixed = probe.phases.before + probe.phases.after + probe.phases.teardown;
  const room = WALL_TARGET_SECONDS - fixed;
  const pools = [onFast.size ? poolOptions(model, input.defaultType, onFast, room) : [null], onCheap.size ? poolOptions(model, cheap, onCheap, room) : [null]];
  // Besides: everything on the stack's type (a small matrix may not be worth a second setup and boot).
  const merged = cheap === input.defaultType ? [] : poolOptions(model, input.defaultType, new Set([...onFast, ...onCheap]), room).map((x) => [x, null] as const);
  const stepVersions = probe.versionsWritten - probe.shards.flatMap((sh) => sh.workloads.map((w) => model.prep(sh.instanceType, w).requests)).reduce((a, r) => a + (r.put ?? 0) + (r.mpu_complete ?? 0), 0);
  const priced = (t: string) => runnerHourly(t) !== null;
  const pairs = [...pools[0].flatMap((f) => pools[1].map((c) => [f, c] as const)), ...merged];
  const combos = pairs.filter(([f, c]) => (f?.n ?? 0) + (c?.n ?? 0) <= MAX_RUNNERS).map(([f, c]) => {
    const parts = [f, c].filter((x): x is PoolOption => x !== null);
    const life = probe.phases.before + Math.max(...parts.map((x) => x.busy)) + probe.phases.after;
    const teardown = (2 * (stepVersions + parts.reduce((a, x) => a + x.versions, 0))) / AWS_FACTS.deletesPerSecond;
    // A runner lives until its own shard ends, or until Teardown (AWS_FACTS.runnersEndWithTheirShard).
    const lived = (x: PoolOption) => (AWS_FACTS.runnersEndWithTheirShard ? x.n * probe.phases.before + x.work : x.n * life);
    const runnerSeconds = parts.reduce((a, x) => a + lived(x), 0);
    const dollars = parts.reduce((a, x) => a + (lived(x) / 3600) * (runnerHourly(x.type) ?? 0) + x.prepDollars, 0);
    return { parts, wall: life + teardown, cost: parts.every((x) => priced(x.type)) ? dollars : runnerSeconds };
  });
  const within = combos.filter((o) => o.wall <= WALL_TARGET_SECONDS).sort((a, b) => a.cost - b.cost);
  const best = within[0] ?? [...combos].sort((a, b) => a.wall - b.wall || a.cost - b.cost)[0];
  return planWith(model, specsOf(best.parts.flatMap((x) => Array<string>(x.n).fill(x.type))));
}

/** A raw matrix's step budget (`budget_s`, seconds), or null for none. */
export function budgetOf(raw: unknown): number | null {
  const b = (raw as { budget_s?: unknown } | null)?.budget_s;
  return typeof b === 'number' ? b : null;
}

/** The execution with the runners asked for (`input.runners`), or the model's own choice. */
export function estimateExecution(input: PlanInput): ExecutionEstimate {
  if (!input.runners) return defaultPlan(input);
  return planWith(new Model(input), input.runners);
}
