import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../runner/core/errors';
import { expandSteps, loadProfile, resolveMatrix, type ResolvedAdvice } from '../runner/core/matrix';
import { fleetRunners, impliedLayout, LAYOUTS, stepList, type Layout } from '../runner/core/shards';
import { newRunId, runDay, stepLabel } from '../runner/core/vocabulary';
import { architectureOf, DEFAULT_RUNNER_INSTANCE_TYPE, INSTANCE_TYPE_FORM, MAX_RUNNERS, RUNNER_IMAGE, type Architecture } from '../lib/instance-types';
import { RESULTS_LAYOUT } from '../lib/results-layout';
import { logger, NamedError } from './shared/powertools';
import { env, s3Client } from './shared/s3';
import { CATALOG } from '../runner/catalog';
import { budgetOf, estimateExecution, shardLimitSeconds, type ExecutionEstimate } from '../runner/plan/execution-model';
import { checkStateSize, isRefusal, type CapacityDecision } from '../runner/plan/capacity';
import { CapacityUnknown, capacityClients, checkCapacity, type CapacityClients } from '../runner/aws/capacity';

const client = s3Client();

export interface RunnerSpec { instanceType: string; count: number }
/** A runner spec as the state machine launches it: the architecture decides the image (lib/instance-types.ts). */
export interface ValidatedRunnerSpec extends RunnerSpec { architecture: Architecture; imageId: string }

/** The state machine's input: the same matrix format as `s3ab run --matrix` (or a profile name), runner specs and the Lambda benchmark's size. */
export interface ExecutionInput {
  matrix?: unknown;
  profile?: string;
  runners?: RunnerSpec[];
  lambdas?: { documents?: number; repetitions?: number };
  /** How the steps are spread over the runners (runner/core/shards.ts). @default the matrix's: fleet when its `clients` go above 1, else shard */
  layout?: string;
}

/**
 * One runner's share as the state machine uses it (the contract between ValidateInput's planner
 * and the pipeline), planned by the measured model (runner/plan/): its steps for the
 * run-step document, its modelled time and the command timeout that follows from it, its
 * runner's instance type, and the assets/install.json components its setup installs.
 */
export interface ShardItem {
  runner: number;
  /** Step numbers for the run-step document: "1,2,5". */
  steps: string;
  count: number;
  workloads: string[];
  /** The shard's modelled command time, in seconds: its fixtures and its steps. */
  modelledSeconds: number;
  /** The run-step command's own timeout, in seconds (runner/plan/execution-model.ts SHARD_TIMEOUT). */
  timeoutSeconds: number;
  /** The runner's EC2 instance type. */
  instanceType: string;
  /** The runner's image: Amazon Linux 2023 of the type's architecture (lib/instance-types.ts). */
  imageId: string;
  /** The assets/install.json components its setup installs. */
  install: string[];
  /** Its runner's client number in a fleet (runner + 1; layout "fleet"), or 0: not a fleet's client. The run-step document passes it to `s3ab step --fleet-client`. */
  fleetClient: number;
}

export interface ValidatedRun {
  runId: string;
  /** The run's day (its records' `dt` partition): the summary queries read that day only. */
  day: string;
  matrixName: string;
  matrixKey: string;
  /** The matrix's `advice`, resolved (null: it names none): the Report state's Advice section asks it. */
  advice: ResolvedAdvice | null;
  steps: { step: string; label: string }[];
  layout: Layout;
  /** One per runner, in the order of the launched instances. */
  shards: ShardItem[];
  runners: ValidatedRunnerSpec[];
  runnerCount: number;
  documents: number;
  lambdaRepetitions: number[];
  /** What the account's capacity check found: the Standard vCPUs (quota, running, this execution's), the types that fell back to an equivalent, and what it says about them. */
  capacity: { vcpus: CapacityDecision['vcpus']; fallbacks: CapacityDecision['fallbacks']; notes: string[] };
}

/**
 * Validates an execution's input and plans it with the measured model; every problem is an
 * `InvalidInput` error naming the field and the valid values. Without `runners`, the model picks
 * them (its plan: the cheapest within 45 min, else the fastest). A shard whose command timeout
 * exceeds what the execution leaves for it (`maxShardSeconds`) is refused, naming the fix.
 */
export function validateInput(input: unknown, defaultInstanceType: string, maxShardSeconds = Infinity): Omit<ValidatedRun, 'runId' | 'matrixKey' | 'day' | 'capacity'> & { matrix: unknown } {
  const ev = (input ?? {}) as ExecutionInput;
  const bad = (problem: string, fix: string) => new NamedError('InvalidInput', `${problem} — ${fix}`);
  if (ev.matrix !== undefined && ev.profile !== undefined) throw bad('the input has both "matrix" and "profile"', 'give one of them');
  let raw: unknown;
  try {
    raw = ev.matrix ?? loadProfile(ev.profile ?? 'quick');
  } catch (err) {
    if (err instanceof UserError) throw bad(err.problem, err.fix);
    throw err;
  }
  let resolved;
  try {
    resolved = resolveMatrix(raw, ev.matrix !== undefined ? 'input.matrix' : `profile ${ev.profile ?? 'quick'}`, CATALOG);
  } catch (err) {
    if (err instanceof UserError) throw new NamedError('InvalidMatrix', `${err.problem} — ${err.fix}`);
    throw err;
  }
  const asked = ev.runners === undefined ? undefined : checkRunners(ev.runners, bad);
  const documents = ev.lambdas?.documents ?? 20;
  const repetitions = ev.lambdas?.repetitions ?? 3;
  if (!Number.isInteger(documents) || documents < 1 || documents > 1000) throw bad(`input.lambdas.documents must be 1–1000, got ${JSON.stringify(documents)}`, 'seed 001 used 20');
  if (!Number.isInteger(repetitions) || repetitions < 1 || repetitions > 20) throw bad(`input.lambdas.repetitions must be 1–20, got ${JSON.stringify(repetitions)}`, 'seed 001 used 3');
  const layout = checkLayout(ev, resolved.clients, asked, bad);
  let plan: ExecutionEstimate;
  try {
    plan = estimateExecution({ matrix: resolved, budgetSeconds: budgetOf(raw), runners: asked, defaultType: defaultInstanceType, layout, lambdas: { documents, repetitions } });
  } catch (err) {
    if (err instanceof UserError) throw bad(err.problem, err.fix);
    throw bad(`the execution cannot be modelled: ${(err as Error).message}`, 'name runner types listed in assets/instance-network.json and assets/prices.json, or leave "runners" out for the model\'s own plan');
  }
  checkPlan(plan, maxShardSeconds, bad);
  const steps = expandSteps(resolved).map((s) => ({ step: String(s.index), label: stepLabel(s) }));
  const runners = checkRunners(plan.runners, bad);
  const imageOf = new Map(runners.map((r) => [r.instanceType, r.imageId]));
  const shards = plan.shards.map((s): ShardItem => ({
    runner: s.runner, steps: stepList(s.steps), count: s.steps.length, workloads: s.workloads,
    modelledSeconds: Math.round(s.modelledSeconds), timeoutSeconds: s.timeoutSeconds, instanceType: s.instanceType, imageId: imageOf.get(s.instanceType)!, install: s.install,
    fleetClient: layout === 'fleet' ? s.runner + 1 : 0,
  }));
  return { matrix: raw, matrixName: resolved.name, advice: resolved.advice, steps, layout, shards, runners, runnerCount: shards.length, documents, lambdaRepetitions: Array.from({ length: repetitions }, (_, i) => i + 1) };
}

type Bad = (problem: string, fix: string) => NamedError;

const LAYOUT_HELP = 'shard: each runner runs all methods of its workloads; fleet: runner r runs every step with more than r clients, side by side with the others';

/**
 * The execution's layout: the one asked for, else the matrix's (`impliedLayout`). A fleet needs
 * one runner per client of its largest fleet; steps with clients > 1 cannot run under `shard`.
 */
function checkLayout(ev: ExecutionInput, clients: number[], asked: ValidatedRunnerSpec[] | undefined, bad: Bad): Layout {
  const layout = (ev.layout ?? impliedLayout(clients)) as Layout;
  if (!LAYOUTS.includes(layout)) throw bad(`input.layout "${ev.layout}" is not a layout`, `use one of ${LAYOUTS.join(', ')} (${LAYOUT_HELP})`);
  const fleet = fleetRunners(clients.map((c) => ({ clients: c })));
  if (layout === 'shard' && fleet > 1) throw bad(`the matrix's clients [${clients.join(', ')}] ask for fleets of up to ${fleet} runners at once, which layout "shard" cannot run`, 'leave "layout" out or give "layout": "fleet"');
  if (layout === 'fleet' && fleet > MAX_RUNNERS) throw bad(`the matrix's largest fleet has ${fleet} clients: as many runners, more than the ${MAX_RUNNERS} an execution may have`, `give "clients" up to ${MAX_RUNNERS}`);
  const count = asked?.reduce((n, r) => n + r.count, 0);
  if (layout === 'fleet' && count !== undefined && count !== fleet) {
    throw bad(`layout "fleet" with clients [${clients.join(', ')}] needs ${fleet} runner(s), one per client of its largest fleet; input.runners asks for ${count}`,
      `give ${fleet} runners in input.runners (e.g. [{"instanceType":"c7g.large","count":${fleet}}]), or leave "runners" out: the plan derives them`);
  }
  return layout;
}

/** Runner specs as the state machine launches them: each type runs Amazon Linux 2023, its architecture decides the image. */
function checkRunners(runners: unknown, bad: Bad): ValidatedRunnerSpec[] {
  if (!Array.isArray(runners) || runners.length === 0) throw bad('input.runners must be a non-empty list', 'e.g. [{"instanceType":"c7g.large","count":1}], or leave it out for the model\'s own plan');
  const specs = (runners as RunnerSpec[]).map((r, i): ValidatedRunnerSpec => {
    const architecture = typeof r?.instanceType === 'string' ? architectureOf(r.instanceType) : null;
    if (!architecture) throw bad(`input.runners[${i}].instanceType "${r?.instanceType}" is not an EC2 instance type that runs Amazon Linux 2023`, `use ${INSTANCE_TYPE_FORM}`);
    if (!Number.isInteger(r.count) || r.count < 1 || r.count > MAX_RUNNERS) {
      throw bad(`input.runners[${i}].count must be a whole number from 1 to ${MAX_RUNNERS}, got ${JSON.stringify(r.count)}`, r.count > MAX_RUNNERS ? `at most ${MAX_RUNNERS} runners per execution` : 'e.g. "count": 1');
    }
    // Graviton and x86 types can be mixed: each spec launches the image of its own architecture.
    return { instanceType: r.instanceType, count: r.count, architecture, imageId: RUNNER_IMAGE[architecture] };
  });
  const runnerCount = specs.reduce((n, r) => n + r.count, 0);
  if (runnerCount > MAX_RUNNERS) throw bad(`${runnerCount} runners in total`, `at most ${MAX_RUNNERS} per execution`);
  return specs;
}

/** A plan the execution can carry out: every runner has work, and every shard's command timeout fits what the execution leaves for it. */
function checkPlan(plan: ExecutionEstimate, maxShardSeconds: number, bad: Bad): void {
  const idle = plan.shards.filter((s) => !s.steps.length).length;
  if (idle) {
    throw bad(`${plan.shards.length} runners but the matrix has ${new Set(plan.steps.map((s) => s.workload)).size} workload(s) × ${new Set(plan.steps.map((s) => s.repetition)).size} repetition(s) for them: ${idle} runner(s) would measure nothing under layout "shard"`,
      'launch at most one runner per (workload, repetition), or leave "runners" out for the model\'s own plan');
  }
  const limit = Math.min(maxShardSeconds, shardLimitSeconds(plan));
  const late = plan.shards.find((s) => s.timeoutSeconds > limit);
  if (late) {
    const minutes = (x: number) => `${Math.round(x / 60)} min`;
    throw bad(`runner ${late.runner + 1}'s shard (${late.workloads.join(', ')}) is modelled at ${minutes(late.modelledSeconds)}, so its command timeout is ${minutes(late.timeoutSeconds)} — longer than the ${minutes(limit)} the execution leaves for a shard`,
      'add runners (or leave "runners" out for the model\'s own plan; `s3ab aws estimate` prints it), give the matrix a step budget ("budget_s"), or run a part of it (fewer workloads or methods)');
  }
}

/** The capacity reads' clients, made once per container (the role's credentials, the function's region). */
let defaultCapacity: CapacityClients | undefined;

/** What ValidateInput leaves itself after the capacity reads, of its remaining time: storing the matrix and answering. */
const AFTER_CAPACITY_MS = 2000;

/**
 * ValidateInput: checks the execution's input with the runner's own matrix validator (the same
 * as `s3ab run --matrix`) before anything is created; then the account's capacity for its
 * runners (runner/aws/capacity.ts: the Standard vCPU quota less what runs, the types' offerings
 * in the stack's runner zones, a documented equivalent where a type is not offered) and the
 * execution's state size once its runners are provisioned; then stores the matrix where the
 * runners' `s3ab step` reads it (executions/RUNID/matrix.json).
 */
export async function handler(event: { input?: unknown }, context?: { getRemainingTimeInMillis?: () => number }, deps: { s3?: S3Client; capacity?: CapacityClients } = {}): Promise<ValidatedRun> {
  // What the execution leaves a shard's command (the stack sets it: its timeout less the states around the runners).
  const maxShardSeconds = Number(process.env.MAX_SHARD_SECONDS ?? Infinity);
  const defaultType = process.env.DEFAULT_INSTANCE_TYPE ?? DEFAULT_RUNNER_INSTANCE_TYPE;
  let v = validateInput(event?.input, defaultType, maxShardSeconds);
  const zones = (process.env.RUNNER_AVAILABILITY_ZONES ?? '').split(',').filter(Boolean);
  if (!zones.length) throw new Error('RUNNER_AVAILABILITY_ZONES is not set: the stack sets it to its runner subnets\' Availability Zones');
  const withinMs = Math.max(1000, (context?.getRemainingTimeInMillis?.() ?? 8000) - AFTER_CAPACITY_MS);
  let decision;
  try {
    decision = await checkCapacity(deps.capacity ?? (defaultCapacity ??= capacityClients(process.env.AWS_REGION)), v.runners.map((r) => ({ instanceType: r.instanceType, count: r.count })), zones, withinMs);
  } catch (err) {
    if (err instanceof CapacityUnknown) throw new NamedError('CapacityUnknown', `${err.message} — start the execution again; if it keeps failing, check the function's role may call servicequotas:GetServiceQuota, ec2:DescribeInstances and ec2:DescribeInstanceTypeOfferings`);
    throw err;
  }
  if (isRefusal(decision)) throw new NamedError('InsufficientCapacity', `${decision.problem} — ${decision.fix}`);
  // A type not offered in the stack's zones runs as its equivalent: the same architecture (image),
  // vCPUs and link (runner/plan/aws-facts.ts EQUIVALENT_TYPES), so the same shards on it — no second
  // plan within the function's seconds.
  const as = new Map(decision.fallbacks.map((f) => [f.from, f.to]));
  if (as.size) {
    const swap = <T extends { instanceType: string }>(x: T): T => ({ ...x, instanceType: as.get(x.instanceType) ?? x.instanceType });
    v = { ...v, runners: v.runners.map(swap), shards: v.shards.map(swap) };
  }
  for (const note of decision.notes) logger.warn('capacity', { note });
  const runId = newRunId();
  const matrixKey = `${RESULTS_LAYOUT.executions}${runId}/matrix.json`;
  const { matrix: _matrix, ...rest } = v;
  void _matrix;
  const run: ValidatedRun = { runId, day: runDay(runId), matrixKey, ...rest, capacity: { vcpus: decision.vcpus, fallbacks: decision.fallbacks, notes: decision.notes } };
  const bytes = (x: unknown) => Buffer.byteLength(JSON.stringify(x ?? {}), 'utf8');
  const tooLarge = checkStateSize({ inputBytes: bytes(event?.input), runBytes: bytes(run), runners: run.runnerCount, lambdaRepetitions: run.lambdaRepetitions.length, steps: run.steps.length });
  if (tooLarge) throw new NamedError('InvalidInput', `${tooLarge.problem} — ${tooLarge.fix}`);
  await (deps.s3 ?? client).send(new PutObjectCommand({ Bucket: env('RESULTS_BUCKET'), Key: matrixKey, Body: JSON.stringify(v.matrix, null, 2), ContentType: 'application/json' }));
  logger.info('input valid', { runId, steps: v.steps.length, runners: v.runnerCount, vcpus: decision.vcpus });
  return run;
}
