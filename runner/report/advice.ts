import matrixSchema from '../../assets/schema/matrix.schema.json';
import { hostClass } from '../core/comparability';
import type { AdvicePriority } from '../core/matrix.generated';
import { isRequestsOnly, methodLabel } from '../core/vocabulary';
import type { ResolvedAdvice } from '../core/matrix';
import { DEFAULT_MAX_DELAY_MS, NEEDS, type Need, type NeedProbe } from './advice-needs';
import { caseKey, isSupportCheck, isUntimed, measured, notApplicable, semanticsMatrix, shownCache, tableOf, type ProbeState, type SemanticsMatrix } from './analysis';
import { durationText } from './format';
import { caseLabel } from './labels';
import type { Cell, ReportModel } from './model';
import { byOrder, workloadRank } from './order';
import { requestFigures } from './pricing';
import { requestsCounted, s3filesFigures } from './requests';
import { operationWithMode, type MethodFacts } from './rows';

/**
 * The advisor: which method (each variant a method with its settings) for a workload, from one
 * run's measured figures only. Pure: the report model in, the advice out; printing is
 * advice-text.ts's. Steps:
 * 1. needs: every method whose measured probes fail a need is ruled out, naming the probe and its
 *    outcome; a method with a probe of a need not measured is "not measured", never assumed fine;
 * 2. limits (cost per million operations, p99): a method over one is set aside, one without the
 *    figure is not measured;
 * 3. per case of the workload (operation, size, access), the Pareto set over throughput (or
 *    operations/s where nothing moves), p99 and request cost per operation, on medians over
 *    repetitions;
 * 4. the pick for the priority: the Pareto member best on it, unless the next one's range
 *    overlaps its range ("no clear winner").
 */

/** What the pick may optimize: the matrix format's (`advice.priority`), so a matrix and the CLI take the same. */
export type Priority = AdvicePriority;
export const PRIORITIES = matrixSchema.definitions.AdvicePriority.enum as Priority[];

export interface AdviceOptions {
  workload: string;
  needs: readonly Need[];
  /** Propagation probes pass at or below this median delay (ms). */
  maxDelayMs: number;
  /** USD per million operations (S3 request cost, plus S3 Files' modelled metering for s3files). */
  maxCostPerMillion?: number | null;
  /** p99 latency must be below this (µs). */
  p99UnderUs?: number | null;
  /** The host class the user will run on (an instance type, or local:NvCPU:MGiB). */
  hostClass?: string | null;
  priority: Priority;
}

type NeedOutcome = 'met' | 'ruled-out' | 'not-measured';

/** One probe's verdict on one need for one method. */
interface ProbeVerdict {
  need: Need;
  probe: string;
  outcome: NeedOutcome;
  /** What was measured: "unsupported: …", "mixed (2 of 3 ok)", "took 4.2 s > 1 s (median of 3)", "not probed". */
  detail: string;
}

export interface MethodNeeds {
  method: string;
  outcome: NeedOutcome;
  /** The verdicts that decided the outcome (the failing ones, or the unmeasured ones). */
  verdicts: ProbeVerdict[];
}

export type Dimension = 'throughput' | 'p99' | 'cost';

/** A method's figures in one case: medians over its good repetitions, with the throughput's min–max. */
export interface Figures {
  throughput: { median: number; min: number; max: number } | null;
  p99Us: number | null;
  costPerMillion: number | null;
  /** Why the cost is missing, or what it is made of. */
  costNote: string;
}

/** Where a recommendation's figures come from. */
interface Evidence {
  runId: string;
  repetitions: number;
  hostClass: string;
  /** Set when the figures come from another host class than the one the user named. */
  warning: string | null;
}

interface Candidate {
  /** The method's label: its name, and its variant unless the default. */
  method: string;
  /** The method's name and variant: its variants are its settings. */
  name: string;
  variant: string;
  /** The variant's options: its settings. */
  settings: Record<string, string>;
  figures: Figures;
  evidence: Evidence;
}

export interface Dominated {
  method: string;
  /** Every method that dominates it. */
  by: string[];
  /** The dimensions on which one of them is better on the median but their ranges overlap. */
  overlapping: Dimension[];
}

export interface CaseAdvice {
  case: string;
  operation: string;
  objectSizeBytes: number | null;
  /** The throughput unit: MiB/s where the operations move payload, else operations/s. */
  unit: 'MiB/s' | 'ops/s';
  /** The dimensions the Pareto set is over (those measured for at least one method), and those left out with why. */
  dimensions: Dimension[];
  leftOut: { dimension: Dimension; why: string }[];
  /** Every method that met the needs and limits and has all the figures compared, best on the priority first. */
  compared: Candidate[];
  pareto: string[];
  /** Methods another one dominates on medians. */
  dominated: Dominated[];
  /** Methods the case cannot compare: a figure of a compared dimension missing, or no good repetition. */
  notCompared: { method: string; why: string }[];
  /** Methods over a limit the user set. */
  overLimit: { method: string; why: string }[];
  pick: { method: string; why: string } | null;
  noClearWinner: { among: string[]; why: string } | null;
  /** Per method compared in two settings or more (its variants): the best one for the priority, or none where their ranges overlap. */
  settings: SettingsAdvice[];
}

interface SettingsAdvice {
  method: string;
  /** The variants compared, and the best one (null: no clear winner). */
  variants: string[];
  best: string | null;
  why: string;
}

export interface Advice {
  runId: string;
  workload: string;
  needs: readonly Need[];
  priority: Priority;
  maxDelayMs: number;
  hostClass: string | null;
  /** Methods measured on the workload, ruled out by a need. */
  ruledOut: MethodNeeds[];
  /** Methods measured on the workload with a need not measured: never recommended, never assumed fine. */
  notMeasured: MethodNeeds[];
  cases: CaseAdvice[];
  /**
   * The workload's own checks of what a method kept (tar-extract's permissions, timestamps) that
   * failed or were refused, for the methods that met the needs: shown beside the advice, since no
   * need decides them.
   */
  checks: { method: string; check: string; outcome: 'failed' | 'unsupported'; what: string }[];
}

const fmtMs = (ms: number) => durationText(ms);

/** One probe's verdict for a need, from the semantics matrix's state. */
function probeVerdict(need: Need, np: NeedProbe, state: ProbeState, maxDelayMs: number): ProbeVerdict {
  const v = (outcome: NeedOutcome, detail: string): ProbeVerdict => ({ need, probe: np.probe, outcome, detail });
  // Probe reasons often start with the probe's own name: said once is enough.
  const why = (reason: string | null) => (reason ? `: ${reason.startsWith(`${np.probe}: `) ? reason.slice(np.probe.length + 2) : reason}` : '');
  switch (state.kind) {
    case 'supported':
      if (state.unverified) return v('not-measured', `succeeded unverified in ${state.unverified} repetition${state.unverified === 1 ? '' : 's'}`);
      if (!np.delay) return v('met', `supported in ${state.reps} of ${state.reps}`);
      if (state.delayMs === null) return v('not-measured', 'supported, but no delay recorded');
      return state.delayMs <= maxDelayMs
        ? v('met', `took ${fmtMs(state.delayMs)} ≤ ${fmtMs(maxDelayMs)} (median of ${state.reps})`)
        : v('ruled-out', `took ${fmtMs(state.delayMs)} > ${fmtMs(maxDelayMs)} (median of ${state.reps})`);
    case 'unsupported':
      return v('ruled-out', `unsupported${why(state.reason)}`);
    case 'mixed':
      // Refused in some repetitions: not to be relied on. Only failed in the others: not judged there.
      return state.unsupported
        ? v('ruled-out', `mixed (${state.ok} of ${state.records} ok, refused in ${state.unsupported})${why(state.reason)}`)
        : v('not-measured', `supported in ${state.ok} of ${state.records}, could not be judged in the rest${why(state.reason)}`);
    case 'failed':
      return v('not-measured', `could not be judged (failed in ${state.records})${why(state.reason)}`);
    case 'not-applicable':
      return v('not-measured', `does not apply${why(state.reason)}`);
    default:
      return v('not-measured', 'not probed');
  }
}

/** A method's standing on the needs: ruled out where any probe fails, else not measured where any probe is, else met. */
function methodNeeds(method: string, needs: readonly Need[], matrix: SemanticsMatrix | null, maxDelayMs: number): MethodNeeds {
  const verdicts = needs.flatMap((need) => NEEDS[need].probes.map((np: NeedProbe) =>
    probeVerdict(need, np, matrix && matrix.methods.includes(method) ? matrix.state(np.probe, method) : { kind: 'missing' }, maxDelayMs)));
  const failing = verdicts.filter((x) => x.outcome === 'ruled-out');
  if (failing.length) return { method, outcome: 'ruled-out', verdicts: failing };
  const unknown = verdicts.filter((x) => x.outcome === 'not-measured');
  if (unknown.length) return { method, outcome: 'not-measured', verdicts: unknown };
  return { method, outcome: 'met', verdicts };
}

type Row = Record<string, unknown>;

/** The request_counts row of a cell (request rows keep the operation without its I/O mode). */
function requestRowOf(c: Cell, rows: Row[]): Row | undefined {
  return rows.find((r) => String(r.workload) === c.workload && operationWithMode(String(r.operation), c.io) === c.operation
    && (r.object_size_bytes === null || r.object_size_bytes === undefined ? null : Number(r.object_size_bytes)) === c.object_size_bytes
    && String(r.cache ?? 'none') === c.cache && String(r.method) === c.method && String(r.method_variant) === c.method_variant);
}

/** USD per million operations: S3 requests at S3 Standard prices, plus S3 Files' modelled metering for s3files. */
function costOf(c: Cell, rows: Row[]): { perMillion: number | null; note: string } {
  // Request rows sum an operation's I/O modes: their per-operation cost is not either mode's.
  if (c.io) return { perMillion: null, note: 'requests are counted per operation, not per I/O mode' };
  const row = requestRowOf(c, rows);
  if (!row) return { perMillion: null, note: 'no request counts' };
  const metering = s3filesFigures(row);
  const meteringNote = metering?.modelled ? ` (S3 Files metering alone, modelled: $${(metering.costPer1000Ops * 1000).toFixed(2)} per million, a lower bound)` : '';
  if (!requestsCounted(row)) return { perMillion: null, note: `S3 requests not counted${meteringNote}` };
  const f = requestFigures(row);
  if (!f) return { perMillion: null, note: 'no operations counted' };
  if (metering && !metering.modelled) return { perMillion: null, note: `S3 Files metering not modelled: ${metering.reason}` };
  const requests = f.costPer1000Ops * 1000;
  if (metering?.modelled) return { perMillion: requests + metering.costPer1000Ops * 1000, note: 'S3 requests, measured, plus S3 Files metering, modelled' };
  return { perMillion: requests, note: 'S3 requests, measured' };
}

/** The host class of a method's figures (as the records' comparability key names it), from its run facts. */
function hostClassOf(facts: MethodFacts | undefined): string {
  if (!facts) return 'unknown';
  const { instance_type, vcpus, memory_bytes } = facts;
  // A local host's class is its size: without one, it is not known.
  if ((!instance_type || instance_type === 'local') && (vcpus === null || memory_bytes === null)) return 'unknown';
  return hostClass({ instance_type, vcpus: vcpus ?? 0, memory_bytes: memory_bytes ?? 0 });
}

const better: Record<Dimension, (a: Figures, b: Figures) => number> = {
  // Positive when a is better than b.
  throughput: (a, b) => a.throughput!.median - b.throughput!.median,
  p99: (a, b) => b.p99Us! - a.p99Us!,
  cost: (a, b) => b.costPerMillion! - a.costPerMillion!,
};

const has: Record<Dimension, (f: Figures) => boolean> = {
  throughput: (f) => f.throughput !== null,
  p99: (f) => f.p99Us !== null,
  cost: (f) => f.costPerMillion !== null,
};

/** a is at least as good as b on every dimension and better on one. */
export function dominates(a: Figures, b: Figures, dims: readonly Dimension[]): boolean {
  return dims.every((d) => better[d](a, b) >= 0) && dims.some((d) => better[d](a, b) > 0);
}

/** The Pareto set: the candidates no other one dominates; the rest with one that dominates each. */
export function paretoSet<T extends { method: string; figures: Figures }>(cands: T[], dims: readonly Dimension[]): { pareto: T[]; dominated: Dominated[] } {
  const pareto: T[] = [];
  const dominated: Dominated[] = [];
  for (const c of cands) {
    const by = cands.filter((o) => o !== c && dominates(o.figures, c.figures, dims));
    const overlapping = dims.filter((d) => by.some((o) => better[d](o.figures, c.figures) > 0 && overlaps(range(d, o.figures), range(d, c.figures))));
    if (by.length) dominated.push({ method: c.method, by: by.map((o) => o.method), overlapping });
    else pareto.push(c);
  }
  return { pareto, dominated };
}

/** The range of a dimension's figure: throughput's min–max over repetitions; p99 and cost are single figures. */
function range(d: Dimension, f: Figures): [number, number] {
  if (d === 'throughput') return [f.throughput!.min, f.throughput!.max];
  const x = d === 'p99' ? f.p99Us! : f.costPerMillion!;
  return [x, x];
}

const overlaps = (a: [number, number], b: [number, number]) => a[0] <= b[1] && b[0] <= a[1];

export function figureText(d: Dimension, f: Figures, unit: string): string {
  if (d === 'throughput') {
    const t = f.throughput!;
    const n = (x: number) => Number(x.toPrecision(3)).toLocaleString('en-US');
    return t.min === t.max ? `${n(t.median)} ${unit}` : `${n(t.median)} ${unit} (${n(t.min)}–${n(t.max)})`;
  }
  if (d === 'p99') return `p99 ${durationText(f.p99Us! / 1000)}`;
  return `$${f.costPerMillion!.toFixed(2)} per million operations`;
}

/**
 * The pick for a priority among the Pareto set: the best on it, unless another compared method's
 * range on it overlaps the best one's (the order could flip on another run): then no clear winner.
 */
function pickFor(priority: Dimension, pareto: Candidate[], compared: Candidate[], dims: readonly Dimension[], unit: string): Pick<CaseAdvice, 'pick' | 'noClearWinner'> {
  if (!pareto.length) return { pick: null, noClearWinner: null };
  if (!dims.includes(priority)) return { pick: null, noClearWinner: { among: pareto.map((c) => c.method), why: `${priority} was not measured for these methods: no pick for it` } };
  const [best] = [...pareto].sort((a, b) => better[priority](b.figures, a.figures));
  const close = compared.filter((c) => c !== best && overlaps(range(priority, best.figures), range(priority, c.figures)));
  if (close.length) {
    const all = [best, ...close];
    return { pick: null, noClearWinner: { among: all.map((c) => c.method), why: `their ${priority} figures overlap: ${all.map((c) => `${c.method} ${figureText(priority, c.figures, unit)}`).join('; ')}` } };
  }
  const next = compared.filter((c) => c !== best).sort((a, b) => better[priority](b.figures, a.figures))[0];
  const others = dims.filter((d) => d !== priority).map((d) => figureText(d, best.figures, unit));
  const why = [
    `best on ${priority}: ${figureText(priority, best.figures, unit)}`,
    next ? `next ${next.method} ${figureText(priority, next.figures, unit)}, ranges apart` : 'the only method compared',
    ...(others.length ? [`with ${others.join(', ')}`] : []),
    ...(best.evidence.repetitions < 2 ? ['one repetition only: no spread to judge'] : []),
  ];
  return { pick: { method: best.method, why: why.join('; ') }, noClearWinner: null };
}

function figuresOf(c: Cell, unit: CaseAdvice['unit'], requests: Row[]): Figures {
  const cost = costOf(c, requests);
  const t = unit === 'MiB/s' ? [c.mib_s_min, c.mib_s_median, c.mib_s_max] : [c.ops_s_min, c.ops_s_median, c.ops_s_max];
  return {
    throughput: t[1] === null ? null : { median: t[1], min: t[0] ?? t[1], max: t[2] ?? t[1] },
    p99Us: c.p99_us_median,
    costPerMillion: cost.perMillion,
    costNote: cost.note,
  };
}

function adviseCase(cells: Cell[], eligible: Set<string>, opts: AdviceOptions, model: ReportModel, evidence: (c: Cell) => Evidence): CaseAdvice {
  const first = cells[0];
  const unit: CaseAdvice['unit'] = cells.some((c) => measured(c) && c.mib_s_median !== null) ? 'MiB/s' : 'ops/s';
  const notCompared: CaseAdvice['notCompared'] = [];
  const overLimit: CaseAdvice['overLimit'] = [];
  const cands: Candidate[] = [];
  const settingsOf = (label: string) => model.methods.find((m) => methodLabel(m) === label)?.method_options ?? {};
  for (const c of cells) {
    const method = methodLabel(c);
    if (!eligible.has(method)) continue;
    if (!measured(c)) {
      const why = c.did_not_finish ? 'did not finish in its time budget' : c.unsupported ? 'refused the operation' : c.not_applicable === c.records ? 'not applicable' : 'no good repetition (failed or unverified)';
      notCompared.push({ method, why });
      continue;
    }
    const figures = figuresOf(c, unit, model.requests);
    if (opts.maxCostPerMillion !== null && opts.maxCostPerMillion !== undefined) {
      if (figures.costPerMillion === null) { notCompared.push({ method, why: `cost not measured (${figures.costNote}), the cost limit cannot be checked` }); continue; }
      if (figures.costPerMillion > opts.maxCostPerMillion) { overLimit.push({ method, why: `$${figures.costPerMillion.toFixed(2)} per million operations > $${opts.maxCostPerMillion}` }); continue; }
    }
    if (opts.p99UnderUs !== null && opts.p99UnderUs !== undefined) {
      if (figures.p99Us === null) { notCompared.push({ method, why: 'p99 not measured, the p99 limit cannot be checked' }); continue; }
      if (figures.p99Us >= opts.p99UnderUs) { overLimit.push({ method, why: `p99 ${durationText(figures.p99Us / 1000)} ≥ ${durationText(opts.p99UnderUs / 1000)}` }); continue; }
    }
    cands.push({ method, name: c.method, variant: c.method_variant, settings: settingsOf(method), figures, evidence: evidence(c) });
  }
  // Compare on what was measured: a dimension no method has is left out; a method missing one the others have is not compared on a guess.
  const all: Dimension[] = ['throughput', 'p99', 'cost'];
  const dimensions = all.filter((d) => cands.some((c) => has[d](c.figures)));
  const leftOut = all.filter((d) => !dimensions.includes(d)).map((d) => ({ dimension: d, why: d === 'cost' ? `not measured: ${[...new Set(cands.map((c) => c.figures.costNote))].join('; ') || 'no method compared'}` : 'not measured for any method' }));
  const compared = cands.filter((c) => {
    const missing = dimensions.filter((d) => !has[d](c.figures));
    if (missing.length) notCompared.push({ method: c.method, why: `${missing.join(', ')} not measured${missing.includes('cost') ? ` (${c.figures.costNote})` : ''}` });
    return !missing.length;
  });
  const { pareto, dominated } = paretoSet(compared, dimensions);
  const picked = pickFor(opts.priority, pareto, compared, dimensions, unit);
  const order = opts.priority;
  const sorted = dimensions.includes(order) ? [...compared].sort((a, b) => better[order](b.figures, a.figures)) : compared;
  return {
    case: caseLabel({ ...first, cache: shownCache(cells) }, model.sizes), operation: first.operation, objectSizeBytes: first.object_size_bytes, unit,
    dimensions, leftOut, compared: sorted, pareto: sorted.filter((c) => pareto.includes(c)).map((c) => c.method), dominated, notCompared, overLimit, ...picked,
    settings: settingsAdvice(sorted, dimensions, opts.priority, unit),
  };
}

/** Each method's settings compared with each other: the best for the priority among its variants, by the same rule as the pick. */
function settingsAdvice(compared: Candidate[], dims: readonly Dimension[], priority: Dimension, unit: string): SettingsAdvice[] {
  const names = [...new Set(compared.map((c) => c.name))];
  return names.map((name) => compared.filter((c) => c.name === name)).filter((vs) => vs.length >= 2).map((vs) => {
    const p = pickFor(priority, vs, vs, dims, unit);
    const best = vs.find((v) => v.method === p.pick?.method);
    return { method: vs[0].name, variants: vs.map((v) => v.variant), best: best?.variant ?? null, why: p.pick?.why ?? p.noClearWinner?.why ?? '' };
  });
}

/** The advice for a workload from one run's report model. */
export function advise(model: ReportModel, opts: AdviceOptions): Advice {
  const cells = model.cells.filter((c) => c.workload === opts.workload && !isUntimed(c) && !isRequestsOnly(c.operation) && !notApplicable(c));
  const methods = byOrder([...new Set(cells.filter((c) => c.not_applicable < c.records).map(methodLabel))], model.methodOrder, (m) => m);
  const matrix = semanticsMatrix(model.cells, model.methodOrder);
  const standing = methods.map((m) => methodNeeds(m, opts.needs, matrix, opts.maxDelayMs));
  const eligible = new Set(standing.filter((s) => s.outcome === 'met').map((s) => s.method));
  const factsOf = (label: string) => model.methods.find((m) => methodLabel(m) === label);
  const evidence = (c: Cell): Evidence => {
    const cls = hostClassOf(factsOf(methodLabel(c)));
    const warning = opts.hostClass && opts.hostClass !== cls ? `measured on ${cls}, not on ${opts.hostClass}: the figures may not hold there` : null;
    return { runId: model.runId, repetitions: c.distinct_repetitions, hostClass: cls, warning };
  };
  const groups = new Map<string, Cell[]>();
  for (const c of cells) groups.set(caseKey(c), [...(groups.get(caseKey(c)) ?? []), c]);
  return {
    runId: model.runId, workload: opts.workload, needs: opts.needs, priority: opts.priority, maxDelayMs: opts.maxDelayMs, hostClass: opts.hostClass ?? null,
    ruledOut: standing.filter((s) => s.outcome === 'ruled-out'),
    notMeasured: standing.filter((s) => s.outcome === 'not-measured'),
    cases: [...groups.values()].map((g) => adviseCase(g, eligible, opts, model, evidence)),
    checks: model.cells.filter((c) => c.workload === opts.workload && isSupportCheck(c) && eligible.has(methodLabel(c)) && (c.failed_batches > 0 || c.unsupported > 0))
      .map((c) => ({
        method: methodLabel(c), check: c.operation, outcome: c.unsupported > 0 ? 'unsupported' as const : 'failed' as const,
        what: `${c.unsupported || c.failed_batches} of ${c.records} repetitions${c.first_error ? `: ${c.first_error}` : ''}`,
      })),
  };
}


/** A workload to advise on: any but the semantics probes, which are what the needs read. */
export const isAdvisable = (workload: string) => tableOf(workload) !== 'semantics';

/**
 * The advice the run's matrix asked for (`advice`, recorded in its manifest), for every workload
 * the run measured: the same `advise` as `s3ab advise` with those options. Null where the matrix
 * asked none.
 */
export function adviceOfRun(model: ReportModel): { request: ResolvedAdvice; advice: Advice[] } | null {
  const request = model.manifest?.advice;
  if (!request) return null;
  const workloads = [...new Set(model.cells.map((c) => c.workload))].filter(isAdvisable)
    .sort((a, b) => workloadRank(a) - workloadRank(b) || a.localeCompare(b));
  const advice = workloads.map((workload) => advise(model, {
    workload, needs: request.needs, priority: request.priority, maxDelayMs: request.max_delay_ms ?? DEFAULT_MAX_DELAY_MS,
    maxCostPerMillion: request.max_cost_per_million, p99UnderUs: request.p99_under_us, hostClass: null,
  })).filter((a) => a.cases.length > 0);
  return { request, advice };
}
