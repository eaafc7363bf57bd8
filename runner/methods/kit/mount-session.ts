import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { rmSync, rmdirSync, statfsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onCleanup, onEmergencyExit } from '../../core/cleanup';
import { errorSummary } from '../../core/errors';
import type { FileSystemAccess, ListedObject, MethodDefinition, MethodDescriptor, OpenContext, Options, StorageSession, Fetched } from '../../core/method';
import type { MountDriver, MountPlan } from './mount';
import { dropKernelCaches, mountAt, runCommand } from '../../core/mounts-table';
import { copyInto, readFileHashed, walkFiles } from './posix-io';
import { processState } from '../../core/process-state';
import { memoryBackedTmp } from '../../core/tmp';
import { VOLUME_ROOT } from '../../core/vocabulary';
import { FuseConnection } from './fuse-connection';
import { ServerProcess } from './mount-server';
import { stallBoundMs, watchForStall } from './stall-watchdog';

const READY_TIMEOUT_MS = 20_000;
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
class MountSession implements StorageSession, FileSystemAccess {
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
  private stopStallWatch: () => void = () => {};
  /** The mount's FUSE connection, kept from when it came up: it outlives a lazy detach. */
  private connection: FuseConnection | null = null;
  /** The plan's server (ZeroFS's NFS server), running from before each mount until after its unmount. */
  private server: ServerProcess | null = null;

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
    this.connection = null;
    const started = Date.now();
    const env = { ...process.env };
    for (const [k, v] of Object.entries(this.plan.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    if (this.plan.server) this.server = await ServerProcess.start(this.plan.server, (why) => this.serverExited(why), this.ctx.signal);
    if (this.plan.lifecycle === 'helper') {
      const r = await runCommand(this.plan.command, this.plan.args, READY_TIMEOUT_MS, env);
      if (r.code !== 0) throw new Error(`${this.plan.command} could not mount: ${r.output.split('\n').pop() || `exit code ${r.code}`}`);
    } else {
      this.startClient(env);
    }
    await this.waitUntilReady();
    this.lastMountMs = Date.now() - started;
    this.ready = true;
    this.connection = FuseConnection.of(this.mountPoint);
    const pid = this.child?.pid;
    if (pid) {
      this.stopStallWatch = watchForStall({
        name: this.driver.name, pid, connection: this.connection, signal: this.ctx.signal,
        active: () => this.ready && !this.unmounting,
        stalled: (why) => {
          this.abandon(why);
          this.ctx.abortStep?.(new Error(why));
        },
      });
    }
    return dropped;
  }

  /** A server that exits while its mount is in use fails the step, naming it and its last log line. */
  private serverExited(why: string): void {
    if (!this.ready || this.unmounting) return;
    this.died = why;
    this.ctx.abortStep?.(new Error(why));
  }

  /** Starts a foreground client; its exit once the mount is in use fails the step, naming it and its signal or code. */
  private startClient(env: NodeJS.ProcessEnv): void {
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

  /** Why the client is gone while its mount was coming up (its signal or its own last words), or null while it runs. */
  private exitedWhileMounting(): string | null {
    const child = this.child;
    if (!child || (child.exitCode === null && child.signalCode === null)) return null;
    // Killed: name the signal (its last log line may well say "mounted"); else its own complaint.
    if (child.signalCode) return `the ${this.driver.name} client (pid ${child.pid}) exited while mounting (signal ${child.signalCode})${this.lastLogLine() ? `: ${this.lastLogLine()}` : ''}`;
    return `${this.driver.name} did not mount: ${this.lastLogLine() || `exit code ${child.exitCode}`}`;
  }

  /**
   * Ready when the kernel lists the mount and its root answers a readdir. Every look is bounded:
   * a readdir of a mount whose client stops answering (or dies half-way) could block for good, so
   * it races the deadline, the client's exit and the step's abort; when it loses, the FUSE
   * connection is aborted (which returns the blocked call) and the mount detached.
   */
  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    const signal = this.ctx.signal;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      const exited = this.exitedWhileMounting();
      if (exited) throw new Error(exited);
      if (mountAt(this.mountPoint)) {
        const answer = await this.rootAnswers(deadline);
        if (answer === 'yes') return;
        if (answer === 'blocked') {
          this.abandon('the mount did not come up');
          const exitedNow = this.exitedWhileMounting();
          if (exitedNow) throw new Error(exitedNow);
          if (signal.aborted) throw signal.reason;
          throw new Error(`${this.driver.name} mounted but its root did not answer within ${READY_TIMEOUT_MS / 1000} s`);
        }
        if (Date.now() > deadline) throw new Error(`${this.driver.name} mounted but its root does not answer: ${answer}`);
      }
      if (Date.now() > deadline) throw new Error(`${this.driver.name} did not mount within ${READY_TIMEOUT_MS / 1000} s${this.lastLogLine() ? `: ${this.lastLogLine()}` : ''}`);
      if (signal.aborted) throw signal.reason;
      await sleep(delay);
    }
  }

  /** 'yes' when the root answers a readdir; its error when it refuses; 'blocked' when the deadline, the client's exit or the abort came first. */
  private async rootAnswers(deadline: number): Promise<'yes' | 'blocked' | string> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    const lost = new Promise<'blocked'>((resolve) => {
      timer = setTimeout(() => resolve('blocked'), Math.max(0, deadline - Date.now()));
      onAbort = () => resolve('blocked');
      this.ctx.signal.addEventListener('abort', onAbort, { once: true });
      // A helper-mounted client (NFS) has no process of ours to watch.
      if (this.child) void this.childExited.then(() => resolve('blocked'));
    });
    try {
      return await Promise.race([readdir(this.mountPoint).then(() => 'yes' as const, (err: unknown) => errorSummary(err)), lost]);
    } finally {
      clearTimeout(timer);
      this.ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Ends the mount at once, without touching its mount point: aborts its FUSE connection (every
   * blocked call returns ENOTCONN), detaches it, kills the client. The stall watchdog, the step
   * watchdog and a mount that never came up use it; close() still runs after it.
   */
  abandon(why: string): void {
    this.stopStallWatch();
    this.died ??= why;
    this.unmounting = true;
    this.ready = false;
    (this.connection ?? FuseConnection.of(this.mountPoint))?.abort();
    spawnSync('umount', ['-l', this.mountPoint], { timeout: 5_000 });
    this.child?.kill('SIGKILL');
  }

  /**
   * Unmounts; when that fails or hangs (busy, client hung), detaches lazily. Then the client is
   * given a few seconds to exit by itself, asked with SIGTERM, and killed with SIGKILL. Every wait
   * is bounded: a killed client that still does not exit (stuck on a request to its own mount) has
   * its FUSE connection aborted, and is left to exit on its own.
   */
  private async unmount(): Promise<void> {
    this.stopStallWatch();
    this.unmounting = true;
    this.ready = false;
    // A stopped (or otherwise hung) client cannot answer: detach at once and kill it.
    if (this.child && processState(this.child.pid) === 'T') {
      this.connection?.abort();
      await runCommand('umount', ['-l', this.mountPoint], UNMOUNT_TIMEOUT_MS);
      this.child.kill('SIGKILL');
    }
    if (mountAt(this.mountPoint)) {
      const plain = await runCommand('umount', [this.mountPoint], UNMOUNT_TIMEOUT_MS);
      if (plain.code !== 0 && mountAt(this.mountPoint)) {
        await runCommand('umount', ['-l', this.mountPoint], UNMOUNT_TIMEOUT_MS);
      }
    }
    await this.stopClient();
    // A client that died leaves a dead mount ("Transport endpoint is not connected"): detach it.
    if (mountAt(this.mountPoint)) await runCommand('umount', ['-l', this.mountPoint], UNMOUNT_TIMEOUT_MS);
    this.child = null;
    // Only once unmounted: a kernel client's last writes go to the server, which flushes them as it stops.
    await this.server?.stop();
    this.server = null;
  }

  /** Waits (bounded) for the client to exit by itself, then SIGTERM, then SIGKILL. */
  private async stopClient(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exitsWithin = (ms: number) => Promise.race([this.childExited.then(() => true), sleep(ms).then(() => false)]);
    if (await exitsWithin(EXIT_WAIT_MS)) return;
    child.kill('SIGTERM');
    if (await exitsWithin(3_000)) return;
    child.kill('SIGKILL');
    if (await exitsWithin(EXIT_WAIT_MS)) return;
    this.connection?.abort();
    await exitsWithin(EXIT_WAIT_MS);
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
    (this.connection ?? FuseConnection.of(this.mountPoint))?.abort();
    const pid = this.child?.pid;
    this.child?.kill('SIGKILL');
    this.server?.killNow();
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
