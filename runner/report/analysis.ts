import type { CacheState } from '../core/vocabulary';
import type { ReportTable } from '../core/workload';
import { findWorkloadDescriptor } from '../workloads/catalog';
import { caseLabel, type SizeLabels } from './labels';
import { methodLabel } from '../core/vocabulary';
import { checksOf, type Cell } from './model';
import { isVerdictOperation } from './verdict-operations';
import { byOrder, operationOrder } from './order';

/**
 * Which cells belong together, derived from the model: cases compared across methods, size
 * sweeps, cold against warm, the semantics matrix. Pure functions; the text summary, the HTML page
 * and the verdicts (verdicts.ts) share them.
 */

/** A cell with at least one successful, verified batch: the only kind ranked (did-not-finish and failed ones never are). */
export const measured = (c: Cell) => c.repetitions > 0;
/**
 * A cell that may be ranked ("best", "vs best", the verdicts): measured, and no repetition ran out
 * of its step's budget. A cell with a did-not-finish repetition shows its finished figures beside
 * what the others reached, but never ranks: its finished repetitions are the quick ones.
 */
export const ranked = (c: Cell) => measured(c) && c.did_not_finish === 0 && !isUntimed(c);
export const movesPayload = (c: Cell) => c.mib_s_median !== null;
/** A cell whose every measurement is not applicable (a file-system workload on an object method). */
export const notApplicable = (c: Cell) => c.not_applicable === c.records;

/**
 * The cache state cells are compared in: `none` (an object method keeps no client cache, every
 * access goes to the store) counts as a first access, like a mount's `cold`; warm states stay apart.
 */
export const accessGroup = (cache: CacheState): CacheState => (cache === 'none' ? 'cold' : cache);

/** Workload, operation, size and access group: the cells one verdict, one table row, one "vs best" compares. */
export const caseKey = (c: Cell) => `${c.workload}\u0000${c.operation}\u0000${c.object_size_bytes}\u0000${accessGroup(c.cache)}`;

/** The cache state a group of cells is labelled with: none where no cell has a cache (object methods only). */
export function shownCache(cells: Pick<Cell, 'cache'>[]): CacheState {
  const group = accessGroup(cells[0].cache);
  return group === 'cold' && cells.every((c) => c.cache === 'none') ? 'none' : group;
}

/** Case labels per access group: "walk 1 KiB (cold)" for object methods and cold mounts alike. */
export function groupCaseLabels(cells: Cell[], sizes: SizeLabels, withSize = true): (c: Cell) => string {
  const groups = new Map<string, Cell[]>();
  for (const c of cells) groups.set(caseKey(c), [...(groups.get(caseKey(c)) ?? []), c]);
  return (c) => caseLabel({ ...c, cache: shownCache(groups.get(caseKey(c)) ?? [c]) }, sizes, withSize);
}

/** Says so where object methods (no cache) are ranked with mounts' cold figures. */
export function firstAccessNote(cells: Cell[], order: string[]): string[] {
  const objects = byOrder([...new Set(cells.filter((c) => c.cache === 'none' && measured(c)).map(methodLabel))], order, (m) => m);
  if (!objects.length || !cells.some((c) => c.cache === 'cold' && measured(c))) return [];
  return [`${objects.join(', ')}: no client cache, ranked with the mounts' cold (first-access) figures`];
}

export interface SweepGroup {
  workload: string;
  operations: string[];
  cells: Cell[];
}

/** The summary table a workload's results go in (its descriptor's `report.table`). */
export const tableOf = (workload: string): ReportTable => findWorkloadDescriptor(workload)?.report.table ?? 'measurements';

/** Workload operations measured at two sizes or more: drawn against size. */
export function sizeSweeps(cells: Cell[]): SweepGroup[] {
  const groups: SweepGroup[] = [];
  // The cells are in the report's order: workloads in catalog order.
  for (const workload of [...new Set(cells.map((c) => c.workload))]) {
    if (tableOf(workload) !== 'measurements') continue;
    const mine = cells.filter((c) => c.workload === workload && measured(c) && c.object_size_bytes !== null);
    const operations = operationOrder(workload, mine.map((c) => c.operation))
      .filter((op) => new Set(mine.filter((c) => c.operation === op).map((c) => c.object_size_bytes)).size >= 2);
    if (operations.length) groups.push({ workload, operations, cells: mine.filter((c) => operations.includes(c.operation)) });
  }
  return groups;
}

/**
 * A support check: an operation the workload declares as a check of what the method kept
 * (tar-extract's permissions, timestamps, ownership), untimed. Its result is who supports it, not
 * who is fastest; its failures are findings about the method.
 */
export const isSupportCheck = (c: Pick<Cell, 'workload' | 'operation'>): boolean => checksOf(c.workload).includes(c.operation);

/**
 * A verdict operation: one the workload declares as a verdict over its other figures (its
 * descriptor's `report.verdicts`), with no file operation of its own. Shown as its outcome and its
 * line, never as a time, a rate or a rank.
 */

/** A cell with no time of its own to show or rank: a support check or a verdict operation. */
export const isUntimed = (c: Pick<Cell, 'workload' | 'operation'>): boolean => isSupportCheck(c) || isVerdictOperation(c);

/**
 * A verdict operation's outcome and its line: "holds: fastest read of …", "does not hold: …",
 * "holds in 1 of 3 repetitions: …"; "not decided" where no repetition could tell (its reason follows).
 */
export function verdictText(c: Cell): string {
  const holds = c.repetitions;
  const decided = holds + c.unsupported;
  const outcome = decided === 0 ? (c.not_applicable || c.did_not_finish ? 'not decided' : 'FAILED')
    : holds === 0 ? 'does not hold' : holds === c.records ? 'holds' : `holds in ${holds} of ${c.records} repetitions`;
  return c.first_error ? `${outcome}: ${c.first_error}` : outcome;
}

/** Cells of the measurements tables that are not size sweeps: timed jobs. */
export function jobCells(cells: Cell[], sweeps: SweepGroup[]): Cell[] {
  const swept = new Set(sweeps.flatMap((g) => g.operations.map((op) => `${g.workload}/${op}`)));
  return cells.filter((c) => tableOf(c.workload) === 'measurements' && !swept.has(`${c.workload}/${c.operation}`));
}

export interface CacheCase {
  panel: string;
  workload: string;
  cells: Cell[];
  /** throughput when the operation moves payload, else operations per second. */
  metric: 'mib_s_median' | 'ops_s_median';
}

/** Operations measured for one method in two cache states or more (cold and warm side by side). */
export function cacheCases(cells: Cell[], sizes: SizeLabels): CacheCase[] {
  const groups = new Map<string, Cell[]>();
  for (const c of cells.filter((x) => measured(x) && x.cache !== 'none')) {
    const key = `${c.workload}\u0000${c.operation}\u0000${c.object_size_bytes}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const out: CacheCase[] = [];
  for (const group of groups.values()) {
    const perMethod = new Map<string, Set<string>>();
    for (const c of group) perMethod.set(methodLabel(c), (perMethod.get(methodLabel(c)) ?? new Set()).add(c.cache));
    const multi = [...perMethod].filter(([, caches]) => caches.size >= 2).map(([m]) => m);
    if (!multi.length) continue;
    const first = group[0];
    const kept = group.filter((c) => multi.includes(methodLabel(c)));
    out.push({
      panel: `${first.workload} · ${caseLabel({ ...first, cache: 'none' }, sizes)}`,
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
  const probing = new Set(cells.filter((c) => tableOf(c.workload) === 'semantics' && c.not_applicable < c.records).map(methodLabel));
  const mine = cells.filter((c) => tableOf(c.workload) === 'semantics' && probing.has(methodLabel(c)));
  if (!mine.length) return null;
  const probes = operationOrder(mine[0].workload, mine.map((c) => c.operation));
  const methods = byOrder([...new Set(mine.map(methodLabel))], order, (m) => m);
  const find = (probe: string, method: string) => mine.filter((c) => c.operation === probe && methodLabel(c) === method);
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

