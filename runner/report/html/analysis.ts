import { formatSize } from '../../core/units';
import { cacheRank, methodLabel } from '../../core/vocabulary';
import { operationWithMode, type Cache, type Cell, type ReportInput } from '../model';
import { byOrder, declaredOperations, inDeclaredOrder } from '../order';
import { num } from './format';

/**
 * What the page shows, derived from the query rows: which cells belong to which section, the
 * method order, and the generated "which method for which workload" summary. Pure functions.
 */

export const label = methodLabel;
/** A cell with at least one successful, verified batch. */
export const measured = (c: Cell) => c.repetitions > 0;
export const movesPayload = (c: Cell) => c.mib_s_median !== null;

/** Methods in matrix order: the order of their first measurement in the run. */
export function methodOrder(input: ReportInput): string[] {
  const facts = [...input.methods].sort((a, b) => a.first_recorded_at.localeCompare(b.first_recorded_at)).map(label);
  const rest = [...new Set(input.cells.map(label))].filter((m) => !facts.includes(m)).sort();
  return [...facts, ...rest];
}

export { byOrder };

/** I/O modes in the order shown: seed 000's O_DIRECT first. */
const IO_ORDER = ['direct', 'buffered'];

export function operationOrder(workload: string, ops: string[]): string[] {
  const base = declaredOperations(workload);
  // Each operation, then the same operation per I/O mode ("read (direct)", "read (buffered)").
  const order = base.flatMap((op) => [op, ...IO_ORDER.map((io) => operationWithMode(op, io))]);
  return byOrder([...new Set(ops)], order, (o) => o);
}

export { cacheRank };

/** "objects", "download", 1 MiB, warm → "download 1 MiB (warm)". */
export function caseLabel(c: Pick<Cell, 'operation' | 'object_size_bytes' | 'cache'>, withSize = true): string {
  const size = withSize && c.object_size_bytes !== null ? ` ${formatSize(c.object_size_bytes)}` : '';
  const cache = c.cache !== 'none' ? ` (${c.cache})` : '';
  return `${c.operation}${size}${cache}`;
}

/**
 * The cache state cells are compared in: `none` (an object method keeps no client cache, every
 * access goes to the store) counts as a first access, like a mount's `cold`; warm states stay apart.
 */
export const accessGroup = (cache: Cache): Cache => (cache === 'none' ? 'cold' : cache);

/** Workload, operation, size and access group: the cells one verdict, one table row, one "vs best" compares. */
export const caseKey = (c: Cell) => `${c.workload}\u0000${c.operation}\u0000${c.object_size_bytes}\u0000${accessGroup(c.cache)}`;

/** The cache state a group of cells is labelled with: none where no cell has a cache (object methods only). */
export function shownCache(cells: Pick<Cell, 'cache'>[]): Cache {
  const group = accessGroup(cells[0].cache);
  return group === 'cold' && cells.every((c) => c.cache === 'none') ? 'none' : group;
}

/** Case labels per access group: "walk 1 KiB (cold)" for object methods and cold mounts alike. */
export function groupCaseLabels(cells: Cell[], withSize = true): (c: Cell) => string {
  const groups = new Map<string, Cell[]>();
  for (const c of cells) groups.set(caseKey(c), [...(groups.get(caseKey(c)) ?? []), c]);
  return (c) => caseLabel({ ...c, cache: shownCache(groups.get(caseKey(c)) ?? [c]) }, withSize);
}

/** Says so where object methods (no cache) are ranked with mounts' cold figures. */
export function firstAccessNote(cells: Cell[], order: string[]): string[] {
  const objects = byOrder([...new Set(cells.filter((c) => c.cache === 'none' && measured(c)).map(label))], order, (m) => m);
  if (!objects.length || !cells.some((c) => c.cache === 'cold' && measured(c))) return [];
  return [`${objects.join(', ')}: no client cache, ranked with the mounts' cold (first-access) figures`];
}

export interface SweepGroup {
  workload: string;
  operations: string[];
  cells: Cell[];
}

/** Workload operations measured at two sizes or more: drawn against size. */
export function sizeSweeps(cells: Cell[]): SweepGroup[] {
  const groups: SweepGroup[] = [];
  for (const workload of [...new Set(cells.map((c) => c.workload))].sort()) {
    if (workload === 'semantics' || workload === 'metadata') continue;
    const mine = cells.filter((c) => c.workload === workload && measured(c) && c.object_size_bytes !== null);
    const operations = operationOrder(workload, mine.map((c) => c.operation))
      .filter((op) => new Set(mine.filter((c) => c.operation === op).map((c) => c.object_size_bytes)).size >= 2);
    if (operations.length) groups.push({ workload, operations, cells: mine.filter((c) => operations.includes(c.operation)) });
  }
  // Seed 000's workload first, then fio.
  return byOrder(groups, ['objects', 'fio-seq'], (g) => g.workload);
}

/**
 * A support check: the case's successful records carry no timing (tar-extract's permissions,
 * timestamps, ownership: did the files keep them?). Its result is who supports it, not who is fastest.
 */
export function isSupportCheck(cells: Cell[]): boolean {
  const ok = cells.filter(measured);
  return ok.length > 0 && ok.every((c) => !((c.duration_ms_max ?? 0) > 0));
}

/** Cells of workloads that are neither size sweeps, metadata nor semantics: timed jobs. */
export function jobCells(cells: Cell[], sweeps: SweepGroup[]): Cell[] {
  const swept = new Set(sweeps.flatMap((g) => g.operations.map((op) => `${g.workload}/${op}`)));
  return cells.filter((c) => c.workload !== 'semantics' && c.workload !== 'metadata' && !swept.has(`${c.workload}/${c.operation}`));
}

export interface CacheCase {
  panel: string;
  workload: string;
  cells: Cell[];
  /** throughput when the operation moves payload, else operations per second. */
  metric: 'mib_s_median' | 'ops_s_median';
}

/** Operations measured for one method in two cache states or more (cold and warm side by side). */
export function cacheCases(cells: Cell[]): CacheCase[] {
  const groups = new Map<string, Cell[]>();
  for (const c of cells.filter((x) => measured(x) && x.cache !== 'none')) {
    const key = `${c.workload}\u0000${c.operation}\u0000${c.object_size_bytes}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const out: CacheCase[] = [];
  for (const group of groups.values()) {
    const perMethod = new Map<string, Set<string>>();
    for (const c of group) perMethod.set(label(c), (perMethod.get(label(c)) ?? new Set()).add(c.cache));
    const multi = [...perMethod].filter(([, caches]) => caches.size >= 2).map(([m]) => m);
    if (!multi.length) continue;
    const first = group[0];
    const kept = group.filter((c) => multi.includes(label(c)));
    out.push({
      panel: `${first.workload} · ${caseLabel({ ...first, cache: 'none' })}`,
      workload: first.workload,
      cells: kept,
      metric: kept.some(movesPayload) ? 'mib_s_median' : 'ops_s_median',
    });
  }
  return out.sort((a, b) => a.panel.localeCompare(b.panel, 'en', { numeric: true }));
}

export type ProbeState =
  | { kind: 'supported'; delayMs: number | null; delayMin: number | null; delayMax: number | null; reps: number; unverified: number }
  | { kind: 'unsupported'; reason: string | null }
  | { kind: 'failed'; reason: string | null; ok: number; records: number }
  /** Supported in some repetitions, refused or failed in others (the text summary's "mixed"). */
  | { kind: 'mixed'; reason: string | null; ok: number; unsupported: number; records: number }
  /** The probe does not apply to the method (a bucket check on a method whose files are not objects). */
  | { kind: 'not-applicable'; reason: string | null }
  | { kind: 'missing' };

export interface SemanticsMatrix {
  probes: string[];
  methods: string[];
  state(probe: string, method: string): ProbeState;
  supportedCount(method: string): number;
}

export function semanticsMatrix(cells: Cell[], order: string[]): SemanticsMatrix | null {
  // Methods that cannot run the workload at all (object methods) stay out; a method where single
  // probes do not apply (bucket checks on JuiceFS) shows them as n/a.
  const probing = new Set(cells.filter((c) => c.workload === 'semantics' && c.not_applicable < c.records).map(label));
  const mine = cells.filter((c) => c.workload === 'semantics' && probing.has(label(c)));
  if (!mine.length) return null;
  const probes = inDeclaredOrder('semantics', mine.map((c) => c.operation));
  const methods = byOrder([...new Set(mine.map(label))], order, (m) => m);
  const find = (probe: string, method: string) => mine.filter((c) => c.operation === probe && label(c) === method);
  const state = (probe: string, method: string): ProbeState => {
    const found = find(probe, method);
    if (!found.length) return { kind: 'missing' };
    const records = found.reduce((n, c) => n + c.records, 0);
    if (found.every((c) => c.not_applicable === c.records)) return { kind: 'not-applicable', reason: found.find((c) => c.first_error)?.first_error ?? null };
    const good = found.reduce((n, c) => n + c.repetitions, 0);
    // A probe that succeeded without a check to make still counts as supported; the page says so.
    const unverified = found.reduce((n, c) => n + c.unverified, 0);
    const unsupported = found.reduce((n, c) => n + c.unsupported, 0);
    const reason = found.find((c) => c.first_error)?.first_error ?? null;
    if (good + unverified === records) {
      const c = found[0];
      return { kind: 'supported', delayMs: c.delay_ms_median, delayMin: c.delay_ms_min, delayMax: c.delay_ms_max, reps: good, unverified };
    }
    if (unsupported === records) return { kind: 'unsupported', reason };
    if (good + unverified === 0 && unsupported === 0) return { kind: 'failed', reason, ok: 0, records };
    return { kind: 'mixed', reason, ok: good + unverified, unsupported, records };
  };
  return {
    probes, methods, state,
    supportedCount: (method) => probes.filter((p) => state(p, method).kind === 'supported').length,
  };
}

export interface Recommendation {
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
  cached: boolean;
}

type Direction = 'higher' | 'lower';

function candidates(cells: Cell[], pick: (c: Cell) => [number | null, number | null, number | null]): Candidate[] {
  return cells.filter(measured).flatMap((c) => {
    const [lo, value, hi] = pick(c);
    return value !== null && value > 0 ? [{ method: label(c), value, lo: lo ?? value, hi: hi ?? value, cached: c.served_from_cache > 0 }] : [];
  });
}

/** Winner and runner-up; the margin is how many times better the winner is. */
function rank(cands: Candidate[], dir: Direction): { best: Candidate; next: Candidate | null; factor: number | null; overlap: boolean } | null {
  if (!cands.length) return null;
  const sorted = [...cands].sort((a, b) => (dir === 'higher' ? b.value - a.value : a.value - b.value));
  const [best, next] = sorted;
  if (!next) return { best, next: null, factor: null, overlap: false };
  const factor = dir === 'higher' ? best.value / next.value : next.value / best.value;
  // Ranges over repetitions overlap: the order could flip on another run.
  const overlap = dir === 'higher' ? best.lo <= next.hi : best.hi >= next.lo;
  return { best, next, factor, overlap };
}

function notFor(cells: Cell[], order: string[]): string[] {
  const notes: string[] = [];
  const methods = (of: Cell[]) => byOrder([...new Set(of.map(label))], order, (m) => m);
  const unsupported = methods(cells.filter((c) => c.unsupported > 0 && !measured(c)));
  const failed = methods(cells.filter((c) => c.failed_batches > 0 && !measured(c) && c.unsupported === 0));
  if (unsupported.length) notes.push(`not supported by ${unsupported.join(', ')}`);
  if (failed.length) notes.push(`failed on ${failed.join(', ')}`);
  // Methods that have a result but lost some repetitions: their medians rest on fewer batches.
  const lost = new Map<string, number>();
  for (const c of cells.filter((x) => measured(x) && x.failed_batches > 0)) lost.set(label(c), (lost.get(label(c)) ?? 0) + c.failed_batches);
  for (const [m, n] of lost) notes.push(`${m}: ${n} failed batch${n === 1 ? '' : 'es'} left out`);
  return notes;
}

const sizeRange = (sizes: number[]) => (sizes.length === 1 ? formatSize(sizes[0]) : `${formatSize(sizes[0])}–${formatSize(sizes[sizes.length - 1])}`);
const factorText = (factors: number[]) => {
  const lo = Math.min(...factors);
  const hi = Math.max(...factors);
  return num(lo) === num(hi) ? `${num(lo)}x` : `${num(lo)}–${num(hi)}x`;
};

/**
 * The generated summary: for every workload case, the method with the best median, how far ahead
 * of the next it is, and what limits the verdict (overlapping spreads, cache-served figures,
 * methods that refused or failed). Nothing in it is written by hand.
 */
export function recommendations(input: ReportInput, order: string[]): Recommendation[] {
  const cells = input.cells;
  const out: Recommendation[] = [];
  const sweeps = sizeSweeps(cells);

  // Size sweeps: winner per size, runs of equal winners merged into size ranges.
  for (const g of sweeps) {
    for (const op of g.operations) {
      const groups = [...new Set(g.cells.filter((c) => c.operation === op).map((c) => accessGroup(c.cache)))].sort((a, b) => cacheRank(a) - cacheRank(b));
      for (const group of groups) {
        const mine = cells.filter((c) => c.workload === g.workload && c.operation === op && accessGroup(c.cache) === group);
        const cache = shownCache(mine);
        const payload = mine.some(movesPayload);
        const pick = (c: Cell): [number | null, number | null, number | null] => (payload ? [c.mib_s_min, c.mib_s_median, c.mib_s_max] : [c.ops_s_min, c.ops_s_median, c.ops_s_max]);
        const sizes = [...new Set(mine.filter(measured).map((c) => c.object_size_bytes!))].sort((a, b) => a - b);
        let run: { best: string; sizes: number[]; factors: number[]; next: Set<string>; overlap: boolean; cached: boolean } | null = null;
        const flush = () => {
          if (!run) return;
          const notes: string[] = [];
          if (run.overlap) notes.push('within the run-to-run spread at some sizes');
          if (run.cached) notes.push('winning figures above the link limit: served from a cache');
          out.push({
            workload: g.workload, case: `${op} ${sizeRange(run.sizes)}${cache !== 'none' ? ` (${cache})` : ''}`, best: run.best,
            margin: run.factors.length ? `${factorText(run.factors)} ${payload ? 'the throughput' : 'the operations/s'} of ${[...run.next].join(', ')}` : 'only method with a result',
            basis: payload ? 'median MiB/s' : 'median operations/s',
            notes: [...notes, ...firstAccessNote(mine.filter((c) => run!.sizes.includes(c.object_size_bytes!)), order), ...notFor(mine.filter((c) => run!.sizes.includes(c.object_size_bytes!)), order)],
          });
          run = null;
        };
        for (const size of sizes) {
          const r = rank(candidates(mine.filter((c) => c.object_size_bytes === size), pick), 'higher');
          if (!r) continue;
          if (!run || run.best !== r.best.method) {
            flush();
            run = { best: r.best.method, sizes: [], factors: [], next: new Set(), overlap: false, cached: false };
          }
          run.sizes.push(size);
          if (r.factor !== null) run.factors.push(r.factor);
          if (r.next) run.next.add(r.next.method);
          run.overlap ||= r.overlap;
          run.cached ||= r.best.cached;
        }
        flush();
      }
    }
  }

  // Metadata: operations per second among methods that completed every operation.
  const meta = cells.filter((c) => c.workload === 'metadata' && c.not_applicable < c.records);
  for (const test of operationOrder('metadata', meta.map((c) => c.operation))) {
    const mine = meta.filter((c) => c.operation === test);
    const r = rank(candidates(mine, (c) => [c.ops_s_min, c.ops_s_median, c.ops_s_max]), 'higher');
    const partial = mine.filter((c) => !measured(c) && c.ok > 0).map((c) => `${label(c)} completed ${num((100 * c.ok) / c.ops)}%`);
    out.push({
      workload: 'metadata', case: test, best: r ? r.best.method : 'none',
      margin: !r ? 'no method completed it' : r.next ? `${num(r.factor)}x the operations/s of ${r.next.method}` : 'only method that completed it',
      basis: 'median operations/s, 100% success', notes: [...(r?.overlap ? ['within the run-to-run spread'] : []), ...partial, ...notFor(mine.filter((c) => c.ok === 0 || measured(c)), order)],
    });
  }

  // Semantics: the broadest support, and the quickest propagation each way.
  const matrix = semanticsMatrix(cells, order);
  if (matrix) {
    const counts = matrix.methods.map((m) => ({ m, n: matrix.supportedCount(m) })).sort((a, b) => b.n - a.n);
    const top = counts[0];
    const rest = counts.filter((c) => c.n < top.n);
    const missing = matrix.probes.filter((p) => matrix.state(p, top.m).kind !== 'supported');
    out.push({
      workload: 'semantics', case: 'POSIX semantics (probes supported)', best: counts.filter((c) => c.n === top.n).map((c) => c.m).join(', '),
      margin: `${top.n} of ${matrix.probes.length} probes${rest.length ? `; ${rest.map((c) => `${c.m} ${c.n}`).join(', ')}` : ''}`,
      basis: 'probes that succeeded in every repetition', notes: missing.length ? [`lacks ${missing.join(', ')}`] : [],
    });
    for (const probe of matrix.probes.filter((p) => p.endsWith('-delay'))) {
      const cands = matrix.methods.flatMap((m) => {
        const s = matrix.state(probe, m);
        return s.kind === 'supported' && s.delayMs !== null ? [{ method: m, value: s.delayMs, lo: s.delayMin ?? s.delayMs, hi: s.delayMax ?? s.delayMs, cached: false }] : [];
      });
      const r = rank(cands, 'lower');
      if (!r) continue;
      out.push({
        workload: 'semantics', case: `${probe.replace(/-delay$/, '').replace(/-/g, ' ')} propagation`, best: r.best.method,
        margin: r.next ? `${num(r.best.value)} ms vs ${num(r.next.value)} ms (${r.next.method})` : `${num(r.best.value)} ms`,
        basis: 'median delay until a change is visible', notes: r.overlap ? ['within the run-to-run spread'] : [],
      });
    }
  }

  // Timed jobs and single-size workloads: the shortest median time.
  const jobs = jobCells(cells, sweeps).filter((c) => c.not_applicable < c.records);
  const keys = [...new Set(jobs.map(caseKey))];
  for (const key of keys.sort()) {
    const mine = jobs.filter((c) => caseKey(c) === key);
    const first = mine[0];
    const kase = caseLabel({ ...first, cache: shownCache(mine) });
    if (isSupportCheck(mine)) {
      // A verdict, not a timing (tar-extract's permissions, timestamps, ownership): who kept it.
      const supported = byOrder([...new Set(mine.filter(measured).map(label))], order, (m) => m);
      out.push({
        workload: first.workload, case: kase, best: supported.join(', '), margin: `supported by ${supported.join(', ')}`,
        basis: 'support check (succeeded and verified; not timed)', notes: notFor(mine, order),
      });
      continue;
    }
    const r = rank(candidates(mine, (c) => [c.duration_ms_min, c.duration_ms_median, c.duration_ms_max]), 'lower');
    out.push({
      workload: first.workload, case: kase, best: r ? r.best.method : 'none',
      margin: !r ? (mine.every((c) => c.unsupported === c.records) ? 'no method supports it' : 'no method completed it') : r.next ? `${num(r.factor)}x faster than ${r.next.method}` : 'only method with a result',
      basis: 'median time',
      notes: [...(r?.overlap ? ['within the run-to-run spread'] : []), ...(r?.best.cached ? ['served from a cache'] : []), ...firstAccessNote(mine, order), ...notFor(mine, order)],
    });
  }
  return byOrder(out, ['objects', 'fio-seq', 'metadata', 'semantics'], (r) => r.workload);
}
