import { num, ratio } from './format';
import { methodLabel } from '../core/vocabulary';
import { compareCases, compareMethods } from './order';
import { operationWithMode, type Row } from './rows';

/**
 * Scaling out: fleet_scaling.sql's rows (one per case, method, repetition and fleet
 * size) as the report's `scaling` table — per case and method, one point per client count with
 * the medians over repetitions of the aggregate over the all-running window and of the merged
 * p99, its multiple of the 1-client figure, the ideal (linear) figure and the link limit of the
 * fleet's hosts — and a verdict per case. Empty for a run without a fleet step (clients > 1).
 */

/** One client count of a method in a case. */
export interface ScalingPoint {
  clients: number;
  /** Repetitions measured, and those whose clients never all ran at once (no aggregate). */
  repetitions: number;
  neverAllRunning: number;
  /** Fewest clients that measured it well in a repetition, and most that failed. */
  clientsOk: number;
  clientsFailed: number;
  /** The failed clients by name (host.runner_id), over the repetitions, sorted. */
  failedClients: string[];
  /** How far apart the good clients began (last start − first start), the largest over the repetitions (ms). */
  startSpreadMs: number | null;
  /** Median over repetitions of the aggregate (MiB/s, or operations/s where no payload moves). */
  aggregate: number | null;
  /** Median over repetitions of the merged p99 (µs). */
  p99Us: number | null;
  /** The clients' own rates, lowest and highest over the repetitions (the table's unit). */
  clientMin: number | null;
  clientMax: number | null;
  /** Median all-running window (ms). */
  windowMs: number | null;
  /** 'series', 'mean rate' or 'mixed' (repetitions' bases joined). */
  basis: string | null;
  /** aggregate / the 1-client aggregate; the ideal = clients × the 1-client aggregate. */
  speedup: number | null;
  ideal: number | null;
  /** Hosts the clients ran on (local clients share one), and their link limit together (MiB/s). */
  hosts: number;
  linkLimitMibS: number | null;
}

interface ScalingMethod {
  method: string;
  method_variant: string;
  label: string;
  points: ScalingPoint[];
}

export interface ScalingCase {
  workload: string;
  operation: string;
  object_size_bytes: number | null;
  io: string | null;
  cache: string;
  unit: 'MiB/s' | 'ops/s';
  methods: ScalingMethod[];
  /** "mountpoint: 2.7x at 3 clients; s3-crt: 1.9x at 3 clients". */
  verdict: string;
}

const numberOr = (v: unknown): number | null => (v === null || v === undefined || v === '' || !Number.isFinite(Number(v)) ? null : Number(v));

function median(values: (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  if (!xs.length) return null;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

const extreme = (values: (number | null)[], pick: (...x: number[]) => number) => {
  const xs = values.filter((v): v is number => v !== null);
  return xs.length ? pick(...xs) : null;
};

/** One client count's repetitions as a point (the 1-client aggregate fills in speedup and ideal later). */
function pointOf(rows: Row[], unit: ScalingCase['unit']): ScalingPoint {
  const mib = unit === 'MiB/s';
  const bases = [...new Set(rows.map((r) => r.aggregate_basis).filter((b): b is string => typeof b === 'string'))];
  return {
    clients: Number(rows[0].clients),
    repetitions: rows.length,
    neverAllRunning: rows.filter((r) => numberOr(r.window_ms) !== null && Number(r.window_ms) <= 0).length,
    clientsOk: Math.min(...rows.map((r) => Number(r.clients_ok))),
    clientsFailed: Math.max(...rows.map((r) => Number(r.clients_failed))),
    failedClients: [...new Set(rows.flatMap((r) => (typeof r.failed_clients === 'string' && r.failed_clients ? r.failed_clients.split(', ') : [])))].sort(compareClients),
    startSpreadMs: extreme(rows.map((r) => numberOr(r.start_spread_ms)), Math.max),
    aggregate: median(rows.map((r) => numberOr(mib ? r.aggregate_mib_s : r.aggregate_ops_s))),
    p99Us: median(rows.map((r) => numberOr(r.p99_us))),
    clientMin: extreme(rows.map((r) => numberOr(mib ? r.client_mib_s_min : r.client_ops_s_min)), Math.min),
    clientMax: extreme(rows.map((r) => numberOr(mib ? r.client_mib_s_max : r.client_ops_s_max)), Math.max),
    windowMs: median(rows.map((r) => numberOr(r.window_ms))),
    basis: bases.length > 1 ? 'mixed' : bases[0] ?? null,
    speedup: null,
    ideal: null,
    hosts: Math.max(...rows.map((r) => Number(r.hosts ?? 0))),
    linkLimitMibS: extreme(rows.map((r) => numberOr(r.fleet_link_limit_mib_s)), Math.min),
  };
}

function methodOf(rows: Row[], unit: ScalingCase['unit']): ScalingMethod {
  const byClients = new Map<number, Row[]>();
  for (const r of rows) byClients.set(Number(r.clients), [...(byClients.get(Number(r.clients)) ?? []), r]);
  const points = [...byClients.values()].map((g) => pointOf(g, unit)).sort((a, b) => a.clients - b.clients);
  const base = points.find((p) => p.clients === 1)?.aggregate ?? null;
  for (const p of points) {
    p.ideal = base === null ? null : base * p.clients;
    p.speedup = base !== null && base > 0 && p.aggregate !== null ? p.aggregate / base : null;
  }
  const m = { method: String(rows[0].method), method_variant: String(rows[0].method_variant) };
  return { ...m, label: methodLabel(m), points };
}

/** The link limit of the fleet's hosts: N runners' links, or "one host" where local clients share one; '–' for operations/s or unknown. */
export function fleetLinkText(p: ScalingPoint, unit: ScalingCase['unit']): string {
  if (unit !== 'MiB/s') return '–';
  if (p.clients > 1 && p.hosts === 1) return 'one host';
  return p.linkLimitMibS === null ? '–' : num(p.linkLimitMibS);
}

/** "client-1 < client-2 < client-10": runner ids by their number where they end in one. */
function compareClients(a: string, b: string): number {
  const n = (s: string) => Number(/(\d+)$/.exec(s)?.[1] ?? NaN);
  return n(a) - n(b) || a.localeCompare(b);
}

/** "client-3 failed at 3 clients; client-2 and client-4 at 4": every fleet size's failed clients, by name. */
function failedText(m: ScalingMethod): string {
  const failed = m.points.filter((p) => p.clients > 1 && p.failedClients.length);
  const names = (xs: string[]) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}` : xs[0]);
  return failed.map((p, i) => `${names(p.failedClients)}${i === 0 ? ` failed at ${p.clients} clients` : ` at ${p.clients}`}`).join('; ');
}

/** "s3-crt: 1.9x at 3 clients": the largest fleet with an aggregate, against one client; the clients that failed, named. */
function methodVerdict(m: ScalingMethod): { text: string; speedup: number } {
  const fleet = m.points.filter((p) => p.clients > 1);
  const top = [...fleet].reverse().find((p) => p.speedup !== null);
  const failed = failedText(m);
  const withFailed = (text: string) => (failed ? `${text} (${failed})` : text);
  if (top) return { text: withFailed(`${m.label}: ${ratio(top.speedup, 1)} at ${top.clients} clients`), speedup: top.speedup! };
  if (!m.points.some((p) => p.clients === 1 && p.aggregate !== null)) return { text: withFailed(`${m.label}: no 1-client figure to compare`), speedup: -1 };
  if (fleet.some((p) => p.neverAllRunning === p.repetitions)) return { text: withFailed(`${m.label}: its clients never all ran at once`), speedup: -1 };
  return { text: failed ? `${m.label}: no fleet figure (${failed})` : `${m.label}: no fleet figure (clients failed)`, speedup: -1 };
}

/** The `scaling` table of the report model from fleet_scaling.sql's rows: cases in the report's order, methods in its method order. */
export function scalingCases(rows: Row[]): ScalingCase[] {
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const key = JSON.stringify([r.workload, r.operation, r.object_size_bytes ?? null, r.io ?? null, r.cache]);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const cases: ScalingCase[] = [];
  for (const g of groups.values()) {
    if (!g.some((r) => Number(r.clients) > 1)) continue;
    const unit = g.some((r) => numberOr(r.client_mib_s_max) !== null) ? 'MiB/s' : 'ops/s';
    const byMethod = new Map<string, Row[]>();
    for (const r of g) byMethod.set(`${r.method}\u0000${r.method_variant}`, [...(byMethod.get(`${r.method}\u0000${r.method_variant}`) ?? []), r]);
    const methods = [...byMethod.values()].map((m) => methodOf(m, unit)).sort(compareMethods);
    const verdicts = methods.map(methodVerdict).sort((a, b) => b.speedup - a.speedup);
    const r = g[0];
    const io = typeof r.io === 'string' ? r.io : null;
    cases.push({
      workload: String(r.workload), operation: operationWithMode(String(r.operation), io), object_size_bytes: numberOr(r.object_size_bytes), io, cache: String(r.cache),
      unit, methods, verdict: verdicts.map((v) => v.text).join('; '),
    });
  }
  return cases.sort((a, b) => compareCases({ ...a, method: '', method_variant: '' }, { ...b, method: '', method_variant: '' }));
}
