-- Seed 000's tables: for each object size, operation and method, the batch time for N objects,
-- IOPS, throughput and mean latency, as min / median / max over repetitions (successful,
-- verified batches only; failures are counted, not averaged in).
SELECT
  run_id,
  operation,
  object_size_bytes,
  method,
  method_variant,
  count_if(status = 'ok' AND verified) AS repetitions,
  count_if(status <> 'ok' OR NOT verified) AS failed_batches,
  max(ops) AS objects_per_batch,
  min(duration_ms) FILTER (WHERE status = 'ok' AND verified) AS batch_ms_min,
  approx_percentile(duration_ms, 0.5) FILTER (WHERE status = 'ok' AND verified) AS batch_ms_median,
  max(duration_ms) FILTER (WHERE status = 'ok' AND verified) AS batch_ms_max,
  min(ops_per_s) FILTER (WHERE status = 'ok' AND verified) AS iops_min,
  approx_percentile(ops_per_s, 0.5) FILTER (WHERE status = 'ok' AND verified) AS iops_median,
  max(ops_per_s) FILTER (WHERE status = 'ok' AND verified) AS iops_max,
  min(throughput_mib_s) FILTER (WHERE status = 'ok' AND verified) AS mib_s_min,
  approx_percentile(throughput_mib_s, 0.5) FILTER (WHERE status = 'ok' AND verified) AS mib_s_median,
  max(throughput_mib_s) FILTER (WHERE status = 'ok' AND verified) AS mib_s_max,
  min(latency_us.mean) FILTER (WHERE status = 'ok' AND verified) AS mean_us_min,
  approx_percentile(latency_us.mean, 0.5) FILTER (WHERE status = 'ok' AND verified) AS mean_us_median,
  max(latency_us.mean) FILTER (WHERE status = 'ok' AND verified) AS mean_us_max,
  count_if(contains(flags, 'served-from-cache')) AS served_from_cache
FROM results
WHERE workload = 'objects' AND operation <> 'step'
GROUP BY run_id, operation, object_size_bytes, method, method_variant
ORDER BY run_id, operation, object_size_bytes, method, method_variant
