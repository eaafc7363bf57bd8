/** Number formatting shared by the text summary, the seed tables and the HTML report. */

/** A number with about three significant digits and thousands separators; '–' when absent. */
export function num(v: unknown, digits = 3): string {
  if (v === null || v === undefined) return '–';
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
  if (!(x > 0) || !(y > 0)) return '–';
  return `${num(higherIsBetter ? x / y : y / x)}x`;
}
