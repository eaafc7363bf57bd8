import { CreateBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { onCleanup, onEmergencyExit } from '../core/cleanup';
import { UserError } from '../core/errors';
import { projectRoot, which } from '../core/paths';
import { memoryBackedTmp } from '../core/tmp';
import { makeS3Client } from './s3-client';
import type { StoreTarget } from '../core/target';

const BUCKET = 's3ab-bench';
const READY_TIMEOUT_MS = 15_000;

export interface EmbeddedEndpoint {
  target: StoreTarget;
  /** Resolves when the server exits for any reason; `stopping` tells whether we asked it to. */
  exited: Promise<{ code: number | null; signal: string | null; stopping: boolean; logTail: string }>;
  pid: number;
  /** The server's access log (S3 server-access-log fields, one line per answered request). */
  accessLog: string;
  stop(): Promise<void>;
}

/** Where versitygw is: $S3AB_VERSITYGW, the project's .tools/bin, or PATH. */
function findVersitygw(): { path: string; version: string } | null {
  const candidates = [
    process.env.S3AB_VERSITYGW,
    join(projectRoot(), '.tools', 'bin', 'versitygw'),
    ...which('versitygw'),
  ].filter((p): p is string => !!p && existsSync(p));
  if (!candidates.length) return null;
  const path = candidates[0];
  const versionFile = `${path}.version`;
  const version = existsSync(versionFile) ? readFileSync(versionFile, 'utf8').trim() : 'unknown version';
  return { path, version };
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Creates the server's data, versions and (with extra accounts) IAM folders; returns the IAM arguments. */
async function prepareServerDir(dir: string, accounts: { accessKeyId: string; secretAccessKey: string }[]): Promise<string[]> {
  await mkdir(join(dir, 'data'));
  await mkdir(join(dir, 'versions'));
  if (!accounts.length) return [];
  await mkdir(join(dir, 'iam'));
  const accessAccounts = Object.fromEntries(accounts.map((a) => [a.accessKeyId, { access: a.accessKeyId, secret: a.secretAccessKey, role: 'admin', userID: 0, groupID: 0, projectID: 0 }]));
  await writeFile(join(dir, 'iam', 'users.json'), JSON.stringify({ accessAccounts }));
  return ['--iam-dir', join(dir, 'iam')];
}

type ServerExit = { code: number | null; signal: string | null; stopping: boolean; logTail: string };

/** Starts versitygw on `port`, keeping the tail of its output; `stop` ends it and waits for its exit. */
function spawnVersitygw(binary: string, credentials: { accessKeyId: string; secretAccessKey: string }, port: number, dir: string, iam: string[]): { child: ChildProcess; exited: Promise<ServerExit>; stop: () => Promise<void> } {
  const child = spawn(
    binary,
    ['--access', credentials.accessKeyId, '--secret', credentials.secretAccessKey, '--port', `127.0.0.1:${port}`, '--quiet',
      // Every request the server answers, in S3's server-access-log fields: the runner counts each measurement's requests from it.
      '--access-log', join(dir, 'access.log'), ...iam,
      // S3 keeps connections alive; versitygw closes each one after its response unless told
      // otherwise, which would make every local figure pay a TCP set-up per request.
      '--keep-alive',
      'posix', '--versioning-dir', join(dir, 'versions'), join(dir, 'data')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let logTail = '';
  const keep = (chunk: Buffer) => { logTail = (logTail + chunk.toString()).slice(-4000); };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let stopping = false;
  const exited = new Promise<ServerExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, stopping, logTail }));
    child.once('error', (err) => { keep(Buffer.from(String(err))); resolve({ code: null, signal: null, stopping, logTail }); });
  });
  const stop = async () => {
    stopping = true;
    await stopChild(child, exited);
  };
  return { child, exited, stop };
}

/** The server's data folder, removed on every path: by remove(), as a cleanup step, and on a forced exit. */
interface ServerDataDir {
  dir: string;
  remove(): Promise<void>;
}

async function serverDataDir(baseDir: string | undefined): Promise<ServerDataDir> {
  const dir = await mkdtemp(join(baseDir ?? memoryBackedTmp(), 's3ab-versitygw-'));
  const removeDir = onCleanup('embedded server data', () => rm(dir, { recursive: true, force: true }));
  // The data folder (GBs of RAM with the seed profile) goes on every path, a forced exit included —
  // also when the server has already exited (a Ctrl-C to the terminal reaches it first).
  const removeDirNow = onEmergencyExit(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    async remove() {
      removeDir();
      await rm(dir, { recursive: true, force: true });
      removeDirNow();
    },
  };
}

/** One try on a free loopback port: the server ready with its bucket, or why not (the port taken by another process meanwhile). */
async function startOnFreePort(
  binary: { path: string; version: string }, credentials: { accessKeyId: string; secretAccessKey: string }, data: ServerDataDir, iam: string[], log: (msg: string) => void,
): Promise<{ endpoint: EmbeddedEndpoint } | { error: Error; portTaken: boolean }> {
  const { dir } = data;
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const { child, exited, stop } = spawnVersitygw(binary.path, credentials, port, dir, iam);
  const unregisterStop = onCleanup(`embedded server (pid ${child.pid})`, stop);
  // A second Ctrl-C exits at once: the server must not outlive the runner even then.
  const unregisterKill = onEmergencyExit(() => child.kill('SIGKILL'));
  void exited.then(() => unregisterKill());
  const target: StoreTarget = {
    kind: 'embedded', endpointUrl: url, region: 'us-east-1', bucket: BUCKET, credentials,
    forcePathStyle: true, server: `versitygw ${binary.version} (posix backend in ${dir.startsWith('/dev/shm') ? 'RAM' : dirname(dir)})`,
  };
  const client = makeS3Client(target, { maxSockets: 2 });
  try {
    await waitUntilReady(client, exited);
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    client.destroy();
    log(`embedded versitygw ${binary.version} ready at ${url} (pid ${child.pid})`);
    return {
      endpoint: {
        target, exited, pid: child.pid!, accessLog: join(dir, 'access.log'),
        stop: async () => {
          unregisterStop();
          await stop();
          await data.remove();
        },
      },
    };
  } catch (err) {
    client.destroy();
    unregisterStop();
    await stop();
    const result = await exited;
    return { error: err as Error, portTaken: /address already in use/i.test(result.logTail) };
  }
}

/**
 * Starts versitygw (posix backend with a versioning directory) on a free loopback port with fresh
 * random credentials and a temporary data directory; creates the benchmark bucket. The server and
 * its directory are removed by stop(), which is also registered as a cleanup step.
 */
export async function startEmbeddedEndpoint(log: (msg: string) => void = () => {}, opts: {
  /** Where its data folder goes. @default memoryBackedTmp() (a RAM disk where there is one) */
  baseDir?: string;
  /**
   * More accounts besides the root one, each with its own key (versitygw's internal IAM, admin
   * role: it allows them everything; the access log names each request's key). @default none
   */
  accounts?: { accessKeyId: string; secretAccessKey: string }[];
} = {}): Promise<EmbeddedEndpoint> {
  const binary = findVersitygw();
  if (!binary) {
    throw new UserError(
      'the embedded S3 server (versitygw) is not installed on this host',
      'run `npm run setup` (it installs versitygw with `go install`), set S3AB_VERSITYGW=/path/to/versitygw, or name an endpoint with --endpoint URL --bucket NAME',
    );
  }
  const data = await serverDataDir(opts.baseDir);
  const iam = await prepareServerDir(data.dir, opts.accounts ?? []);
  const credentials = { accessKeyId: `s3ab${randomBytes(8).toString('hex')}`, secretAccessKey: randomBytes(24).toString('base64url') };
  let lastError: Error | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const started = await startOnFreePort(binary, credentials, data, iam, log);
    if ('endpoint' in started) return started.endpoint;
    lastError = started.error;
    // A lost race for the port: try another one.
    if (!started.portTaken) break;
  }
  await data.remove();
  throw new UserError(
    `the embedded S3 server did not start: ${lastError?.message ?? 'unknown error'}`,
    `run \`${binary.path} --version\` to check the binary, or reinstall it with \`npm run setup\``,
  );
}

async function waitUntilReady(client: S3Client, exited: Promise<{ code: number | null; logTail: string }>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let gone: { code: number | null; logTail: string } | null = null;
  void exited.then((r) => { gone = r; });
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    if (gone) throw new Error(`versitygw exited with code ${(gone as { code: number | null }).code}: ${(gone as { logTail: string }).logTail.trim().split('\n').pop()}`);
    try {
      await client.send(new ListBucketsCommand({}));
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`not ready after ${READY_TIMEOUT_MS / 1000} s: ${(err as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. */
async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}
