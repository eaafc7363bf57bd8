/* Generated from assets/schema/interval.schema.json by scripts/gen-types.mjs. Do not edit: run `npm run gen`. */

/**
 * One interval of a measurement's interval series (runner/core/intervals.ts): what happened in one interval of a measurement that lasted at least 0.5 s (1 s by default; a measurement shorter than 10 such intervals is cut into up to 10 finer ones, at least 50 ms each, and interval_ms says which). One JSON line in results/intervals/dt=YYYY-MM-DD/*.jsonl, beside the step's records. Single source for the TypeScript types (runner/core/interval.generated.ts), the Glue table `intervals` and the DuckDB reader. Bump schema_version on every change: minor for added fields, major for renamed or removed ones.
 */
export interface IntervalRecord {
  /**
   * Version of this schema.
   */
  schema_version: '1.0.0';
  /**
   * The run, as in the measurement's record.
   */
  run_id: string;
  /**
   * The step, as in the measurement's record.
   */
  step: number;
  /**
   * The runner that took the measurement (the record's host.runner_id).
   */
  runner_id: string | null;
  /**
   * Which measurement of the step: its record's position in the step's file (0-based).
   */
  measurement: number;
  method: string;
  method_variant: string;
  workload: string;
  /**
   * The record's workload_params (fio's io mode tells cases apart).
   */
  workload_params: {
    [k: string]: string;
  };
  operation: string;
  object_size_bytes: number | null;
  cache: 'cold' | 'warm' | 'warm-disk' | 'warm-memory' | 'none';
  repetition: number;
  /**
   * The measurement's status, as in its record.
   */
  status: 'ok' | 'failed' | 'unsupported' | 'not-applicable' | 'did-not-finish';
  /**
   * The measurement's verified flag, as in its record.
   */
  verified: boolean;
  /**
   * The series' time axis: 'wall' for a measurement timed from start to finish; 'active' for one timed as the sum of its operations (checks between them left out of the time, as out of its duration_ms).
   */
  clock: 'wall' | 'active';
  /**
   * Index of the interval in the series (0-based).
   */
  interval_index: number;
  /**
   * The series' interval width.
   */
  interval_ms: number;
  /**
   * Start of the interval after the measurement's start.
   */
  offset_ms: number;
  /**
   * Width of this interval: interval_ms, less for the last one.
   */
  duration_ms: number;
  /**
   * Payload bytes moved in the interval (a large transfer's parts as they landed where the client reports them, else at the operation's end).
   */
  bytes: number;
  /**
   * Operations that completed successfully in the interval.
   */
  ops: number;
  /**
   * Operations that failed in the interval.
   */
  errors: number;
  /**
   * Latency percentiles of the operations that completed in the interval (microseconds); null when none did.
   */
  latency_us: {
    p50: number;
    p95: number;
    p99: number;
    max: number;
  } | null;
}
