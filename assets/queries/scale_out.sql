-- Scale-out (issue 6, seed 001's scale claim measured): the same step run by several runners at
-- once. Per run, step, method, workload, operation, size, fio I/O mode, cache state and repetition:
-- how many runners measured it, the bytes they moved together, and their aggregate throughput =
-- total bytes / (latest end - earliest start) across runners (started_at .. recorded_at), next to
-- the plain sum of each runner's own rate. overlap_ms is how long every runner was measuring at
-- once: the aggregate is a concurrent figure only when the overlap is most of the window.
-- Successful, verified measurements only (failed ones are counted); payload operations only.
SELECT
  run_id,
  step,
  method,
  method_variant,
  workload,
  operation,
  object_size_bytes,
  io,
  cache,
  repetition,
  count(DISTINCT CASE WHEN good THEN runner END) AS runners,
  count(DISTINCT CASE WHEN good THEN instance_type END) AS instance_types,
  max(CASE WHEN good THEN instance_type END) AS instance_type,
  count_if(good) AS measurements,
  count_if(NOT good AND status <> 'did-not-finish') AS failed_measurements,
  count_if(status = 'did-not-finish') AS did_not_finish,
  sum(CASE WHEN good THEN bytes END) AS total_bytes,
  (max(CASE WHEN good THEN t1 END) - min(CASE WHEN good THEN t0 END)) * 1e3 AS window_ms,
  greatest(min(CASE WHEN good THEN t1 END) - max(CASE WHEN good THEN t0 END), 0) * 1e3 AS overlap_ms,
  sum(CASE WHEN good THEN bytes END) / 1048576.0 / (max(CASE WHEN good THEN t1 END) - min(CASE WHEN good THEN t0 END)) AS aggregate_mib_s,
  sum(CASE WHEN good THEN throughput_mib_s END) AS sum_of_runner_mib_s,
  min(CASE WHEN good THEN throughput_mib_s END) AS runner_mib_s_min,
  max(CASE WHEN good THEN throughput_mib_s END) AS runner_mib_s_max,
  count_if(contains(flags, 'served-from-cache')) AS served_from_cache
FROM (
  SELECT
    *,
    status = 'ok' AND verified AS good,
    coalesce(host.runner_id, host.hostname) AS runner,
    host.instance_type AS instance_type,
    CASE WHEN workload = 'fio-seq' THEN workload_params['io'] END AS io,
    to_unixtime(from_iso8601_timestamp(started_at)) AS t0,
    to_unixtime(from_iso8601_timestamp(recorded_at)) AS t1
  FROM results
) AS r
WHERE operation <> 'step' AND operation NOT LIKE '(%' AND status NOT IN ('not-applicable', 'did-not-finish') AND throughput_mib_s IS NOT NULL
GROUP BY run_id, step, method, method_variant, workload, operation, object_size_bytes, io, cache, repetition
ORDER BY run_id, step, operation, object_size_bytes, io, cache
