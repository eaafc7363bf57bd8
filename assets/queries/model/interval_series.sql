-- The interval series of a run's long measurements (the `intervals` table, one row per interval of
-- a measurement that lasted 2 s or more: assets/schema/interval.schema.json): per interval the
-- bytes moved, the operations that completed, the errors and the latency percentiles, keyed as
-- report_cells.sql keys its cells (io from the parameters, as there) and by the measurement
-- (repetition, step, runner, its record's position in the step's file). The report draws
-- throughput over time from them and takes each measurement's peak and sustained rate. Fleet runs:
-- the steps of each workload's smallest fleet size only, as report_cells.sql keeps its cells (the
-- step's `clients` from its records).
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
  SELECT DISTINCT run_id AS fleet_run_id, step AS fleet_step
  FROM (SELECT run_id, step, clients, min(clients) OVER (PARTITION BY run_id, workload) AS least_clients FROM results) AS c
  WHERE clients = least_clients
) AS smallest ON smallest.fleet_run_id = i.run_id AND smallest.fleet_step = i.step
ORDER BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, step, runner, measurement, interval_index
