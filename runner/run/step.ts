import { setMaxListeners } from 'node:events';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Batch, notApplicable, type Measurement } from '../core/batch';
import { Interrupted, onCleanup, onEmergencyExit } from '../core/cleanup';
import { errorSummary } from '../core/errors';
import { waitForFixtureOnMount } from '../core/fixture-visibility';
import type { ResolvedMatrix, Step } from '../core/matrix';
import type { MethodDefinition, OpenContext, StorageSession } from '../core/method';
import type { Progress } from '../core/progress';
import type { StoreTarget } from '../core/target';
import { stepDataPrefix, stepVolumeName, type PassCache } from '../core/vocabulary';
import type { Fixture, WorkloadContext, WorkloadDefinition } from '../core/workload';
import type { AccessLog } from '../endpoint/access-log';
import type { ReferenceStore } from '../endpoint/reference';
import { findMethod } from '../methods';
import { intervalRecords, type IntervalRecord } from '../results/intervals';
import { stringMap, toRecord, type ResultRecord, type StepFacts } from '../results/record';
import { findWorkload } from '../workloads';
import { writeFixtureThroughMount } from './fixtures';
import { cacheClaimFlag, notApplicableReason, passesFor, withFailureCause, type Pass } from './policy';

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
  onMounted?: OpenContext['onMounted'];
  /** The server's access log, when the runner can read it: each measurement's requests are counted. */
  accessLog: AccessLog | null;
}

/** A measurement kept for the records, with the stretch of the server's log it made (null: not counted). */
interface Kept { m: Measurement; cache: PassCache; endedAtMs: number; log: { from: number; to: number } | null }

/**
 * Runs one step; never throws: a broken step becomes a failed record with the cause. A workload
 * that needs what the method does not offer records not-applicable. On a mount method the
 * workload runs once per pass (policy.passesFor) on one fresh mount; a step whose client dies is
 * aborted on its own, the run goes on. The interval series of its long measurements go into
 * `intervals` (runner/results/intervals.ts), beside the records.
 */
export async function runStep(step: Step, env: StepEnv, intervals: IntervalRecord[] = []): Promise<ResultRecord[]> {
  const method = findMethod(step.method.name)!;
  const workload = findWorkload(step.workload.name)!;
  let facts = stepFacts(step, method, workload, env);
  const inapplicable = notApplicableReason(method, workload);
  if (inapplicable) {
    const version = (await method.probe()).version ?? 'unknown';
    return [toRecord({ ...facts, method_version: version }, notApplicable(workload.name, inapplicable))];
  }
  const stepAbort = linkedAbort(env.signal);
  const signal = stepAbort.signal;
  const scratchDir = await mkdtemp(join(tmpdir(), `s3ab-step${step.index}-`));
  const removeScratch = onCleanup(`scratch ${scratchDir}`, () => rm(scratchDir, { recursive: true, force: true }));
  const removeScratchNow = onEmergencyExit(() => rmSync(scratchDir, { recursive: true, force: true }));
  const stepPrefix = stepDataPrefix(env.prefix, step.index);
  const volumeName = stepVolumeName(env.runId, env.runnerId, step.index);
  const kept: Kept[] = [];
  const logMark = { at: 0 };
  const passes = passesFor(method.kind, !!workload.coldOnly, env.cache);
  let current: Pass = passes[0];
  let session: StorageSession | null = null;
  let failure: unknown = null;
  try {
    session = await method.open({
      target: env.target, options: step.method.options, scratchDir, signal, abortStep: (reason) => stepAbort.abort(reason), volumeName,
      reference: { head: (key) => env.reference.head(key) }, onMounted: env.onMounted,
    });
    facts = { ...facts, method_version: session.version, method_options: stringMap(session.options) };
    const spec = workload.fixture?.(step.workload.params);
    const fixture = spec ? env.fixtures.get(spec.id) ?? null : null;
    if (session.fs && fixture) {
      const note = (text: string) => env.progress.note(text);
      // Files that are not objects (JuiceFS, EFS) get the fixture through their own mount, untimed.
      if (!method.offers.includes('objects-in-bucket')) await writeFixtureThroughMount(session.fs, fixture, signal, note);
      else await waitForFixtureOnMount(session.fs, fixture, signal, note);
    }
    for (const pass of passes) {
      if (signal.aborted) break;
      current = pass;
      const passPrefix = `${stepPrefix}${pass.cache}${pass.keep ? '' : '-priming'}/`;
      // On a mount the pass folder exists in the bucket from the start, so that emptying one of its
      // subfolders through the mount never leaves a client (Mountpoint) with a vanished parent.
      if (session.fs && method.offers.includes('objects-in-bucket')) await env.reference.putBytes(`${passPrefix}.s3ab-pass`, Buffer.alloc(0));
      else if (session.fs) await mkdir(session.fs.pathOf(passPrefix), { recursive: true });
      // The first measurement of a pass counts from here: mounting and fixtures are not its requests.
      logMark.at = env.accessLog?.offset() ?? 0;
      await workload.run(workloadContext(step, env, method, session, fixture, scratchDir, signal, pass, passPrefix, kept, logMark));
    }
    if (signal.aborted) failure = signal.reason;
  } catch (err) {
    failure = signal.aborted ? signal.reason : err;
  } finally {
    env.signal.removeEventListener('abort', stepAbort.unlink);
    await session?.close().catch((err) => env.progress.log(`closing ${method.name} failed: ${errorSummary(err)}`));
    removeScratch();
    removeScratchNow();
    await rm(scratchDir, { recursive: true, force: true });
    // An aborted run removes its whole prefix at its end (or its server's folder): a step does not wait on an endpoint that may be gone.
    if (!env.signal.aborted) {
      await env.reference.deletePrefix(stepPrefix).catch(() => {});
      await env.reference.deletePrefix(`${volumeName}/`).catch(() => {});
    }
  }
  const records = kept.map(({ m, cache, endedAtMs, log }) => {
    const requests = log && env.accessLog ? env.accessLog.countBetween(log.from, log.to) : null;
    const state = m.cache ?? cache;
    // Reads checked against what the server sent: a cold read it sent less for came from a cache.
    const claim = workload.payloadReads?.includes(m.operation) && m.status === 'ok' ? cacheClaimFlag(state, m.bytes, requests?.get_bytes ?? null) : null;
    const record = toRecord({ ...facts, cache: state }, withFailureCause(m, failure), [], endedAtMs, requests);
    if (claim && !record.flags.includes(claim)) record.flags.push(claim);
    // Served from a cache, the figure says nothing about the network.
    if (record.flags.includes('served-from-cache')) record.flags = record.flags.filter((f) => f !== 'possibly-network-capped');
    return record;
  });
  kept.forEach(({ m }, i) => {
    if (m.series) intervals.push(...intervalRecords(records[i], i, m.series));
  });
  if (failure) records.push(...failureRecords(records, facts, current.cache, failure));
  return records;
}

/** The fields every record of the step shares (version and options are the session's once it is open). */
function stepFacts(step: Step, method: MethodDefinition, workload: WorkloadDefinition<unknown>, env: StepEnv): StepFacts {
  return {
    run_id: env.runId, host: env.host, endpoint: env.endpointFacts,
    method: method.name, method_variant: step.method.variant, method_version: 'unknown', method_options: stringMap(step.method.options),
    workload: workload.name, workload_params: workload.describe(step.workload.params), step: step.index,
    cache: 'none', repetition: step.repetition,
  };
}

/** The step's own abort controller: aborted by the run's signal, and by the step (a mount's client dying). */
function linkedAbort(runSignal: AbortSignal): AbortController & { unlink: () => void } {
  const ctrl = new AbortController() as AbortController & { unlink: () => void };
  setMaxListeners(1000, ctrl.signal);
  ctrl.unlink = () => ctrl.abort(runSignal.reason);
  if (runSignal.aborted) ctrl.unlink();
  else runSignal.addEventListener('abort', ctrl.unlink, { once: true });
  return ctrl;
}

function workloadContext(step: Step, env: StepEnv, method: MethodDefinition, session: StorageSession, fixture: Fixture | null,
  scratchDir: string, signal: AbortSignal, pass: Pass, prefix: string, kept: Kept[], logMark: { at: number }): WorkloadContext<Record<string, unknown>> {
  const ref = env.reference;
  return {
    params: step.workload.params, session, fs: session.fs ?? null, cache: pass.cache, prefix, fixture, scratchDir,
    dataSeed: `${env.runId}/${step.index}/${pass.cache}`, signal, offers: method.offers,
    // A measurement's requests: those the server answered since the previous measurement ended.
    record: (m) => {
      const to = env.accessLog?.offset() ?? 0;
      if (pass.keep) kept.push({ m, cache: pass.cache, endedAtMs: Date.now(), log: env.accessLog ? { from: logMark.at, to } : null });
      logMark.at = to;
    },
    progress: (note) => env.progress.note(method.kind === 'mount' ? `${pass.cache}: ${note}` : note),
    stored: method.offers.includes('objects-in-bucket') ? { list: (p) => ref.list(p) } : { list: (p) => session.list(p) },
    reference: {
      list: (p) => ref.list(p), head: (k) => ref.head(k), getBytes: (k) => ref.getBytes(k),
      putBytes: (k, b) => ref.putBytes(k, b), deletePrefix: (p) => ref.deletePrefix(p),
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
