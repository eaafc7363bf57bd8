-- The interval series of a run's long measurements (the `intervals` table, one row per interval of
-- a measurement that lasted 2 s or more: assets/schema/interval.schema.json): per interval the
-- bytes moved, the operations that completed, the errors and the latency percentiles, keyed as
-- report_cells.sql keys its cells (io from the parameters, as there) and by the measurement
-- (repetition, step, runner, its record's position in the step's file). The report draws
-- throughput over time from them and takes each measurement's peak and sustained rate. One client
-- only (the steps whose records have clients = 1), as report_cells.sql keeps its cells.
-- Grouping: one row per interval of one measurement (no group of records).
SELECT
  run_id,
  workload,
  operation,
  io,
  object_size_bytes,
  method,
  method_variant,
  cache,
  repetition,
  step,
  runner,
  measurement,
  status,
  verified,
  clock,
  interval_index,
  interval_ms,
  offset_ms,
  duration_ms,
  bytes,
  ops,
  errors,
  latency_us.p50 AS p50_us,
  latency_us.p99 AS p99_us
FROM (
  SELECT *, coalesce(runner_id, '') AS runner,
    CASE
      WHEN contains(map_keys(workload_params), 'io') THEN workload_params['io']
      WHEN contains(map_keys(workload_params), 'direct') THEN (CASE workload_params['direct'] WHEN '1' THEN 'direct' WHEN '0' THEN 'buffered' END)
    END AS io
  FROM intervals
) AS i
JOIN (
  SELECT DISTINCT run_id AS one_client_run_id, step AS one_client_step
  FROM results
  WHERE clients = 1
) AS one_client ON one_client.one_client_run_id = i.run_id AND one_client.one_client_step = i.step
ORDER BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, step, runner, measurement, interval_index
