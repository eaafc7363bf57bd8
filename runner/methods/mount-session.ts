import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, rmdirSync, statfsSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onCleanup, onEmergencyExit } from '../core/cleanup';
import { errorSummary } from '../core/errors';
import type { FileSystemAccess, ListedObject, MethodDefinition, MethodDescriptor, OpenContext, Options, StorageSession, Fetched } from '../core/method';
import type { MountDriver, MountPlan } from '../core/mount';
import { dropKernelCaches, mountAt, runCommand } from '../core/mounts-table';
import { copyInto, readFileHashed, walkFiles } from '../core/posix-io';
import { memoryBackedTmp } from '../core/tmp';
import { VOLUME_ROOT } from '../core/vocabulary';

const READY_TIMEOUT_MS = 20_000;
/**
 * The stall watchdog's bound: a FUSE client with file-system requests waiting in its kernel
 * connection that spends no CPU for this long has stopped responding (a stopped or hung client, or
 * a client blocked on a frozen endpoint). S3AB_STALL_SECONDS overrides it; recorded with the options.
 */
export function stallBoundMs(): number {
  const s = Number(process.env.S3AB_STALL_SECONDS ?? 30);
  return (Number.isFinite(s) && s > 0 ? s : 30) * 1000;
}
const FUSECTL = '/sys/fs/fuse/connections';
const UNMOUNT_TIMEOUT_MS = 10_000;
const EXIT_WAIT_MS = 5_000;
/** How long a write-back client may take to upload a closed file before the write counts as failed. */
const UPLOAD_TIMEOUT_MS = 120_000;

/** A mount driver with the name of its method, as the session reports it. */
type NamedDriver = MountDriver & { readonly name: string };

/** Joins a mount method's descriptor (runner/methods/NAME.ts) with its driver (NAME.impl.ts) into a method the runner can run. */
export function mountMethod(descriptor: MethodDescriptor, driver: MountDriver): MethodDefinition {
  if (descriptor.kind !== 'mount') throw new Error(`${descriptor.name} is not a mount method`);
  const named: NamedDriver = { name: descriptor.name, probe: driver.probe, plan: driver.plan };
  return {
    ...descriptor,
    probe: () => driver.probe(),
    open: (ctx) => MountSession.open(named, ctx),
  };
}

/** tmpfs and ramfs magic numbers (statfs f_type). */
const RAM_FS_TYPES = new Set([0x01021994, 0x858458f6]);

function onRamDisk(dir: string): boolean {
  try {
    return RAM_FS_TYPES.has(statfsSync(dir).type);
  } catch {
    // Not created yet: judge by its parent.
    try {
      return RAM_FS_TYPES.has(statfsSync(dirname(dir)).type);
    } catch {
      return true;
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU time (user + system clock ticks) a process has used, or null when it is gone. */
function processCpuTicks(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return null;
  }
}

/** The kernel's FUSE control file system, mounted where it is not (as root); false where it cannot be. */
function fusectlReady(): boolean {
  if (existsSync(`${FUSECTL}/`) && mountAt(FUSECTL)) return true;
  return spawnSync('mount', ['-t', 'fusectl', 'none', FUSECTL], { timeout: 5_000 }).status === 0 && !!mountAt(FUSECTL);
}

/** A process's state letter from /proc (R, S, D, T stopped, Z zombie), or null when it is gone. */
function processState(pid: number | undefined): string | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2);
  } catch {
    return null;
  }
}

/** Removes a mount point (if nothing is mounted there any more) and a client's folder, synchronously. */
function removeDirsSync(mountPoint: string, workDir: string): void {
  try {
    rmdirSync(mountPoint);
  } catch {
    // still busy or already gone
  }
  // The client's files include credentials: never leave them behind.
  rmSync(workDir, { recursive: true, force: true });
}

/**
 * One mount of a bucket, and the StorageSession on its POSIX paths that every storage workload runs
 * on. Owns the client process: mounts (fresh cache, kernel caches dropped), waits until the mount
 * answers, notices when the client dies (the step is aborted with the client's last log lines),
 * and always unmounts — lazily when a plain unmount fails or hangs — stops the client and removes
 * the mount point.
 */
export class MountSession implements StorageSession, FileSystemAccess {
  readonly options: Options;
  readonly uploadsAfterClose: boolean;
  readonly bucketLag: { readonly exportMs: number; readonly importMs: number };
  private child: ChildProcess | null = null;
  private childExited: Promise<void> = Promise.resolve();
  private logTail = '';
  private died: string | null = null;
  private unmounting = false;
  /** Between a mount answering and the start of its unmount. */
  private ready = false;
  private closing: Promise<void> | null = null;
  private unregisterCleanup: () => void = () => {};
  private unregisterEmergency: () => void = () => {};
  /** Wall time of the last mount until ready, in ms. */
  lastMountMs = 0;
  private watchdog: NodeJS.Timeout | null = null;

  private constructor(
    private readonly driver: NamedDriver,
    readonly version: string,
    private readonly plan: MountPlan,
    readonly mountPoint: string,
    private readonly workDir: string,
    private readonly diskDir: string,
    private readonly ctx: OpenContext,
  ) {
    this.uploadsAfterClose = plan.uploadsAfterClose;
    this.bucketLag = plan.bucketLag ?? { exportMs: 0, importMs: 0 };
    this.options = { ...plan.recorded };
  }

  get fs(): FileSystemAccess {
    return this;
  }

  get clientPid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Mounts a fresh instance of `driver`'s client; throws with the client's own message when it cannot. */
  static async open(driver: NamedDriver, ctx: OpenContext): Promise<MountSession> {
    const availability = await driver.probe();
    if (!availability.available) throw new Error(`${driver.name} is not available on this host: ${availability.reason}`);
    // The runner's pid in the names tells whose mount and folder they are (several runs may share a host).
    const mountPoint = await mkdtemp(join(tmpdir(), `s3ab-mnt-${driver.name}-${process.pid}-`));
    const workDir = await mkdtemp(join(memoryBackedTmp(), `s3ab-${driver.name}-${process.pid}-`));
    // Data caches go to disk (the step's scratch folder, removed with it), credentials stay in RAM.
    const diskDir = await mkdtemp(join(ctx.scratchDir, `${driver.name}-disk-`));
    let session: MountSession | null = null;
    const removeDirs = onCleanup(`mount point ${mountPoint}`, async () => {
      await rmdir(mountPoint).catch(() => {});
      await rm(workDir, { recursive: true, force: true });
      await rm(diskDir, { recursive: true, force: true });
    });
    // Until the session can detach itself, a forced exit still removes the folders (credentials).
    const removeDirsNow = onEmergencyExit(() => removeDirsSync(mountPoint, workDir));
    try {
      const plan = await driver.plan({ target: ctx.target, options: ctx.options, mountPoint, workDir, diskDir, volumeName: ctx.volumeName ?? `${VOLUME_ROOT}session-${process.pid}-${Date.now()}` });
      for (const step of plan.prepare ?? []) {
        const env = { ...process.env };
        for (const [k, v] of Object.entries(step.env ?? {})) {
          if (v === undefined) delete env[k];
          else env[k] = v;
        }
        const r = await runCommand(step.command, step.args, READY_TIMEOUT_MS, env);
        if (r.code !== 0) throw new Error(`${step.what} failed: ${r.output.trim().split('\n').pop() || `exit code ${r.code}`}`);
      }
      session = new MountSession(driver, availability.version ?? 'unknown', plan, mountPoint, workDir, diskDir, ctx);
      session.unregisterCleanup = onCleanup(`${driver.name} mount at ${mountPoint}`, () => session!.close());
      session.unregisterEmergency = onEmergencyExit(() => session!.detachNow());
      removeDirs();
      removeDirsNow();
      const dropped = await session.mount();
      session.options.cold_start = dropped
        ? 'fresh mount, client cache emptied, kernel caches dropped'
        : 'fresh mount, client cache emptied (kernel caches not dropped: needs root)';
      if (plan.lifecycle === 'foreground') session.options.stall_watchdog_s = stallBoundMs() / 1000;
      ctx.onMounted?.({ method: driver.name, mountPoint, clientPid: session.clientPid });
      return session;
    } catch (err) {
      if (session) await session.close();
      else {
        removeDirs();
        await rmdir(mountPoint).catch(() => {});
        await rm(workDir, { recursive: true, force: true });
        await rm(diskDir, { recursive: true, force: true });
        removeDirsNow();
      }
      throw err;
    }
  }

  /** The client's most telling recent log line: the last one that reads like an error, else the last one. */
  private lastLogLine(): string {
    const lines = this.logTail.trim().split('\n').map((l) => l.trim()).filter(Boolean);
    const telling = lines.filter((l) => /error|fail|invalid|denied|refused|cannot|unable|fatal|not found/i.test(l));
    return (telling.pop() ?? lines.pop() ?? '').slice(0, 300);
  }

  /**
   * A data cache on a disk: cache directories that serve reads, none of them on a RAM disk
   * (s3fs's seed-000 set keeps its use_cache folder on tmpfs, as seed 000 did: that is memory).
   */
  get diskCache(): boolean {
    const dirs = this.plan.cacheDirs;
    return dirs.length > 0 && (this.plan.cachesReads ?? true) && dirs.every((d) => !onRamDisk(d));
  }

  /**
   * Mounts with an empty client cache (unless `keepDiskCache`) and dropped kernel caches; resolves
   * when the mount answers.
   */
  private async mount(keepDiskCache = false): Promise<boolean> {
    for (const dir of keepDiskCache ? [] : this.plan.cacheDirs) {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
    }
    const dropped = await dropKernelCaches();
    this.died = null;
    this.unmounting = false;
    const started = Date.now();
    const env = { ...process.env };
    for (const [k, v] of Object.entries(this.plan.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    if (this.plan.lifecycle === 'helper') {
      const r = await runCommand(this.plan.command, this.plan.args, READY_TIMEOUT_MS, env);
      if (r.code !== 0) throw new Error(`${this.plan.command} could not mount: ${r.output.split('\n').pop() || `exit code ${r.code}`}`);
    } else {
      const child = spawn(this.plan.command, this.plan.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      this.child = child;
      this.logTail = '';
      const keep = (chunk: Buffer) => { this.logTail = (this.logTail + chunk.toString()).slice(-4000); };
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      this.childExited = new Promise((resolve) => {
        child.once('error', (err) => { keep(Buffer.from(`\n${err.message}\n`)); resolve(); });
        child.once('exit', (code, signal) => {
          if (this.ready && !this.unmounting) {
            this.died = `the ${this.driver.name} client (pid ${child.pid}) exited mid-run (${signal ? `signal ${signal}` : `code ${code}`})` +
              (this.lastLogLine() ? `: ${this.lastLogLine()}` : '');
            this.ctx.abortStep?.(new Error(this.died));
          }
          resolve();
        });
      });
    }
    // Ready when the kernel lists the mount and its root answers a readdir.
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      if (this.child && (this.child.exitCode !== null || this.child.signalCode !== null)) {
        const why = this.lastLogLine() || `exit code ${this.child.exitCode ?? this.child.signalCode}`;
        throw new Error(`${this.driver.name} did not mount: ${why}`);
      }
      if (mountAt(this.mountPoint)) {
        try {
          await readdir(this.mountPoint);
          break;
        } catch (err) {
          if (Date.now() > deadline) throw new Error(`${this.driver.name} mounted but its root does not answer: ${errorSummary(err)}`);
        }
      }
      if (Date.now() > deadline) throw new Error(`${this.driver.name} did not mount within ${READY_TIMEOUT_MS / 1000} s${this.lastLogLine() ? `: ${this.lastLogLine()}` : ''}`);
      if (this.ctx.signal.aborted) throw this.ctx.signal.reason;
      await sleep(delay);
    }
    this.lastMountMs = Date.now() - started;
    this.ready = true;
    this.startWatchdog();
    return dropped;
  }

  /**
   * Unmounts; when that fails or hangs (busy, client hung), detaches lazily. Then the client is
   * given a few seconds to exit by itself, asked with SIGTERM, and killed with SIGKILL.
   */
  /**
   * Watches a FUSE client for a stall (see stallBoundMs): requests waiting in its kernel
   * connection (fusectl's `waiting`) while the client spends no CPU. Never touches the mount point
   * itself — a stat of a hung mount hangs too. On a stall the step fails naming the client, the
   * FUSE connection is aborted (blocked calls return ENOTCONN), the mount detached and the client
   * killed; the run goes on.
   */
  private startWatchdog(): void {
    const child = this.child;
    if (!child?.pid) return;
    const bound = stallBoundMs();
    const minor = mountAt(this.mountPoint)?.device.split(':')[1];
    const waitingFile = minor && fusectlReady() ? `${FUSECTL}/${minor}/waiting` : null;
    let lastCpu = processCpuTicks(child.pid);
    let stillSince = Date.now();
    this.watchdog = setInterval(() => {
      if (!this.ready || this.unmounting) return;
      const cpu = processCpuTicks(child.pid);
      let waiting = 0;
      try {
        waiting = waitingFile ? Number(readFileSync(waitingFile, 'utf8')) : processState(child.pid) === 'T' ? 1 : 0;
      } catch {
        return; // the connection went away: the exit handler reports it
      }
      if (cpu !== lastCpu || waiting === 0) {
        lastCpu = cpu;
        stillSince = Date.now();
        return;
      }
      if (Date.now() - stillSince < bound) return;
      const why = `the ${this.driver.name} client (pid ${child.pid}) stopped responding: ${waiting} file-system request${waiting === 1 ? '' : 's'} unanswered and no CPU used for ${Math.round(bound / 1000)} s`;
      this.forceDetach(why, minor && waitingFile ? minor : null);
      this.ctx.abortStep?.(new Error(why));
    }, 1_000);
    this.watchdog.unref();
    // Ctrl-C during a hang: the step is told to stop, but a call blocked on the mount never
    // returns to hear it. Two seconds later, if requests still wait, the connection is aborted.
    const onAbort = () => setTimeout(() => {
      if (!this.ready || this.unmounting) return;
      let waiting = 0;
      try {
        waiting = waitingFile ? Number(readFileSync(waitingFile, 'utf8')) : processState(child.pid) === 'T' ? 1 : 0;
      } catch {
        return;
      }
      if (waiting > 0) this.forceDetach(`the run was stopped while the ${this.driver.name} client (pid ${child.pid}) had ${waiting} request${waiting === 1 ? '' : 's'} unanswered`, minor && waitingFile ? minor : null);
    }, 2_000).unref();
    this.ctx.signal.addEventListener('abort', onAbort, { once: true });
  }

  /** Ends a hung mount without touching its mount point: aborts its FUSE connection (blocked calls return ENOTCONN), detaches it, kills the client. */
  private forceDetach(why: string, fuseConnection: string | null): void {
    this.stopWatchdog();
    this.died = why;
    this.unmounting = true;
    this.ready = false;
    if (fuseConnection) {
      try {
        writeFileSync(`${FUSECTL}/${fuseConnection}/abort`, '1');
      } catch {
        // already gone
      }
    }
    spawnSync('umount', ['-l', this.mountPoint], { timeout: 5_000 });
    this.child?.kill('SIGKILL');
  }

  private stopWatchdog(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
  }

  private async unmount(): Promise<void> {
    this.stopWatchdog();
    this.unmounting = true;
    this.ready = false;
    // A stopped (or otherwise hung) client cannot answer: detach at once and kill it.
    if (this.child && processState(this.child.pid) === 'T') {
      await runCommand('umount', ['-l', this.mountPoint], UNMOUNT_TIMEOUT_MS);
      this.child.kill('SIGKILL');
    }
    if (mountAt(this.mountPoint)) {
      const plain = await runCommand('umount', [this.mountPoint], UNMOUNT_TIMEOUT_MS);
      if (plain.code !== 0 && mountAt(this.mountPoint)) {
        await runCommand('umount', ['-l', this.mountPoint], UNMOUNT_TIMEOUT_MS);
      }
    }
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = await Promise.race([this.childExited.then(() => true), sleep(EXIT_WAIT_MS).then(() => false)]);
      if (!exited) {
        child.kill('SIGTERM');
        const stopped = await Promise.race([this.childExited.then(() => true), sleep(3_000).then(() => false)]);
        if (!stopped) {
          child.kill('SIGKILL');
          await this.childExited;
        }
      }
    }
    // A client that died leaves a dead mount ("Transport endpoint is not connected"): detach it.
    if (mountAt(this.mountPoint)) await runCommand('umount', ['-l', this.mountPoint], UNMOUNT_TIMEOUT_MS);
    this.child = null;
  }

  async remount(opts: { keepDiskCache?: boolean } = {}): Promise<void> {
    this.check();
    await this.unmount();
    await this.mount(opts.keepDiskCache ?? false);
    this.ctx.onMounted?.({ method: this.driver.name, mountPoint: this.mountPoint, clientPid: this.clientPid });
  }

  check(): void {
    if (this.died) throw new Error(this.died);
    if (!mountAt(this.mountPoint)) throw new Error(`the ${this.driver.name} mount at ${this.mountPoint} is gone`);
  }

  pathOf(key: string): string {
    return join(this.mountPoint, key);
  }

  /** For an exit that cannot wait: kill the client, detach the mount, remove the mount point. */
  detachNow(): void {
    this.unmounting = true;
    const pid = this.child?.pid;
    this.child?.kill('SIGKILL');
    // The client may have been inside mount(2): its mount appears when the call returns, even
    // though the process dies then. Wait (briefly, synchronously) until it is gone, then detach
    // whatever is mounted there.
    const until = Date.now() + 2_000;
    const tick = new Int32Array(new SharedArrayBuffer(4));
    for (let state = processState(pid); state !== null && state !== 'Z' && Date.now() < until; state = processState(pid)) Atomics.wait(tick, 0, 0, 10);
    if (mountAt(this.mountPoint)) spawnSync('umount', ['-l', this.mountPoint], { timeout: 5_000 });
    removeDirsSync(this.mountPoint, this.workDir);
  }

  /** Unmounts, stops the client, removes the mount point and the client's files. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.unmount();
      } finally {
        this.unregisterCleanup();
        if (!mountAt(this.mountPoint)) await rmdir(this.mountPoint).catch(() => {});
        await rm(this.workDir, { recursive: true, force: true });
        await rm(this.diskDir, { recursive: true, force: true });
        // Only now: a forced exit while the folders were being removed still removes them.
        this.unregisterEmergency();
      }
    })();
    return this.closing;
  }

  /** Waits until a write-back client has uploaded `key` (the write is not done before). */
  private async waitForUpload(key: string, size: number): Promise<void> {
    const reference = this.ctx.reference;
    if (!reference) throw new Error(`${this.driver.name} uploads after close, but the session has no reference client to see when`);
    const deadline = Date.now() + UPLOAD_TIMEOUT_MS;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      const found = await reference.head(key);
      if (found && found.size === size) return;
      this.check();
      if (Date.now() > deadline) throw new Error(`${key} was not in the bucket ${UPLOAD_TIMEOUT_MS / 1000} s after close (${this.driver.name} uploads after close)`);
      await sleep(delay);
    }
  }

  async put(key: string, file: { path: string; size: number }): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    await copyInto(file.path, path);
    if (this.uploadsAfterClose) await this.waitForUpload(key, file.size);
  }

  async get(key: string): Promise<Fetched> {
    const { bytes, digest } = await readFileHashed(this.pathOf(key));
    return { bytes, digest: async () => digest, discard: async () => {} };
  }

  async list(prefix: string): Promise<ListedObject[]> {
    const files = await walkFiles(this.pathOf(prefix));
    return files.map((f) => ({ key: f.path, size: f.size }));
  }

  async head(key: string): Promise<{ size: number }> {
    return { size: (await stat(this.pathOf(key))).size };
  }

  async delete(key: string): Promise<void> {
    await unlink(this.pathOf(key));
  }
}
