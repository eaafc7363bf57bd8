import type { CacheState } from '../core/vocabulary';
import {
  accessGroup, caseKey, firstAccessNote, isSupportCheck, jobCells, measured, movesPayload, ranked, semanticsMatrix, shownCache, sizeSweeps, tableOf,
  type SweepGroup,
} from './analysis';
import { isVerdictOperation } from './verdict-operations';
import { cacheShareOf, cacheShareText, type CacheShare } from './cache-share';
import { dnfText, num } from './format';
import { caseLabel } from './labels';
import type { Cell, ReportModel } from './model';
import { byOrder, operationOrder } from './order';
import { cacheRank, methodLabel } from '../core/vocabulary';
import { peakUnlikeSustained } from './series';

/**
 * The verdicts: for every workload case the method with the best median, how far ahead of the
 * next it is, and what limits the verdict (overlapping spreads, cache-served figures, a peak far
 * above the sustained rate, methods that refused, failed or did not finish, what a method's own
 * checks found). Generated from the model, nothing written by hand; the text summary and the HTML
 * page print the same list.
 */
export interface Verdict {
  workload: string;
  case: string;
  best: string;
  margin: string;
  basis: string;
  notes: string[];
}

interface Candidate {
  method: string;
  value: number;
  lo: number;
  hi: number;
  /** Served from a cache by a share that could change the verdict (or an unknown share): its words, else null. */
  cached: string | null;
}

type Pick3 = (c: Cell) => [number | null, number | null, number | null];

/**
 * How a verdict names a method: its label, and `method:default` where the run has another variant
 * of the method — "best: s3-crt" would not say which of s3-crt's variants won.
 */
function verdictLabel(c: Pick<Cell, 'method' | 'method_variant'>, all: readonly Pick<Cell, 'method' | 'method_variant'>[]): string {
  const variants = new Set(all.filter((x) => x.method === c.method).map((x) => x.method_variant));
  return c.method_variant === 'default' && variants.size > 1 ? `${c.method}:default` : methodLabel(c);
}

/** A winning figure's cache caveat: the share that could change the verdict, or that the share is unknown. */
const cacheNote = (share: CacheShare) => (share.share === null ? 'served from a cache, share unknown' : `${cacheShareText(share)}, enough to change the verdict`);

function candidates(cells: Cell[], pick: Pick3, model: ReportModel): Candidate[] {
  return cells.filter(ranked).flatMap((c) => {
    const [lo, value, hi] = pick(c);
    const share = cacheShareOf(model, c);
    return value !== null && value > 0 ? [{ method: verdictLabel(c, model.cells), value, lo: lo ?? value, hi: hi ?? value, cached: share?.warn ? cacheNote(share) : null }] : [];
  });
}

/** Winner and runner-up; the margin is how many times better the winner is. */
function rank(cands: Candidate[], higher: boolean): { best: Candidate; next: Candidate | null; factor: number | null; overlap: boolean } | null {
  if (!cands.length) return null;
  const [best, next] = [...cands].sort((a, b) => (higher ? b.value - a.value : a.value - b.value));
  if (!next) return { best, next: null, factor: null, overlap: false };
  // Ranges over repetitions overlap: the order could flip on another run.
  return { best, next, factor: higher ? best.value / next.value : next.value / best.value, overlap: higher ? best.lo <= next.hi : best.hi >= next.lo };
}

/** What keeps methods out of a verdict: refused, failed, did not finish (with what they reached), lost repetitions. */
function notFor(cells: Cell[], order: string[]): string[] {
  const notes: string[] = [];
  const methods = (of: Cell[]) => byOrder([...new Set(of.map(methodLabel))], order, (m) => m);
  const unsupported = methods(cells.filter((c) => c.unsupported > 0 && !measured(c)));
  const failed = methods(cells.filter((c) => c.failed_batches > 0 && !measured(c) && c.unsupported === 0 && !isSupportCheck(c)));
  if (unsupported.length) notes.push(`not supported by ${unsupported.join(', ')}`);
  if (failed.length) notes.push(`failed on ${failed.join(', ')}`);
  for (const c of cells.filter((x) => x.did_not_finish > 0)) {
    const progress = dnfText({ budgetS: c.dnf_budget_s, doneShare: c.dnf_done_share, extrapolatedS: c.dnf_extrapolated_s });
    notes.push(`${methodLabel(c)}: ${progress}${measured(c) ? ` (${c.did_not_finish} of ${c.records} repetitions; the finished ones shown, not ranked)` : ''}, not ranked`);
  }
  // Methods that have a result but lost some repetitions: their medians rest on fewer batches.
  const lost = new Map<string, number>();
  for (const c of cells.filter((x) => measured(x) && x.failed_batches > 0 && !isSupportCheck(x))) lost.set(methodLabel(c), (lost.get(methodLabel(c)) ?? 0) + c.failed_batches);
  for (const [m, n] of lost) notes.push(`${m}: ${n} failed batch${n === 1 ? '' : 'es'} left out`);
  return notes;
}

/** Methods of a case whose peak is far above their sustained rate (s5cmd's 4.3 Gbit/s falling to 2 once measured: a peak is not a rate), the winner first. */
function sustainedNote(cells: Cell[], winner: string, all: readonly Cell[]): string[] {
  const label = (c: Cell) => verdictLabel(c, all);
  const bursts = cells.filter((x) => x.series && peakUnlikeSustained(x.series)).sort((a, b) => Number(label(b) === winner) - Number(label(a) === winner));
  return [...new Set(bursts.map((c) => `${label(c)} peaked at ${num(c.series!.peak)} ${c.series!.unit} but sustained ${num(c.series!.sustained)} ${c.series!.unit}`))];
}

const factorText = (factors: number[]) => {
  const lo = Math.min(...factors);
  const hi = Math.max(...factors);
  return num(lo) === num(hi) ? `${num(lo)}x` : `${num(lo)}–${num(hi)}x`;
};

/** Size sweeps: the winner per size, runs of equal winners merged into size ranges. */
function sweepVerdicts(model: ReportModel, g: SweepGroup, op: string, group: CacheState): Verdict[] {
  const { sizes: labels, methodOrder: order } = model;
  const mine = model.cells.filter((c) => c.workload === g.workload && c.operation === op && accessGroup(c.cache) === group);
  const cache = shownCache(mine);
  const payload = mine.some(movesPayload);
  const pick: Pick3 = (c) => (payload ? [c.mib_s_min, c.mib_s_median, c.mib_s_max] : [c.ops_s_min, c.ops_s_median, c.ops_s_max]);
  const sizes = [...new Set(mine.filter(measured).map((c) => c.object_size_bytes!))].sort((a, b) => a - b);
  const out: Verdict[] = [];
  type Run = { best: string; sizes: number[]; factors: number[]; next: Set<string>; overlap: boolean; cached: string[] };
  let run: Run | null = null;
  const flush = (r: Run) => {
    const inRun = mine.filter((c) => r.sizes.includes(c.object_size_bytes!));
    const range = r.sizes.length === 1 ? labels.of(r.sizes[0]) : `${labels.of(r.sizes[0])}–${labels.of(r.sizes[r.sizes.length - 1])}`;
    out.push({
      workload: g.workload, case: `${op} ${range}${cache !== 'none' ? ` (${cache})` : ''}`, best: r.best,
      margin: r.factors.length ? `${factorText(r.factors)} ${payload ? 'the throughput' : 'the operations/s'} of ${[...r.next].join(', ')}` : 'only method with a result',
      basis: payload ? 'median MiB/s' : 'median operations/s',
      notes: [
        ...(r.overlap ? ['within the run-to-run spread at some sizes'] : []), ...(r.cached.length ? [`winning figures: ${[...new Set(r.cached)].join('; ')}`] : []),
        ...sustainedNote(inRun, r.best, model.cells), ...firstAccessNote(inRun, order), ...notFor(inRun, order),
      ],
    });
  };
  for (const size of sizes) {
    const r = rank(candidates(mine.filter((c) => c.object_size_bytes === size), pick, model), true);
    if (!r) continue;
    if (!run || run.best !== r.best.method) {
      if (run) flush(run);
      run = { best: r.best.method, sizes: [], factors: [], next: new Set(), overlap: false, cached: [] };
    }
    run.sizes.push(size);
    if (r.factor !== null) run.factors.push(r.factor);
    if (r.next) run.next.add(r.next.method);
    run.overlap ||= r.overlap;
    if (r.best.cached) run.cached.push(r.best.cached);
  }
  if (run) flush(run);
  return out;
}

/** Metadata: operations per second among the methods that completed every operation. */
function metadataVerdicts(model: ReportModel): Verdict[] {
  const out: Verdict[] = [];
  const suite = model.cells.filter((c) => tableOf(c.workload) === 'metadata-suite' && c.not_applicable < c.records);
  for (const workload of [...new Set(suite.map((c) => c.workload))]) {
    const cells = suite.filter((c) => c.workload === workload);
    for (const test of operationOrder(workload, cells.map((c) => c.operation))) {
      const mine = cells.filter((c) => c.operation === test);
      const r = rank(candidates(mine, (c) => [c.ops_s_min, c.ops_s_median, c.ops_s_max], model), true);
      const partial = mine.filter((c) => !measured(c) && c.ok > 0 && !c.did_not_finish).map((c) => `${methodLabel(c)} completed ${num((100 * c.ok) / c.ops)}%`);
      out.push({
        workload, case: test, best: r ? r.best.method : 'none',
        margin: !r ? 'no method completed it' : r.next ? `${num(r.factor)}x the operations/s of ${r.next.method}` : 'only method that completed it',
        basis: 'median operations/s, 100% success',
        notes: [...(r?.overlap ? ['within the run-to-run spread'] : []), ...partial, ...notFor(mine.filter((c) => c.ok === 0 || measured(c) || c.did_not_finish), model.methodOrder)],
      });
    }
  }
  return out;
}

/** Semantics: the broadest support, and the quickest propagation each way. */
function semanticsVerdicts(model: ReportModel): Verdict[] {
  const matrix = semanticsMatrix(model.cells, model.methodOrder);
  if (!matrix) return [];
  const workload = model.cells.find((c) => tableOf(c.workload) === 'semantics')!.workload;
  const counts = matrix.methods.map((m) => ({ m, n: matrix.supportedCount(m) })).sort((a, b) => b.n - a.n);
  const top = counts[0];
  const rest = counts.filter((c) => c.n < top.n);
  const missing = matrix.probes.filter((p) => matrix.state(p, top.m).kind !== 'supported');
  const out: Verdict[] = [{
    workload, case: 'POSIX semantics (probes supported)', best: counts.filter((c) => c.n === top.n).map((c) => c.m).join(', '),
    margin: `${top.n} of ${matrix.probes.length} probes${rest.length ? `; ${rest.map((c) => `${c.m} ${c.n}`).join(', ')}` : ''}`,
    basis: 'probes that succeeded in every repetition', notes: missing.length ? [`lacks ${missing.join(', ')}`] : [],
  }];
  for (const probe of matrix.probes.filter((p) => p.endsWith('-delay'))) {
    const cands = matrix.methods.flatMap((m) => {
      const s = matrix.state(probe, m);
      return s.kind === 'supported' && s.delayMs !== null ? [{ method: m, value: s.delayMs, lo: s.delayMin ?? s.delayMs, hi: s.delayMax ?? s.delayMs, cached: null }] : [];
    });
    const r = rank(cands, false);
    if (!r) continue;
    out.push({
      workload, case: `${probe.replace(/-delay$/, '').replace(/-/g, ' ')} propagation`, best: r.best.method,
      margin: r.next ? `${num(r.best.value)} ms vs ${num(r.next.value)} ms (${r.next.method})` : `${num(r.best.value)} ms`,
      basis: 'median delay until a change is visible', notes: r.overlap ? ['within the run-to-run spread'] : [],
    });
  }
  return out;
}

/** A support check's verdict: who kept it, and what the others' checks found (the method's finding, not a broken measurement). */
function checkVerdict(model: ReportModel, mine: Cell[], kase: string): Verdict {
  const supported = byOrder([...new Set(mine.filter(measured).map(methodLabel))], model.methodOrder, (m) => m);
  const found = mine.filter((c) => c.failed_batches > 0).map((c) => `${methodLabel(c)}: ${c.first_error ?? 'the check failed'}`);
  return {
    workload: mine[0].workload, case: kase, best: supported.join(', ') || 'none', margin: supported.length ? `kept by ${supported.join(', ')}` : 'kept by no method',
    basis: 'support check (untimed: what the files kept)', notes: [...found, ...notFor(mine, model.methodOrder)],
  };
}

/** Timed jobs and single-size cases: the shortest median time. */
function jobVerdicts(model: ReportModel, sweeps: SweepGroup[]): Verdict[] {
  // A verdict operation judges the figures of its workload's other operations: nothing to rank.
  const jobs = jobCells(model.cells, sweeps).filter((c) => c.not_applicable < c.records && !isVerdictOperation(c));
  const out: Verdict[] = [];
  for (const key of [...new Set(jobs.map(caseKey))]) {
    const mine = jobs.filter((c) => caseKey(c) === key);
    const kase = caseLabel({ ...mine[0], cache: shownCache(mine) }, model.sizes);
    if (isSupportCheck(mine[0])) {
      out.push(checkVerdict(model, mine, kase));
      continue;
    }
    const r = rank(candidates(mine, (c) => [c.duration_ms_min, c.duration_ms_median, c.duration_ms_max], model), false);
    out.push({
      workload: mine[0].workload, case: kase, best: r ? r.best.method : 'none',
      margin: !r ? (mine.every((c) => c.unsupported === c.records) ? 'no method supports it' : 'no method completed it') : r.next ? `${num(r.factor)}x faster than ${r.next.method}` : 'only method with a result',
      basis: 'median time',
      notes: [
        ...(r?.overlap ? ['within the run-to-run spread'] : []), ...(r?.best.cached ? [r.best.cached] : []),
        ...(r ? sustainedNote(mine, r.best.method, model.cells) : []), ...firstAccessNote(mine, model.methodOrder), ...notFor(mine, model.methodOrder),
      ],
    });
  }
  return out;
}

/** Every verdict of the run, in the report's order of workloads. */
export function verdicts(model: ReportModel): Verdict[] {
  const sweeps = sizeSweeps(model.cells);
  const out: Verdict[] = [];
  for (const g of sweeps) {
    for (const op of g.operations) {
      const groups = [...new Set(g.cells.filter((c) => c.operation === op).map((c) => accessGroup(c.cache)))].sort((a, b) => cacheRank(a) - cacheRank(b));
      for (const group of groups) out.push(...sweepVerdicts(model, g, op, group));
    }
  }
  out.push(...metadataVerdicts(model), ...semanticsVerdicts(model), ...jobVerdicts(model, sweeps));
  const order = [...new Set(model.cells.map((c) => c.workload))];
  return out.map((v, i) => ({ v, i })).sort((a, b) => order.indexOf(a.v.workload) - order.indexOf(b.v.workload) || a.i - b.i).map(({ v }) => v);
}
