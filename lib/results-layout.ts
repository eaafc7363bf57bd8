import { INTERVALS_FOLDER } from '../runner/core/vocabulary';

/**
 * Key layout of the results bucket, shared by the stack, the state machine, the Lambdas and the
 * runner's `step` command (one source for each prefix).
 */
export const RESULTS_LAYOUT = {
  /** Result records in the runner's Hive layout: results/dt=YYYY-MM-DD/*.jsonl (the Glue table's location); run manifests in results/_runs/. */
  records: 'results/',
  /** Interval series of long measurements (assets/schema/interval.schema.json): results/intervals/dt=YYYY-MM-DD/*.jsonl, the intervals table's location. */
  intervals: `results/${INTERVALS_FOLDER}/`,
  /** Inputs of an execution (its matrix), written by ValidateInput: executions/RUNID/matrix.json. */
  executions: 'executions/',
  /** Reports written by the Report function: reports/RUNID/. */
  reports: 'reports/',
  /** Athena query results (the workgroup's enforced output location). */
  athena: 'athena/',
  /** The data bucket's S3 server access logs (date-partitioned: access-logs/ACCOUNT/REGION/BUCKET/YYYY/MM/DD/…), the access_logs table's location. */
  accessLogs: 'access-logs/',
  /**
   * Callback tasks' tokens, one object per task: task-tokens/RUNID/INSTANCE/DOCUMENT, written by the
   * state machine's waiting state (S3 PutObject .waitForTaskToken), read and deleted by the runner's
   * command, and by Teardown when a runner never read it — so a token is in no SSM command's parameters.
   */
  taskTokens: 'task-tokens/',
  /** A fleet execution's start-barrier markers (runner/endpoint/s3-markers.ts): fleet-barrier/RUNID/ROUND/CLIENT, removed by each runner at its end and by Teardown. */
  fleetBarrier: 'fleet-barrier/',
  /**
   * Builds the runners share across executions (lib/runner-setup-script.ts, buildCacheKey):
   * tool-cache/BIN/ARCH/HASH/BIN. Kept by Teardown and by every lifecycle rule (they name other
   * prefixes only); cleared by hand with `aws s3 rm --recursive s3://RESULTS/tool-cache/`.
   */
  toolCache: 'tool-cache/',
} as const;
