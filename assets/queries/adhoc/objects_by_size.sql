-- Seed 000's tables: for each object size, operation and method, the batch time for N objects,
-- IOPS, throughput and mean latency, as min / median / max over repetitions (successful,
-- verified batches only; failures are counted, not averaged in), cold and warm cache states apart.
-- Grouping: the comparability key (comparability.key: method, variant, options, version, workload, parameters, cache, clients, host class, endpoint class).
SELECT
  run_id,
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
  max(ops) AS objects_per_batch,
  min(CASE WHEN good THEN duration_ms END) AS batch_ms_min,
  approx_percentile(CASE WHEN good THEN duration_ms END, 0.5) AS batch_ms_median,
  max(CASE WHEN good THEN duration_ms END) AS batch_ms_max,
  min(CASE WHEN good THEN ops_per_s END) AS iops_min,
  approx_percentile(CASE WHEN good THEN ops_per_s END, 0.5) AS iops_median,
  max(CASE WHEN good THEN ops_per_s END) AS iops_max,
  min(CASE WHEN good THEN throughput_mib_s END) AS mib_s_min,
  approx_percentile(CASE WHEN good THEN throughput_mib_s END, 0.5) AS mib_s_median,
  max(CASE WHEN good THEN throughput_mib_s END) AS mib_s_max,
  min(CASE WHEN good THEN latency_us.mean END) AS mean_us_min,
  approx_percentile(CASE WHEN good THEN latency_us.mean END, 0.5) AS mean_us_median,
  max(CASE WHEN good THEN latency_us.mean END) AS mean_us_max,
  count_if(contains(flags, 'served-from-cache')) AS served_from_cache,
  count_if(contains(flags, 'possibly-network-capped')) AS network_capped
FROM (SELECT *, status = 'ok' AND verified AS good FROM results) AS r
WHERE workload = 'objects' AND operation <> 'step' AND operation NOT LIKE '(%' AND status <> 'did-not-finish'
GROUP BY run_id, operation, object_size_bytes, method, method_variant, cache, clients, comparability.key
ORDER BY run_id, operation, object_size_bytes, method, method_variant, cache, clients, comparable_key
