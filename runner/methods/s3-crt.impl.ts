import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { findBinary, once, toolsBin, versionOutput } from '../core/binaries';
import { onEmergencyExit } from '../core/cleanup';
import { fileDigest } from '../core/data';
import type { Availability, Fetched, ListedObject, MethodDefinition, OpenContext, Options, StorageSession } from '../core/method';
import { excludeFromTiming } from '../core/op-timing';
import { nowNs } from '../core/stats';
import { formatSize, parseSize } from '../core/units';
import { INSTALL } from '../core/install';
import { hostFacts } from '../core/host';
import { instanceBandwidth } from '../endpoint/link-limit';
import { s3CrtDescriptor } from './s3-crt';

/** The default variant: an option a matrix leaves out takes its value from it. */
const DEFAULTS = s3CrtDescriptor.variants.default;

/** The client's name in .tools/bin (assets/install.json builds it from crates/s3-crt-client). */
export const CRT_CLIENT_BIN = 's3ab-s3-crt';
/** Its component in assets/install.json. */
const CRT_CLIENT_COMPONENT = 's3-crt-client';

const BUILD_MINUTES = Math.round((INSTALL.components[CRT_CLIENT_COMPONENT] as unknown as { estimateSeconds: number }).estimateSeconds / 60);
const INSTALL_HINT = `\`npm run setup -- s3-crt\` builds it into .tools/bin with cargo (about ${BUILD_MINUTES} min on 2 cores the first time, less beside a Mountpoint build; needs cmake and clang), or set S3AB_S3_CRT=/path/to/s3ab-s3-crt`;

/** The compiled client and its version (crates/s3-crt-client: aws-c-s3 through mountpoint-s3-client). */
const probeCrt = once(async (): Promise<Availability> => {
  const binary = findBinary('S3AB_S3_CRT', [CRT_CLIENT_BIN, toolsBin(CRT_CLIENT_BIN)]);
  if (!binary) {
    return { available: false, reason: process.env.S3AB_S3_CRT
      ? `S3AB_S3_CRT=${process.env.S3AB_S3_CRT} does not exist: point it at the s3ab-s3-crt binary, or unset it`
      : `the s3-crt client is not built: ${INSTALL_HINT}` };
  }
  const out = (await versionOutput(binary, ['--version'])) ?? '';
  const version = /"version":\s*"([^"]+)"/.exec(out)?.[1];
  if (!version) return { available: false, reason: `${binary} --version did not answer like the s3-crt client (${out.split('\n')[0] || 'no output'}): ${INSTALL_HINT}` };
  return { available: true, version, path: binary };
});

/**
 * glibc malloc settings of the client process with option `malloc: retain`: one arena, no mmap'd
 * chunks and no trimming, so the memory the CRT's buffer pool frees (its 128 MiB blocks, 5 s after
 * the client goes idle, and while a GET waits for its parts) stays in the process and the next
 * request reuses it instead of faulting fresh pages in (docs/performance.md, bench:transfer). The same idea as
 * Mountpoint's own memory pool; the CRT's memory limit still bounds what it holds.
 */
export const GLIBC_RETAIN = 'glibc.malloc.arena_max=1:glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736';

/**
 * A size option, with one keyword for 0 (the CRT's own behaviour) where it has one: `text` parsed,
 * within 4 KiB and `max`, else an error naming the option and what it takes.
 */
function sizeOrKeyword(option: string, value: unknown, fallback: string, keyword: string | null, max: { bytes: number; label: string }): number {
  const text = String(value ?? fallback);
  if (keyword !== null && text === keyword) return 0;
  const bytes = parseSize(text);
  if (!(bytes >= 4096 && bytes <= max.bytes)) throw new Error(`s3-crt option ${option} must be ${keyword === null ? '' : `${keyword} or `}a size from 4KiB to ${max.label}, not ${text}`);
  return bytes;
}

/** Bytes per pwrite of a GET's body into its file: `part` (the default) writes each delivered part whole, in one pwrite. */
export function crtWriteSize(value: unknown, partSize: number): number {
  if (String(value ?? DEFAULTS.write_size) === 'part') return partSize;
  return sizeOrKeyword('write_size', value, DEFAULTS.write_size, 'part', { bytes: 64 * 1024 * 1024, label: '64MiB' }) || partSize;
}

/** The CRT's memory limit in bytes; 0 = `default` (aws-c-s3 sets its own from the target throughput). */
export function crtMemoryLimit(value: unknown): number {
  return sizeOrKeyword('memory_limit', value, DEFAULTS.memory_limit, 'default', { bytes: 1024 * 1024 * 1024 * 1024, label: '1TiB' });
}

/** Mountpoint's target throughput off EC2, and on an instance type it has no figure for. */
const CRT_DEFAULT_TARGET_GBPS = 10;

/**
 * The CRT's target throughput in Gbit/s: a number, or `auto` as Mountpoint resolves it: the EC2
 * instance type's bandwidth (its "up to" figure, assets/instance-network.json), else 10 Gbps.
 * Returns the figure and where it came from (recorded with the results).
 */
export function crtTargetThroughput(value: unknown, instanceType: string): { gbps: number; source: string } {
  const text = String(value ?? DEFAULTS.target_throughput_gbps);
  if (text === 'auto') {
    const bw = instanceType === 'local' ? null : instanceBandwidth(instanceType);
    if (bw) return { gbps: bw.burstGbps, source: `instance type ${instanceType}'s bandwidth (assets/instance-network.json)` };
    return { gbps: CRT_DEFAULT_TARGET_GBPS, source: instanceType === 'local' ? 'not on EC2: the 10 Gbps default' : `instance type ${instanceType} is not in assets/instance-network.json: the 10 Gbps default` };
  }
  const gbps = Number(text);
  if (!(gbps > 0 && gbps <= 3200)) throw new Error(`s3-crt option target_throughput_gbps must be auto or a number of Gbit/s above 0, not ${text}`);
  return { gbps, source: 'set by the variant' };
}

/**
 * The CRT's network event-loop threads: a count, 0 (the CRT's default: one per CPU) or `N/cpu`
 * (N per CPU). More threads than cores keep the client's share of two cores it shares with the
 * server and other work (docs/performance.md, bench:transfer); each thread serves fewer of the connections.
 */
export function crtEventLoopThreads(value: unknown, cpus: number): number {
  const text = String(value ?? 0);
  const perCpu = /^(\d+)\/cpu$/.exec(text);
  const n = perCpu ? Number(perCpu[1]) * cpus : Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 256) throw new Error(`s3-crt option event_loop_threads must be a count (0: one per CPU) or N/cpu, not ${text}`);
  return n;
}

/**
 * Bytes per socket read and channel message (aws-c-io's g_aws_channel_max_fragment_size, which the
 * client sets before it connects); 0 = `default` (the CRT's 16 KiB). See crates/s3-crt-client.
 */
export function crtSocketReadSize(value: unknown): number {
  return sizeOrKeyword('socket_read_size', value, DEFAULTS.socket_read_size, 'default', { bytes: 16 * 1024 * 1024, label: '16MiB' });
}

/** `retain` (GLIBC_RETAIN in the client's environment) or `system` (glibc's defaults). */
export function crtMalloc(value: unknown): 'retain' | 'system' {
  const text = String(value ?? DEFAULTS.malloc);
  if (text !== 'retain' && text !== 'system') throw new Error(`s3-crt option malloc must be retain or system, not ${text}`);
  return text;
}

/** The s3-crt method's client: one long-lived client process per session (crates/s3-crt-client). */
export const s3Crt: MethodDefinition = {
  ...s3CrtDescriptor,
  probe: probeCrt,
  async open(ctx: OpenContext): Promise<StorageSession> {
    const probe = await probeCrt();
    if (!probe.available) throw new Error(probe.reason);
    return CrtSession.start(probe.path!, probe.version!, ctx);
  },
};

interface Reply {
  id: number;
  ok: boolean;
  latency_ns: number;
  bytes: number;
  entries?: [string, number][];
  error?: string;
}

interface Pending {
  resolve: (r: Reply) => void;
  reject: (e: Error) => void;
}

class CrtSession implements StorageSession {
  private nextId = 1;
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  private exited: Error | null = null;
  private stderrTail = '';
  private readonly exitPromise: Promise<void>;
  private readonly onAbort: () => void;
  private readonly dropEmergency: () => void;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly version: string,
    readonly options: Options,
    private readonly ctx: OpenContext,
  ) {
    this.exitPromise = new Promise((resolve) => child.once('close', () => resolve()));
    this.onAbort = () => this.kill(new Error(`s3-crt: aborted (${String(ctx.signal.reason ?? 'signal')})`));
    ctx.signal.addEventListener('abort', this.onAbort, { once: true });
    // A second Ctrl-C exits at once: the client must not outlive the runner.
    this.dropEmergency = onEmergencyExit(() => { child.kill('SIGKILL'); });
  }

  static async start(binary: string, version: string, ctx: OpenContext): Promise<CrtSession> {
    const command = clientCommand(ctx);
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const child = spawn(binary, command.args, { env: command.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = createInterface({ input: child.stdout });
    const stderr = { tail: '' };
    child.stderr.on('data', (c: Buffer) => { stderr.tail = (stderr.tail + c.toString()).slice(-4000); });
    const ready = await awaitReady(child, lines, binary, stderr);
    const largeBlocks = String(ready.config.large_blocks ?? 'unknown');
    // 'unknown': no mallinfo2 (glibc < 2.33) to check with; the settings are still given.
    if (command.malloc === 'retain' && largeBlocks === 'mmap') {
      child.kill('SIGKILL');
      throw new Error(`s3-crt option malloc: retain needs glibc's malloc (GLIBC_TUNABLES), but the client's large blocks are still mmap'd: use malloc: system`);
    }
    const session = new CrtSession(child, ready.version ?? version, recordedOptions(ctx.options, ready.config, command, largeBlocks), ctx);
    session.stderrTail = stderr.tail;
    child.stderr.on('data', (c: Buffer) => { session.stderrTail = (session.stderrTail + c.toString()).slice(-4000); });
    lines.on('line', (line) => session.onLine(line));
    child.once('close', (code, sig) => session.onExit(code, sig));
    child.stdin.on('error', () => { /* the close handler reports the exit */ });
    return session;
  }

  /** The client process (benchmarks read its CPU time from /proc). */
  get clientPid(): number | undefined {
    return this.child.pid;
  }

  private onLine(line: string): void {
    let msg: Reply;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    p.resolve(msg);
  }

  private onExit(code: number | null, sig: NodeJS.Signals | null): void {
    this.ctx.signal.removeEventListener('abort', this.onAbort);
    this.dropEmergency();
    if (!this.exited) {
      // Died on its own (not closed, not aborted): the step cannot go on, as with a mount's client.
      this.exited = new Error(`s3-crt client exited (${sig ?? `code ${code}`}): ${lastLine(this.stderrTail)}`);
      this.ctx.abortStep?.(this.exited);
    }
    for (const p of this.pending.values()) p.reject(this.exited);
    this.pending.clear();
  }

  private kill(reason: Error): void {
    this.exited ??= reason;
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      setTimeout(() => { if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL'); }, 2000).unref();
    }
  }

  /**
   * One request; resolves with the client's reply (rejects when it failed). The round trip beyond
   * the client's own CRT latency is the protocol's: taken out of the operation's time.
   */
  private async call(req: Record<string, unknown>, what: string): Promise<Reply> {
    if (this.exited) throw this.exited;
    const id = this.nextId++;
    const t0 = nowNs();
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ id, ...req })}\n`);
    });
    excludeFromTiming(nowNs() - t0 - BigInt(reply.latency_ns ?? 0));
    if (!reply.ok) throw new Error(`s3-crt ${what} failed: ${reply.error}`);
    return reply;
  }

  async put(key: string, file: { path: string; size: number }): Promise<void> {
    await this.call({ op: 'put', key, path: file.path, size: file.size }, `PUT ${key}`);
  }

  /** The CRT writes the object into a scratch file itself; hashed afterwards, untimed. */
  async get(key: string): Promise<Fetched> {
    const path = join(this.ctx.scratchDir, `download-${this.seq++}`);
    try {
      const reply = await this.call({ op: 'get', key, path }, `GET ${key}`);
      return { bytes: reply.bytes, digest: () => fileDigest(path), discard: () => rm(path, { force: true }) };
    } catch (err) {
      await rm(path, { force: true });
      throw err;
    }
  }

  async list(prefix: string): Promise<ListedObject[]> {
    const reply = await this.call({ op: 'list', key: prefix }, `LIST ${prefix}`);
    return (reply.entries ?? []).map(([key, size]) => ({ key, size }));
  }

  async head(key: string): Promise<{ size: number }> {
    const reply = await this.call({ op: 'head', key }, `HEAD ${key}`);
    return { size: reply.bytes };
  }

  async delete(key: string): Promise<void> {
    await this.call({ op: 'delete', key }, `DELETE ${key}`);
  }

  /** Ends the client: stdin closed (it finishes what is in flight), then SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    this.ctx.signal.removeEventListener('abort', this.onAbort);
    this.exited ??= new Error('s3-crt: session closed');
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.kill(new Error('s3-crt: closed')), 5000);
      await this.exitPromise;
      clearTimeout(timer);
    }
  }
}

function lastLine(text: string): string {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).pop() ?? 'no output';
}

/** The client's command line and environment from the session's options; credentials go in the environment only. */
function clientCommand(ctx: OpenContext): {
  args: string[]; env: NodeJS.ProcessEnv; malloc: ReturnType<typeof crtMalloc>; eventLoopThreads: number; writeSize: number; memoryLimit: number;
  target: ReturnType<typeof crtTargetThroughput>;
} {
  const o = ctx.options;
  const partSize = parseSize(String(o.part_size ?? '8MiB'));
  if (!(partSize >= 5 * 1024 * 1024)) throw new Error('s3-crt option part_size must be at least 5MiB (the S3 minimum)');
  const memoryLimit = crtMemoryLimit(o.memory_limit);
  const writeSize = crtWriteSize(o.write_size, partSize);
  const target = crtTargetThroughput(o.target_throughput_gbps, hostFacts().instance_type);
  const socketReadSize = crtSocketReadSize(o.socket_read_size);
  const malloc = crtMalloc(o.malloc);
  const eventLoopThreads = crtEventLoopThreads(o.event_loop_threads, availableParallelism());
  const t = ctx.target;
  const args = [
    '--region', t.region, '--bucket', t.bucket, '--part-size', String(partSize),
    '--target-gbps', String(target.gbps), '--memory-limit', String(memoryLimit), '--event-loop-threads', String(eventLoopThreads),
    '--checksum', String(o.checksum ?? DEFAULTS.checksum), '--write-size', String(writeSize), '--socket-read-size', String(socketReadSize),
    ...(t.endpointUrl ? ['--endpoint', t.endpointUrl] : []), ...(t.forcePathStyle ? ['--path-style'] : []),
  ];
  // Credentials in the environment only, never on the command line.
  const extra: NodeJS.ProcessEnv = { AWS_EC2_METADATA_DISABLED: t.credentials ? 'true' : process.env.AWS_EC2_METADATA_DISABLED };
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (malloc === 'retain') env.GLIBC_TUNABLES = [process.env.GLIBC_TUNABLES, GLIBC_RETAIN].filter(Boolean).join(':');
  if (t.credentials) {
    env.AWS_ACCESS_KEY_ID = t.credentials.accessKeyId;
    env.AWS_SECRET_ACCESS_KEY = t.credentials.secretAccessKey;
    delete env.AWS_SESSION_TOKEN;
    delete env.AWS_PROFILE;
  }
  return { args, env, malloc, eventLoopThreads, writeSize, memoryLimit, target };
}

interface Ready {
  version: string;
  config: Record<string, unknown>;
}

/** The client's first line: ready, with its version and the settings in effect, within 30 s; else why not. */
function awaitReady(child: ChildProcessWithoutNullStreams, lines: Interface, binary: string, stderr: { tail: string }): Promise<Ready> {
  return new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`s3-crt client did not start within 30 s: ${lastLine(stderr.tail)}`)); }, 30_000);
    const fail = (e: Error) => { clearTimeout(timer); lines.removeAllListeners('line'); reject(e); };
    child.once('error', (e) => fail(new Error(`s3-crt: cannot start ${binary}: ${e.message}`)));
    child.once('close', (code) => fail(new Error(`s3-crt client exited (code ${code}) before it was ready: ${lastLine(stderr.tail)}`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      child.removeAllListeners('close');
      child.removeAllListeners('error');
      try {
        const msg = JSON.parse(line);
        if (msg.ready) return resolve(msg);
        child.kill('SIGKILL');
        reject(new Error(`s3-crt client could not start: ${msg.error ?? line}`));
      } catch {
        child.kill('SIGKILL');
        reject(new Error(`s3-crt client said ${line.slice(0, 200)} (${lastLine(stderr.tail)})`));
      }
    });
  });
}

/** The options the records carry: what was asked, and what the client process has in effect. */
function recordedOptions(o: Options, config: Ready['config'], command: ReturnType<typeof clientCommand>, largeBlocks: string): Options {
  const { malloc } = command;
  const writeSize = String(o.write_size ?? DEFAULTS.write_size);
  return {
    ...o, part_size: String(o.part_size ?? '8MiB'), multipart_threshold: String(o.part_size ?? '8MiB'),
    target_throughput_gbps: String(o.target_throughput_gbps ?? DEFAULTS.target_throughput_gbps),
    target_throughput_gbps_resolved: Number(config.target_gbps ?? command.target.gbps), target_throughput_source: command.target.source,
    memory_limit: String(o.memory_limit ?? DEFAULTS.memory_limit),
    memory_limit_resolved: command.memoryLimit ? formatSize(command.memoryLimit) : 'the CRT\'s default, from the target throughput',
    event_loop_threads: Number(config.event_loop_threads ?? command.eventLoopThreads),
    event_loop_threads_setting: String(o.event_loop_threads ?? DEFAULTS.event_loop_threads),
    write_size: writeSize, malloc,
    file_io: `PUT: up to one part, one PutObject of the file's bytes; above, the file read in part-size pieces into the CRT's multipart upload; GET: each part's buffer, as the CRT delivers it, written at its offset ${writeSize === 'part' ? 'in one pwrite' : `in pwrites of ${writeSize}`}`,
    ...(malloc === 'retain' ? { glibc_tunables: GLIBC_RETAIN } : {}), malloc_large_blocks: largeBlocks,
    client_process: 'one per session',
    // What the client process has in effect, and why not what was asked where it could not set it.
    socket_read_size: config.socket_read_size ? formatSize(Number(config.socket_read_size)) : 'unknown',
    ...(config.socket_read_problem ? { socket_read_problem: String(config.socket_read_problem) } : {}),
  };
}
