import { formatSize } from '../../core/units';
import { num } from '../format';

export { num, ratio } from '../format';

/** Text for HTML: everything from the results is escaped, always. */
export function esc(v: unknown): string {
  return String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function pct(part: number, whole: number): string {
  if (!whole) return '–';
  const p = (100 * part) / whole;
  return `${p === 100 || p === 0 ? p.toFixed(0) : p >= 99.95 ? '99.9' : num(p)}%`;
}

export function size(bytes: number | null | undefined): string {
  return bytes === null || bytes === undefined ? '' : formatSize(bytes);
}

/** Latency in µs shown in the unit that reads best (µs, ms, s). */
export function micros(us: number | null | undefined): string {
  if (us === null || us === undefined || !Number.isFinite(us)) return '–';
  if (us < 1000) return `${num(us)} µs`;
  if (us < 1_000_000) return `${num(us / 1000)} ms`;
  return `${num(us / 1_000_000)} s`;
}

export function millis(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  return ms < 1 ? `${num(ms * 1000)} µs` : ms < 10_000 ? `${num(ms)} ms` : `${num(ms / 1000)} s`;
}

export function bytesHuman(b: number | null | undefined): string {
  if (b === null || b === undefined) return '–';
  const units: [number, string][] = [[1024 ** 4, 'TiB'], [1024 ** 3, 'GiB'], [1024 ** 2, 'MiB'], [1024, 'KiB']];
  for (const [u, name] of units) if (b >= u) return `${num(b / u)} ${name}`;
  return `${b} B`;
}

/** "min–median–max" of a spread, or just the median when there was one repetition. */
export function spread(min: number | null, median: number | null, max: number | null, f: (x: number | null) => string = (x) => num(x)): string {
  if (median === null) return '–';
  if (min === null || max === null || min === max) return f(median);
  return `${f(min)}–${f(median)}–${f(max)}`;
}

/** Stable HTML id for a heading. */
export function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
