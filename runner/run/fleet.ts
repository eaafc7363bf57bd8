import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Batch } from '../core/batch';
import { Interrupted, onCleanup, onEmergencyExit } from '../core/cleanup';
import { errorSummary, RunError } from '../core/errors';
import { seriesSettings } from '../core/intervals';
import type { Step } from '../core/matrix';
import { mountTable } from '../core/mounts-table';
import { memoryBackedTmp } from '../core/tmp';
import { findMethod, FuseConnection } from '../methods';
import type { IntervalRecord } from '../core/interval.generated';
import { toRecord } from '../results/record';
import type { ResultRecord } from '../core/record.generated';
import { findWorkload } from '../workloads';
import { fleetClientId, type FleetClientLine, type FleetClientSpec, type SharedFixture } from './fleet-client';
import { fleetNotApplicableReason, notApplicableReason, passesFor, stepFailed } from './policy';
import { runStep, stepFacts, type StepEnv } from './step';
import { stepBoundS, WATCHDOG_GRACE_S } from './step-watchdog';

/** The file (named in the clients' environment) where the parent says why it stopped them. */
export const FLEET_STOP_REASON_ENV = 'S3AB_FLEET_STOP_REASON';

/**
 * The barrier of local clients: one host's clock (no offset to bound). The lead covers a client's
 * poll and its wake-up from the timer on a busy host; the timeout bounds a client that never comes.
 */
export const LOCAL_BARRIER = { leadMs: 300, pollMs: 20, timeoutMs: 120_000 } as const;

/** How long stopped clients have to unmount and write their records before they are killed. */
const STOP_GRACE_MS = 30_000;

/** One client process while it runs. */
interface ClientProcess {
  client: number;
  proc: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The end of its standard error: why it died, when it wrote no records. */
  stderrTail: string;
  out: string;
  /** Its own temp folder (TMPDIR): its scratch folders and mount points, so that what a killed client left is found. */
  tmp: string;
}

/** A client's share of the step's records, read back from its output. */
interface ClientResult {
  records: ResultRecord[];
  intervals: IntervalRecord[];
  /** Why the client failed (its step-failed record's error, or its death), or null. */
  failure: string | null;
}

/**
 * The script a client process runs: this bundle (dist/s3ab.js) or, from TypeScript sources (tests
 * calling runBenchmark), the built bundle beside them.
 */
function clientScript(): string {
  if (__filename.endsWith('.js')) return __filename;
  const bundle = join(__dirname, '..', '..', 'dist', 's3ab.js');
  if (existsSync(bundle)) return bundle;
  throw new RunError(`a fleet step needs the bundled CLI ${bundle} for its client processes, and it is missing`, 'build it with `node scripts/build.mjs` (npm run build)');
}

/**
 * `s3ab run --clients`: a fleet step on this host. The parent (the run) holds the host's mount lock
 * and has written the fixtures; for a step with k clients it starts k processes of the hidden
 * `s3ab fleet-client`, each with its own runner id (client-1 … client-k), data prefix, mount or SDK
 * client, and the shared start barrier in a folder of this run under the OS temp folder. Each
 * client runs runStep and writes its records back; the parent returns them all as the step's.
 * A client that fails stops the others (SIGTERM, the reason in a file they read); the run's end,
 * Ctrl-C or a step outliving its bound stops them all, and SIGKILL follows after a grace.
 */
export class LocalFleet {
  private dir: string | null = null;
  private removeDir = () => {};

  constructor(private readonly runId: string) {}

  /** Runs a step with clients > 1; never throws (a broken step is failed records, as runStep's). */
  async runStep(step: Step, env: StepEnv, intervals: IntervalRecord[]): Promise<ResultRecord[]> {
    const method = findMethod(step.method.name)!;
    const workload = findWorkload(step.workload.name)!;
    // Not applicable: one record from the run itself, as for a single client.
    if (notApplicableReason(method, workload) ?? fleetNotApplicableReason(workload, step.clients)) return runStep(step, env, intervals);
    let results: ClientResult[];
    try {
      results = await this.runClients(step, env);
    } catch (err) {
      const cause = `the fleet's clients could not be started: ${errorSummary(err)}`;
      results = Array.from({ length: step.clients }, (_, i) => ({ records: [missingClientRecord(step, env, i + 1, cause)], intervals: [], failure: cause }));
    }
    intervals.push(...results.flatMap((r) => r.intervals));
    return results.flatMap((r) => r.records);
  }

  /** Removes the run's fleet folder (markers, stop reasons, the clients' outputs). */
  async close(): Promise<void> {
    this.removeDir();
    // Never remove a folder with a mount in it (that would delete through the mount): detach first.
    if (this.dir && !detachMountsUnder(this.dir).length) await rm(this.dir, { recursive: true, force: true });
    this.dir = null;
  }

  private async folder(): Promise<string> {
    if (!this.dir) {
      const dir = await mkdtemp(join(tmpdir(), `s3ab-fleet-${this.runId}-`));
      this.dir = dir;
      this.removeDir = onCleanup(`fleet folder ${dir}`, async () => {
        if (!detachMountsUnder(dir).length) await rm(dir, { recursive: true, force: true });
      });
    }
    return this.dir;
  }

  private async runClients(step: Step, env: StepEnv): Promise<ClientResult[]> {
    const dir = await this.folder();
    const stepDir = join(dir, `step${step.index}`);
    await mkdir(stepDir, { recursive: true });
    const stopFile = join(stepDir, 'stop-reason');
    const clients: ClientProcess[] = [];
    const stopper = new Stopper(clients, stopFile);
    const onAbort = () => stopper.stop(`the run stopped: ${errorSummary(env.signal.reason)}`);
    const unregisterCleanup = onCleanup(`fleet clients of step ${step.index}`, async () => {
      stopper.stop('the run is ending');
      await Promise.all(clients.map((c) => c.exited));
    });
    const unregisterEmergency = onEmergencyExit(() => stopper.interruptNow());
    const bound = setTimeout(() => stopper.stop(`the fleet step outlived its bound of ${Math.round(fleetBoundMs(step, env) / 1000)} s`), fleetBoundMs(step, env));
    try {
      await this.startAll(step, env, stepDir, clients, stopper);
      env.progress.log(`step ${step.index}: ${step.clients} client processes (${clients.map((c) => `${fleetClientId(c.client)} pid ${c.proc.pid ?? 'none'}`).join(', ')})`);
      env.signal.addEventListener('abort', onAbort, { once: true });
      if (env.signal.aborted) onAbort();
      return await Promise.all(clients.map(async (c) => {
        const result = await readClientResult(c, step, env);
        const reaped = reapClient(c);
        if (reaped.length) env.progress.log(`client ${c.client} left ${reaped.join(', ')}: removed`);
        // The others would wait at the barrier for a client that is gone: stop them now.
        if (result.failure) stopper.stop(`client ${c.client} of ${step.clients} failed: ${result.failure}`);
        return result;
      }));
    } finally {
      clearTimeout(bound);
      stopper.stopKilling();
      env.signal.removeEventListener('abort', onAbort);
      unregisterCleanup();
      unregisterEmergency();
    }
  }

  /** Starts the step's clients into `clients`; if one cannot start, stops those that did and throws. */
  private async startAll(step: Step, env: StepEnv, stepDir: string, clients: ClientProcess[], stopper: Stopper): Promise<void> {
    try {
      for (let client = 1; client <= step.clients; client++) clients.push(startClient(this.specFor(step, env, client, stepDir), stopper.stopFile, env, this.runId));
    } catch (err) {
      // Those already started would wait at the barrier for the rest.
      stopper.stop(`client ${clients.length + 1} could not be started: ${errorSummary(err)}`);
      await Promise.all(clients.map((c) => c.exited));
      clients.forEach(reapClient);
      throw err;
    }
  }

  private specFor(step: Step, env: StepEnv, client: number, stepDir: string): FleetClientSpec {
    return {
      step, runId: this.runId, client, target: env.target, host: env.host, endpointFacts: env.endpointFacts, fixtures: sharedFixtures(step, env),
      cache: env.cache, budgetS: env.budgetS, watchdog: env.watchdog, seriesIntervalMs: seriesSettings.intervalMs,
      barrier: { dir: join(this.dir!, 'markers'), ...LOCAL_BARRIER }, out: join(stepDir, `${fleetClientId(client)}.jsonl`),
    };
  }
}

/** How long a fleet step may take before the parent stops it: the clients' own watchdog bound, a barrier wait per pass, and a minute. */
function fleetBoundMs(step: Step, env: StepEnv): number {
  const method = findMethod(step.method.name)!;
  const workload = findWorkload(step.workload.name)!;
  const passes = passesFor(method.kind, !!workload.coldOnly, env.cache).length;
  const boundS = stepBoundS(env.budgetS, env.watchdog?.limitS ?? workload.stepLimitS?.(step.workload.params), env.watchdog?.graceS ?? WATCHDOG_GRACE_S);
  return (boundS + 60) * 1000 + passes * LOCAL_BARRIER.timeoutMs;
}

/** The fixture of the step's workload as the parent wrote it: every client reads these same objects. */
function sharedFixtures(step: Step, env: StepEnv): SharedFixture[] {
  const spec = findWorkload(step.workload.name)!.fixture?.(step.workload.params as never);
  const fixture = spec ? env.fixtures.get(spec.id) : undefined;
  if (!spec || !fixture) return [];
  const each = <T>(f: (i: number) => T) => Array.from({ length: spec.count }, (_, i) => f(i));
  return [{ id: spec.id, prefix: fixture.prefix, digests: each(fixture.digestOf), crc32s: each(fixture.crc32Of) }];
}

/** Stops the clients still running, once: the reason in the stop file, SIGTERM, then SIGKILL after a grace. */
class Stopper {
  private reason: string | null = null;
  private killer: NodeJS.Timeout | null = null;

  constructor(private readonly clients: readonly ClientProcess[], readonly stopFile: string) {}

  stop(reason: string): void {
    if (this.reason !== null) return;
    this.reason = reason;
    writeFileSync(this.stopFile, `stopped by the run: ${reason}`);
    for (const c of this.running()) c.proc.kill('SIGTERM');
    this.killer = setTimeout(() => {
      for (const c of this.running()) c.proc.kill('SIGKILL');
    }, STOP_GRACE_MS);
  }

  /** A second Ctrl-C: each client detaches its mount at once (its own emergency path) and exits. */
  interruptNow(): void {
    for (const c of this.running()) {
      c.proc.kill('SIGINT');
      c.proc.kill('SIGINT');
    }
  }

  stopKilling(): void {
    if (this.killer) clearTimeout(this.killer);
  }

  private running(): ClientProcess[] {
    return this.clients.filter((c) => c.proc.exitCode === null && c.proc.signalCode === null);
  }
}

/** Starts one client process, its spec on stdin; its progress goes to the run's (client 1's notes, everyone's messages). */
function startClient(spec: FleetClientSpec, stopFile: string, env: StepEnv, runId: string): ClientProcess {
  const tmp = join(dirname(spec.out), fleetClientId(spec.client));
  mkdirSync(tmp, { recursive: true });
  const proc = spawn(process.execPath, [clientScript(), 'fleet-client', '--run', runId, '--client', String(spec.client)], {
    stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, [FLEET_STOP_REASON_ENV]: stopFile, TMPDIR: tmp },
  });
  const c: ClientProcess = {
    client: spec.client, proc, stderrTail: '', out: spec.out, tmp,
    exited: new Promise((resolve) => {
      proc.once('error', (err) => { c.stderrTail += `\n${err.message}`; resolve({ code: null, signal: null }); });
      proc.once('exit', (code, signal) => resolve({ code, signal }));
    }),
  };
  proc.stdin!.on('error', () => {});
  proc.stdin!.end(JSON.stringify(spec));
  proc.stderr!.on('data', (chunk: Buffer) => { c.stderrTail = (c.stderrTail + chunk.toString()).slice(-4000); });
  let partial = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const text of lines) relayLine(text, spec.client, env);
  });
  return c;
}

function relayLine(text: string, client: number, env: StepEnv): void {
  let line: FleetClientLine;
  try {
    line = JSON.parse(text) as FleetClientLine;
  } catch {
    if (text.trim()) env.progress.log(`client ${client}: ${text.trim()}`);
    return;
  }
  if ('note' in line) {
    if (client === 1) env.progress.note(`client 1: ${line.note}`);
  } else env.progress.log(`client ${client}: ${line.log}`);
}

/** A client's records and intervals once it exited; a client that left none is one failed record with how it ended. */
async function readClientResult(c: ClientProcess, step: Step, env: StepEnv): Promise<ClientResult> {
  const exit = await c.exited;
  let lines: ({ record: ResultRecord } | { interval: IntervalRecord })[] | null = null;
  try {
    lines = (await readFile(c.out, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    lines = null;
  }
  if (!lines) {
    const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
    const last = c.stderrTail.trim().split('\n').map((l) => l.trim()).filter(Boolean).pop();
    const cause = `client ${c.client} (pid ${c.proc.pid ?? 'none'}) ended without its records (${how})${last ? `: ${last.slice(0, 300)}` : ''}`;
    return { records: [missingClientRecord(step, env, c.client, cause)], intervals: [], failure: cause };
  }
  const records = lines.flatMap((l) => ('record' in l ? [l.record] : []));
  const intervals = lines.flatMap((l) => ('interval' in l ? [l.interval] : []));
  const failed = stepFailed(records) ? records.find((r) => r.status === 'failed' && r.operation === 'step') ?? records.find((r) => r.status === 'failed') : null;
  return { records, intervals, failure: failed ? failed.error_sample ?? 'its step failed' : null };
}

/** The record of a client that left none: its step failed, with the cause. */
function missingClientRecord(step: Step, env: StepEnv, client: number, cause: string): ResultRecord {
  const method = findMethod(step.method.name)!;
  const workload = findWorkload(step.workload.name)!;
  const facts = stepFacts(step, method, workload, { ...env, host: { ...env.host, runner_id: fleetClientId(client) } });
  const broken = new Batch('step', null, 'sequential', false);
  broken.fail(new Error(cause));
  const cache = passesFor(method.kind, !!workload.coldOnly, env.cache)[0].cache;
  return toRecord({ ...facts, cache }, broken.finish(), env.signal.reason instanceof Interrupted ? ['step-failed', 'interrupted'] : ['step-failed']);
}

/**
 * Mounts under `folder` (a client's, or the run's fleet folder): each FUSE connection aborted (its
 * client cannot hang the detach) and the mount detached. Returns those that are still there.
 */
function detachMountsUnder(folder: string): string[] {
  const under = () => mountTable().filter((m) => m.mountPoint.startsWith(`${folder}/`));
  for (const m of under()) {
    // Aborting a FUSE mount's kernel connection ends a hung client's hold on it.
    if (m.fsType.startsWith('fuse')) FuseConnection.of(m.mountPoint)?.abort();
    spawnSync('umount', ['-l', m.mountPoint], { timeout: 5_000 });
  }
  return under().map((m) => m.mountPoint);
}

/**
 * What a client killed before its own cleanup (SIGKILL, a crash) left behind: its mounts, its step's
 * scratch folder (`s3ab-stepNN-…`, in its own temp folder), its folders on the RAM disk (named with
 * its pid: they hold the store's credentials). A client that ended normally left nothing and this
 * removes its empty temp folder. Where a mount cannot be detached, everything beside it is still
 * removed (never through the mount). Returns what was found.
 */
function reapClient(c: ClientProcess): string[] {
  const found: string[] = mountTable().filter((m) => m.mountPoint.startsWith(`${c.tmp}/`)).map((m) => `mount ${m.mountPoint}`);
  const stillMounted = detachMountsUnder(c.tmp);
  const entries = existsSync(c.tmp) ? readdirSync(c.tmp) : [];
  found.push(...entries.filter((n) => /^s3ab-step\d+-/.test(n)).map((n) => join(c.tmp, n)));
  if (!stillMounted.length) rmSync(c.tmp, { recursive: true, force: true });
  else {
    for (const name of entries) {
      const path = join(c.tmp, name);
      if (!stillMounted.some((m) => m === path || m.startsWith(`${path}/`))) rmSync(path, { recursive: true, force: true });
    }
  }
  const pid = c.proc.pid;
  if (pid !== undefined) {
    const ram = memoryBackedTmp();
    const own = new RegExp(`^s3ab-[a-z0-9-]+-${pid}-[A-Za-z0-9]{6}$`);
    for (const name of readdirSync(ram).filter((n) => own.test(n))) {
      rmSync(join(ram, name), { recursive: true, force: true });
      found.push(join(ram, name));
    }
  }
  return found;
}
