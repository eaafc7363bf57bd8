import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import resultSchema from '../../assets/schema/result.schema.json';
import type { Measurement } from '../core/batch';
import { bucketUpperNs } from '../core/stats';
import { NEAR_BASELINE } from '../core/host';
import { comparabilityOf } from '../core/comparability';
import { formatSize, parseSize } from '../core/units';
import type { ResultRecord } from '../core/record.generated';

export const SCHEMA_VERSION = resultSchema.properties.schema_version.const as ResultRecord['schema_version'];

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validateRecord = ajv.compile<ResultRecord>(resultSchema);

/** The schema version before the comparability key, and the one after it, before the size label. */
const KEYLESS_SCHEMA_VERSION = '1.6.0';
const UNLABELLED_SCHEMA_VERSION = '1.7.0';

/**
 * A record of a version before the size label (and the comparability key), given what it lacks as
 * derived from its own fields (every field they are made of was already recorded); any other
 * record is returned as it is.
 */
export function upgradeRecord(record: Record<string, unknown>): Record<string, unknown> {
  const keyless = record.schema_version === KEYLESS_SCHEMA_VERSION;
  if (!keyless && record.schema_version !== UNLABELLED_SCHEMA_VERSION) return record;
  if ((keyless && 'comparability' in record) || 'object_size_label' in record) return record;
  try {
    const r = record as unknown as ResultRecord;
    return {
      ...record, schema_version: SCHEMA_VERSION,
      comparability: keyless ? comparabilityOf(r) : r.comparability,
      object_size_label: objectSizeLabel(r.object_size_bytes, r.workload_params),
    };
  } catch {
    return record; // fields missing or malformed: the schema check names what
  }
}

/**
 * An object size as the matrix spelled it: the size-valued parameter of the measurement's workload
 * with that byte count (descriptors record the unit given: "16 MB" stays decimal, "1 MiB" binary;
 * lists such as fio-seq's sizes are comma-separated), else in whole binary or decimal units; null
 * without a size. Taken when the record is written, so nothing downstream reads parameters for it.
 */
function objectSizeLabel(bytes: number | null, params: Record<string, string>): string | null {
  if (bytes === null) return null;
  for (const value of Object.values(params)) {
    for (const part of value.split(/\s*[,|]\s*/)) {
      if (/^\d+(\.\d+)?\s*[KMGT]i?B$/i.test(part) && parseSize(part.replace(/\s+/g, '')) === bytes) return part;
    }
  }
  return formatSize(bytes);
}

/** Schema errors of a record, as readable strings; empty when valid. */
export function recordErrors(record: unknown): string[] {
  if (validateRecord(record)) return latencyHistogramErrors(record);
  return validateRecord.errors!.map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/**
 * What the JSON Schema cannot say about latency_histogram, and merges depend on: it is there
 * exactly where latency_us is, and its buckets are the fixed layout's (core/stats.ts), each once,
 * in ascending order — a record in any other layout would not sum with the others.
 */
function latencyHistogramErrors(r: ResultRecord): string[] {
  const buckets = r.latency_histogram ?? [];
  if ((r.latency_us === null) !== (buckets.length === 0)) {
    return [`/latency_histogram must hold the buckets exactly where latency_us is set (latency_us ${r.latency_us === null ? 'is null' : 'is set'}, ${buckets.length} buckets)`];
  }
  let previous = -Infinity;
  for (const [i, b] of buckets.entries()) {
    const ns = Math.round(b.le_us * 1000);
    if (bucketUpperNs(ns) !== ns) return [`/latency_histogram/${i} le_us ${b.le_us} is not a bucket bound of the fixed layout`];
    if (b.le_us <= previous) return [`/latency_histogram/${i} le_us ${b.le_us} is not above the bucket before it`];
    previous = b.le_us;
  }
  return [];
}

/** The fields every record of one step shares. */
export type StepFacts = Pick<ResultRecord,
  'run_id' | 'host' | 'endpoint' | 'method' | 'method_variant' | 'method_version' | 'method_options' |
  'workload' | 'workload_params' | 'step' | 'cache' | 'repetition' | 'clients' | 'fleet'>;

const MIB = 1024 * 1024;

/**
 * The plausibility flag of a throughput against the host's link: above the most it can carry
 * (`link_limit_mib_s`, the burst on EC2) the data came from a cache; from NEAR_BASELINE × the
 * baseline up to that, the figure is real but possibly network-capped — flagged, not rejected,
 * because whether burst credits were left cannot be known from here.
 */
export function linkFlag(throughputMibS: number | null, host: Pick<ResultRecord['host'], 'link_limit_mib_s' | 'link_baseline_mib_s'>):
  'served-from-cache' | 'possibly-network-capped' | null {
  if (throughputMibS === null) return null;
  const limit = host.link_limit_mib_s;
  if (limit !== null && throughputMibS > limit) return 'served-from-cache';
  const baseline = host.link_baseline_mib_s;
  if (baseline !== null && throughputMibS >= NEAR_BASELINE * baseline) return 'possibly-network-capped';
  return null;
}

/**
 * Builds a record from a workload's measurement; derives rates and plausibility flags. `endedAtMs`
 * is when the workload reported the measurement (default: now): the record's recorded_at, and its
 * started_at unless the measurement knows its own start. `requests`: what the server's log counted
 * for it (null: not counted).
 */
export function toRecord(facts: StepFacts, m: Measurement, extraFlags: ResultRecord['flags'] = [], endedAtMs: number = Date.now(),
  requests: ResultRecord['requests'] = null): ResultRecord {
  const seconds = m.durationMs / 1000;
  const throughput = !m.movesPayload ? null : m.rates ? m.rates.throughputMibS : seconds > 0 ? m.bytes / MIB / seconds : null;
  const opsPerS = m.rates ? m.rates.opsPerS : seconds > 0 ? m.ok / seconds : null;
  const flags = [...extraFlags];
  const link = linkFlag(throughput, facts.host);
  if (link && !flags.includes(link)) flags.push(link);
  const workloadParams = m.params ? { ...facts.workload_params, ...m.params } : facts.workload_params;
  return {
    schema_version: SCHEMA_VERSION,
    ...facts,
    workload_params: workloadParams,
    comparability: comparabilityOf({ ...facts, workload_params: workloadParams }),
    started_at: new Date(Math.min(m.startedAtMs ?? endedAtMs - m.durationMs, endedAtMs)).toISOString(),
    recorded_at: new Date(endedAtMs).toISOString(),
    operation: m.operation,
    object_size_bytes: m.objectSizeBytes,
    object_size_label: objectSizeLabel(m.objectSizeBytes, workloadParams),
    status: m.status,
    supported: m.supported,
    verified: m.verified,
    ops: m.ops,
    ok: m.ok,
    failed: m.failed,
    bytes: m.bytes,
    duration_ms: round(m.durationMs, 3),
    throughput_mib_s: throughput === null ? null : round(throughput, 3),
    ops_per_s: opsPerS === null ? null : round(opsPerS, 3),
    latency_us: m.latency,
    latency_histogram: m.latency ? m.latencyHistogram ?? null : null,
    delay_ms: m.delayMs === undefined || m.delayMs === null ? null : round(m.delayMs, 3),
    error_sample: m.errorSample,
    progress: m.progress ?? null,
    flags,
    requests,
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Options and parameters are recorded as string maps (Glue: map<string,string>). */
export function stringMap(o: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}
