// Modeled duration and cost of one execution of a profile on AWS (us-east-1 on-demand prices,
// 2026; a model, not a bill): runner instance hours incl. setup, S3 requests, Lambda, Athena bytes
// scanned, Step Functions transitions. Usage: npx tsx scripts/cost-model.ts [profile] [runners]
// The README's figures for the `seed` profile are this model's (test/aws/cost-model.test.ts).
import prices from '../assets/prices.json';
import { DEFAULT_RUNNER_INSTANCE_TYPE } from '../lib/instance-types';
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

/** The README's table of modeled durations and costs: one row per profile, one runner. */
export function costTable(): string {
  const rows = ['quick', 'mounts', 'seed', 'full'].map((name) => {
    const c = costModel(name);
    const hours = c.minutesPerRunner / 60;
    return `| \`${name}\` | ${c.steps} | ${hours < 1 ? `${Math.round(c.minutesPerRunner)} min` : `${hours.toFixed(1)} h`} | $${c.items['runner instance hours'].toFixed(2)} | $${c.items['S3 requests'].toFixed(2)} | $${c.total.toFixed(2)} |`;
  });
  return ['| profile | steps | runner time | instance | S3 requests | total per execution |', '|---|---:|---:|---:|---:|---:|', ...rows].join('\n');
}

export const README_MARKERS = ['<!-- cost-model: generated by `npm run cost:aws -- --readme`; do not edit -->', '<!-- /cost-model -->'] as const;

if (require.main === module) {
  if (process.argv[2] === '--readme') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { readFileSync, writeFileSync } = require('node:fs') as typeof import('node:fs');
    const path = `${__dirname}/../README.md`;
    const text = readFileSync(path, 'utf8');
    const [open, close] = README_MARKERS;
    const from = text.indexOf(open);
    const to = text.indexOf(close);
    if (from < 0 || to < from) throw new Error(`README.md has no ${open} … ${close} block`);
    writeFileSync(path, `${text.slice(0, from + open.length)}\n${costTable()}\n${text.slice(to)}`);
    console.log('README.md: cost table updated');
  } else {
    const c = costModel(process.argv[2] ?? 'seed', Number(process.argv[3] ?? 1));
    console.log(`profile ${c.profile}: ${c.steps} steps × ${c.runners} runner(s) ${DEFAULT_RUNNER_INSTANCE_TYPE}, ~${Math.round(c.minutesPerRunner)} min per runner`);
    for (const [k, v] of Object.entries(c.items)) console.log(`  ${k.padEnd(34)} $${v.toFixed(4)}`);
    console.log(`  ${'total per execution'.padEnd(34)} $${c.total.toFixed(2)}`);
  }
}
