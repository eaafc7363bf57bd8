-- Seed 002's synthetic benchmark table: per metadata test, method and cache state, operations per
-- second and mean / p50 / p95 / p99 latency (medians over the repetitions that completed any
-- operation) and the success rate (operations that succeeded over those attempted, all
-- repetitions; 0 where the method refuses the operation). A repetition that did not finish (its
-- step's time budget ran out) is counted apart, never in a median.
-- Grouping: the comparability key (comparability.key: method, variant, options, version, workload, parameters, cache, clients, host class, endpoint class).
SELECT
  run_id,
  operation AS test,
  method,
  method_variant,
  cache,
  clients,
  comparability.key AS comparable_key,
  count(*) AS repetitions,
  max(ops) AS ops_per_repetition,
  approx_percentile(CASE WHEN ok > 0 AND status <> 'did-not-finish' THEN ops_per_s END, 0.5) AS ops_s_median,
  approx_percentile(CASE WHEN ok > 0 AND status <> 'did-not-finish' THEN latency_us.mean END, 0.5) AS mean_us_median,
  approx_percentile(CASE WHEN ok > 0 AND status <> 'did-not-finish' THEN latency_us.p50 END, 0.5) AS p50_us_median,
  approx_percentile(CASE WHEN ok > 0 AND status <> 'did-not-finish' THEN latency_us.p95 END, 0.5) AS p95_us_median,
  approx_percentile(CASE WHEN ok > 0 AND status <> 'did-not-finish' THEN latency_us.p99 END, 0.5) AS p99_us_median,
  sum(ok) AS ok,
  sum(ops) AS attempted,
  CASE WHEN sum(ops) > 0 THEN CAST(sum(ok) AS double) / sum(ops) ELSE 0 END AS success_rate,
  count_if(NOT supported) AS unsupported_repetitions,
  count_if(status = 'failed') AS failed_repetitions,
  count_if(status = 'ok' AND NOT verified) AS unverified_repetitions,
  count_if(status = 'did-not-finish') AS did_not_finish,
  min(error_sample) AS first_error
FROM results
WHERE workload = 'metadata' AND operation <> 'step' AND operation NOT LIKE '(%' AND status NOT IN ('not-applicable', 'did-not-finish')
GROUP BY run_id, operation, method, method_variant, cache, clients, comparability.key
ORDER BY run_id, test, method, method_variant, cache, clients, comparable_key
