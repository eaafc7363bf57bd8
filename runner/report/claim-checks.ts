import { measured } from './analysis';
import { durationText, num, percentText } from './format';
import { methodLabel } from '../core/vocabulary';
import type { Cell, ReportModel } from './model';

/**
 * The pieces a seed's claim is checked with (seed-claims.ts holds the claims): the verdict kinds,
 * finding the run's cell of a workload, operation and method, and what a claim needs when the run
 * did not measure it. Pure functions of the report model.
 */

/** A claim checked against one run. */
export type ClaimVerdict =
  /** The run agrees; `ours` is the run's figure. */
  | { kind: 'reproduced'; ours: string }
  /** The run disagrees; `by` says how much. */
  | { kind: 'contradicted'; ours: string; by: string }
  /** A figure that only holds on its own setup: both setups named, the run's figure beside the seed's. */
  | { kind: 'different-setup'; ours: string; theirs: string; ourSetup: string }
  /** The run has no record of it; `needs` says which method or profile would measure it. */
  | { kind: 'not-measured'; needs: string };

type ClaimVerdictKind = ClaimVerdict['kind'];

/** The verdicts' words, as every printer writes them. */
export const VERDICT_LABELS: Record<ClaimVerdictKind, string> = {
  reproduced: 'reproduced',
  contradicted: 'contradicted',
  'different-setup': 'different setup',
  'not-measured': 'not measured in this run',
};

/** What measures a claim: a workload's operations on these methods (labels, `name:variant`), in these profiles. */
export interface ClaimMeasure {
  workload: string;
  /** The operations a claim reads; a comparison reads the first. */
  operations: readonly string[];
  methods: readonly string[];
  /** The cache state compared, per method (in the methods' order); absent: the first access. */
  caches?: readonly string[];
  /** Profiles (assets/profiles) whose matrix runs the workload on every one of the methods; empty where none does. */
  profiles: readonly string[];
  /** What a run needs to measure it, where neither a profile nor a method's needs say it (the claim's own records come from elsewhere). */
  needs?: string;
}

/**
 * Why a method may be absent from a run, where that is not a profile's choice: it needs AWS, a
 * client this host lacks, or is not a method of this project yet.
 */
const METHOD_NEEDS: Record<string, string> = {
  zerofs: 'needs an NFS client: ZeroFS is mounted over NFS, which a FUSE-only kernel lacks (EC2 runners have one)',
  objectivefs: 'needs ObjectiveFS, a commercial client: its vendor\'s package and a license (on AWS, a stack deployed with one)',
  efs: 'needs AWS: the efs method mounts Amazon EFS on an EC2 runner',
  s3files: 'needs AWS: the s3files method mounts Amazon S3 Files on an EC2 runner (optional in the seed, mounts and full profiles)',
};

/** What a method needs where this project's profiles cannot give it (AWS, a client the host lacks), or null. */
export const methodNeeds = (method: string): string | null => METHOD_NEEDS[method.split(':')[0]] ?? null;

/** The run's cells of a workload's operation for a method (label), any cache state. */
export const cellsOf = (model: ReportModel, workload: string, operation: string, method: string): Cell[] =>
  model.cells.filter((c) => c.workload === workload && c.operation === operation && methodLabel(c) === method && c.not_applicable < c.records);

/**
 * The cell a claim reads for its i-th method and an operation: the claim's cache state for that
 * method, else the first access (cold, or none for object methods), else the first state measured.
 */
export function cellOf(model: ReportModel, m: ClaimMeasure, i: number, operation = m.operations[0]): Cell | null {
  const cells = cellsOf(model, m.workload, operation, m.methods[i]);
  const cache = m.caches?.[i];
  if (cache) return cells.find((c) => c.cache === cache) ?? null;
  return cells.find((c) => c.cache === 'cold' || c.cache === 'none') ?? cells[0] ?? null;
}

/** "not measured" for a claim whose method or workload is missing from the run: the first missing method's need, or the profiles that measure it. */
export function notMeasured(model: ReportModel, m: ClaimMeasure): ClaimVerdict {
  const missing = m.methods.find((_, i) => m.operations.some((op) => !cellOf(model, m, i, op))) ?? m.methods[0];
  const skipped = model.skipped.find((s) => methodLabel({ method: s.method, method_variant: s.variant }) === missing);
  if (skipped) return { kind: 'not-measured', needs: `${missing} was skipped: ${skipped.reason}` };
  if (m.needs) return { kind: 'not-measured', needs: m.needs };
  const needs = methodNeeds(missing);
  if (needs) return { kind: 'not-measured', needs };
  const where = m.profiles.length ? `: profile${m.profiles.length > 1 ? 's' : ''} ${m.profiles.join(', ')}` : '';
  return { kind: 'not-measured', needs: `needs ${m.workload} on ${missing}${where}` };
}

/** Successful operations over attempted ones, over every repetition of the cell. */
const successRate = (c: Cell): number | null => (c.ops ? c.ok / c.ops : null);

/** "17 of 20 (85%)": a cell's successful operations. */
const successText = (c: Cell): string => `${c.ok} of ${c.ops} (${percentText(successRate(c))})`;

/** Why a cell has no measurement: refused, did not finish (with what it reached), or failed. */
export function failureText(c: Cell): string {
  if (c.unsupported === c.records) return `refused in every repetition (${c.records})${c.first_error ? `: ${c.first_error}` : ''}`;
  if (c.did_not_finish) return `did not finish in ${durationText((c.dnf_budget_s ?? 0) * 1000)}${c.dnf_done_share !== null ? `: ${percentText(c.dnf_done_share)} done` : ''}`;
  return `failed in ${c.records - c.repetitions} of ${c.records} repetitions${c.first_error ? `: ${c.first_error}` : ''}`;
}

/** Works or fails: the claim that the operation fails on the method. */
export function failsOn(model: ReportModel, m: ClaimMeasure): ClaimVerdict {
  const c = cellOf(model, m, 0);
  if (!c) return notMeasured(model, m);
  if (!measured(c)) return { kind: 'reproduced', ours: failureText(c) };
  return { kind: 'contradicted', ours: `worked in ${c.repetitions} of ${c.records} repetitions (${durationText(c.duration_ms_median)} median)`, by: 'it works here' };
}

/** Works or fails: the claim that the operation works on the method. */
export function worksOn(model: ReportModel, m: ClaimMeasure): ClaimVerdict {
  const c = cellOf(model, m, 0);
  if (!c) return notMeasured(model, m);
  if (measured(c) && c.repetitions === c.records) return { kind: 'reproduced', ours: `worked in ${c.repetitions} of ${c.records} repetitions (${durationText(c.duration_ms_median)} median)` };
  return { kind: 'contradicted', ours: failureText(c), by: `it failed in ${c.records - c.repetitions} of ${c.records} repetitions` };
}

/**
 * A success-rate band: the claim holds where the share of successful operations lies in [lo, hi];
 * otherwise it is off by the distance to the band, in percentage points.
 */
export function successBetween(model: ReportModel, m: ClaimMeasure, lo: number, hi: number): ClaimVerdict {
  const found = m.methods.flatMap((_, i) => m.operations.map((op) => cellOf(model, m, i, op)));
  if (found.some((c) => !c)) return notMeasured(model, m);
  const cells = found as Cell[];
  const ok = cells.reduce((n, c) => n + c.ok, 0);
  const ops = cells.reduce((n, c) => n + c.ops, 0);
  const rate = ops ? ok / ops : 0;
  const named = (c: Cell) => [m.methods.length > 1 ? methodLabel(c) : '', m.operations.length > 1 ? c.operation : ''].filter(Boolean).join(' ');
  const ours = cells.map((c) => `${named(c) ? `${named(c)}: ` : ''}${successText(c)}`).join('; ');
  if (rate >= lo && rate <= hi) return { kind: 'reproduced', ours };
  const off = rate < lo ? lo - rate : rate - hi;
  return { kind: 'contradicted', ours, by: `${num(off * 100)} percentage points ${rate < lo ? 'below' : 'above'} the claimed ${lo === hi ? percentText(lo) : `${percentText(lo)}–${percentText(hi)}`}` };
}

type Metric = 'duration_ms_median' | 'mib_s_median' | 'p95_us_median' | 'ops_s_median';

/**
 * How many times the first method's figure is better than the second's (a metric of their cells;
 * higher better for rates, lower for times), or the verdict where there is nothing to compare.
 */
function betterFactor(model: ReportModel, m: ClaimMeasure, metric: Metric): { factor: number } | { verdict: ClaimVerdict } {
  const [a, b] = [cellOf(model, m, 0), cellOf(model, m, 1)];
  if (!a || !b) return { verdict: notMeasured(model, m) };
  const [la, lb] = m.methods;
  if (!measured(a)) return { verdict: { kind: 'contradicted', ours: `${la}: ${failureText(a)}`, by: `${la} has no figure to compare` } };
  // The second one running out of time while the first finished is the order claimed, by more than measured.
  if (!measured(b) && b.did_not_finish) return { verdict: { kind: 'reproduced', ours: `${la} ${durationText(a.duration_ms_median)}; ${lb} ${failureText(b)}` } };
  if (!measured(b)) return { verdict: { kind: 'contradicted', ours: `${lb}: ${failureText(b)}`, by: `${lb} has no figure to compare` } };
  const x = Number(a[metric]);
  const y = Number(b[metric]);
  if (!(x > 0) || !(y > 0)) return { verdict: notMeasured(model, m) };
  return { factor: metric === 'mib_s_median' || metric === 'ops_s_median' ? x / y : y / x };
}

/** Which is faster: reproduced when the first method's figure beats the second's, whatever the factor; the factor is the figure. */
export function fasterThan(model: ReportModel, m: ClaimMeasure, metric: Metric): ClaimVerdict {
  const r = betterFactor(model, m, metric);
  if ('verdict' in r) return r.verdict;
  const [la, lb] = m.methods;
  const ours = r.factor >= 1 ? `${la} ${num(r.factor)}x faster than ${lb}` : `${lb} ${num(1 / r.factor)}x faster than ${la}`;
  return r.factor > 1 ? { kind: 'reproduced', ours } : { kind: 'contradicted', ours, by: 'the order is reversed' };
}

/** A ratio band: reproduced when the first method is between lo and hi times better than the second (hi may be Infinity). */
export function ratioWithin(model: ReportModel, m: ClaimMeasure, metric: Metric, lo: number, hi: number): ClaimVerdict {
  const r = betterFactor(model, m, metric);
  if ('verdict' in r) return r.verdict;
  const [la, lb] = m.methods;
  const ours = r.factor >= 1 ? `${la} ${num(r.factor)}x better than ${lb}` : `${la} ${num(1 / r.factor)}x worse than ${lb}`;
  const band = hi === Infinity ? `at least ${num(lo)}x` : `${num(lo)}–${num(hi)}x`;
  if (r.factor >= lo && r.factor <= hi) return { kind: 'reproduced', ours };
  return { kind: 'contradicted', ours, by: `${num(r.factor < lo ? lo / r.factor : r.factor / hi)}x ${r.factor < lo ? 'below' : 'above'} the band (${band})` };
}

/** This run's setup, named from its facts: the host and the store it reached. */
export function ourSetup(model: ReportModel): string {
  const f = model.methods[0];
  if (!f) return 'this run (no host facts recorded)';
  const host = f.instance_type && f.instance_type !== 'local' ? `${f.instance_type}${f.region ? ` in ${f.region}` : ''}` : `a ${f.vcpus ?? '?'}-vCPU host`;
  const store = f.endpoint_kind === 'aws' || !f.endpoint_server ? `S3${f.region ? ` in ${f.region}` : ''}` : `${f.endpoint_server} (${f.endpoint_kind}${f.endpoint_url?.includes('127.0.0.1') ? ', loopback' : ''})`;
  return `${host} against ${store}`;
}
