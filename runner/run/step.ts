import { setMaxListeners } from 'node:events';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Batch, didNotFinish, notApplicable, requestsOnly, type Measurement } from '../core/batch';
import { arriveAndWait, LATE_START_LIMIT_MS, lateStart, setThreadsGate, type MarkerStore } from '../core/barrier';
import { Interrupted, onCleanup, onEmergencyExit } from '../core/cleanup';
import { errorSummary } from '../core/errors';
import { waitForFixtureOnMount } from './fixture-visibility';
import type { ResolvedMatrix, Step } from '../core/matrix';
import { BudgetSpent, MeterScope } from '../core/meter';
import type { MethodDefinition, OpenContext, StorageSession } from '../core/method';
import type { Progress } from './progress';
import type { StoreTarget } from '../core/target';
import { isRequestsOnly, OUTSIDE_MEASUREMENTS, stepDataPrefix, stepVolumeName, type PassCache } from '../core/vocabulary';
import type { Fixture, RequestWindow, WorkloadContext, WorkloadDefinition } from '../core/workload';
import { totalRequests, uncovered, type AccessLog } from '../endpoint/access-log';
import type { ReferenceStore } from '../endpoint/reference';
import { findMethod } from '../methods';
import { intervalRecords } from '../results/intervals';
import type { IntervalRecord } from '../core/interval.generated';
import { stringMap, toRecord, type StepFacts } from '../results/record';
import type { ResultRecord } from '../core/record.generated';
import { findWorkload } from '../workloads';
import { writeFixtureThroughMount } from './fixtures';
import { fleetNotApplicableReason, notApplicableReason, passesFor, reconciledFlags, withFailureCause, type Pass } from './policy';
import { StepClock, stepBoundS, WATCHDOG_GRACE_S } from './step-watchdog';

/** What every step of a run shares. */
export interface StepEnv {
  target: StoreTarget;
  host: ResultRecord['host'];
  endpointFacts: ResultRecord['endpoint'];
  runId: string;
  /** This runner's id when several share the run (AWS), for names. */
  runnerId: string | null;
  /** The run's data prefix (s3ab/RUNID/[RUNNER/]). */
  prefix: string;
  reference: ReferenceStore;
  fixtures: Map<string, Fixture>;
  progress: Progress;
  signal: AbortSignal;
  cache: ResolvedMatrix['cache'];
  /** Every step's time budget in seconds, or null (the step watchdog's per-workload default still bounds it). */
  budgetS: ResolvedMatrix['budgetS'];
  /** The step watchdog's grace and, for steps without a budget, their limit instead of the workload's (tests shorten them). */
  watchdog?: { graceS?: number; limitS?: number };
  onMounted?: OpenContext['onMounted'];
  /** The server's access log, when the runner can read it: each measurement's requests are counted. */
  accessLog: AccessLog | null;
  /** This client's place in a fleet: fleet steps (clients > 1) wait at its barrier before each pass. Absent: not a fleet client. */
  fleet?: FleetMember;
}

/** One client of a fleet (a process of `s3ab run --clients`, or a runner of an AWS fleet execution). */
export interface FleetMember {
  /** This client's number (1-based). */
  client: number;
  barrier: NonNullable<ResultRecord['fleet']>['barrier'];
  markers: MarkerStore;
  /** This host's clock offset from its reference when it was checked (null: one host's clock serves every client). */
  clockOffsetMs: number | null;
  clockSource: string;
  /** Added to the latest ready marker's stamp: the common start (covers the slowest client's poll, and S3's whole-second stamps). */
  leadMs: number;
  /** How long a client waits for the others to be ready. */
  timeoutMs: number;
  pollMs: number;
}

/** A measurement kept for the records, with the stretches of the server's log that are its requests (none: not counted). */
interface Kept { m: Measurement; cache: PassCache; endedAtMs: number; windows: readonly RequestWindow[] | null }

/**
 * A step's reading of the server's access log: each measurement's window runs from the previous
 * cut to its own; whatever the method's client sent outside every kept window (mounting,
 * readiness, fixture checks, a priming pass, unmounting) is one row of its own, so the step's
 * records add up to every request the client made during the step.
 */
class RequestLedger {
  readonly from: number;
  private mark: number;

  constructor(readonly log: AccessLog | null) {
    this.from = this.mark = this.offset();
  }

  offset(): number {
    return this.log?.offset() ?? 0;
  }

  /** What the server answered up to now belongs to no measurement (mounting, fixtures). */
  skip(): void {
    this.mark = this.offset();
  }

  /** The window since the previous cut. */
  cut(): RequestWindow {
    const w = { from: this.mark, to: this.offset() };
    this.mark = w.to;
    return w;
  }

  /** The row of the requests no kept measurement claimed, from the step's start to now; null when there are none or none are counted. */
  outside(kept: readonly Kept[], cache: PassCache): Kept | null {
    if (!this.log) return null;
    const windows = uncovered({ from: this.from, to: this.offset() }, kept.flatMap((k) => k.windows ?? []));
    if (!totalRequests(this.log.countWindows(windows))) return null;
    return { m: requestsOnly(OUTSIDE_MEASUREMENTS), cache, endedAtMs: Date.now(), windows };
  }
}

/** One step while it runs: what it opened, what it measured, and why it stopped early. */
interface StepRun {
  /** Removes the fleet's threads gate this step set (core/barrier.ts); a no-op otherwise. */
  removeThreadsGate: () => void;
  step: Step;
  env: StepEnv;
  method: MethodDefinition;
  workload: WorkloadDefinition<unknown>;
  facts: StepFacts;
  abort: AbortController & { unlink: () => void };
  /** The step's meters and budget: measurements running when it runs out are recorded as did-not-finish. */
  scope: MeterScope;
  scratchDir: string;
  session: StorageSession | null;
  kept: Kept[];
  /** The step's reading of the server's log: each measurement's requests, and those outside them. */
  ledger: RequestLedger;
  current: Pass;
  failure: unknown;
  /** The step's records were taken (it ended, or its watchdog fired): nothing more is kept. */
  ended: boolean;
  /** Its budget and watchdog: a fleet step's start when its barrier releases the client. */
  clock: StepClock | null;
}

/**
 * Runs one step; never throws: a broken step becomes a failed record with the cause. A workload
 * that needs what the method does not offer records not-applicable. On a mount method the
 * workload runs once per pass (policy.passesFor) on one fresh mount; a step whose client dies is
 * aborted on its own, the run goes on. With a budget, measurements still running when it runs out
 * stop and are recorded as did-not-finish. The step watchdog ends a step that outlives its bound.
 * The interval series of its long measurements go into `intervals` (runner/results/intervals.ts),
 * beside the records.
 */
export async function runStep(step: Step, env: StepEnv, intervals: IntervalRecord[] = []): Promise<ResultRecord[]> {
  const method = findMethod(step.method.name)!;
  const workload = findWorkload(step.workload.name)!;
  const facts = stepFacts(step, method, workload, env);
  const inapplicable = notApplicableReason(method, workload) ?? fleetNotApplicableReason(workload, step.clients);
  if (inapplicable) {
    const version = (await method.probe()).version ?? 'unknown';
    return [toRecord({ ...facts, method_version: version }, notApplicable(workload.name, inapplicable))];
  }
  const passes = passesFor(method.kind, !!workload.coldOnly, env.cache);
  const run: StepRun = {
    step, env, method, workload, facts, abort: linkedAbort(env.signal), scope: new MeterScope(env.budgetS), scratchDir: '',
    session: null, kept: [], ledger: new RequestLedger(env.accessLog), current: passes[0], failure: null, ended: false, removeThreadsGate: () => {}, clock: null,
  };
  const limitS = env.watchdog?.limitS ?? workload.stepLimitS?.(step.workload.params);
  const boundS = stepBoundS(env.budgetS, limitS, env.watchdog?.graceS ?? WATCHDOG_GRACE_S);
  // A fleet step's budget and watchdog start at its barrier's release (step-watchdog.ts StepClock).
  const clock = new StepClock({ budgetS: env.budgetS, boundS, barrierTimeoutMs: step.clients > 1 && env.fleet ? env.fleet.timeoutMs : null }, {
    budgetSpent: () => {
      run.scope.expire();
      run.abort.abort(new BudgetSpent(env.budgetS!));
    },
    watchdogFired: (fired) => {
      run.abort.abort(fired);
      run.session?.abandon?.(fired.message);
    },
  });
  run.clock = clock;
  try {
    const body = runPasses(run, passes);
    // Once the watchdog fired, the body is left to unwind on its own: nothing it throws later may end the run.
    body.catch(() => {});
    const ended = await Promise.race([body.then(() => null), clock.fired]);
    if (ended) run.failure = ended;
  } finally {
    clock.stop();
    run.ended = true;
  }
  return stepRecords(run, intervals);
}

/** The step's body: open the method, run every pass, then close and clean up. Never throws. */
async function runPasses(run: StepRun, passes: Pass[]): Promise<void> {
  const { step, env, method, workload } = run;
  const signal = run.abort.signal;
  run.scratchDir = await mkdtemp(join(tmpdir(), `s3ab-step${step.index}-`));
  const scratchDir = run.scratchDir;
  const removeScratch = onCleanup(`scratch ${scratchDir}`, () => rm(scratchDir, { recursive: true, force: true }));
  const removeScratchNow = onEmergencyExit(() => rmSync(scratchDir, { recursive: true, force: true }));
  const stepPrefix = stepDataPrefix(env.prefix, step.index);
  const volumeName = stepVolumeName(env.runId, env.runnerId, step.index);
  // Checks inside the step end with it: no request of the runner's own client outlives the step.
  const reference = env.reference.boundTo(signal);
  try {
    const session = await method.open({
      target: env.target, options: step.method.options, scratchDir, signal, abortStep: (reason) => run.abort.abort(reason), volumeName,
      reference: { head: (key) => reference.head(key) }, onMounted: env.onMounted,
    });
    run.session = session;
    run.facts = { ...run.facts, method_version: session.version, method_options: stringMap(session.options) };
    const fixture = await fixtureFor(run, session);
    for (const pass of passes) {
      if (signal.aborted) break;
      run.current = pass;
      const passPrefix = `${stepPrefix}${pass.cache}${pass.keep ? '' : '-priming'}/`;
      // On a mount the pass folder exists in the bucket from the start, so that emptying one of its
      // subfolders through the mount never leaves a client (Mountpoint) with a vanished parent.
      if (session.fs && method.offers.includes('objects-in-bucket')) await reference.putBytes(`${passPrefix}.s3ab-pass`, Buffer.alloc(0));
      else if (session.fs) await mkdir(session.fs.pathOf(passPrefix), { recursive: true });
      // A fleet's clients start each pass together: all prepared (mounted, fixture seen), then one instant.
      await fleetStart(run, pass);
      // The first measurement of a pass counts from here: mounting and fixtures are not its requests.
      run.ledger.skip();
      const ctx = workloadContext({ run, session, fixture, pass, prefix: passPrefix, reference });
      await run.scope.run(() => workload.run(ctx));
    }
    if (signal.aborted) run.failure = signal.reason;
  } catch (err) {
    run.failure = signal.aborted ? signal.reason : err;
  } finally {
    await closeSession(run, passes);
    removeScratch();
    removeScratchNow();
    await rm(scratchDir, { recursive: true, force: true });
    await removeStepObjects(env, [stepPrefix, `${volumeName}/`]);
  }
}

/** The step's data set, seen on the mount: written through it where files are not objects (JuiceFS, EFS), untimed. */
async function fixtureFor(run: StepRun, session: StorageSession): Promise<Fixture | null> {
  const { step, env, method, workload } = run;
  const spec = workload.fixture?.(step.workload.params);
  const fixture = spec ? env.fixtures.get(spec.id) ?? null : null;
  if (session.fs && fixture) {
    const note = (text: string) => env.progress.note(text);
    if (!method.offers.includes('objects-in-bucket')) await writeFixtureThroughMount(session.fs, fixture, run.abort.signal, note);
    else await waitForFixtureOnMount(session.fs, fixture, run.abort.signal, note);
  }
  return fixture;
}

/** Closes the method's session: unmounting is the client's too, so the row of requests outside the measurements ends after it. */
async function closeSession(run: StepRun, passes: Pass[]): Promise<void> {
  const { env, method } = run;
  env.signal.removeEventListener('abort', run.abort.unlink);
  run.removeThreadsGate();
  await run.session?.close().catch((err) => env.progress.log(`closing ${method.name} failed: ${errorSummary(err)}`));
  const outside = run.ended ? null : run.ledger.outside(run.kept, passes[0].cache);
  if (outside) run.kept.push(outside);
}

/**
 * An aborted run removes its whole prefix at its end (or its server's folder): a step does not
 * wait on an endpoint that may be gone. A spent budget's partial work goes here, after the
 * unmount (the client has finished every upload by then).
 */
async function removeStepObjects(env: StepEnv, prefixes: string[]): Promise<void> {
  if (env.signal.aborted) return;
  for (const prefix of prefixes) await env.reference.deletePrefix(prefix).catch(() => {});
}

/** A fleet step's pass waits at the barrier until every client is ready; its records then say when they started together. */
async function fleetStart(run: StepRun, pass: Pass): Promise<void> {
  const { step, env } = run;
  if (step.clients <= 1) return;
  const f = env.fleet;
  if (!f) throw new Error(`step ${step.index} is for ${step.clients} clients at once, but this process is not one of a fleet's clients (s3ab run --clients, or an AWS execution with layout "fleet")`);
  const round = `step${step.index}-${pass.cache}${pass.keep ? '' : '-priming'}`;
  env.progress.note(`waiting for ${step.clients} clients to be ready (${round})`);
  const wait = (name: string) => arriveAndWait(f.markers, {
    clients: step.clients, client: f.client, round: name, leadMs: f.leadMs, timeoutMs: f.timeoutMs, pollMs: f.pollMs, signal: run.abort.signal,
  });
  const startMs = await wait(round);
  run.clock?.release();
  // The lead lets every client see the last marker and wake before the start; one that did not is recorded late.
  const late = lateStart(startMs, Date.now());
  if (late.breaks) env.progress.log(`client ${f.client} began ${late.lateMs} ms after the common start of ${round} (the lead was ${f.leadMs} ms; beyond ${LATE_START_LIMIT_MS} ms it breaks the common start): its records say so`);
  // Measuring threads (web-serving's readers, metadata) are made and warmed up after this barrier:
  // each set of them is released at a round of its own, the same sequence on every client.
  let releases = 0;
  run.removeThreadsGate();
  run.removeThreadsGate = setThreadsGate(async () => { await wait(`${round}-threads${++releases}`); });
  run.facts = {
    ...run.facts,
    fleet: { client: f.client, barrier: f.barrier, start_at: new Date(startMs).toISOString(), clock_offset_ms: f.clockOffsetMs, clock_source: f.clockSource,
      lead_ms: f.leadMs, late_ms: late.lateMs, late_start: late.breaks,
    },
  };
}

/** The step's records: what it measured, its did-not-finish measurements, and its failure if it broke. */
function stepRecords(run: StepRun, intervals: IntervalRecord[]): ResultRecord[] {
  const { env, facts } = run;
  const failure = run.failure instanceof BudgetSpent ? null : run.failure;
  const kept = [...run.kept];
  // Measurements a spent budget cut short that their workload never recorded (it stopped on the abort).
  for (const meter of run.scope.unsettledCut()) kept.push({ m: didNotFinish(meter), cache: run.current.cache, endedAtMs: meter.cutAtMs!, windows: null });
  if (run.failure instanceof BudgetSpent && !kept.some((k) => k.m.status === 'did-not-finish')) {
    // Cut outside any counted measurement (mounting, fixtures, a probe): the step itself did not finish.
    kept.push({ m: nothingDone(run.failure.budgetS, run.scope.expiredAtMs!), cache: run.current.cache, endedAtMs: run.scope.expiredAtMs!, windows: null });
  }
  const pairs = keptRecords(kept, facts, run.workload, env.accessLog, failure);
  const records = pairs.map((p) => p.record);
  pairs.forEach(({ m, record }, i) => {
    if (m.series) intervals.push(...intervalRecords(record, i, m.series));
  });
  if (failure) records.push(...failureRecords(records, facts, run.current.cache, failure));
  return records;
}

/**
 * Each kept measurement's record with its requests counted in the server's log (rows of requests
 * only where there are some: an empty one says nothing), cache claims checked against what the
 * server sent, and the step's failure, if any, as the cause.
 */
function keptRecords(kept: readonly Kept[], facts: StepFacts, workload: WorkloadDefinition<unknown>, log: AccessLog | null, failure: unknown): { m: Measurement; record: ResultRecord }[] {
  const counted = kept.map((k) => ({ ...k, requests: log && k.windows ? log.countWindows(k.windows) : null }));
  return counted.filter((k) => !isRequestsOnly(k.m.operation) || (k.requests && totalRequests(k.requests))).map(({ m, cache, endedAtMs, requests, windows }) => {
    const state = m.cache ?? cache;
    // Reads checked against what the server sent: a cold read it sent less for came from a cache.
    const checkedRead = !!workload.payloadReads?.includes(m.operation) && m.status === 'ok';
    const record = toRecord({ ...facts, cache: state }, withFailureCause(m, failure), [], endedAtMs, requests);
    // Each object read is held to what the server sent for it, where the measurement names its objects.
    const perObject = checkedRead && requests && log && windows && m.objectReads ? { read: m.objectReads, sent: log.sentPerObject(windows) } : null;
    record.flags = reconciledFlags(record.flags, checkedRead ? { cache: state, bytesRead: m.bytes, getBytes: requests?.get_bytes ?? null, perObject } : null);
    return { m, record };
  });
}

/** A step whose budget ran out outside any counted measurement: one did-not-finish record for the step. */
function nothingDone(budgetS: number, atMs: number): Measurement {
  return {
    operation: 'step', objectSizeBytes: null, status: 'did-not-finish', supported: true, verified: false, ops: 0, ok: 0, failed: 0, bytes: 0,
    durationMs: budgetS * 1000, latency: null, errorSample: 'the budget ran out outside a counted measurement (mounting, fixtures, or between measurements)', movesPayload: false,
    startedAtMs: atMs - budgetS * 1000, rates: { throughputMibS: null, opsPerS: null },
    progress: { budget_s: budgetS, done: 0, planned: 1, unit: 'ops', rate_per_s: 0, extrapolated_total_s: null },
  };
}

/** The fields every record of the step shares (version and options are the session's once it is open). */
export function stepFacts(step: Step, method: MethodDefinition, workload: WorkloadDefinition<unknown>, env: StepEnv): StepFacts {
  return {
    run_id: env.runId, host: env.host, endpoint: env.endpointFacts,
    method: method.name, method_variant: step.method.variant, method_version: 'unknown', method_options: stringMap(step.method.options),
    workload: workload.name, workload_params: workload.describe(step.workload.params), step: step.index,
    cache: 'none', repetition: step.repetition, clients: step.clients, fleet: null,
  };
}

/** The step's own abort controller: aborted by the run's signal, and by the step (a mount's client dying, its budget, its watchdog). */
function linkedAbort(runSignal: AbortSignal): AbortController & { unlink: () => void } {
  const ctrl = new AbortController() as AbortController & { unlink: () => void };
  setMaxListeners(1000, ctrl.signal);
  ctrl.unlink = () => ctrl.abort(runSignal.reason);
  if (runSignal.aborted) ctrl.unlink();
  else runSignal.addEventListener('abort', ctrl.unlink, { once: true });
  return ctrl;
}

/** What one pass of a workload runs with. */
interface PassSetup {
  run: StepRun;
  session: StorageSession;
  fixture: Fixture | null;
  pass: Pass;
  /** The pass's own prefix in the bucket. */
  prefix: string;
  /** The runner's own client, its requests ended with the step. */
  reference: ReferenceStore;
}

function workloadContext({ run, session, fixture, pass, prefix, reference: ref }: PassSetup): WorkloadContext<Record<string, unknown>> {
  const { step, env, method } = run;
  const keep = (m: Measurement, windows: readonly RequestWindow[]) => {
    // Once the budget ran out, only did-not-finish measurements count: the rest ended on the abort.
    const cutShort = run.scope.expired && m.status !== 'did-not-finish';
    if (pass.keep && !run.ended && !cutShort) run.kept.push({ m, cache: pass.cache, endedAtMs: Date.now(), windows: env.accessLog ? windows : null });
  };
  return {
    params: step.workload.params, session, fs: session.fs ?? null, cache: pass.cache, prefix, fixture, scratchDir: run.scratchDir,
    dataSeed: `${env.runId}/${step.index}/${pass.cache}`, signal: run.abort.signal, offers: method.offers,
    // A measurement's requests: those the server answered since the previous measurement ended, or the windows it names.
    record: (m, windows) => keep(m, windows ?? [run.ledger.cut()]),
    cutRequests: () => run.ledger.cut(),
    recordRequests: (operation, windows) => keep(requestsOnly(operation), windows),
    progress: (note) => env.progress.note(method.kind === 'mount' ? `${pass.cache}: ${note}` : note),
    stored: method.offers.includes('objects-in-bucket') ? { list: (p) => ref.list(p) } : { list: (p) => session.list(p) },
    reference: {
      list: (p) => ref.list(p), head: (k) => ref.head(k), getBytes: (k) => ref.getBytes(k),
      putBytes: (k, b) => ref.putBytes(k, b), deletePrefix: (p) => ref.deletePrefix(p), versions: (p) => ref.versions(p),
    },
  };
}

/** A step that could not run to its end: one failed record with the cause, and every record of the step flagged. */
function failureRecords(records: ResultRecord[], facts: StepFacts, cache: PassCache, failure: unknown): ResultRecord[] {
  const broken = new Batch('step', null, 'sequential', false);
  broken.fail(failure);
  const flags: ResultRecord['flags'] = failure instanceof Interrupted ? ['step-failed', 'interrupted'] : ['step-failed'];
  for (const r of records) if (!r.flags.includes('step-failed')) r.flags.push('step-failed');
  return [toRecord({ ...facts, cache }, broken.finish(), flags)];
}

