import { ChildProcess, spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import type { MountServer } from './mount';

const READY_TIMEOUT_MS = 30_000;
/** A server flushes its writes to the bucket when asked to stop (ZeroFS on SIGTERM): give it time. */
const STOP_TIMEOUT_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP port free on the loopback interface now (the kernel's choice), for a server started next. */
export function freeLoopbackPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      probe.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => { socket.destroy(); resolve(ok); };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1_000, () => done(false));
  });
}

/**
 * One run of a file-system server that a kernel client mounts from (the plan's `server`): started
 * with its secrets in its environment only, ready when its port accepts a connection, watched so
 * that its exit while in use fails the step with its last log line, stopped with SIGTERM (a clean
 * shutdown flushes its writes) and then SIGKILL.
 */
export class ServerProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private logTail = '';
  private stopping = false;

  private constructor(private readonly plan: MountServer, private readonly onExit: (why: string) => void) {}

  /** Starts the server and resolves once it accepts connections; throws with its own last words when it exits first or never listens. */
  static async start(plan: MountServer, onExit: (why: string) => void, signal?: AbortSignal): Promise<ServerProcess> {
    const server = new ServerProcess(plan, onExit);
    server.spawn();
    try {
      await server.waitUntilListening(signal);
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  /** Its most telling recent log line: the last that reads like an error, else the last. */
  private lastLogLine(): string {
    const lines = this.logTail.trim().split('\n').map((l) => l.trim()).filter(Boolean);
    const telling = lines.filter((l) => /error|fail|invalid|denied|refused|cannot|unable|fatal|panic/i.test(l));
    return (telling.pop() ?? lines.pop() ?? '').slice(0, 300);
  }

  private spawn(): void {
    const env = { ...process.env };
    for (const [k, v] of Object.entries(this.plan.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = spawn(this.plan.command, this.plan.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (chunk: Buffer) => { this.logTail = (this.logTail + chunk.toString()).slice(-4000); };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => {
      child.once('error', (err) => { keep(Buffer.from(`\n${err.message}\n`)); resolve(); });
      child.once('exit', (code, sig) => {
        if (!this.stopping) this.onExit(`${this.plan.what} (pid ${child.pid}) exited (${sig ? `signal ${sig}` : `code ${code}`})${this.lastLogLine() ? `: ${this.lastLogLine()}` : ''}`);
        resolve();
      });
    });
  }

  private running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  private async waitUntilListening(signal?: AbortSignal): Promise<void> {
    const { host, port } = this.plan.listens;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
      if (!this.running()) {
        await this.exited;
        throw new Error(`${this.plan.what} did not start: ${this.lastLogLine() || `exit code ${this.child?.exitCode}`}`);
      }
      if (await accepts(host, port)) return;
      if (signal?.aborted) throw signal.reason;
      if (Date.now() > deadline) throw new Error(`${this.plan.what} did not listen on ${host}:${port} within ${READY_TIMEOUT_MS / 1000} s${this.lastLogLine() ? `: ${this.lastLogLine()}` : ''}`);
      await sleep(delay);
    }
  }

  /** SIGTERM, a bounded wait for its clean shutdown, then SIGKILL. Safe to call twice. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (!this.running()) return;
    const exitsWithin = (ms: number) => Promise.race([this.exited.then(() => true), sleep(ms).then(() => false)]);
    this.child!.kill('SIGTERM');
    if (await exitsWithin(STOP_TIMEOUT_MS)) return;
    this.child!.kill('SIGKILL');
    await exitsWithin(5_000);
  }

  /** For an exit that cannot wait. */
  killNow(): void {
    this.stopping = true;
    if (this.running()) this.child!.kill('SIGKILL');
  }
}
