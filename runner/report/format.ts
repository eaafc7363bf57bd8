/**
 * Number formats: the one place every printer (text summary, HTML page, compare, the report
 * Lambda's summary, `s3ab aws run`) writes a number, a latency, a duration, a rate or a ratio.
 */

/** A number with about three significant digits and thousands separators; '–' when absent. */
export function num(v: unknown, digits = 3): string {
  if (v === null || v === undefined || v === '') return '–';
  const x = Number(v);
  if (!Number.isFinite(x)) return '–';
  if (x === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(x)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return x.toLocaleString('en-US', { maximumFractionDigits: decimals, minimumFractionDigits: 0 });
}

/**
 * "12.3x": how many times the first is better than the second (a / b when higher is better, b / a
 * for times and latencies); '–' when either side is missing or not positive.
 */
export function ratio(a: unknown, b: unknown, higherIsBetter = true): string {
  const x = Number(a);
  const y = Number(b);
  if (a === null || b === null || !(x > 0) || !(y > 0)) return '–';
  return `${num(higherIsBetter ? x / y : y / x)}x`;
}

/** A unit of time and how many microseconds it holds. */
type TimeUnit = readonly [name: string, us: number];
const TIME_UNITS: readonly TimeUnit[] = [['µs', 1], ['ms', 1e3], ['s', 1e6]];

/** The unit a time of `us` microseconds reads best in: µs below 1 ms, ms below 1 s, else s. */
function unitOf(us: number): TimeUnit {
  return [...TIME_UNITS].reverse().find(([, size]) => Math.abs(us) >= size) ?? TIME_UNITS[0];
}

/** A latency (µs) in the unit that reads best: 870 µs, 12.3 ms, 1.5 s. */
export function latencyText(us: unknown): string {
  if (us === null || us === undefined || us === '' || !Number.isFinite(Number(us))) return '–';
  const [name, size] = unitOf(Number(us));
  return `${num(Number(us) / size)} ${name}`;
}

/**
 * A duration (ms): below 2 minutes as a latency reads (µs, ms, s); then minutes, then hours —
 * "≈ 2 h" reads better than "7,200 s".
 */
export function durationText(ms: unknown): string {
  if (ms === null || ms === undefined || ms === '' || !Number.isFinite(Number(ms))) return '–';
  const x = Number(ms);
  if (x < 120_000) return latencyText(x * 1000);
  if (x < 90 * 60_000) return `${Math.round(x / 60_000)} min`;
  return `${num(x / 3600_000, 2)} h`;
}

/**
 * "min–median–max" of a spread in one unit (the median's): "231–240–250 ms"; just the median when
 * there is no spread (one repetition). `us` scales the values to microseconds (1000 for ms).
 */
export function spreadText(min: unknown, median: unknown, max: unknown, us = 1000): string {
  if (median === null || median === undefined || !Number.isFinite(Number(median))) return '–';
  const [name, size] = unitOf(Number(median) * us);
  const f = (v: unknown) => num((Number(v) * us) / size);
  const lo = Number(min);
  const hi = Number(max);
  if (min === null || max === null || !Number.isFinite(lo) || !Number.isFinite(hi) || f(lo) === f(hi)) return `${f(median)} ${name}`;
  return `${f(lo)}–${f(median)}–${f(hi)} ${name}`;
}

/** A share (0–1) as a percentage: "12%"; '–' when absent. */
export function percentText(share: unknown): string {
  if (share === null || share === undefined || share === '' || !Number.isFinite(Number(share))) return '–';
  const p = Number(share) * 100;
  return `${p === 100 || p === 0 ? p.toFixed(0) : p >= 99.95 ? '99.9' : num(p)}%`;
}

/** Bytes in the largest binary unit to three significant digits: 1.5 GiB (amounts: memory, metered bytes). */
export function bytesText(b: unknown): string {
  if (b === null || b === undefined || !Number.isFinite(Number(b))) return '–';
  const x = Number(b);
  for (const [unit, name] of [[1024 ** 4, 'TiB'], [1024 ** 3, 'GiB'], [1024 ** 2, 'MiB'], [1024, 'KiB']] as const) if (x >= unit) return `${num(x / unit)} ${name}`;
  return `${x} B`;
}

/** Dollars: four decimals, or two significant digits below a tenth of a cent (never "$0.0000" for a cost that is not zero). */
export function dollars(x: number): string {
  if (x === 0) return '$0';
  return x < 0.001 ? `$${x.toPrecision(2)}` : `$${x.toFixed(4)}`;
}

/** What a did-not-finish measurement reached, from its record's `progress`. */
export interface DnfProgress {
  budgetS: number | null;
  /** done / planned (0–1), null when unknown. */
  doneShare: number | null;
  extrapolatedS: number | null;
}

/**
 * A did-not-finish measurement as what it is, never as a time: "DNF at 10 min — 10% done,
 * ≈ 2 h extrapolated" (the extrapolation is planned work at the rate reached, not a measurement).
 */
export function dnfText(p: DnfProgress): string {
  const at = p.budgetS !== null ? ` at ${durationText(p.budgetS * 1000)}` : '';
  const done = p.doneShare !== null ? ` — ${percentText(p.doneShare)} done` : '';
  const total = p.extrapolatedS !== null ? `, ≈ ${durationText(p.extrapolatedS * 1000)} extrapolated` : p.doneShare === 0 ? ', nothing done to extrapolate from' : '';
  return `DNF${at}${done}${total}`;
}
