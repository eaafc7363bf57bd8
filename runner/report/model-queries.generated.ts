/* Generated from assets/queries/model/*.sql by scripts/gen-types.mjs. Do not edit: run `npm run gen`. */

/** The SQL files the report model is built from, one per file in assets/queries/model/. */
export const MODEL_QUERIES = [
  'fleet_scaling',
  'instance_types',
  'interval_series',
  'report_cells',
  'request_counts',
  'run_facts',
  'run_health',
  'size_labels',
  'workload_facts',
] as const;
