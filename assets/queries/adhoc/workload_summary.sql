-- Every workload other than `objects`, per operation and method: median batch time, throughput,
-- operations per second and latency percentiles over repetitions (successful, verified batches
-- only), with the number of repetitions and failures; cold and warm cache states apart. fio-seq and
-- semantics have their own queries.
-- Grouping: the comparability key (comparability.key: method, variant, options, version, workload, parameters, cache, clients, host class, endpoint class).
SELECT
  run_id,
  workload,
  operation,
  object_size_bytes,
  method,
  method_variant,
  cache,
  clients,
  comparability.key AS comparable_key,
  count_if(good) AS repetitions,
  count_if(NOT good AND status <> 'did-not-finish') AS failed_batches,
  count_if(status = 'did-not-finish') AS did_not_finish,
  max(ops) AS ops_per_batch,
  min(CASE WHEN good THEN duration_ms END) AS duration_ms_min,
  approx_percentile(CASE WHEN good THEN duration_ms END, 0.5) AS duration_ms_median,
  max(CASE WHEN good THEN duration_ms END) AS duration_ms_max,
  approx_percentile(CASE WHEN good THEN throughput_mib_s END, 0.5) AS mib_s_median,
  approx_percentile(CASE WHEN good THEN ops_per_s END, 0.5) AS ops_s_median,
  approx_percentile(CASE WHEN good THEN latency_us.p50 END, 0.5) AS p50_us_median,
  approx_percentile(CASE WHEN good THEN latency_us.p99 END, 0.5) AS p99_us_median,
  count_if(contains(flags, 'served-from-cache')) AS served_from_cache,
  count_if(contains(flags, 'possibly-network-capped')) AS network_capped
FROM (SELECT *, status = 'ok' AND verified AS good FROM results) AS r
WHERE workload NOT IN ('objects', 'fio-seq', 'semantics') AND operation <> 'step' AND operation NOT LIKE '(%' AND status NOT IN ('not-applicable', 'did-not-finish')
GROUP BY run_id, workload, operation, object_size_bytes, method, method_variant, cache, clients, comparability.key
ORDER BY run_id, workload, operation, method, method_variant, cache, clients, comparable_key
