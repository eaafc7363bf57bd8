-- Seed 003's read scaling: single-stream read throughput per file size, and the aggregate
-- throughput of 1, 4, 16... concurrent readers of ~200 MB files, per method and cache state, in
-- MB/s (decimal, as the seed prints); medians over the successful, verified repetitions.
-- Grouping: the comparability key (comparability.key: method, variant, options, version, workload, parameters, cache, clients, host class, endpoint class).
SELECT
  run_id,
  operation,
  CASE WHEN operation LIKE 'concurrent-%' THEN CAST(substr(operation, 12) AS integer) ELSE 1 END AS readers,
  object_size_bytes,
  method,
  method_variant,
  cache,
  clients,
  comparability.key AS comparable_key,
  count_if(status = 'ok' AND verified) AS repetitions,
  count_if(NOT (status = 'ok' AND verified) AND status <> 'did-not-finish') AS failed_repetitions,
  count_if(status = 'did-not-finish') AS did_not_finish,
  approx_percentile(CASE WHEN status = 'ok' AND verified THEN bytes / 1e6 / (duration_ms / 1e3) END, 0.5) AS mb_s_median,
  approx_percentile(CASE WHEN status = 'ok' AND verified THEN duration_ms END, 0.5) AS duration_ms_median,
  count_if(contains(flags, 'served-from-cache')) AS served_from_cache,
  min(error_sample) AS first_error
FROM results
WHERE workload = 'read-scaling' AND operation <> 'step' AND operation NOT LIKE '(%' AND status NOT IN ('not-applicable', 'did-not-finish')
GROUP BY run_id, operation, object_size_bytes, method, method_variant, cache, clients, comparability.key
ORDER BY run_id, readers, object_size_bytes, method, method_variant, cache, clients, comparable_key
