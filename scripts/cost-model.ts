// Modeled duration and cost of one execution of a profile on AWS (us-east-1 on-demand prices,
// 2026; a model, not a bill). A profile with a measurement (assets/measured/PROFILE.json, written by
// `npm run cost:aws -- --measure PROFILE` from a rehearsal here) is modelled from its measured
// requests, bytes and step times (scripts/cost/measured-model.ts); any other is estimated from its
// steps' parameters (costModel below). `npm run cost:aws -- --help` for usage. The README's
// figures are this script's (test/unit/cost-model.test.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import prices from '../assets/prices.json';
import Table from 'cli-table3';
import { AWS_ASSUMPTIONS, METHODS_REQUESTS, measuredCostModel, sampleOf, type MeasuredCostModel, type Measurement } from './cost/measured-model';
import { DEFAULT_RUNNER_INSTANCE_TYPE, MAX_RUNNERS } from '../lib/instance-types';
import { expandSteps, loadProfile, resolveMatrix } from '../runner/core/matrix';
import { parseSize } from '../runner/core/units';
import { findMethodDescriptor } from '../runner/methods/catalog';
import { notApplicableReason } from '../runner/run/policy';
import { findWorkloadDescriptor } from '../runner/workloads/catalog';
import { CATALOG } from '../runner/catalog';

// S3 request prices come from assets/prices.json, the single source the summary's request cost uses too.
const PRICE = {
  runnerHour: (prices.ec2OnDemandHourly as Record<string, unknown>)[DEFAULT_RUNNER_INSTANCE_TYPE] as number, ipv4Hour: 0.005, putPer1000: prices.s3StandardRequestsPer1000.tier1, getPer1000: prices.s3StandardRequestsPer1000.tier2,
  lambdaGbSecond: 0.0000133334, athenaPerTb: 5, sfnPer1000Transitions: 0.025,
};

/**
 * The model's assumptions for a c7g.large runner (a model, not a measurement: real runs record
 * their own step durations in the results). Network: the instance's baseline bandwidth (0.937
 * Gbit/s, about 110 MiB/s); one S3 request in sequence ~10 ms on a mount (seed 000's s3fs
 * figures); multi-part transfers in 8 MiB parts; every step starts with a mount and a fixture
 * check (~15 s); a mount method runs each step cold and warm (twice); semantics waits on
 * propagation (~1 min).
 */
const ASSUME = { mibPerSecond: 110, requestSeconds: 0.01, partBytes: 8 * 2 ** 20, stepOverheadSeconds: 15, semanticsSeconds: 60 };
/** Boot, SSM online, setup (the s3fs build), teardown, per runner. */
const OVERHEAD_MINUTES = 8;

/** What one pass of a workload does: requests in sequence, bytes moved, objects written. */
interface Activity {
  /** GET-class requests (GET, HEAD). */
  reads: number;
  /** PUT-class requests (PUT, LIST, COPY, multipart parts). */
  writes: number;
  bytes: number;
  /** Requests that run side by side (readers), dividing their time. */
  parallel?: number;
  extraSeconds?: number;
  /** Objects the run writes once as the workload's fixture (reused by every step). */
  fixtureObjects?: number;
  fixtureBytes?: number;
}

const size = (v: unknown) => parseSize(v as string | number);
const sum = (xs: unknown, each = 1) => (Array.isArray(xs) ? xs.reduce((n: number, x) => n + size(x) * each, 0) : 0);
const parts = (bytes: number) => Math.ceil(bytes / ASSUME.partBytes);

/** Per workload: its activity from its parameters (the matrix's, defaults filled in). */
const ACTIVITY: Record<string, (p: Record<string, any>) => Activity> = {
  objects: (p) => { const n = p.sizes.length * p.files; const b = sum(p.sizes, p.files); return { reads: 2 * n + parts(b), writes: 2 * n + parts(b), bytes: 2 * b }; },
  'dir-walk': (p) => ({ reads: p.objects, writes: Math.ceil(p.objects / 1000), bytes: 0, fixtureObjects: p.objects, fixtureBytes: p.objects * size(p.size) }),
  'large-read': (p) => { const b = p.files * size(p.size); return { reads: parts(b), writes: p.files, bytes: b, fixtureObjects: p.files, fixtureBytes: b }; },
  'small-reads': (p) => ({ reads: p.files, writes: 0, bytes: p.files * size(p.size), fixtureObjects: p.files, fixtureBytes: p.files * size(p.size) }),
  'fio-seq': (p) => { const modes = (p.io ?? ['direct']).length; const n = p.sizes.length * p.files * modes; const b = sum(p.sizes, p.files) * modes; return { reads: n + parts(b), writes: n + parts(b), bytes: 2 * b }; },
  semantics: () => ({ reads: 40, writes: 40, bytes: 0, extraSeconds: ASSUME.semanticsSeconds }),
  metadata: (p) => ({ reads: 4 * p.ops, writes: 5 * p.ops, bytes: p.ops * size(p.size) }),
  'git-clone': (p) => ({ reads: 2 * p.files, writes: 2 * p.files, bytes: 0 }),
  'tar-extract': (p) => ({ reads: p.files, writes: p.files + p.dirs, bytes: size(p.totalSize) }),
  'web-serving': (p) => ({ reads: p.reads, writes: 0, bytes: p.reads * size(p.meanSize), parallel: p.readers, fixtureObjects: p.files, fixtureBytes: p.files * size(p.meanSize) }),
  'read-scaling': (p) => { const b = sum(p.sizes, p.filesPerSize) + size(p.concurrentSize) * p.readers.reduce((a: number, r: number) => a + r, 0); const most = Math.max(...p.readers); return { reads: parts(b), writes: 0, bytes: b, fixtureObjects: p.sizes.length * p.filesPerSize + most, fixtureBytes: sum(p.sizes, p.filesPerSize) + most * size(p.concurrentSize) }; },
};

export interface CostModel {
  profile: string;
  runners: number;
  steps: number;
  /** Minutes one runner is up: benchmark steps plus overhead. */
  minutesPerRunner: number;
  /** Dollars by item. */
  items: Record<string, number>;
  total: number;
}

export function costModel(profile: string, runners = 1): CostModel {
  // An estimate from each step's parameters: for profiles without a measurement (assets/measured/).
  const m = resolveMatrix(loadProfile(profile), profile, CATALOG);
  const steps = expandSteps(m);
  let seconds = 0;
  let gets = 0;
  let puts = 0;
  const fixtures = new Map<string, Activity>();
  for (const s of steps) {
    const method = findMethodDescriptor(s.method.name)!;
    if (notApplicableReason(method, findWorkloadDescriptor(s.workload.name)!)) continue; // recorded as not applicable at once
    const estimate = ACTIVITY[s.workload.name];
    if (!estimate) throw new Error(`cost model: no activity estimate for workload ${s.workload.name}: add one to ACTIVITY`);
    const a = estimate(s.workload.params);
    const passes = method.kind === 'mount' ? m.cache.length : 1;
    const requests = a.reads + a.writes;
    seconds += ASSUME.stepOverheadSeconds + passes * ((requests * ASSUME.requestSeconds) / (a.parallel ?? 1) + a.bytes / (ASSUME.mibPerSecond * 2 ** 20) + (a.extraSeconds ?? 0));
    gets += passes * a.reads;
    puts += passes * a.writes;
    fixtures.set(JSON.stringify(s.workload), a);
  }
  for (const a of fixtures.values()) {
    seconds += (a.fixtureObjects ?? 0) * ASSUME.requestSeconds / 16 + (a.fixtureBytes ?? 0) / (ASSUME.mibPerSecond * 2 ** 20);
    puts += a.fixtureObjects ?? 0;
  }
  const minutesPerRunner = seconds / 60 + OVERHEAD_MINUTES;
  const hours = (minutesPerRunner / 60) * runners;
  const lambdaGbSeconds = 2 * 3 * 0.5 * 5; // before+after × 3 repetitions × 0.5 GB × ~5 s
  const athenaTb = 3 * 10e6 / 1e12; // 3 summary queries, each billed at least 10 MB
  const transitions = 40 + steps.length * 12;
  const items = {
    'runner instance hours': hours * (PRICE.runnerHour + PRICE.ipv4Hour),
    'S3 requests': runners * ((puts / 1000) * PRICE.putPer1000 + (gets / 1000) * PRICE.getPer1000),
    'Lambda': lambdaGbSeconds * PRICE.lambdaGbSecond,
    'Athena (10 MB minimum per query)': athenaTb * PRICE.athenaPerTb,
    'Step Functions transitions': (transitions / 1000) * PRICE.sfnPer1000Transitions,
  };
  const total = Object.values(items).reduce((a, b) => a + b, 0);
  return { profile, runners, steps: steps.length, minutesPerRunner, items, total };
}

/** Profiles measured by a rehearsal here, and the divisor of their sample (seed runs a tenth of its counts). */
export const MEASURED_PROFILES: Record<string, number> = { quick: 1, mounts: 1, seed: 10 };
/** The execution's targets for the seed profile (issue 13): wall time and cost. */
export const SEED_TARGET = { minutes: 40, dollars: 0.75 };

export function measurementPath(profile: string): string {
  return join(__dirname, '..', 'assets', 'measured', `${profile}.json`);
}
export function loadMeasurement(profile: string): Measurement | null {
  const path = measurementPath(profile);
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) as Measurement : null;
}

/**
 * The runner count an execution of a measured profile is modelled with: the cheapest that ends
 * within SEED_TARGET.minutes, else the fastest (at most one runner per workload: layout shard).
 */
export function plannedModel(m: Measurement): MeasuredCostModel {
  const workloads = Object.keys(m.matrix.workloads).length;
  const all = Array.from({ length: Math.min(workloads, MAX_RUNNERS) }, (_, i) => measuredCostModel(m, i + 1));
  const fitting = all.filter((c) => c.wallMinutes <= SEED_TARGET.minutes).sort((a, b) => a.total - b.total);
  return fitting[0] ?? [...all].sort((a, b) => a.wallMinutes - b.wallMinutes)[0];
}

const minutes = (x: number) => (x < 60 ? `${Math.round(x)} min` : `${(x / 60).toFixed(1)} h`);
const dollars = (x: number) => `$${x.toFixed(2)}`;
const count = (x: number) => Math.round(x).toLocaleString('en-US');

/** The README's tables: what each measured profile's rehearsal measured here, and the modelled AWS execution of every profile. */
export function costTable(): string {
  const measuredRows: string[] = [];
  const modelRows: string[] = [];
  for (const name of ['quick', 'mounts', 'seed', 'full']) {
    const m = MEASURED_PROFILES[name] ? loadMeasurement(name) : null;
    if (m) {
      const r = m.rehearsal;
      measuredRows.push(`| \`${name}\` | ${m.sampleDivisor > 1 ? `sample: counts ÷ ${m.sampleDivisor}, 1 repetition` : 'the profile'} | ${m.steps.length} | ${minutes(r.wallSeconds / 60)} | ${count(r.requests)} | ${count(r.versionsWritten)} | ${r.polls} | ${count(r.historyEvents)} |`);
      const c = plannedModel(m);
      modelRows.push(`| \`${name}\` | ${c.steps} | ${c.runners} | ${minutes(c.wallMinutes)} | ${dollars(c.items['runner instance hours'])} | ${count(c.requests.total)} | ${dollars(c.items[METHODS_REQUESTS])} | ${dollars(c.executionDollars)} | ${dollars(c.total)} | measured${c.proxied.length ? `; ${[...new Set(c.proxied.map((p) => p.split('/')[0]))].join(', ')} from the other mounts` : ''} |`);
    } else {
      const c = costModel(name);
      modelRows.push(`| \`${name}\` | ${c.steps} | 1 | ${minutes(c.minutesPerRunner)} | ${dollars(c.items['runner instance hours'])} | – | – | – | ${dollars(c.total)} | estimated from parameters (requests ${dollars(c.items['S3 requests'])}, not split) |`);
    }
  }
  return [
    'Measured here (`npm run cost:aws -- --measure PROFILE`: a rehearsal with one runner):',
    '',
    '| profile | rehearsed | steps | wall here | S3 requests | versions written | polls | history events |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...measuredRows,
    '',
    `Modelled on AWS (${DEFAULT_RUNNER_INSTANCE_TYPE} runners, layout shard; the cheapest runner count that ends within ${SEED_TARGET.minutes} min, else the fastest):`,
    '',
    '| profile | steps | runners | wall | instance | S3 requests | the methods\' own requests | the execution\'s own cost | total per execution | figures |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...modelRows,
    ...seedByWorkload(),
  ].join('\n');
}

/** Where the seed execution's time and request cost go, per workload (all its methods and repetitions). */
function seedByWorkload(): string[] {
  const m = loadMeasurement('seed');
  if (!m) return [];
  const c = plannedModel(m);
  const repetitions = resolveMatrix(loadProfile('seed'), 'seed', CATALOG).repetitions;
  const rows = Object.entries(c.byWorkload).map(([name, w]) => `| ${name} | ${w.minutes.toFixed(0)} | ${w.here.toFixed(0)} | ${w.latency.toFixed(0)} | ${w.transfer.toFixed(0)} | ${count(w.requests.total)} | ${count(w.requests.tier1)} | ${dollars(w.methodsDollars)} |`);
  return [
    '',
    `The \`seed\` execution per workload (its steps on one runner: every method, ${repetitions} repetitions; minutes of steps, then where they come from):`,
    '',
    '| workload | step minutes | as measured here | AWS request latency | AWS transfer | S3 requests | of them tier 1 | the methods\' own request cost |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ];
}

export const README_MARKERS = ['<!-- cost-model: generated by `npm run cost:aws -- --readme`; do not edit -->', '<!-- /cost-model -->'] as const;

/**
 * Rehearses `profile` (or its sample) with one runner and keeps what the model needs. Commands are
 * checked every 30 s as on AWS: the definition bounds a runner's checks by count, sized for that
 * wait, and the polls and history events are then the execution's.
 */
async function measure(profile: string): Promise<Measurement> {
  const divisor = MEASURED_PROFILES[profile];
  if (!divisor) throw new Error(`--measure ${profile}: give one of ${Object.keys(MEASURED_PROFILES).join(', ')}`);
  const { $schema: _schema, ...json } = JSON.parse(readFileSync(join(__dirname, '..', 'assets', 'profiles', `${profile}.json`), 'utf8'));
  const matrix = divisor > 1 ? sampleOf(json, divisor) : json;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { rehearse } = require('./rehearsal/rehearse') as typeof import('./rehearsal/rehearse');
  const r = await rehearse({ input: { matrix, runners: [{ instanceType: DEFAULT_RUNNER_INSTANCE_TYPE, count: 1 }], layout: 'shard', lambdas: { documents: 5, repetitions: 1 } }, pollSeconds: AWS_ASSUMPTIONS.pollSeconds, serverOnDisk: true, log: (l) => console.error(l) });
  if (r.status !== 'SUCCEEDED' || !r.measured) throw new Error(`the rehearsal of ${profile} did not succeed: ${r.error?.name}: ${r.error?.message}`);
  return {
    profile, matrix, sampleDivisor: divisor, measuredAt: new Date().toISOString(), host: `${os.cpus().length} vCPU ${os.cpus()[0]?.model ?? ''}`.trim(),
    rehearsal: { wallSeconds: Math.round(r.wallMs / 100) / 10, requests: r.s3.requests, versionsWritten: r.s3.versionsCreated, polls: r.polls, historyEvents: r.historyEvents },
    steps: r.measured.steps, preparation: r.measured.preparation,
  };
}

function print(c: MeasuredCostModel): void {
  console.log(`profile ${c.profile}: ${c.steps} steps on ${c.runners} ${c.runnerType} runner(s), layout shard: ~${minutes(c.wallMinutes)} wall; runners up ${c.runnerMinutes.map((x) => Math.round(x)).join(', ')} min`);
  console.log(`  S3 requests ${count(c.requests.total)} (tier 1 ${count(c.requests.tier1)}, tier 2 ${count(c.requests.tier2)}, free ${count(c.requests.free)}), of which the measured methods' own ${count(c.methodsRequests.total)}; ${count(c.versionsWritten)} versions written, teardown ~${Math.round(c.teardownSeconds)} s`);
  if (c.proxied.length) console.log(`  not measurable here, modelled from the other mounts of their workload: ${c.proxied.join(', ')}`);
  const t = new Table({ head: ['workload', 'step minutes', 'as measured here', 'AWS request latency', 'AWS transfer', 'S3 requests', "methods' request cost"], style: { head: [], border: [] } });
  for (const [name, w] of Object.entries(c.byWorkload)) t.push([name, w.minutes.toFixed(1), w.here.toFixed(1), w.latency.toFixed(1), w.transfer.toFixed(1), count(w.requests.total), `$${w.methodsDollars.toFixed(3)}`]);
  console.log(t.toString());
  for (const [k, v] of Object.entries(c.items)) console.log(`  ${k.padEnd(58)} $${v.toFixed(4)}`);
  console.log(`  ${'the execution\'s own cost (all but the methods\' requests)'.padEnd(58)} $${c.executionDollars.toFixed(2)}`);
  console.log(`  ${'total per execution'.padEnd(58)} $${c.total.toFixed(2)}`);
  console.log(`  assumptions: ${JSON.stringify(AWS_ASSUMPTIONS)}; link: the ${c.runnerType} baseline (assets/instance-network.json)`);
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { readme: { type: 'boolean' }, measure: { type: 'string' }, runners: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    console.log([
      'usage: npm run cost:aws -- [PROFILE] [--runners N]   the modelled AWS execution (default seed)',
      '       npm run cost:aws -- --measure PROFILE         rehearse PROFILE here (seed: its sample) and write assets/measured/PROFILE.json',
      '       npm run cost:aws -- --readme                  regenerate the README\'s cost tables',
    ].join('\n'));
  } else if (values.measure) {
    measure(values.measure).then((m) => {
      mkdirSync(dirname(measurementPath(values.measure!)), { recursive: true });
      writeFileSync(measurementPath(values.measure!), `${JSON.stringify(m, null, 1)}\n`);
      console.log(`${measurementPath(values.measure!)}: ${m.steps.length} steps measured in ${m.rehearsal.wallSeconds} s`);
      print(plannedModel(m));
    }).catch((err) => { console.error(`cost:aws --measure failed: ${(err as Error).message}`); process.exitCode = 1; });
  } else if (values.readme) {
    const path = join(__dirname, '..', 'README.md');
    const text = readFileSync(path, 'utf8');
    const [open, close] = README_MARKERS;
    const from = text.indexOf(open);
    const to = text.indexOf(close);
    if (from < 0 || to < from) throw new Error(`README.md has no ${open} … ${close} block`);
    writeFileSync(path, `${text.slice(0, from + open.length)}\n${costTable()}\n${text.slice(to)}`);
    console.log('README.md: cost tables updated');
  } else {
    const profile = positionals[0] ?? 'seed';
    const m = loadMeasurement(profile);
    if (m) print(values.runners ? measuredCostModel(m, Number(values.runners)) : plannedModel(m));
    else {
      const c = costModel(profile, Number(values.runners ?? 1));
      console.log(`profile ${c.profile}: ${c.steps} steps × ${c.runners} runner(s) ${DEFAULT_RUNNER_INSTANCE_TYPE}, ~${Math.round(c.minutesPerRunner)} min per runner (estimated from parameters: no measurement in assets/measured/)`);
      for (const [k, v] of Object.entries(c.items)) console.log(`  ${k.padEnd(34)} $${v.toFixed(4)}`);
      console.log(`  ${'total per execution'.padEnd(34)} $${c.total.toFixed(2)}`);
    }
  }
}
