// The modelled duration and cost of one AWS execution of a profile, from a rehearsal measured here:
// each step's requests (counted at the server), bytes and wall time, scaled to the profile (a seed
// sample runs a tenth of seed's counts, one repetition) and moved to AWS with the assumptions below.
// A model, not a bill: the assumptions are stated here and printed with every figure.
import prices from '../../assets/prices.json';
import network from '../../assets/instance-network.json';
import { DEFAULT_RUNNER_INSTANCE_TYPE } from '../../lib/instance-types';
import { TASK_TIMEOUT_S } from '../../lib/pipeline/tasks';
import { expandSteps, loadProfile, resolveMatrix, type Step } from '../../runner/core/matrix';
import { planShards } from '../../runner/core/shards';
import { findMethodDescriptor } from '../../runner/methods/catalog';
import { findWorkloadDescriptor } from '../../runner/workloads/catalog';
import { REQUEST_COLUMNS } from '../../runner/report/requests';
import { CATALOG } from '../../runner/catalog';
import type { RequestType } from '../../runner/endpoint/access-log';
import type { PreparationFigure, StepFigure } from '../rehearsal/step-figures';

/** What AWS adds to a step measured here, and what an execution costs besides its steps. */
export const AWS_ASSUMPTIONS = {
  /** One S3 request's round trip from a runner in the bucket's region, in sequence (seed 000's s3fs figures); here it is under 1 ms. */
  requestSeconds: 0.01,
  /** Boot, SSM online and the setup command (packages, the s3fs build, Mountpoint, rclone, JuiceFS) per runner. */
  runnerSetupMinutes: 8,
  /** ValidateInput, launch, the document functions, Aggregate and Report: the states around the runners. */
  pipelineMinutes: 4,
  /** S3 performs each key of a DeleteObjects as a delete: 3,500 per second per prefix. */
  deletesPerSecond: 3500,
  /** How often the state machine checks a runner's command (lib/pipeline/poll-command.ts). */
  pollSeconds: 30,
  /** Public IPv4 address per runner-hour. */
  ipv4Hour: 0.005,
  lambdaGbSecond: 0.0000133334, athenaPerTb: 5, sfnPer1000Transitions: 0.025,
};

/** A rehearsal measured here (`npm run cost:aws -- --measure PROFILE` writes assets/measured/PROFILE.json). */
export interface Measurement {
  profile: string;
  /** The matrix rehearsed: the profile, or its sample (see `sampleOf`). */
  matrix: Record<string, any>;
  /** Each count parameter of the sample is the profile's divided by this (1: the profile itself). */
  sampleDivisor: number;
  measuredAt: string;
  host: string;
  rehearsal: { wallSeconds: number; requests: number; versionsWritten: number; polls: number; historyEvents: number };
  steps: StepFigure[];
  preparation: PreparationFigure;
}

/** The parameters that say how much a workload does: a sample divides them, the model multiplies back. */
export const COUNT_PARAMS: Record<string, string[]> = {
  objects: ['files'], 'dir-walk': ['objects'], 'large-read': ['files'], 'small-reads': ['files'], 'fio-seq': ['files'],
  semantics: [], metadata: ['ops'], 'git-clone': ['files', 'commits'], 'tar-extract': ['files', 'dirs', 'totalSize'],
  'web-serving': ['files', 'reads'], 'read-scaling': [],
};
/** Requests a workload's clients run side by side (their latency overlaps). */
const PARALLEL: Record<string, (p: Record<string, any>) => number> = { 'web-serving': (p) => Number(p.readers ?? 1) };

/** The sample of a profile: one repetition, every count parameter divided by `divisor` (at least 1). */
export function sampleOf(profile: Record<string, any>, divisor: number): Record<string, any> {
  const workloads: Record<string, any> = {};
  for (const [name, params] of Object.entries<Record<string, any>>(profile.workloads)) {
    const counts = COUNT_PARAMS[name];
    if (!counts) throw new Error(`cost model: no count parameters for workload ${name}: add it to COUNT_PARAMS`);
    workloads[name] = { ...params };
    for (const k of counts) {
      if (params[k] === undefined) continue;
      workloads[name][k] = typeof params[k] === 'number' ? Math.max(1, Math.round(params[k] / divisor)) : `${Number.parseFloat(params[k]) / divisor}${String(params[k]).replace(/^[\d.]+/, '')}`;
    }
  }
  const { $schema: _schema, ...rest } = profile;
  return { ...rest, name: `${profile.name}-sample`, description: `${profile.name} with its counts divided by ${divisor}, one repetition: what the cost model measures`, repetitions: 1, workloads };
}

/** Request counts times a factor. */
const times = (r: Partial<Record<RequestType, number>>, k: number): Partial<Record<RequestType, number>> => Object.fromEntries(Object.entries(r).map(([t, n]) => [t, n * k]));
const key = (s: { method: string; variant: string; workload: string }) => `${s.method}/${s.variant}/${s.workload}`;
const baselineMiBps = (type: string) => ((network as Record<string, any>)[type]?.baselineGbps ?? 0) * 1e9 / 8 / 2 ** 20;

export interface ModelledStep {
  index: number; label: string; workload: string; method: string; seconds: number;
  /** Where the seconds come from: as measured here (scaled), AWS's request latency, AWS's bandwidth. */
  parts: { here: number; latency: number; transfer: number };
  /** Every request of the step; `runnerRequests` is the runner's own part of them. */
  requests: Partial<Record<RequestType, number>>; runnerRequests: Partial<Record<RequestType, number>>; measured: boolean;
}
export interface RequestTally { tier1: number; tier2: number; free: number; total: number }

/** The item of the measured methods' own S3 requests: the benchmark's subject, which no execution shape can remove. */
export const METHODS_REQUESTS = 'S3 requests: the measured methods\' own';

export interface MeasuredCostModel {
  profile: string;
  runners: number;
  runnerType: string;
  steps: number;
  /** Steps with no figure of their own (a method that cannot run here): modelled from the other mounts of their workload. */
  proxied: string[];
  /** Minutes each runner is up: setup, preparation and its steps. */
  runnerMinutes: number[];
  wallMinutes: number;
  requests: RequestTally;
  /** Of `requests`, the measured methods' own (the rest is the runner's). */
  methodsRequests: RequestTally;
  /** Everything but the methods' own requests: what the execution itself costs. */
  executionDollars: number;
  /** Per workload: its steps' modelled minutes (and their parts), requests and the methods' request cost. */
  byWorkload: Record<string, { minutes: number; here: number; latency: number; transfer: number; requests: RequestTally; methodsDollars: number }>;
  versionsWritten: number;
  teardownSeconds: number;
  items: Record<string, number>;
  total: number;
  /** The modelled steps, each with its seconds and requests. */
  modelled: ModelledStep[];
}

type Figure = Pick<StepFigure, 'seconds' | 'measuredSeconds' | 'requests' | 'runnerRequests' | 'bytesIn' | 'bytesOut'>;

/** The mean of some steps' figures: a method's repetitions of a workload, or a workload's mounts. */
function meanFigure(xs: readonly StepFigure[]): Figure {
  const meanCounts = (pick: (x: StepFigure) => Partial<Record<RequestType, number>>) => {
    const out: Partial<Record<RequestType, number>> = {};
    for (const x of xs) for (const [t, n] of Object.entries(pick(x))) out[t as RequestType] = (out[t as RequestType] ?? 0) + n / xs.length;
    return out;
  };
  const mean = (pick: (x: StepFigure) => number) => xs.reduce((a, x) => a + pick(x), 0) / xs.length;
  return {
    seconds: mean((x) => x.seconds), measuredSeconds: mean((x) => x.measuredSeconds), bytesIn: mean((x) => x.bytesIn), bytesOut: mean((x) => x.bytesOut),
    requests: meanCounts((x) => x.requests), runnerRequests: meanCounts((x) => x.runnerRequests),
  };
}

/** Each method's figure per workload: the mean of its measured steps (its repetitions). */
function meanFigures(steps: readonly StepFigure[]): Map<string, Figure> {
  const groups = new Map<string, StepFigure[]>();
  for (const s of steps) groups.set(key(s), [...(groups.get(key(s)) ?? []), s]);
  return new Map([...groups].map(([k, xs]) => [k, meanFigure(xs)]));
}

/** Models one execution of `m.profile` on `runners` runners of the default type, layout shard. */
export function measuredCostModel(m: Measurement, runners: number): MeasuredCostModel {
  const profile = resolveMatrix(loadProfile(m.profile), m.profile, CATALOG);
  const sample = resolveMatrix(m.matrix, `${m.profile}-sample`, CATALOG);
  const steps = expandSteps(profile);
  // A method's steps of one workload (its repetitions): their mean is each step's figure.
  const figures = meanFigures(m.steps);
  const ratio = (workload: string) => {
    const [first] = COUNT_PARAMS[workload] ?? [];
    if (!first) return 1;
    const num = (v: unknown) => (typeof v === 'number' ? v : Number.parseFloat(String(v)));
    const a = profile.workloads.find((w) => w.name === workload)!.params as Record<string, unknown>;
    const b = sample.workloads.find((w) => w.name === workload)!.params as Record<string, unknown>;
    return num(a[first]) / num(b[first]);
  };
  const mibps = baselineMiBps(DEFAULT_RUNNER_INSTANCE_TYPE);
  const proxied: string[] = [];
  const modelled: ModelledStep[] = steps.map((s: Step) => {
    const label = key({ method: s.method.name, variant: s.method.variant, workload: s.workload.name });
    let f = figures.get(label);
    const measured = !!f;
    if (!f) {
      // A method that cannot run here (S3 Files: no NFS client): the mean of this workload's mount methods.
      const mounts = m.steps.filter((x) => x.workload === s.workload.name && findMethodDescriptor(x.method)?.kind === 'mount');
      if (!mounts.length) throw new Error(`cost model: ${label} was not measured and no mount of ${s.workload.name} was: re-measure with \`npm run cost:aws -- --measure ${m.profile}\``);
      if (!proxied.includes(label)) proxied.push(label);
      f = meanFigure(mounts);
    }
    const k = ratio(s.workload.name);
    const requests = times(f.requests, k);
    const runnerRequests = times(f.runnerRequests, k);
    const count = Object.values(requests).reduce((a, n) => a + n, 0);
    const parallel = PARALLEL[s.workload.name]?.(s.workload.params as Record<string, any>) ?? 1;
    // The step's own setup (mounting, checks, cleanup: outside its measurements) stays as measured;
    // its measurements grow with the counts; then AWS's request latency and bandwidth are added on
    // top of what they took here (an upper bound: the loopback's own latency and transfer time are
    // not taken out).
    const parts = {
      here: (f.seconds - f.measuredSeconds) + k * f.measuredSeconds,
      latency: (count * AWS_ASSUMPTIONS.requestSeconds) / parallel,
      transfer: (k * (f.bytesIn + f.bytesOut)) / 2 ** 20 / mibps,
    };
    return { index: s.index, label, workload: s.workload.name, method: s.method.name, seconds: parts.here + parts.latency + parts.transfer, parts, requests, runnerRequests, measured };
  });
  // The preparation (fixtures written once per runner) scales with the fixtures' objects.
  // A fixture's spec can take a while to derive (web-serving draws its files' sizes): once per workload.
  const specs = new Map<object, { id: string; count: number } | null>();
  const specOf = (w: (typeof profile)['workloads'][number]) => {
    if (!specs.has(w)) specs.set(w, findWorkloadDescriptor(w.name)?.fixture?.(w.params as never) ?? null);
    return specs.get(w)!;
  };
  const fixtureObjects = (matrix: Pick<typeof profile, 'workloads'>) => {
    const byId = new Map<string, number>();
    for (const w of matrix.workloads) { const spec = specOf(w); if (spec) byId.set(spec.id, spec.count); }
    return [...byId.values()].reduce((a, n) => a + n, 0);
  };
  const prepRatio = fixtureObjects(sample) ? fixtureObjects(profile) / fixtureObjects(sample) : 1;
  const prepRequests = times(m.preparation.requests, prepRatio);
  const prepSeconds = prepRatio * m.preparation.seconds + Object.values(prepRequests).reduce((a, n) => a + n, 0) * AWS_ASSUMPTIONS.requestSeconds / 16
    + (prepRatio * (m.preparation.bytesIn + m.preparation.bytesOut)) / 2 ** 20 / mibps;

  const shards = planShards(steps, runners, 'shard');
  // A runner writes the fixtures of its own workloads only (runner/run/index.ts): its share of the
  // one-runner preparation is its workloads' share of the fixture objects (the link measurement,
  // a few requests, is left in that share).
  const prepShare = (workloads: string[]) => {
    const all = fixtureObjects(profile);
    return all ? fixtureObjects({ workloads: profile.workloads.filter((w) => workloads.includes(w.name)) }) / all : 1 / shards.length;
  };
  const byIndex = new Map(modelled.map((s) => [s.index, s]));
  const runnerMinutes = shards.map((sh) => AWS_ASSUMPTIONS.runnerSetupMinutes + (prepShare(sh.workloads) * prepSeconds + sh.steps.reduce((a, i) => a + byIndex.get(i)!.seconds, 0)) / 60);
  const tierOf = new Map<string, string>(REQUEST_COLUMNS.map((c) => [c.column === 'delete_requests' ? 'delete' : c.column, c.tier]));
  const tally = (): RequestTally => ({ tier1: 0, tier2: 0, free: 0, total: 0 });
  const add = (into: RequestTally, r: Partial<Record<string, number>>, times = 1) => {
    for (const [t, n = 0] of Object.entries(r)) {
      const tier = (tierOf.get(t) ?? 'tier2') as 'tier1' | 'tier2' | 'free';
      into[tier] += n * times;
      into.total += n * times;
    }
  };
  const price = prices.s3StandardRequestsPer1000;
  const dollars = (r: RequestTally) => (r.tier1 / 1000) * price.tier1 + (r.tier2 / 1000) * price.tier2;
  // In one pass: the methods' own requests (what the benchmark measures) apart from the runner's
  // (fixtures, checks, cleanup), and each workload's figures.
  const methods = tally();
  const runner = tally();
  const requests = tally();
  const byWorkload: MeasuredCostModel['byWorkload'] = {};
  for (const s of modelled) {
    const own = Object.fromEntries(Object.entries(s.requests).map(([t, n]) => [t, n - (s.runnerRequests[t as RequestType] ?? 0)]));
    add(methods, own);
    add(runner, s.runnerRequests);
    add(requests, s.requests);
    const w = (byWorkload[s.workload] ??= { minutes: 0, here: 0, latency: 0, transfer: 0, requests: tally(), methodsDollars: 0 });
    w.minutes += s.seconds / 60; w.here += s.parts.here / 60; w.latency += s.parts.latency / 60; w.transfer += s.parts.transfer / 60;
    add(w.requests, s.requests);
    const ownTally = tally();
    add(ownTally, own);
    w.methodsDollars += dollars(ownTally);
  }
  const prepared = shards.reduce((a, sh) => a + prepShare(sh.workloads), 0);
  add(runner, prepRequests, prepared);
  add(requests, prepRequests, prepared);
  // A new version per object written: PUTs, completed multipart uploads and copies.
  const written = (r: Partial<Record<string, number>>) => (r.put ?? 0) + (r.mpu_complete ?? 0) + (r.copy ?? 0);
  const versionsWritten = Math.round(modelled.reduce((a, s) => a + written(s.requests), 0) + written(prepRequests));
  // Teardown deletes every version and the delete markers the steps' own deletes left (about as many).
  const teardownSeconds = (2 * versionsWritten) / AWS_ASSUMPTIONS.deletesPerSecond;
  const teardownRounds = Math.max(1, Math.ceil(teardownSeconds / (TASK_TIMEOUT_S.teardown / 3)));
  const wallMinutes = AWS_ASSUMPTIONS.pipelineMinutes + Math.max(...runnerMinutes) + teardownSeconds / 60;
  const runnerHours = runnerMinutes.reduce((a, b) => a + b, 0) / 60;
  const runnerHour = (prices.ec2OnDemandHourly as Record<string, unknown>)[DEFAULT_RUNNER_INSTANCE_TYPE] as number;
  // Step Functions: each poll of a runner's command is a handful of transitions; the rest is fixed.
  const polls = runnerMinutes.reduce((a, mins) => a + (mins * 60) / AWS_ASSUMPTIONS.pollSeconds, 0);
  const transitions = 60 + 4 * polls + 4 * teardownRounds;
  const items = {
    'runner instance hours': runnerHours * (runnerHour + AWS_ASSUMPTIONS.ipv4Hour),
    [METHODS_REQUESTS]: dollars(methods),
    'S3 requests: the runner\'s own (fixtures, checks, cleanup)': dollars(runner),
    'Lambda': 2 * 3 * 0.5 * 5 * AWS_ASSUMPTIONS.lambdaGbSecond,
    'Athena (10 MB minimum per query)': 16 * 10e6 / 1e12 * AWS_ASSUMPTIONS.athenaPerTb,
    'Step Functions transitions': (transitions / 1000) * AWS_ASSUMPTIONS.sfnPer1000Transitions,
  };
  const total = Object.values(items).reduce((a, b) => a + b, 0);
  return { byWorkload, executionDollars: total - items[METHODS_REQUESTS], methodsRequests: methods, profile: m.profile, runners, runnerType: DEFAULT_RUNNER_INSTANCE_TYPE, steps: steps.length, proxied, runnerMinutes, wallMinutes, requests, versionsWritten, teardownSeconds, items, total, modelled };
}
