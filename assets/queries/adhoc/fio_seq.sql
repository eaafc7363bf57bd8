-- Seed 000's fio tables: for each I/O mode (direct/buffered), cache state, operation (sequential
-- read/write), file size and method, fio's IOPS, MiB/s and mean/p99 latency as medians over
-- repetitions (successful, verified runs only), with failures and served-from-cache flags counted.
-- Grouping: the comparability key (comparability.key: method, variant, options, version, workload, parameters, cache, clients, host class, endpoint class).
SELECT
  run_id,
  workload_params['io'] AS io,
  cache,
  operation,
  object_size_bytes,
  method,
  method_variant,
  clients,
  comparability.key AS comparable_key,
  count_if(good) AS repetitions,
  count_if(NOT good AND status <> 'did-not-finish') AS failed_batches,
  count_if(status = 'did-not-finish') AS did_not_finish,
  approx_percentile(CASE WHEN good THEN ops_per_s END, 0.5) AS iops_median,
  approx_percentile(CASE WHEN good THEN throughput_mib_s END, 0.5) AS mib_s_median,
  approx_percentile(CASE WHEN good THEN latency_us.mean END, 0.5) AS mean_us_median,
  approx_percentile(CASE WHEN good THEN latency_us.p99 END, 0.5) AS p99_us_median,
  count_if(contains(flags, 'served-from-cache')) AS served_from_cache,
  count_if(contains(flags, 'possibly-network-capped')) AS network_capped,
  min(error_sample) AS first_error
FROM (SELECT *, status = 'ok' AND verified AS good FROM results) AS r
WHERE workload = 'fio-seq' AND operation IN ('read', 'write') AND status <> 'did-not-finish'
GROUP BY run_id, workload_params['io'], cache, operation, object_size_bytes, method, method_variant, clients, comparability.key
ORDER BY run_id, io, cache, operation, object_size_bytes, method, method_variant, clients, comparable_key
