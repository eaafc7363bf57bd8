import { cacheRank } from '../core/vocabulary';
import { methodRank } from '../methods/catalog';
import { findWorkloadDescriptor, WORKLOAD_DESCRIPTORS } from '../workloads/catalog';
import { operationWithMode } from './rows';

/**
 * The report's orders, each in one place: methods (the method catalog's order, a method's default
 * variant before its others), workloads (the workload catalog's), operations (as each workload
 * declares them, then each I/O mode), sizes (ascending) and cache states (runner/core/vocabulary.ts
 * CACHE_ORDER). Every printer shows rows in the order the model put them in with these.
 */


/** `items` (deduplicated) sorted by `order`, unknown ones after them alphabetically. */
export function byOrder<T>(items: T[], order: readonly string[], key: (t: T) => string): T[] {
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  return [...items].sort((a, b) => rank(key(a)) - rank(key(b)) || key(a).localeCompare(key(b)));
}

/** Methods: catalog order, then a method's default variant before its others (alphabetically). */
export function compareMethods(a: { method: string; method_variant: string }, b: { method: string; method_variant: string }): number {
  return methodRank(a.method) - methodRank(b.method) || a.method.localeCompare(b.method)
    || Number(a.method_variant !== 'default') - Number(b.method_variant !== 'default') || a.method_variant.localeCompare(b.method_variant);
}

/** Workloads: the catalog's order (unknown ones last, alphabetically). */
export function workloadRank(workload: string): number {
  const i = WORKLOAD_DESCRIPTORS.findIndex((w) => w.name === workload);
  return i < 0 ? WORKLOAD_DESCRIPTORS.length : i;
}

/**
 * Operations (probes, tests) of a workload in the order it declares them (runner/workloads/NAME.ts,
 * `operations`); names it does not declare follow alphabetically, so nothing recorded is dropped.
 */
function declaredOperations(workload: string): readonly string[] {
  return findWorkloadDescriptor(workload)?.operations ?? [];
}

/** I/O modes in the order shown: seed 000's O_DIRECT first. */
const IO_ORDER = ['direct', 'buffered'];

/** Rank of an operation within its workload: declared order, each operation then its I/O modes ("read (direct)"). */
function operationRanks(workload: string): string[] {
  return declaredOperations(workload).flatMap((op) => [op, ...IO_ORDER.map((io) => operationWithMode(op, io))]);
}

/** Distinct operation names of a workload in its declared order (with I/O modes after each). */
export function operationOrder(workload: string, operations: string[]): string[] {
  return byOrder([...new Set(operations)], operationRanks(workload), (o) => o);
}

/** Sizes ascending, null (no size) first. */
const compareSizes = (a: number | null, b: number | null): number => (a ?? -1) - (b ?? -1);

/** What a case of the report is keyed on: workload, operation, size, cache state, method. */
export interface Keyed {
  workload: string;
  operation: string;
  object_size_bytes: number | null;
  cache: string;
  method: string;
  method_variant: string;
}

/** The one order of cells and rows: workload, operation, size, cache state, method. */
export function compareCases(a: Keyed, b: Keyed): number {
  if (a.workload !== b.workload) return workloadRank(a.workload) - workloadRank(b.workload) || a.workload.localeCompare(b.workload);
  if (a.operation !== b.operation) {
    const ranks = operationRanks(a.workload);
    const r = (op: string) => (ranks.includes(op) ? ranks.indexOf(op) : ranks.length);
    return r(a.operation) - r(b.operation) || a.operation.localeCompare(b.operation, 'en', { numeric: true });
  }
  return compareSizes(a.object_size_bytes, b.object_size_bytes) || cacheRank(a.cache) - cacheRank(b.cache) || compareMethods(a, b);
}
