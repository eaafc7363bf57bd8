import { formatSize } from '../core/units';
import { findWorkloadDescriptor } from '../workloads/catalog';

/**
 * The report's labels, each in one place: a case (operation, size, cache state), a size in the
 * units the matrix gave, and a workload's seeds (its descriptor); a method's is runner/core/vocabulary.ts's.
 */

/**
 * Sizes as the matrix gave them: each object size of the run with the label its measurements
 * recorded (size_labels.sql), by byte count.
 */
export class SizeLabels {
  private readonly given = new Map<number, string>();

  constructor(rows: { object_size_bytes: number; object_size_label: string }[] = []) {
    for (const r of rows) if (!this.given.has(r.object_size_bytes)) this.given.set(r.object_size_bytes, r.object_size_label);
  }

  /** A size as the matrix spelled it, else in whole binary or decimal units (formatSize); '' when there is none. */
  of(bytes: number | null | undefined): string {
    if (bytes === null || bytes === undefined) return '';
    return this.given.get(bytes) ?? formatSize(bytes);
  }
}

/** "download 1 MiB (warm)": operation, size (as given), cache state unless none. */
export function caseLabel(c: { operation: string; object_size_bytes: number | null; cache: string }, sizes: SizeLabels, withSize = true): string {
  const size = withSize && c.object_size_bytes !== null ? ` ${sizes.of(c.object_size_bytes)}` : '';
  const cache = c.cache !== 'none' ? ` (${c.cache})` : '';
  return `${c.operation}${size}${cache}`;
}

/** "seed 000", "seeds 002, 004": the published benchmarks a workload reproduces (its descriptor's `seeds`). */
export function seedLabel(workload: string): string {
  const seeds = findWorkloadDescriptor(workload)?.seeds ?? [];
  if (!seeds.length) return '';
  return `seed${seeds.length > 1 ? 's' : ''} ${seeds.map((s) => s.slice(0, 3)).join(', ')}`;
}

/** A workload's one-line summary (its descriptor's), for headings. */
export function workloadSummary(workload: string): string {
  return findWorkloadDescriptor(workload)?.summary ?? '';
}
