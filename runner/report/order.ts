import { findWorkloadDescriptor } from '../workloads/catalog';

/**
 * Operations (probes, tests) of a workload in the order it declares them (runner/workloads/NAME.ts,
 * `operations`): the one order tables, charts and summaries show them in. Names it does not declare
 * follow alphabetically, so nothing recorded is ever dropped.
 */
export function declaredOperations(workload: string): readonly string[] {
  return findWorkloadDescriptor(workload)?.operations ?? [];
}

/** `items` (deduplicated) sorted by `order`, unknown ones after them alphabetically. */
export function byOrder<T>(items: T[], order: readonly string[], key: (t: T) => string): T[] {
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  return [...items].sort((a, b) => rank(key(a)) - rank(key(b)) || key(a).localeCompare(key(b)));
}

/** Distinct operation names of a workload in its declared order. */
export function inDeclaredOrder(workload: string, operations: string[]): string[] {
  return byOrder([...new Set(operations)], declaredOperations(workload), (o) => o);
}
