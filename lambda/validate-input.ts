import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../runner/core/errors';
import { INSTALL } from '../runner/core/install';
import { expandSteps, loadProfile, resolveMatrix, type Step } from '../runner/core/matrix';
import { LAYOUTS, planShards, stepList, type Layout, type Shard } from '../runner/core/shards';
import { newRunId, runDay, stepLabel } from '../runner/core/vocabulary';
import { architectureOf, DEFAULT_RUNNER_INSTANCE_TYPE, INSTANCE_TYPE_FORM, MAX_RUNNERS, RUNNER_IMAGE, type Architecture } from '../lib/instance-types';
import { RESULTS_LAYOUT } from '../lib/results-layout';
import { logger, NamedError } from './shared/powertools';
import { env, s3Client } from './shared/s3';
import { CATALOG } from '../runner/catalog';

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
  /** How the steps are spread over the runners (runner/core/shards.ts). @default 'shard' */
  layout?: string;
}

/**
 * One runner's share as the state machine uses it (the contract between ValidateInput's planner
 * and the pipeline, issue 21): its steps for the run-step document, the command timeout that
 * follows from the plan, the runner's instance type and image, and the assets/install.json
 * components its setup installs.
 */
export interface ShardItem {
  runner: number;
  /** Step numbers for the run-step document: "1,2,5". */
  steps: string;
  count: number;
  workloads: string[];
  /** The shard's modelled duration, in seconds (null: not modelled). */
  modelledSeconds: number | null;
  /** The run-step command's own timeout, in seconds. */
  timeoutSeconds: number;
  /** The runner's EC2 instance type. */
  instanceType: string;
  /** The runner's image: Amazon Linux 2023 of the type's architecture (lib/instance-types.ts). */
  imageId: string;
  /** The assets/install.json components its setup must install. */
  install: string[];
}

export interface ValidatedRun {
  runId: string;
  /** The run's day (its records' `dt` partition): the summary queries read that day only. */
  day: string;
  matrixName: string;
  matrixKey: string;
  steps: { step: string; label: string }[];
  layout: Layout;
  /** One per runner, in the order of the launched instances. */
  shards: ShardItem[];
  runners: ValidatedRunnerSpec[];
  runnerCount: number;
  documents: number;
  lambdaRepetitions: number[];
}

/** Validates an execution's input; every problem is an `InvalidInput` error naming the field and the valid values. */
export function validateInput(input: unknown, defaultInstanceType: string, maxShardSeconds = Infinity): Omit<ValidatedRun, 'runId' | 'matrixKey' | 'day'> & { matrix: unknown } {
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
  const runners = ev.runners ?? [{ instanceType: defaultInstanceType, count: 1 }];
  if (!Array.isArray(runners) || runners.length === 0) throw bad('input.runners must be a non-empty list', 'e.g. [{"instanceType":"c7g.large","count":1}]');
  const specs = runners.map((r, i): ValidatedRunnerSpec => {
    const architecture = typeof r?.instanceType === 'string' ? architectureOf(r.instanceType) : null;
    if (!architecture) throw bad(`input.runners[${i}].instanceType "${r?.instanceType}" is not an EC2 instance type that runs Amazon Linux 2023`, `use ${INSTANCE_TYPE_FORM}`);
    if (!Number.isInteger(r.count) || r.count < 1 || r.count > MAX_RUNNERS) {
      throw bad(`input.runners[${i}].count must be a whole number from 1 to ${MAX_RUNNERS}, got ${JSON.stringify(r.count)}`, r.count > MAX_RUNNERS ? `at most ${MAX_RUNNERS} runners per execution` : 'e.g. "count": 1');
    }
    // Graviton and x86 types can be mixed: each spec launches the image of its own architecture.
    return { instanceType: r.instanceType, count: r.count, architecture, imageId: RUNNER_IMAGE[architecture] };
  });
  const runnerCount = runners.reduce((n, r) => n + r.count, 0);
  if (runnerCount > MAX_RUNNERS) throw bad(`${runnerCount} runners in total`, `at most ${MAX_RUNNERS} per execution`);
  const documents = ev.lambdas?.documents ?? 20;
  const repetitions = ev.lambdas?.repetitions ?? 3;
  if (!Number.isInteger(documents) || documents < 1 || documents > 1000) throw bad(`input.lambdas.documents must be 1–1000, got ${JSON.stringify(documents)}`, 'seed 001 used 20');
  if (!Number.isInteger(repetitions) || repetitions < 1 || repetitions > 20) throw bad(`input.lambdas.repetitions must be 1–20, got ${JSON.stringify(repetitions)}`, 'seed 001 used 3');
  const layout = (ev.layout ?? 'shard') as Layout;
  if (!LAYOUTS.includes(layout)) throw bad(`input.layout "${ev.layout}" is not a layout`, `use one of ${LAYOUTS.join(', ')} (shard: each runner runs all methods of its workloads; replicate: every runner runs every step)`);
  const expanded = expandSteps(resolved);
  const shards = planShards(expanded, runnerCount, layout);
  const idle = shards.filter((s) => !s.steps.length).length;
  if (idle) {
    throw bad(`${runnerCount} runners but the matrix has ${new Set(expanded.map((s) => s.workload.name)).size} workload(s): ${idle} runner(s) would measure nothing under layout "shard"`,
      'launch at most one runner per workload, or use "layout": "replicate" to run every step on every runner');
  }
  const steps = expanded.map((s) => ({ step: String(s.index), label: stepLabel(s) }));
  const items = interimShardFields(shards, expanded, specs);
  const late = items.find((i) => i.timeoutSeconds > maxShardSeconds);
  if (late) throw bad(`runner ${late.runner + 1}'s command timeout (${late.timeoutSeconds} s) is longer than the execution leaves for a shard (${maxShardSeconds} s)`, 'add runners so each shard is shorter, or deploy with a longer -c runnerMaxLifetimeHours');
  return { matrix: raw, matrixName: resolved.name, steps, layout, shards: items, runners: specs, runnerCount, documents, lambdaRepetitions: Array.from({ length: repetitions }, (_, i) => i + 1) };
}

/** Today's fixed command timeout of a shard, until the measured model gives each its own. */
const INTERIM_SHARD_TIMEOUT_S = 7200;

/**
 * The fields of the shard contract the planner does not fill yet (issue 21: the measured model
 * will — runner/core/shards.ts planShards and this file): every shard gets today's fixed 2-hour
 * command timeout and no modelled time; its runner's instance type is that of the i-th runner
 * when the specs are expanded in order (the launch order before per-shard types); `install` is
 * what its methods and workloads need (assets/install.json).
 */
function interimShardFields(shards: Shard[], steps: Step[], specs: ValidatedRunnerSpec[]): ShardItem[] {
  const types = specs.flatMap((r) => Array<string>(r.count).fill(r.instanceType));
  return shards.map((s) => {
    const mine = steps.filter((x) => s.steps.includes(x.index));
    const instanceType = types[s.runner];
    return {
      runner: s.runner, steps: stepList(s.steps), count: s.steps.length, workloads: s.workloads,
      modelledSeconds: null, timeoutSeconds: INTERIM_SHARD_TIMEOUT_S, instanceType, imageId: RUNNER_IMAGE[architectureOf(instanceType)!],
      install: installFor(mine),
    };
  });
}

/** The assets/install.json components the methods and workloads of these steps need, sorted. */
export function installFor(steps: Pick<Step, 'method' | 'workload'>[]): string[] {
  const needs = new Set<string>();
  for (const s of steps) for (const c of [...(INSTALL.methods[s.method.name] ?? []), ...(INSTALL.workloads[s.workload.name] ?? [])]) needs.add(c);
  return [...needs].sort();
}

/**
 * ValidateInput: checks the execution's input with the runner's own matrix validator (the same
 * as `s3ab run --matrix`) before anything is created, then stores the matrix where the runners'
 * `s3ab step` reads it (executions/RUNID/matrix.json).
 */
export async function handler(event: { input?: unknown }, _context?: unknown, deps: { s3?: S3Client } = {}): Promise<ValidatedRun> {
  const maxShardSeconds = Number(process.env.MAX_SHARD_SECONDS ?? Infinity);
  const v = validateInput(event?.input, process.env.DEFAULT_INSTANCE_TYPE ?? DEFAULT_RUNNER_INSTANCE_TYPE, maxShardSeconds);
  const runId = newRunId();
  const matrixKey = `${RESULTS_LAYOUT.executions}${runId}/matrix.json`;
  await (deps.s3 ?? client).send(new PutObjectCommand({ Bucket: env('RESULTS_BUCKET'), Key: matrixKey, Body: JSON.stringify(v.matrix, null, 2), ContentType: 'application/json' }));
  logger.info('input valid', { runId, steps: v.steps.length, runners: v.runnerCount });
  const { matrix: _matrix, ...rest } = v;
  void _matrix;
  return { runId, day: runDay(runId), matrixKey, ...rest };
}
