-- Seed 004's small-file read tables: per method and cache state (cold, warm-disk, warm-memory),
-- the 95th-percentile latency of reading one whole file and the aggregate read throughput in MB/s
-- (decimal, as the seed prints), medians over the successful, verified repetitions.
-- Grouping: the comparability key (comparability.key: method, variant, options, version, workload, parameters, cache, clients, host class, endpoint class).
SELECT
  run_id,
  method,
  method_variant,
  cache,
  clients,
  comparability.key AS comparable_key,
  count_if(status = 'ok' AND verified) AS repetitions,
  count_if(NOT (status = 'ok' AND verified) AND status <> 'did-not-finish') AS failed_repetitions,
  count_if(status = 'did-not-finish') AS did_not_finish,
  max(ops) AS reads_per_repetition,
  approx_percentile(CASE WHEN status = 'ok' AND verified THEN latency_us.p95 END, 0.5) AS p95_us_median,
  approx_percentile(CASE WHEN status = 'ok' AND verified THEN latency_us.p50 END, 0.5) AS p50_us_median,
  approx_percentile(CASE WHEN status = 'ok' AND verified THEN bytes / 1e6 / (duration_ms / 1e3) END, 0.5) AS mb_s_median,
  count_if(contains(flags, 'served-from-cache')) AS served_from_cache,
  min(error_sample) AS first_error
FROM results
WHERE workload = 'web-serving' AND operation = 'read' AND status <> 'did-not-finish'
GROUP BY run_id, method, method_variant, cache, clients, comparability.key
ORDER BY run_id, method, method_variant, cache, clients, comparable_key
