import Ajv from 'ajv';
import intervalSchema from '../../assets/schema/interval.schema.json';
import type { IntervalSeries } from '../core/intervals';
import type { IntervalRecord } from '../core/interval.generated';
import type { ResultRecord } from '../core/record.generated';

export const INTERVAL_SCHEMA_VERSION = intervalSchema.properties.schema_version.const as IntervalRecord['schema_version'];

const validate = new Ajv({ allErrors: true, strict: false }).compile<IntervalRecord>(intervalSchema);

/** Schema errors of an interval line, as readable strings; empty when valid. */
export function intervalErrors(row: unknown): string[] {
  if (validate(row)) return [];
  return validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message}`);
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The interval lines of one measurement: its series, keyed by the fields that tell its record apart
 * (run, step, runner, the record's position in the step's file) and by those the report groups on.
 */
export function intervalRecords(record: ResultRecord, measurement: number, series: IntervalSeries): IntervalRecord[] {
  return series.intervals.map((iv, i) => ({
    schema_version: INTERVAL_SCHEMA_VERSION,
    run_id: record.run_id, step: record.step, runner_id: record.host.runner_id, measurement,
    method: record.method, method_variant: record.method_variant, workload: record.workload, workload_params: record.workload_params,
    operation: record.operation, object_size_bytes: record.object_size_bytes, cache: record.cache, repetition: record.repetition,
    status: record.status, verified: record.verified, clock: series.clock,
    interval_index: i, interval_ms: series.intervalMs, offset_ms: round(iv.offsetMs), duration_ms: round(iv.durationMs),
    bytes: iv.bytes, ops: iv.ops, errors: iv.errors, latency_us: iv.latencyUs,
  }));
}
