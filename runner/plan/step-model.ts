import { expandSteps, resolveMatrix, type ResolvedMatrix, type Step } from '../core/matrix';
import { REQUEST_TIER, type RequestTier } from '../core/request-types';
import { CATALOG } from '../catalog';
import { findMethodDescriptor } from '../methods/catalog';
import { findWorkloadDescriptor } from '../workloads/catalog';
import { AWS_FACTS } from './aws-facts';
import { figureKey, type Counts, type Measurement, type StepFigure } from './measurement';

/** One step of a matrix as the model sees it on AWS: its time on a runner of a given link, and its requests. */
export interface StepEstimate {
  index: number;
  workload: string;
  method: string;
  variant: string;
  repetition: number;
  /** How many clients run it at once (a fleet step: each on its own runner, after the start barrier). */
  clients: number;
  /** Seconds on AWS, its budget applied (a fleet step: one client's, plus the barrier's lead before each pass). */
  seconds: number;
  /** Seconds without a budget, and where they come from: as measured here (scaled), AWS's request latency, the link. */
  full: { seconds: number; here: number; latency: number; transfer: number };
  /** The budget runs out before the measurement ends: recorded as did-not-finish. */
  didNotFinish: boolean;
  /** Every request of the step (a did-not-finish step's share of them); `runnerRequests` is the runner's own part. */
  requests: Counts;
  runnerRequests: Counts;
  /** The link rate its measurements reached here (MiB/s): what it asks of a runner's link. */
  peakMiBps: number;
  /** Where its figure comes from: its own measurement, or the named steps' (a method that cannot run here). */
  figure: string;
}

type Figure = Pick<StepFigure, 'seconds' | 'measuredSeconds' | 'requests' | 'runnerRequests' | 'bytesIn' | 'bytesOut' | 'peakMiBps'>;

const times = (r: Counts, k: number): Counts => Object.fromEntries(Object.entries(r).map(([t, n]) => [t, (n ?? 0) * k]));
export const total = (r: Counts): number => Object.values(r).reduce((a: number, n) => a + (n ?? 0), 0);

/** The mean of some steps' figures: a method's repetitions of a workload, or a workload's other methods. */
function meanFigure(xs: readonly Figure[]): Figure {
  const meanCounts = (pick: (x: Figure) => Counts) => {
    const out: Counts = {};
    for (const x of xs) for (const [t, n] of Object.entries(pick(x))) out[t as keyof Counts] = (out[t as keyof Counts] ?? 0) + (n ?? 0) / xs.length;
    return out;
  };
  const mean = (pick: (x: Figure) => number) => xs.reduce((a, x) => a + pick(x), 0) / xs.length;
  return {
    seconds: mean((x) => x.seconds), measuredSeconds: mean((x) => x.measuredSeconds), bytesIn: mean((x) => x.bytesIn), bytesOut: mean((x) => x.bytesOut),
    requests: meanCounts((x) => x.requests), runnerRequests: meanCounts((x) => x.runnerRequests), peakMiBps: Math.max(...xs.map((x) => x.peakMiBps ?? 0)),
  };
}

/**
 * The figure a step is modelled from: the mean of its method's measured repetitions of the
 * workload; a method not measured (S3 Files: no NFS client here) takes its other variants'
 * figures, else the workload's other methods of its kind (mounts for a mount), else all of them.
 */
function figureFor(m: Measurement, s: Step): { figure: Figure; source: string } {
  const key = figureKey({ method: s.method.name, variant: s.method.variant, workload: s.workload.name });
  const own = m.steps.filter((x) => figureKey(x) === key);
  if (own.length) return { figure: meanFigure(own), source: 'measured' };
  const ofWorkload = m.steps.filter((x) => x.workload === s.workload.name);
  const kind = (name: string) => findMethodDescriptor(name)?.kind;
  const tiers: [string, StepFigure[]][] = [
    [`${s.method.name}'s other variants`, ofWorkload.filter((x) => x.method === s.method.name)],
    [`the other ${kind(s.method.name)} methods`, ofWorkload.filter((x) => kind(x.method) === kind(s.method.name))],
    ['the other methods', ofWorkload],
  ];
  const [source, xs] = tiers.find(([, list]) => list.length) ?? ['', []];
  if (!xs.length) throw new Error(`the measurement of ${m.profile} has no step of ${s.workload.name}`);
  return { figure: meanFigure(xs), source: `from ${source}` };
}

/** How much more work `params` are than the measured sample's: operations and bytes (the workload descriptor's `work`). */
function workRatio(workload: string, params: Record<string, unknown>, sample: Record<string, unknown>): { ops: number; bytes: number } {
  const work = findWorkloadDescriptor(workload)!.work;
  const a = work.of(params as never);
  const b = work.of(sample as never);
  const ops = b.ops > 0 ? a.ops / b.ops : 1;
  return { ops, bytes: b.bytes > 0 ? a.bytes / b.bytes : ops };
}

export interface StepModelOptions {
  /** The runner's link: its baseline in MiB/s. */
  linkMiBps: number;
  /** The steps' time budget (matrix `budget_s`), or null for none. */
  budgetSeconds: number | null;
  /** A fleet step's wait at its start barrier before each pass (core/barrier.ts FLEET_BARRIER). @default 0 */
  barrierLeadSeconds?: number;
}

/**
 * Each step of `matrix` on AWS, from a measurement made here: the step's own setup (mounting,
 * checks, cleanup: outside its measurements) as measured; its measurements, requests and bytes
 * scaled by the workload's work over the sample's; then AWS's request latency and the link added
 * (an upper bound: the loopback's own latency and transfer time are not taken out). A budget caps
 * the measurement: a step whose measurement would outlast it stops there (did-not-finish) and
 * removes what it wrote — its deletes, for the share of the work done.
 */
const samples = new WeakMap<Measurement, ResolvedMatrix>();

/** The matrix a measurement rehearsed, resolved (defaults filled in), once per measurement. */
export function sampleMatrix(m: Measurement): ResolvedMatrix {
  if (!samples.has(m)) samples.set(m, resolveMatrix(m.matrix, `${m.profile}-sample`, CATALOG));
  return samples.get(m)!;
}

export function modelSteps(matrix: ResolvedMatrix, m: Measurement, o: StepModelOptions): StepEstimate[] {
  const sample = sampleMatrix(m);
  // Per workload once: its work over the sample's and its parallelism; per step key once: its figure.
  const perWorkload = new Map(matrix.workloads.map((w) => [w, {
    k: workRatio(w.name, w.params, sample.workloads.find((x) => x.name === w.name)?.params ?? w.params),
    parallel: findWorkloadDescriptor(w.name)!.work.parallelism?.(w.params as never) ?? 1,
  }]));
  const figures = new Map<string, { figure: Figure; source: string }>();
  // A fleet step's clients start each pass together, the barrier's lead after the last is ready
  // (a pass per cache state at most); the model takes every client as fast as one alone: the
  // slowest client's time is the measured one's.
  const barrier = (o.barrierLeadSeconds ?? 0) * Math.max(1, matrix.cache.length);
  return expandSteps(matrix).map((s) => {
    const key = figureKey({ method: s.method.name, variant: s.method.variant, workload: s.workload.name });
    if (!figures.has(key)) figures.set(key, figureFor(m, s));
    const { figure: f, source } = figures.get(key)!;
    const { k, parallel } = perWorkload.get(s.workload)!;
    const requests = times(f.requests, k.ops);
    const deletes = requests.delete ?? 0;
    const setupHere = f.seconds - f.measuredSeconds;
    const here = setupHere + Math.max(k.ops, k.bytes) * f.measuredSeconds;
    const latency = (total(requests) * AWS_FACTS.requestSeconds) / parallel;
    const transfer = o.linkMiBps > 0 ? (k.bytes * (f.bytesIn + f.bytesOut)) / 2 ** 20 / o.linkMiBps : 0;
    const full = { seconds: here + latency + transfer, here, latency, transfer };
    // The measurement's part on AWS, and the cleanup after it (its deletes).
    const cleanup = (deletes * AWS_FACTS.requestSeconds) / parallel;
    const work = full.seconds - setupHere - cleanup;
    const didNotFinish = o.budgetSeconds !== null && work > o.budgetSeconds;
    const done = didNotFinish ? o.budgetSeconds! / work : 1;
    return {
      index: s.index, workload: s.workload.name, method: s.method.name, variant: s.method.variant, repetition: s.repetition, clients: s.clients,
      seconds: (didNotFinish ? setupHere + o.budgetSeconds! + done * cleanup : full.seconds) + (s.clients > 1 ? barrier : 0), full, didNotFinish,
      requests: didNotFinish ? times(requests, done) : requests, runnerRequests: times(f.runnerRequests, k.ops * done), peakMiBps: f.peakMiBps ?? 0, figure: source,
    };
  });
}

/** Requests by price tier. */
export interface RequestTally { tier1: number; tier2: number; free: number; total: number }

export function tally(...counts: Counts[]): RequestTally {
  const out: RequestTally = { tier1: 0, tier2: 0, free: 0, total: 0 };
  for (const c of counts) {
    for (const [t, n = 0] of Object.entries(c)) {
      out[(REQUEST_TIER[t as keyof typeof REQUEST_TIER] ?? 'tier2') as RequestTier] += n;
      out.total += n;
    }
  }
  return out;
}

/** The methods' own requests of a step: all of them but the runner's. */
export function ownRequests(s: Pick<StepEstimate, 'requests' | 'runnerRequests'>): Counts {
  return Object.fromEntries(Object.entries(s.requests).map(([t, n]) => [t, (n ?? 0) - (s.runnerRequests[t as keyof Counts] ?? 0)]));
}
