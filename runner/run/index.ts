import { setMaxListeners } from 'node:events';
import { accessSync, constants, existsSync, statSync, statfsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { matrixFor } from '../catalog';
import { Interrupted, onEmergencyExit } from '../core/cleanup';
import { errorSummary, RunError, UserError } from '../core/errors';
import { hostFacts } from '../core/host';
import { acquireHostLock } from './host-lock';
import { installCommand } from '../core/install';
import { DEFAULT_INTERVAL_MS, seriesSettings } from '../core/intervals';
import { expandSteps, type MethodChoice, type ResolvedMatrix, type Step } from '../core/matrix';
import { tuningGrids } from '../core/tune';
import type { Availability } from '../core/method';
import { Progress } from './progress';
import { memoryBackedTmp } from '../core/tmp';
import { formatAmount, formatDuration } from '../core/units';
import { fixtureBytes } from '../core/workload';
import { didNotFinishLabel, methodLabel, roughDuration, newRunId, runDataPrefix, runnerVolumePrefix, stepLabel } from '../core/vocabulary';
import { linkLimitFor, type LinkLimit } from '../endpoint/link-limit';
import { findMethod } from '../methods';
import { findWorkloadDescriptor } from '../workloads/catalog';
import type { IntervalRecord } from '../core/interval.generated';
import type { ResultRecord } from '../core/record.generated';
import { markAbandoned } from '../results/manifests';
import { ResultsWriter, type RunManifest } from '../results/writer';
import { LocalFleet } from './fleet';
import { writeFixtures } from './fixtures';
import { finishFleet, fleetFixtures } from './shared-fixtures';
import type { RunOptions, RunOutcome } from './options';
import { checkEnvironment, checkRunOptions, chooseSteps, finalStatus, methodsToProbe, notApplicableReason, planAvailability, spaceProblem, stepFailed, type SpaceNeed } from './policy';
import { GridHalving } from './halving';
import { runStep, type StepEnv } from './step';
import { openStore, type OpenStore } from './store';


/** What a run will do, decided before anything is created. */
interface RunPlan {
  matrix: ResolvedMatrix;
  /** Steps asked for (all, or `onlySteps`), before skipping optional methods missing here. */
  chosen: Step[];
  steps: Step[];
  skipped: NonNullable<RunManifest['skipped']>;
  runId: string;
  /** The run's data prefix in the bucket. */
  prefix: string;
}

/**
 * Runs a matrix in named phases: plan (matrix, steps, methods present here — bad input fails
 * before anything is created), open the store (endpoint, preflight), open the results, measure
 * the link, write the fixtures, run the steps, settle the final status. Whatever happens, the
 * benchmark objects are deleted, the embedded server stopped and the manifest saved.
 */
export async function runBenchmark(opts: RunOptions): Promise<RunOutcome> {
  const plan = await planRun(opts);
  seriesSettings.intervalMs = opts.seriesIntervalMs ?? DEFAULT_INTERVAL_MS;
  const progress = new Progress(plan.steps.length, process.stdout, opts.quiet);
  announceSkipped(plan, progress);
  const abort = runAbortController(opts.signal);
  // One mount benchmark per host: anything that mounts (and so drops caches) holds the host's lock.
  const releaseLock = plan.steps.some((st) => findMethod(st.method.name)!.kind === 'mount')
    ? await acquireHostLock(plan.runId, { wait: opts.waitForLock, log: (m) => progress.log(m), signal: abort.ctrl.signal })
    : () => {};
  let store: OpenStore | null = null;
  let writer: ResultsWriter | null = null;
  let unregisterEmergencyManifest = () => {};
  const files: string[] = [];
  // Steps with several clients at once run as client processes of this host (run/fleet.ts); an AWS
  // runner's steps (`s3ab step`) are one client each of a fleet of runners, not a local fleet.
  const fleet = !opts.onlySteps && plan.steps.some((st) => st.clients > 1) ? new LocalFleet(plan.runId) : null;
  try {
    store = await openStore(opts, plan.prefix, runnerVolumePrefix(plan.runId, opts.runnerId), abort.ctrl, (m) => progress.log(m));
    writer = await openResults(opts, plan, store, (m) => progress.log(m));
    unregisterEmergencyManifest = saveOnEmergencyExit(writer);
    const host = await measureLink(store, plan, opts, abort.ctrl.signal, progress);
    progress.log(`run ${plan.runId}: ${describePlan(plan)}, results in ${writer.partitionDir}`);
    const fixtures = await prepareFixtures(opts, plan, store, progress, abort.ctrl.signal);
    const env: StepEnv = {
      target: store.target, host, endpointFacts: store.endpointFacts, runId: plan.runId, runnerId: opts.runnerId ?? null, prefix: plan.prefix, reference: store.reference,
      fixtures, progress, signal: abort.ctrl.signal, cache: plan.matrix.cache, budgetS: plan.matrix.budgetS, watchdog: opts.watchdog,
      onMounted: opts.onMounted, accessLog: store.accessLog, fleet: opts.fleet?.member,
    };
    await runSteps(plan, env, { opts, store, writer, files, abort: abort.ctrl, fleet });
    if (opts.fleet) await finishFleet(opts.fleet, store.reference, progress, abort.ctrl.signal, true);
    progress.stop();
    settle(writer, plan, abort.ctrl.signal.reason as Error | undefined);
    noteLeftovers(writer, await store.removeRunObjects(), progress);
  } catch (err) {
    progress.stop();
    if (!writer) throw err;
    await recordFailure(writer, store, opts, abort.ctrl.signal.reason ?? err, progress);
  } finally {
    abort.unlink();
    await fleet?.close();
    await store?.close();
    releaseLock();
    unregisterEmergencyManifest();
    if (writer) await saveFinalManifest(writer);
  }
  return { manifest: writer!.manifest, resultsDir: writer!.root, files, manifestFile: writer!.manifestFile };
}

/** A second Ctrl-C exits at once: the manifest must not stay "running". Returns the unregistering. */
function saveOnEmergencyExit(writer: ResultsWriter): () => void {
  return onEmergencyExit(() => {
    Object.assign(writer.manifest, { status: 'interrupted', problem: 'exited at once on a second Ctrl-C (the emergency path): the current step did not finish', ended_at: new Date().toISOString() });
    writer.saveManifestSync();
  });
}

/** The data sets the chosen steps' workloads read; a fleet's clients read one, written once (shared-fixtures.ts). */
async function prepareFixtures(opts: RunOptions, plan: RunPlan, store: OpenStore, progress: Progress, signal: AbortSignal): Promise<StepEnv['fixtures']> {
  const needed = plan.matrix.workloads.filter((w) => plan.steps.some((st) => st.workload.name === w.name));
  return opts.fleet
    ? fleetFixtures(opts.fleet, { workloads: needed }, store.reference.boundTo(signal), progress, signal)
    : writeFixtures({ workloads: needed }, store.reference.boundTo(signal), plan.prefix, progress, signal);
}

/** A run that stopped early: interrupted or failed with its reason, the fleet's markers and the run's objects removed. */
async function recordFailure(writer: ResultsWriter, store: OpenStore | null, opts: RunOptions, reason: unknown, progress: Progress): Promise<void> {
  writer.manifest.status = reason instanceof Interrupted ? 'interrupted' : 'failed';
  writer.manifest.problem = errorSummary(reason);
  if (store && opts.fleet) await finishFleet(opts.fleet, store.reference, progress, new AbortController().signal, false).catch((e) => progress.log(`the fleet's barrier markers were not all removed (${errorSummary(e)}); the pipeline's Teardown deletes them`));
  if (store) noteLeftovers(writer, await store.removeRunObjects(), progress);
}

async function saveFinalManifest(writer: ResultsWriter): Promise<void> {
  writer.manifest.ended_at = new Date().toISOString();
  writer.manifest.peak_rss_bytes = process.resourceUsage().maxRSS * 1024;
  try {
    await writer.saveManifest();
  } catch (err) {
    throw new RunError(`the run's manifest could not be saved in ${writer.root}: ${errorSummary(err)}`, 'check that the results folder is writable and has room, then run again');
  }
}

/**
 * `s3ab run --dry-run`: what the run would do — its steps, workloads, methods (each setting of an
 * option grid one of them) and grids — from the matrix alone: nothing probed, nothing created.
 */
export function dryRunLines(opts: Pick<RunOptions, 'profile' | 'matrixFile' | 'methods' | 'workloads' | 'repetitions' | 'cache' | 'stepBudgetS' | 'clients'>): string[] {
  const matrix = matrixFor(opts);
  const steps = expandSteps(matrix);
  const fleet = matrix.clients.length > 1 ? ` × ${matrix.clients.length} fleet sizes (${matrix.clients.join(', ')} clients)` : '';
  const grids = tuningGrids(matrix.methods);
  return [
    `matrix ${matrix.name}: ${steps.length} steps (${matrix.methods.length} methods × ${matrix.workloads.length} workloads × ${matrix.repetitions} repetitions${fleet}), cache ${matrix.cache.join(', ')}`,
    `workloads: ${matrix.workloads.map((w) => w.name).join(', ')}`,
    `methods: ${matrix.methods.map((c) => methodLabel({ method: c.name, method_variant: c.variant }) + (c.optional ? ' (optional)' : '')).join(', ')}`,
    ...grids.map((g) => `grid ${g.grid}: ${g.settings.length} settings of ${g.knobs.join(' × ')}, ${g.settings.length * matrix.workloads.length * matrix.repetitions * matrix.clients.length} steps; ` +
      (g.halving ? 'successive halving on: settings wholly below the best after a round (from round 2) are dropped, so fewer may run' : 'successive halving off: every setting runs every repetition')),
    'dry run: nothing probed, nothing created',
  ];
}

/** Phase 1: the matrix, its steps and the methods present here. Throws UserError; creates nothing. */
async function planRun(opts: RunOptions): Promise<RunPlan> {
  const matrix = matrixFor(opts);
  const chosen = chooseSteps(expandSteps(matrix), opts.onlySteps);
  checkRunOptions(opts);
  checkEnvironment(process.env, (p) => existsSync(p) && statSync(p).isDirectory());
  checkResultsFolder(resolve(opts.resultsDir));
  const availability = new Map<MethodChoice, Availability>();
  const applies = (s: Step) => !notApplicableReason(findMethod(s.method.name)!, findWorkloadDescriptor(s.workload.name)!);
  const probed = methodsToProbe(matrix.methods, chosen, !!opts.onlySteps, applies);
  for (const choice of probed) availability.set(choice, await findMethod(choice.name)!.probe());
  const { skipped, steps } = planAvailability(probed, availability, chosen, !!opts.onlySteps, installCommand);
  checkTempSpace(matrix, steps, !(opts.endpoint || opts.awsTarget));
  const runId = opts.runId ?? newRunId();
  return { matrix, chosen, steps, skipped, runId, prefix: runDataPrefix(runId, opts.runnerId) };
}

/** Room the results folder must have: a run's records and manifest are a few MB; the report a few more. */
const RESULTS_ROOM_BYTES = 64 * 1024 * 1024;

/** The results folder is a writable directory (or can be made one) with room, checked before anything is created. */
function checkResultsFolder(dir: string): void {
  let existing = dir;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (!statSync(existing).isDirectory()) {
    throw new UserError(`--results ${dir} is not a folder: ${existing} is a file`, 'give --results a folder (it is created if missing)');
  }
  try {
    accessSync(existing, constants.W_OK);
  } catch {
    throw new UserError(`--results ${dir} cannot be written: ${existing} is not writable`, 'give --results a folder you may write to');
  }
  const fs = statfsSync(existing);
  const free = fs.bavail * fs.bsize;
  if (free < RESULTS_ROOM_BYTES) {
    throw new UserError(`--results ${dir} has ${Math.floor(free / 1024 / 1024)} MiB free, less than the ${RESULTS_ROOM_BYTES / 1024 / 1024} MiB a run's results need`, 'free some space there, or give --results a folder on another disk');
  }
}

/**
 * The run fits its temp folders (checked before anything is created): the largest step's local
 * files in the OS temp folder, and — with the embedded server — the fixtures plus that step's
 * objects in the server's folder (S3AB_TMP, else /dev/shm).
 */
function checkTempSpace(matrix: ResolvedMatrix, steps: Step[], embedded: boolean): void {
  let step = { bytes: 0, what: 'no large files' };
  for (const st of steps) {
    const bytes = findWorkloadDescriptor(st.workload.name)?.stepBytes?.(st.workload.params) ?? 0;
    if (bytes > step.bytes) step = { bytes, what: `the largest step, ${st.workload.name}, ${formatAmount(bytes)}` };
  }
  const fixtures = new Map<string, number>();
  for (const w of matrix.workloads) {
    if (!steps.some((st) => st.workload.name === w.name)) continue;
    const spec = findWorkloadDescriptor(w.name)?.fixture?.(w.params);
    if (spec) fixtures.set(spec.id, fixtureBytes(spec));
  }
  const fixtureTotal = [...fixtures.values()].reduce((a, b) => a + b, 0);
  const space = (folder: string) => {
    const fs = statfsSync(folder);
    return { folder, device: statSync(folder).dev, freeBytes: fs.bavail * fs.bsize };
  };
  const needs: SpaceNeed[] = [{ role: 'the steps\' local files', ...space(tmpdir()), needBytes: step.bytes, largest: step.what }];
  if (embedded) {
    needs.push({
      role: 'the embedded server\'s objects', ...space(memoryBackedTmp()), needBytes: fixtureTotal + step.bytes,
      largest: `fixtures ${formatAmount(fixtureTotal)} and ${step.what}`,
    });
  }
  const problem = spaceProblem(needs, formatAmount);
  if (problem) throw new UserError(problem.problem, problem.fix);
}

function announceSkipped(plan: RunPlan, progress: Progress): void {
  for (const x of plan.skipped) {
    progress.log(`${methodLabel({ method: x.method, method_variant: x.variant })} skipped (optional in the matrix): ${x.reason}; ${x.steps} of ${plan.chosen.length} steps not run`);
  }
}

function describePlan(plan: RunPlan): string {
  const m = plan.matrix;
  const skipped = plan.skipped.length ? `, ${plan.skipped.length} optional skipped` : '';
  const budget = m.budgetS === null ? '' : `, each step within a budget of ${roughDuration(m.budgetS)}`;
  const grids = tuningGrids(m.methods).map((g) => `; grid ${g.grid}: ${g.settings.length} settings of ${g.knobs.join(' × ')}${g.halving ? ', successive halving on' : ''}`).join('');
  return `${plan.steps.length} steps (${m.methods.length} methods${skipped} × ${m.workloads.length} workloads × ${m.repetitions} repetitions${budget}${grids})`;
}

/** The run's abort controller, aborted by the caller's signal (Ctrl-C) as well. */
function runAbortController(outer?: AbortSignal): { ctrl: AbortController; unlink: () => void } {
  const ctrl = new AbortController();
  // Every in-flight request listens on the run's signal.
  setMaxListeners(1000, ctrl.signal);
  const onOuter = () => ctrl.abort(outer!.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  return { ctrl, unlink: () => outer?.removeEventListener('abort', onOuter) };
}

/** Phase 3: the results folder and the run manifest (status running). */
async function openResults(opts: RunOptions, plan: RunPlan, store: OpenStore, log: (m: string) => void): Promise<ResultsWriter> {
  const writer = new ResultsWriter(resolve(opts.resultsDir), {
    run_id: plan.runId, status: 'running', started_at: new Date().toISOString(), ended_at: null, matrix: plan.matrix.name,
    steps_total: plan.steps.length, steps_done: 0, steps_failed: 0, problem: null, endpoint: store.endpointFacts, peak_rss_bytes: null,
    ...(plan.skipped.length ? { skipped: plan.skipped } : {}), ...(tuningGrids(plan.matrix.methods).length ? { tuning: tuningGrids(plan.matrix.methods) } : {}),
    ...(plan.matrix.advice ? { advice: plan.matrix.advice } : {}), pid: process.pid, hostname: hostname(),
  }, { nameSuffix: opts.runnerId });
  for (const runId of markAbandoned(writer.root)) log(`run ${runId} in ${writer.root} was abandoned (its process is gone without finishing it); its manifest now says so`);
  await writer.open();
  return writer;
}

/** Phase 4: the most the link can carry (results above it came from a cache and are flagged so) and what it sustains, in the host facts. */
async function measureLink(store: OpenStore, plan: RunPlan, opts: RunOptions, signal: AbortSignal, progress: Progress): Promise<ResultRecord['host']> {
  let link: LinkLimit;
  try {
    link = await linkLimitFor(store.client, store.target, `${plan.prefix}link-limit.bin`, hostFacts().instance_type, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    link = { mibPerSecond: null, baselineMibPerSecond: null, source: `not measured (${errorSummary(err)}): no plausibility check` };
  }
  progress.log(`link limit: ${link.mibPerSecond ?? 'unknown'} MiB/s${link.baselineMibPerSecond !== null ? `, ${link.baselineMibPerSecond} MiB/s sustained` : ''} (${link.source})`);
  return hostFacts(link, opts.runnerId ?? null);
}

/** What the steps phase works with besides the plan and the steps' environment. */
interface StepsPhase {
  opts: RunOptions;
  store: OpenStore;
  writer: ResultsWriter;
  /** Every record file written, in order. */
  files: string[];
  abort: AbortController;
  /** Runs the steps with several clients at once (null: the run has none). */
  fleet: LocalFleet | null;
}

/**
 * Phase 6: every step in order, each step's records written as it ends. After each round of a
 * workload (its repetition across every method), successive halving may drop grid settings from
 * that workload's remaining rounds (halving.ts): their steps are not run, and counted as pruned.
 */
async function runSteps(plan: RunPlan, env: StepEnv, phase: StepsPhase): Promise<void> {
  const { opts, writer, abort } = phase;
  const halving = new GridHalving(writer.manifest.tuning ?? [], plan.matrix.repetitions, !opts.onlySteps);
  for (const [i, step] of plan.steps.entries()) {
    if (abort.signal.aborted) break;
    if (halving.drops(step)) {
      writer.manifest.steps_pruned = (writer.manifest.steps_pruned ?? 0) + 1;
      env.progress.log(`step ${i + 1}/${plan.steps.length} ${stepLabel(step)}: not run (successive halving dropped this setting)`);
    } else {
      halving.add(step, await runOneStep(i + 1, step, env, phase));
    }
    const next = plan.steps[i + 1];
    if (next && next.workload.name === step.workload.name && next.repetition === step.repetition) continue;
    for (const d of halving.endRound(step.workload.name, step.repetition)) {
      env.progress.log(`successive halving: ${d.grid} ${d.variant} dropped from ${d.workload} after round ${d.after_round} (${d.why})`);
    }
  }
}

/** One step: run (alone or as a local fleet), its records and series written, its outcome counted and shown. */
async function runOneStep(position: number, step: Step, env: StepEnv, { opts, store, writer, files, abort, fleet }: StepsPhase): Promise<ResultRecord[]> {
  // Progress counts the steps this run runs (skipped methods and other runners' steps left out).
  const label = step.clients > 1 ? `${stepLabel(step)}, ${step.clients} clients at once` : stepLabel(step);
  env.progress.step(position, label);
  opts.onStep?.(step.index, label);
  const started = Date.now();
  const intervals: IntervalRecord[] = [];
  const records = step.clients > 1 && fleet ? await fleet.runStep(step, env, intervals) : await runStep(step, env, intervals);
  const broken = stepFailed(records);
  if (broken) writer.manifest.steps_failed++;
  const unfinished = records.find((r) => r.status === 'did-not-finish');
  if (unfinished) writer.manifest.steps_did_not_finish = (writer.manifest.steps_did_not_finish ?? 0) + 1;
  writer.manifest.steps_done++;
  // The series first: a report that sees the step's records finds their intervals too.
  const series = await writer.writeIntervals(step.index, step.method.name, step.workload.name, intervals);
  if (series) await opts.onIntervalsFile?.(series);
  const file = await writer.writeStep(step.index, step.method.name, step.workload.name, records);
  files.push(file);
  await opts.onStepFile?.(file);
  const failed = records.filter((r) => r.status === 'failed');
  env.progress.stepDone(position, broken ? `FAILED: ${failed[0]?.error_sample}`
    : unfinished?.progress ? `${unfinished.operation}: ${didNotFinishLabel(unfinished.progress)} (stopped cleanly; ended in ${formatDuration(Date.now() - started)})`
      : failed.length ? `done in ${formatDuration(Date.now() - started)}; ${failed.length} measurement${failed.length > 1 ? 's' : ''} failed: ${failed[0].error_sample}`
        : `ok in ${formatDuration(Date.now() - started)}`);
  // A failure against a named endpoint: is the endpoint still there?
  if (failed.length) await store.checkStillThere(abort);
  return records;
}

/** Objects a named endpoint kept (it went away): named in the manifest and on the terminal, with the command that removes them. */
function noteLeftovers(writer: ResultsWriter, leftover: string | null, progress: Progress): void {
  if (!leftover) return;
  progress.log(leftover);
  writer.manifest.problem = writer.manifest.problem ? `${writer.manifest.problem}; ${leftover}` : leftover;
  if (writer.manifest.status === 'complete') writer.manifest.status = 'failed';
}

/** Phase 7: the manifest's final status (policy.finalStatus). */
function settle(writer: ResultsWriter, plan: RunPlan, reason: Error | undefined): void {
  const m = writer.manifest;
  Object.assign(m, finalStatus({
    // Steps halving pruned were decided, not missed: the run is complete without them.
    aborted: reason ?? null, interrupted: reason instanceof Interrupted, stepsFailed: m.steps_failed, stepsDone: m.steps_done, stepsTotal: plan.steps.length - (m.steps_pruned ?? 0),
  }));
}
