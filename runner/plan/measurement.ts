import mountsMeasurement from '../../assets/measured/mounts.json';
import quickMeasurement from '../../assets/measured/quick.json';
import s3filesDocumentedMeasurement from '../../assets/measured/s3files-documented.json';
import seedMeasurement from '../../assets/measured/seed.json';
import { UserError } from '../core/errors';
import type { ResolvedMatrix } from '../core/matrix';
import type { RequestType } from '../core/request-types';
import { findWorkloadDescriptor } from '../workloads/catalog';

/** Request counts by type. */
export type Counts = Partial<Record<RequestType, number>>;

/**
 * What one step of a rehearsed execution took, measured here (scripts/rehearsal/step-figures.ts
 * splits a one-runner rehearsal's records and access log into them): its wall time on its runner
 * and every S3 request made while it ran, the measured client's and the runner's own.
 */
export interface StepFigure {
  index: number;
  runner: string;
  method: string;
  variant: string;
  workload: string;
  seconds: number;
  /** The part of `seconds` inside its measurements (their durations added up): what grows with the workload's counts; the rest is the step's own setup (mounting, fixture checks, cleanup). */
  measuredSeconds: number;
  requests: Counts;
  /** Of `requests`, those the runner's own client made (mounting checks, fixture checks, cleanup), by type. */
  runnerRequests: Counts;
  /** Bytes the server sent (GET) and received (PUT, parts). */
  bytesOut: number;
  bytesIn: number;
  /**
   * The highest throughput one of its cold (or cache-less) measurements reached here, in MiB/s,
   * served-from-cache figures left out: what the step asks of a runner's link (0: none moves payload).
   */
  peakMiBps: number;
}

/** A runner's preparation before its first step: preflight, link measurement, fixtures. */
export interface PreparationFigure {
  runner: string;
  seconds: number;
  requests: Counts;
  bytesOut: number;
  bytesIn: number;
}

/** How long one state of the rehearsed execution ran here: its runs, their total and the longest. */
export interface StateFigure { count: number; totalMs: number; longestMs: number }

/** A matrix as its JSON file holds it (assets/schema/matrix.schema.json), before it is resolved. */
export interface MatrixJson {
  name?: string;
  workloads: Record<string, Record<string, unknown>>;
  [field: string]: unknown;
}

/** A rehearsal measured here (`npm run cost:aws -- --measure PROFILE` writes assets/measured/PROFILE.json). */
export interface Measurement {
  profile: string;
  /** The matrix rehearsed: the profile, or its sample (see `sampleOf`). */
  matrix: MatrixJson;
  /** Each count parameter of the sample is the profile's divided by this (1: the profile itself). */
  sampleDivisor: number;
  measuredAt: string;
  host: string;
  rehearsal: { wallSeconds: number; requests: number; versionsWritten: number; polls: number; historyEvents: number };
  steps: StepFigure[];
  preparation: PreparationFigure;
  /** The pipeline's own states as they ran here, by name (the document functions, Report, …). */
  states: Record<string, StateFigure>;
  /** The document functions' benchmark it ran (the execution input's `lambdas`). */
  lambdas: { documents: number; repetitions: number };
  /** How a field this file's rehearsal did not measure was filled in (a measurement made before the field existed), if any. */
  notes?: string[];
}

/** Profiles measured by a rehearsal here, and the divisor of their sample (seed runs a tenth of its counts). */
export const MEASURED_PROFILES: Readonly<Record<string, number>> = { quick: 1, mounts: 1, seed: 10, 's3files-documented': 1 };

/** Every measurement in assets/measured/, by profile. */
export const MEASUREMENTS: Readonly<Record<string, Measurement>> = {
  quick: quickMeasurement as unknown as Measurement,
  mounts: mountsMeasurement as unknown as Measurement,
  seed: seedMeasurement as unknown as Measurement,
  's3files-documented': s3filesDocumentedMeasurement as unknown as Measurement,
};

/** A step's key in a measurement: method, variant, workload. */
export const figureKey = (s: { method: string; variant: string; workload: string }) => `${s.method}/${s.variant}/${s.workload}`;

/**
 * The measurement a matrix is modelled from: its own profile's when it has one; else the one that
 * measured the most of its (method, variant, workload) steps, the larger sample on a tie (seed's
 * sample has every workload). Every workload of the matrix must have been measured.
 */
export function measurementFor(matrix: ResolvedMatrix, measurements: Readonly<Record<string, Measurement>> = MEASUREMENTS): Measurement {
  const own = measurements[matrix.name];
  const covers = (m: Measurement) => matrix.workloads.every((w) => m.steps.some((s) => s.workload === w.name));
  if (own && covers(own)) return own;
  const keys = new Set(matrix.workloads.flatMap((w) => matrix.methods.map((c) => figureKey({ method: c.name, variant: c.variant, workload: w.name }))));
  const ranked = Object.values(measurements).filter(covers)
    .map((m) => ({ m, hits: new Set(m.steps.map(figureKey).filter((k) => keys.has(k))).size }))
    .sort((a, b) => b.hits - a.hits || b.m.steps.length - a.m.steps.length);
  if (!ranked.length) {
    const missing = matrix.workloads.find((w) => !Object.values(measurements).some((m) => m.steps.some((s) => s.workload === w.name)))!.name;
    throw new UserError(`no measurement in assets/measured/ has workload ${missing}, so its time on AWS cannot be modelled`,
      `measure a profile that runs it: \`npm run cost:aws -- --measure seed\` (seed runs every workload)`);
  }
  return ranked[0].m;
}

/**
 * The sample of a profile: one repetition, every count parameter (each workload's `work.counts`)
 * divided by `divisor` (at least 1), and no step budget — the sample measures each step to its
 * end; the model caps it at the profile's budget.
 */
export function sampleOf(profile: MatrixJson, divisor: number): MatrixJson {
  const workloads: Record<string, Record<string, unknown>> = {};
  for (const [name, params] of Object.entries(profile.workloads)) {
    const descriptor = findWorkloadDescriptor(name);
    if (!descriptor) throw new Error(`sampleOf: ${name} is not a workload`);
    workloads[name] = { ...params };
    for (const k of descriptor.work.counts) {
      const value = params[k];
      if (value === undefined) continue;
      workloads[name][k] = typeof value === 'number' ? Math.max(1, Math.round(value / divisor)) : `${Number.parseFloat(String(value)) / divisor}${String(value).replace(/^[\d.]+/, '')}`;
    }
  }
  const { $schema: _schema, budget_s: _budget, ...rest } = profile;
  return { ...rest, name: `${profile.name}-sample`, description: `${profile.name} with its counts divided by ${divisor}, one repetition: what the cost model measures`, repetitions: 1, workloads };
}
