import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { newRunId } from './run-id';
import { setMaxListeners } from 'node:events';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Batch, notApplicable, type Measurement } from './core/batch';
import { Interrupted, onCleanup, onEmergencyExit } from './core/cleanup';
import { UserError, errorSummary } from './core/errors';
import { hostFacts } from './core/host';
import { applyOverrides, expandSteps, loadMatrixFile, loadProfile, resolveMatrix, type MethodChoice, type ResolvedMatrix, type Step } from './core/matrix';
import type { OpenContext, StorageSession } from './core/method';
import { Progress } from './core/progress';
import { formatDuration } from './core/units';
import type { Fixture } from './core/workload';
import { waitForFixtureOnMount } from './core/fixture-visibility';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from './endpoint/embedded';
import { linkLimitFor, type LinkLimit } from './endpoint/link-limit';
import { isUnreachable, preflight } from './endpoint/preflight';
import { ReferenceStore } from './endpoint/reference';
import { makeS3Client } from './endpoint/s3-client';
import type { StoreTarget } from './endpoint/target';
import { findMethod } from './methods';
import { findWorkload } from './workloads';
import { stringMap, toRecord, type ResultRecord, type StepFacts } from './results/record';
import { ResultsWriter, type RunManifest } from './results/writer';

export interface RunOptions {
  profile?: string;
  matrixFile?: string;
  methods?: string[];
  workloads?: string[];
  repetitions?: number;
  /** Cache states for mount methods (cold, warm); default: the matrix's. */
  cache?: string[];
  resultsDir: string;
  endpoint?: string;
  bucket?: string;
  region?: string;
  /** No progress output (tests). */
  quiet?: boolean;
  /** Called with the embedded endpoint once it runs (tests use it to inject faults). */
  onEndpoint?: (e: EmbeddedEndpoint) => void;
  /** Called as each step starts (tests use it to inject faults at a known point). */
  onStep?: (index: number, label: string) => void;
  /** Called whenever a mount comes up (tests use it to kill or stop the client). */
  onMounted?: OpenContext['onMounted'];
  signal?: AbortSignal;
  /** Run only these steps (1-based numbers of the expanded matrix): `s3ab step` on AWS runners. */
  onlySteps?: number[];
  /** Use this run id instead of a new one (every runner of an execution shares it). */
  runId?: string;
  /** Names this runner in object prefixes and result file names, so runners of one step never collide. */
  runnerId?: string;
  /** With --bucket and no --endpoint: the bucket is on AWS S3 (regional endpoint, standard credentials). */
  awsTarget?: boolean;
}

export interface RunOutcome {
  manifest: RunManifest;
  resultsDir: string;
  files: string[];
  manifestFile: string;
}

/** The endpoint or the run went away; the run stops at once. */
class RunAborted extends Error {}

export { newRunId };

/** Loads and validates the matrix the options name (profile, file, overrides). Throws UserError. */
export function matrixFor(opts: Pick<RunOptions, 'profile' | 'matrixFile' | 'methods' | 'workloads' | 'repetitions' | 'cache'>): ResolvedMatrix {
  if (opts.profile && opts.matrixFile) throw new UserError('--profile and --matrix were both given', 'use one of them');
  const source = opts.matrixFile ?? `profile ${opts.profile ?? 'quick'}`;
  const raw = opts.matrixFile ? loadMatrixFile(opts.matrixFile) : loadProfile(opts.profile ?? 'quick');
  return resolveMatrix(applyOverrides(raw, opts), source);
}

/**
 * Runs a matrix: validates everything first (matrix, methods present on this host, endpoint,
 * credentials, bucket), then runs every step, writing each step's records as it ends. Whatever
 * happens, the benchmark objects are deleted and the embedded server stopped.
 */
export async function runBenchmark(opts: RunOptions): Promise<RunOutcome> {
  const matrix = matrixFor(opts);
  const allSteps = expandSteps(matrix);
  for (const n of opts.onlySteps ?? []) {
    if (!Number.isInteger(n) || n < 1 || n > allSteps.length) throw new UserError(`step ${n} is not in the matrix (it has ${allSteps.length} steps)`, `give a step from 1 to ${allSteps.length}`);
  }
  const chosen = opts.onlySteps ? allSteps.filter((st) => opts.onlySteps!.includes(st.index)) : allSteps;
  if (opts.runId !== undefined && !/^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}$/.test(opts.runId)) throw new UserError(`run id "${opts.runId}" is not valid`, 'use the form 20261122T101500Z-ab12cd');
  if (opts.runnerId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(opts.runnerId)) throw new UserError(`runner id "${opts.runnerId}" is not valid`, 'use letters, digits, - and _ only (an EC2 instance id, for example)');
  if (opts.endpoint && !opts.bucket) throw new UserError('--endpoint needs --bucket', 'name an existing bucket at that endpoint with --bucket NAME');
  if (opts.bucket && !opts.endpoint && !opts.awsTarget) throw new UserError('--bucket needs --endpoint', 'give the endpoint URL with --endpoint URL');
  if (opts.endpoint && !/^https?:\/\/[^/]+/.test(opts.endpoint)) {
    throw new UserError(`--endpoint "${opts.endpoint}" is not a URL`, 'write it as http://HOST:PORT or https://HOST');
  }

  // A method missing on this host fails the run before anything is created, unless the matrix
  // marks it optional: then its steps are skipped (they keep their numbers) and the run says so.
  const skipped: NonNullable<RunManifest['skipped']> = [];
  const unavailable = new Set<MethodChoice>();
  for (const choice of matrix.methods) {
    const availability = await findMethod(choice.name)!.probe();
    if (availability.available) continue;
    if (choice.optional) {
      unavailable.add(choice);
      skipped.push({ method: choice.name, variant: choice.variant, reason: availability.reason ?? 'not available on this host', steps: chosen.filter((st) => st.method === choice).length });
      continue;
    }
    const others = matrix.methods.filter((m) => m.name !== choice.name).map((m) => m.name);
    throw new UserError(`method "${choice.name}" is not available on this host: ${availability.reason}`,
      others.length ? `install it, or leave it out with --methods ${[...new Set(others)].join(',')}` : 'install it (see `s3ab list`)');
  }
  const steps = chosen.filter((st) => !unavailable.has(st.method));
  if (!steps.length && !opts.onlySteps) {
    throw new UserError(`nothing to measure here: every method of the matrix is optional and not available on this host (${skipped.map((x) => `${x.method}: ${x.reason}`).join('; ')})`,
      'add a method that runs here (see `s3ab list`), or run this matrix where its methods are available (on AWS: `s3ab aws run`)');
  }
  const progress = new Progress(steps.length, process.stdout, opts.quiet);
  for (const x of skipped) {
    progress.log(`${x.method}${x.variant === 'default' ? '' : `:${x.variant}`} skipped (optional in the matrix): ${x.reason}; ${x.steps} of ${chosen.length} steps not run`);
  }
  const abort = new AbortController();
  // Every in-flight request listens on the run's signal.
  setMaxListeners(1000, abort.signal);
  const onOuterAbort = () => abort.abort(opts.signal!.reason);
  opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const runId = opts.runId ?? newRunId();
  const prefix = `s3ab/${runId}/${opts.runnerId ? `${opts.runnerId}/` : ''}`;

  let embedded: EmbeddedEndpoint | null = null;
  let client: S3Client | null = null;
  let reference: ReferenceStore | null = null;
  let writer: ResultsWriter | null = null;
  const files: string[] = [];
  try {
    let target: StoreTarget;
    if (opts.awsTarget && !opts.endpoint) {
      target = {
        kind: 'aws', endpointUrl: undefined, region: opts.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
        bucket: opts.bucket!, forcePathStyle: false, server: 'Amazon S3',
      };
    } else if (opts.endpoint) {
      target = {
        kind: 'custom', endpointUrl: opts.endpoint, region: opts.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
        bucket: opts.bucket!, forcePathStyle: true, server: null,
      };
    } else {
      progress.log('starting the embedded S3 endpoint (versitygw)');
      embedded = await startEmbeddedEndpoint((m) => progress.log(m));
      opts.onEndpoint?.(embedded);
      target = embedded.target;
      void embedded.exited.then((r) => {
        if (!r.stopping) {
          const last = r.logTail.trim().split('\n').pop() ?? '';
          abort.abort(new RunAborted(`the embedded S3 server (versitygw) exited mid-run (code ${r.code}, signal ${r.signal})${last ? `: ${last}` : ''}`));
        }
      });
    }
    client = makeS3Client(target, { maxSockets: 32 });
    reference = new ReferenceStore(client, target.bucket);
    await preflight(client, target, prefix);
    const removeRunObjects = onCleanup('benchmark objects', async () => {
      if (!embedded) await reference!.deletePrefix(prefix);
    });

    // Everything is valid: from here on the run writes results.
    const endpointFacts: ResultRecord['endpoint'] = { kind: target.kind, url: target.endpointUrl ?? null, server: target.server };
    writer = new ResultsWriter(resolve(opts.resultsDir), {
      run_id: runId, status: 'running', started_at: new Date().toISOString(), ended_at: null, matrix: matrix.name,
      steps_total: steps.length, steps_done: 0, steps_failed: 0, problem: null, endpoint: endpointFacts, peak_rss_bytes: null,
      ...(skipped.length ? { skipped } : {}),
    }, { nameSuffix: opts.runnerId });
    await writer.open();

    // The most the link can carry: results above it came from a cache, and are flagged so.
    let link: LinkLimit;
    try {
      link = await linkLimitFor(client, target.bucket, `${prefix}link-limit.bin`, hostFacts().instance_type);
    } catch (err) {
      if (abort.signal.aborted) throw err;
      link = { mibPerSecond: null, source: `not measured (${errorSummary(err)}): no plausibility check` };
    }
    progress.log(`link limit: ${link.mibPerSecond ?? 'unknown'} MiB/s (${link.source})`);
    const host = hostFacts(link, opts.runnerId ?? null);
    const skippedNote = unavailable.size ? `, ${unavailable.size} optional skipped` : '';
    progress.log(`run ${runId}: ${steps.length} steps (${matrix.methods.length} methods${skippedNote} × ${matrix.workloads.length} workloads × ${matrix.repetitions} repetitions), results in ${writer.partitionDir}`);

    const needed = matrix.workloads.filter((w) => steps.some((st) => st.workload.name === w.name));
    const fixtures = await writeFixtures({ ...matrix, workloads: needed }, reference, prefix, progress, abort.signal);

    for (const step of steps) {
      if (abort.signal.aborted) break;
      const label = `${step.method.name}${step.method.variant === 'default' ? '' : `:${step.method.variant}`} ${step.workload.name} rep ${step.repetition}`;
      // Progress counts the steps this run runs (skipped methods and other runners' steps left out).
      const position = steps.indexOf(step) + 1;
      progress.step(position, label);
      opts.onStep?.(step.index, label);
      const started = Date.now();
      const records = await runStep(step, {
        target, host, endpointFacts, runId, prefix, reference, fixtures, progress, signal: abort.signal, cache: matrix.cache, onMounted: opts.onMounted,
      });
      // A step fails when it could not run to its end (its records carry `step-failed`). A
      // measurement whose operations failed or returned wrong data is a result about the method:
      // recorded as failed, listed under integrity in the summary, and the run still completes.
      const stepFailed = records.some((r) => r.flags.includes('step-failed'));
      if (stepFailed) writer.manifest.steps_failed++;
      writer.manifest.steps_done++;
      files.push(await writer.writeStep(step.index, step.method.name, step.workload.name, records));
      const failed = records.filter((r) => r.status === 'failed');
      progress.stepDone(position, stepFailed ? `FAILED: ${failed[0]?.error_sample}`
        : failed.length ? `done in ${formatDuration(Date.now() - started)}; ${failed.length} measurement${failed.length > 1 ? 's' : ''} failed: ${failed[0].error_sample}`
          : `ok in ${formatDuration(Date.now() - started)}`);
      if (failed.length && !abort.signal.aborted && !embedded) {
        // A failure against a named endpoint: is the endpoint still there?
        try {
          await client.send(new HeadBucketCommand({ Bucket: target.bucket }));
        } catch (err) {
          if (isUnreachable(err)) abort.abort(new RunAborted(`the endpoint ${target.endpointUrl} went away mid-run: ${errorSummary(err)}`));
        }
      }
    }
    progress.stop();
    const reason = abort.signal.reason as Error | undefined;
    writer.manifest.status = reason instanceof Interrupted ? 'interrupted' : reason || writer.manifest.steps_failed ? 'failed' : 'complete';
    writer.manifest.problem = reason ? reason.message : writer.manifest.steps_failed ? `${writer.manifest.steps_failed} of ${steps.length} steps failed` : null;
    if (writer.manifest.steps_done < steps.length && !writer.manifest.problem) writer.manifest.problem = 'not every step ran';
    removeRunObjects();
    if (!embedded) await reference.deletePrefix(prefix).catch(() => {});
  } catch (err) {
    progress.stop();
    if (writer) {
      writer.manifest.status = abort.signal.reason instanceof Interrupted ? 'interrupted' : 'failed';
      writer.manifest.problem = errorSummary(abort.signal.reason ?? err);
    } else {
      throw err;
    }
  } finally {
    opts.signal?.removeEventListener('abort', onOuterAbort);
    client?.destroy();
    if (embedded) await embedded.stop();
    if (writer) {
      writer.manifest.ended_at = new Date().toISOString();
      writer.manifest.peak_rss_bytes = process.resourceUsage().maxRSS * 1024;
      await writer.saveManifest();
    }
  }
  return { manifest: writer!.manifest, resultsDir: writer!.root, files, manifestFile: writer!.manifestFile };
}

async function writeFixtures(matrix: ResolvedMatrix, reference: ReferenceStore, prefix: string, progress: Progress, signal: AbortSignal): Promise<Map<string, Fixture>> {
  const fixtures = new Map<string, Fixture>();
  for (const w of matrix.workloads) {
    const spec = findWorkload(w.name)!.fixture?.(w.params as never);
    if (!spec || fixtures.has(spec.id)) continue;
    if (signal.aborted) break;
    const started = Date.now();
    progress.log(`writing fixture ${spec.id} (${spec.count} objects)`);
    const fixture = await reference.writeFixture(spec, `${prefix}fixtures/${spec.id}/`, 16, (done) => progress.note(`fixture ${done}/${spec.count}`));
    progress.log(`fixture ${spec.id} written in ${formatDuration(Date.now() - started)}`);
    fixtures.set(spec.id, fixture);
  }
  return fixtures;
}

interface StepEnv {
  target: StoreTarget;
  host: ResultRecord['host'];
  endpointFacts: ResultRecord['endpoint'];
  runId: string;
  prefix: string;
  reference: ReferenceStore;
  fixtures: Map<string, Fixture>;
  progress: Progress;
  signal: AbortSignal;
  cache: ResolvedMatrix['cache'];
  onMounted?: OpenContext['onMounted'];
}

/**
 * Runs one step; never throws: a broken step becomes a failed record with the cause. On a mount
 * method the workload runs once per cache state on one fresh mount (cold, then warm); a step whose
 * client dies is aborted on its own, the run goes on.
 */
async function runStep(step: Step, env: StepEnv): Promise<ResultRecord[]> {
  const method = findMethod(step.method.name)!;
  const workload = findWorkload(step.workload.name)!;
  let facts: StepFacts = {
    run_id: env.runId, host: env.host, endpoint: env.endpointFacts,
    method: method.name, method_variant: step.method.variant, method_version: 'unknown', method_options: stringMap(step.method.options),
    workload: workload.name, workload_params: workload.describe(step.workload.params), step: step.index,
    cache: 'none', repetition: step.repetition,
  };
  if (workload.requires === 'file-system' && method.kind !== 'mount') {
    const version = (await method.probe()).version ?? 'unknown';
    return [toRecord({ ...facts, method_version: version }, notApplicable(workload.name, `${workload.name} needs a mounted file system; ${method.name} is an object method`))];
  }
  // The step's own signal: the run's, plus the mount's client dying.
  const stepAbort = new AbortController();
  setMaxListeners(1000, stepAbort.signal);
  const onRunAbort = () => stepAbort.abort(env.signal.reason);
  if (env.signal.aborted) onRunAbort();
  else env.signal.addEventListener('abort', onRunAbort, { once: true });
  const signal = stepAbort.signal;

  const scratchDir = await mkdtemp(join(tmpdir(), `s3ab-step${step.index}-`));
  const removeScratch = onCleanup(`scratch ${scratchDir}`, () => rm(scratchDir, { recursive: true, force: true }));
  const removeScratchNow = onEmergencyExit(() => rmSync(scratchDir, { recursive: true, force: true }));
  const stepPrefix = `${env.prefix}steps/${String(step.index).padStart(3, '0')}/`;
  // Each measurement keeps the moment the workload reported it: its end, so records of several
  // runners give the window they shared (started_at .. recorded_at).
  const measurements: { m: Measurement; cache: ResultRecord['cache']; endedAtMs: number }[] = [];
  let session: StorageSession | null = null;
  let currentCache: ResultRecord['cache'] = method.kind !== 'mount' ? 'none' : workload.coldOnly ? 'cold' : env.cache[0];
  let failure: unknown = null;
  const reference = env.reference;
  try {
    session = await method.open({
      target: env.target, options: step.method.options, scratchDir, signal,
      abortStep: (reason) => stepAbort.abort(reason),
      reference: { head: (key) => reference.head(key) },
      onMounted: env.onMounted,
    });
    facts = { ...facts, method_version: session.version, method_options: stringMap(session.options) };
    const spec = workload.fixture?.(step.workload.params);
    const fixture = spec ? env.fixtures.get(spec.id) ?? null : null;
    if (session.fs && fixture) await waitForFixtureOnMount(session.fs, fixture, signal, (text) => env.progress.note(text));
    const runPass = async (cache: 'cold' | 'warm' | 'none', keep: boolean) => {
      const passPrefix = `${stepPrefix}${cache}${keep ? '' : '-priming'}/`;
      // On a mount the pass folder exists in the bucket from the start, so that emptying one of its
      // subfolders through the mount never leaves a client (Mountpoint) with a vanished parent.
      if (session!.fs) await reference.putBytes(`${passPrefix}.s3ab-pass`, Buffer.alloc(0));
      await runWorkload(cache, keep, passPrefix);
    };
    const runWorkload = (cache: 'cold' | 'warm' | 'none', keep: boolean, passPrefix: string) => workload.run({
      params: step.workload.params,
      session: session!,
      fs: session!.fs ?? null,
      cache,
      prefix: passPrefix,
      fixture,
      scratchDir,
      dataSeed: `${env.runId}/${step.index}/${cache}`,
      signal,
      record: (m) => { if (keep) measurements.push({ m, cache, endedAtMs: Date.now() }); },
      progress: (note) => env.progress.note(method.kind === 'mount' ? `${cache}: ${note}` : note),
      reference: {
        list: (p) => reference.list(p), head: (k) => reference.head(k), getBytes: (k) => reference.getBytes(k),
        putBytes: (k, b) => reference.putBytes(k, b), deletePrefix: (p) => reference.deletePrefix(p),
      },
    });
    const passes: ('cold' | 'warm' | 'none')[] = method.kind !== 'mount' ? ['none'] : workload.coldOnly ? ['cold'] : env.cache;
    // Warm without cold: warm the mount up with an unrecorded pass first.
    if (passes[0] === 'warm') {
      currentCache = 'warm';
      await runPass('warm', false);
    }
    for (const cache of passes) {
      if (signal.aborted) break;
      currentCache = cache;
      await runPass(cache, true);
    }
    if (signal.aborted) failure = signal.reason;
  } catch (err) {
    failure = signal.aborted ? signal.reason : err;
  } finally {
    env.signal.removeEventListener('abort', onRunAbort);
    await session?.close().catch((err) => env.progress.log(`closing ${method.name} failed: ${errorSummary(err)}`));
    removeScratch();
    removeScratchNow();
    await rm(scratchDir, { recursive: true, force: true });
    await env.reference.deletePrefix(stepPrefix).catch(() => {});
  }
  const records = measurements.map(({ m, cache, endedAtMs }) => toRecord({ ...facts, cache: m.cache ?? cache }, m, [], endedAtMs));
  if (failure) {
    const broken = new Batch('step', null, 'sequential', false);
    broken.fail(failure);
    const m = broken.finish();
    const flags: ResultRecord['flags'] = failure instanceof Interrupted ? ['step-failed', 'interrupted'] : ['step-failed'];
    records.push(toRecord({ ...facts, cache: currentCache }, m, flags));
    for (const r of records) if (!r.flags.includes('step-failed')) r.flags.push('step-failed');
  }
  return records;
}
