-- Every workload other than `objects`, per operation and method: median batch time, throughput,
-- operations per second and latency percentiles over repetitions (successful, verified batches
-- only), with the number of repetitions and failures.
SELECT
  run_id,
  workload,
  operation,
  object_size_bytes,
  method,
  method_variant,
  count_if(status = 'ok' AND verified) AS repetitions,
  count_if(status <> 'ok' OR NOT verified) AS failed_batches,
  max(ops) AS ops_per_batch,
  min(duration_ms) FILTER (WHERE status = 'ok' AND verified) AS duration_ms_min,
  approx_percentile(duration_ms, 0.5) FILTER (WHERE status = 'ok' AND verified) AS duration_ms_median,
  max(duration_ms) FILTER (WHERE status = 'ok' AND verified) AS duration_ms_max,
  approx_percentile(throughput_mib_s, 0.5) FILTER (WHERE status = 'ok' AND verified) AS mib_s_median,
  approx_percentile(ops_per_s, 0.5) FILTER (WHERE status = 'ok' AND verified) AS ops_s_median,
  approx_percentile(latency_us.p50, 0.5) FILTER (WHERE status = 'ok' AND verified) AS p50_us_median,
  approx_percentile(latency_us.p99, 0.5) FILTER (WHERE status = 'ok' AND verified) AS p99_us_median,
  count_if(contains(flags, 'served-from-cache')) AS served_from_cache
FROM results
WHERE workload <> 'objects' AND operation <> 'step'
GROUP BY run_id, workload, operation, object_size_bytes, method, method_variant
ORDER BY run_id, workload, operation, method, method_variant
