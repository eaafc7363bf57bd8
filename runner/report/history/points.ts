import type { Comparability, ComparableFacts } from '../../core/comparability';
import type { ResultRecord } from '../../core/record.generated';
import { isVerdictOperation } from '../verdict-operations';
import { median } from './stats';
import { REQUEST_TYPES } from '../../core/request-types';
import type { Keyed } from '../order';

/**
 * One run's figures per case, from its records (pure): the points of a results history. A case is
 * what the report calls one (workload, operation, object size, cache state, method and variant,
 * fleet size), and a point carries the comparability it was measured under.
 */

/** The measured figure a case is followed by: the first one its good records have. */
interface HistoryMetric {
  name: string;
  unit: string;
  higherIsBetter: boolean;
}

const METRICS: (HistoryMetric & { pick: (r: ResultRecord) => number | null })[] = [
  { name: 'throughput', unit: 'MiB/s', higherIsBetter: true, pick: (r) => r.throughput_mib_s },
  { name: 'operations/s', unit: 'ops/s', higherIsBetter: true, pick: (r) => r.ops_per_s },
  { name: 'delay', unit: 'ms', higherIsBetter: false, pick: (r) => r.delay_ms },
  { name: 'time', unit: 'ms', higherIsBetter: false, pick: (r) => r.duration_ms },
];

/** What names a case across runs (its comparability apart): the report's case, and its fleet size. */
export interface CaseIdentity extends Keyed {
  clients: number;
}

/** One run's figures of one case. */
export interface RunPoint extends CaseIdentity {
  runId: string;
  /** When the run started (ISO). */
  date: string;
  /** The results folder it was read from. */
  source: string;
  comparability: Comparability;
  /** The fields the comparability is made of (one record's): for the differences between two points. */
  facts: ComparableFacts;
  /** The median over the good (ok and verified) repetitions, and which figure; null: none measured well. */
  metric: HistoryMetric | null;
  median: number | null;
  goodRepetitions: number;
  /**
   * Deterministic figures: requests per operation by type ("requests/op head") and GET bytes per
   * byte read, where the server counted them; the probe's support and the data's verification.
   */
  behaviour: Record<string, number | string>;
  /** Whether the requests were counted (else the behaviour figures hold no request counts). */
  requestsCounted: boolean;
}

/** The identity as one string (the series a point belongs to). */
export const caseId = (c: CaseIdentity) => [c.workload, c.operation, c.object_size_bytes ?? '', c.cache, c.method, c.method_variant, c.clients].join('\u0000');

const GOOD = (r: ResultRecord) => r.status === 'ok' && r.verified;

function supportOf(records: ResultRecord[]): string | null {
  const judged = records.filter((r) => r.status !== 'not-applicable' && r.status !== 'did-not-finish');
  if (!judged.length) return null;
  const yes = judged.filter((r) => r.supported).length;
  return yes === judged.length ? 'supported' : yes === 0 ? 'unsupported' : 'mixed';
}

function verificationOf(records: ResultRecord[]): string | null {
  const ok = records.filter((r) => r.status === 'ok');
  if (!ok.length) return null;
  const verified = ok.filter((r) => r.verified).length;
  return verified === ok.length ? 'all verified' : verified === 0 ? 'none verified' : 'some unverified';
}

/** Requests per operation by type and GET bytes per byte read, summed over the counted repetitions (as request_counts.sql). */
function requestFigures(records: ResultRecord[]): Record<string, number> | null {
  const counted = records.filter((r) => r.requests !== null && r.status !== 'not-applicable' && r.status !== 'did-not-finish');
  const ops = counted.reduce((n, r) => n + r.ops, 0);
  if (!counted.length || ops === 0) return null;
  const out: Record<string, number> = {};
  for (const type of REQUEST_TYPES) out[`requests/op ${type}`] = counted.reduce((n, r) => n + r.requests![type], 0) / ops;
  const bytes = counted.reduce((n, r) => n + r.bytes, 0);
  if (bytes > 0) out['GET bytes/byte read'] = counted.reduce((n, r) => n + r.requests!.get_bytes, 0) / bytes;
  return out;
}

function pointOf(records: ResultRecord[], date: string, source: string): RunPoint {
  const first = records[0];
  const good = records.filter(GOOD);
  // A verdict operation has no figure of its own: its support (holds or not) is its behaviour.
  const metric = isVerdictOperation(first) ? null : METRICS.find((m) => good.some((r) => m.pick(r) !== null)) ?? null;
  const values = metric ? good.map(metric.pick).filter((v): v is number => v !== null) : [];
  const requests = requestFigures(records);
  const support = supportOf(records);
  const verification = verificationOf(records);
  return {
    workload: first.workload, operation: first.operation, object_size_bytes: first.object_size_bytes, cache: first.cache,
    method: first.method, method_variant: first.method_variant, clients: first.clients,
    runId: first.run_id, date, source, comparability: first.comparability,
    facts: {
      method: first.method, method_variant: first.method_variant, method_version: first.method_version, method_options: first.method_options,
      workload: first.workload, workload_params: first.workload_params, cache: first.cache, clients: first.clients, host: first.host, endpoint: first.endpoint,
    },
    metric: values.length ? { name: metric!.name, unit: metric!.unit, higherIsBetter: metric!.higherIsBetter } : null,
    median: values.length ? median(values) : null,
    goodRepetitions: good.length,
    behaviour: { ...requests, ...(support ? { support } : {}), ...(verification ? { verification } : {}) },
    requestsCounted: requests !== null,
  };
}

/** When a run started: its manifest's start, else the time its id begins with. */
export function runDate(runId: string, startedAt?: string | null): string {
  if (startedAt) return startedAt;
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(runId);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : runId;
}

/**
 * A run's points: one per case and comparability key. The step rows and untimed checks (operations
 * "step" and "(…)") are not cases, as in the report. Fleet steps (clients > 1) are left out: their
 * records are per client, and a median of clients' rates is not the fleet's figure.
 */
export function runPoints(records: ResultRecord[], date: string, source: string): RunPoint[] {
  const groups = new Map<string, ResultRecord[]>();
  for (const r of records) {
    if (r.operation === 'step' || r.operation.startsWith('(') || r.clients > 1) continue;
    const id = `${caseId(r)}\u0000${r.comparability.key}`;
    let list = groups.get(id);
    if (!list) groups.set(id, (list = []));
    list.push(r);
  }
  return [...groups.values()].map((g) => pointOf(g, date, source));
}
