-- Results history: every run's median per case and comparability key, oldest run first, against
-- the median of the same key's up to 10 earlier runs (what `s3ab history` prints, without its
-- flags, behaviour figures and change points). A case is a workload's operation at one object size
-- and cache state through one method and variant; its figure is the first its good (ok, verified)
-- records have: throughput, else operations/s, else the delay, else the batch time. Fewer than 5
-- earlier runs: "insufficient history". Fleet steps (clients > 1) are left out, as in the history.
-- Run it over every run (no --run): one run alone has no history.
-- Grouping: the comparability key (comparability.key: method, variant, options, version, workload, parameters, cache, clients, host class, endpoint class).
WITH points AS (
  SELECT
    run_id,
    min(started_at) AS run_started_at,
    workload,
    operation,
    object_size_bytes,
    cache,
    method,
    method_variant,
    method_version,
    clients,
    comparability.key AS comparable_key,
    comparability.base_key AS base_key,
    count_if(good) AS good_repetitions,
    CASE
      WHEN count(CASE WHEN good THEN throughput_mib_s END) > 0 THEN 'throughput MiB/s'
      WHEN count(CASE WHEN good THEN ops_per_s END) > 0 THEN 'operations/s'
      WHEN count(CASE WHEN good THEN delay_ms END) > 0 THEN 'delay ms'
      WHEN count(CASE WHEN good THEN duration_ms END) > 0 THEN 'time ms'
    END AS metric,
    CASE
      WHEN count(CASE WHEN good THEN throughput_mib_s END) > 0 THEN approx_percentile(CASE WHEN good THEN throughput_mib_s END, 0.5)
      WHEN count(CASE WHEN good THEN ops_per_s END) > 0 THEN approx_percentile(CASE WHEN good THEN ops_per_s END, 0.5)
      WHEN count(CASE WHEN good THEN delay_ms END) > 0 THEN approx_percentile(CASE WHEN good THEN delay_ms END, 0.5)
      WHEN count(CASE WHEN good THEN duration_ms END) > 0 THEN approx_percentile(CASE WHEN good THEN duration_ms END, 0.5)
    END AS median_value
  FROM (SELECT *, status = 'ok' AND verified AS good FROM results) AS r
  WHERE operation <> 'step' AND operation NOT LIKE '(%' AND clients = 1
  GROUP BY run_id, workload, operation, object_size_bytes, cache, method, method_variant, method_version, clients, comparability.key, comparability.base_key
),
series AS (
  SELECT
    *,
    count(median_value) OVER (
      PARTITION BY comparable_key, workload, operation, object_size_bytes, metric ORDER BY run_id ROWS BETWEEN 10 PRECEDING AND 1 PRECEDING
    ) AS history_runs,
    approx_percentile(median_value, 0.5) OVER (
      PARTITION BY comparable_key, workload, operation, object_size_bytes, metric ORDER BY run_id ROWS BETWEEN 10 PRECEDING AND 1 PRECEDING
    ) AS history_median
  FROM points
)
SELECT
  run_id,
  run_started_at,
  workload,
  operation,
  object_size_bytes,
  cache,
  method,
  method_variant,
  method_version,
  clients,
  comparable_key,
  base_key,
  good_repetitions,
  metric,
  median_value,
  history_runs,
  history_median,
  CASE WHEN history_median <> 0 THEN 100 * (median_value - history_median) / abs(history_median) END AS change_pct,
  CASE
    WHEN median_value IS NULL THEN 'no figure (no good repetition)'
    WHEN history_runs = 0 THEN 'first run of this case'
    WHEN history_runs < 5 THEN 'insufficient history'
    ELSE 'compared'
  END AS verdict
FROM series
ORDER BY run_id, workload, operation, object_size_bytes, cache, method, method_variant, comparable_key
