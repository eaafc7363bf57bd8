/** Sizes in matrices: a byte count, or a number with a unit. KB/MB/GB are decimal, KiB/MiB/GiB binary. */
const UNITS: Record<string, number> = {
  B: 1,
  KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12,
  KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3, TIB: 1024 ** 4,
  K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4,
};

/** JSON Schema of a size parameter (what parseSize reads): bytes, or a string such as "100KiB" or "1MB". */
export const SIZE_SCHEMA = { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^\\s*\\d+(\\.\\d+)?\\s*([KMGT]i?B?|B)?\\s*$' }] };

export function parseSize(value: string | number): number {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0) return value;
    throw new Error(`size ${value} is not a whole number of bytes`);
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(value);
  const unit = m ? (m[2] || 'B').toUpperCase() : '';
  if (!m || !(unit in UNITS)) {
    throw new Error(`"${value}" is not a size: write bytes or a number with B, KB, MB, GB, TB, KiB, MiB, GiB or TiB`);
  }
  return Math.round(Number(m[1]) * UNITS[unit]);
}

/**
 * Short human label: 1 KiB, 100 KiB, 1 MiB, 1.5 GiB — or in decimal units where the size is a
 * whole number of them with fewer digits (16 MB, not 15625 KiB; 2 MB).
 */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const binary: [number, string][] = [[1024 ** 4, 'TiB'], [1024 ** 3, 'GiB'], [1024 ** 2, 'MiB'], [1024, 'KiB']];
  const decimal: [number, string][] = [[1e12, 'TB'], [1e9, 'GB'], [1e6, 'MB'], [1e3, 'KB']];
  const whole = (table: [number, string][]) => table.find(([unit]) => bytes >= unit && bytes % unit === 0);
  const b = whole(binary);
  const d = whole(decimal);
  const digits = (u: [number, string] | undefined) => (u ? String(bytes / u[0]).length : Infinity);
  const best = digits(d) < digits(b) ? d : b;
  if (best) return `${bytes / best[0]} ${best[1]}`;
  for (const [unit, name] of binary) if (bytes >= unit) return `${(bytes / unit).toFixed(1)} ${name}`;
  return `${bytes} B`;
}

/**
 * A size as the matrix gave it: "16MB" stays "16 MB", "1MiB" stays "1 MiB" (decimal or binary, as
 * written); a plain byte count is labelled by formatSize. What descriptors put in workload_params,
 * so the report prints sizes in the units they were given.
 */
export function formatGivenSize(value: string | number): string {
  const bytes = parseSize(value);
  if (typeof value === 'number') return formatSize(bytes);
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(value)!;
  const unit = m[2].toUpperCase();
  if (!unit || unit === 'B') return formatSize(bytes);
  const spelled: Record<string, string> = { K: 'KiB', M: 'MiB', G: 'GiB', T: 'TiB', KIB: 'KiB', MIB: 'MiB', GIB: 'GiB', TIB: 'TiB' };
  return `${Number(m[1])} ${spelled[unit] ?? unit}`;
}

/** An amount such as free space, to one decimal in the largest binary unit: 74.1 GiB. */
export function formatAmount(bytes: number): string {
  for (const [unit, name] of [[1024 ** 4, 'TiB'], [1024 ** 3, 'GiB'], [1024 ** 2, 'MiB'], [1024, 'KiB']] as const) {
    if (bytes >= unit) return `${(bytes / unit).toFixed(1)} ${name}`;
  }
  return `${bytes} B`;
}

const DURATION_UNITS: Record<string, number> = { s: 1, sec: 1, m: 60, min: 60, h: 3600 };

/** A duration in seconds from `600`, `90s`, `10m`, `10min`, `1.5h`; null when it is none of these. */
export function parseDurationS(value: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = m ? (m[2] || 's').toLowerCase() : '';
  if (!m || !(unit in DURATION_UNITS)) return null;
  return Number(m[1]) * DURATION_UNITS[unit];
}

export function formatDuration(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

const LATENCY_UNITS_US: Record<string, number> = { us: 1, 'µs': 1, ms: 1000, s: 1_000_000 };

/** How a time is written where a latency limit is given (matrix `advice`, `s3ab advise`): the fix of a bad one. */
export const LATENCY_HELP = 'a time above zero with us, ms or s (a bare number is ms), e.g. 50ms, 800us or 1.5s';

/** A latency such as 800us, 20ms or 1.5s, or a number of ms, in µs; null when it is not one (or not above zero). */
export function parseLatencyUs(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value * 1000 : null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(us|µs|ms|s)?\s*$/i.exec(value);
  if (!m || !(Number(m[1]) > 0)) return null;
  return Number(m[1]) * LATENCY_UNITS_US[(m[2] ?? 'ms').toLowerCase()];
}
