-- Seed 002's real-world operations (git clone, tar -xf) and seed 004's untar table: per job,
-- method and cache state, the median time of the successful repetitions, files per second and
-- MB/s (decimal, as the seeds print), how many repetitions succeeded, and for tar whether modes
-- modification times and owners were kept (share of files over all repetitions). Repetitions that
-- did not finish (time budget) are counted apart: only finished ones have a time.
-- Grouping: the comparability key (comparability.key: method, variant, options, version, workload, parameters, cache, clients, host class, endpoint class).
SELECT
  run_id,
  workload,
  operation,
  method,
  method_variant,
  cache,
  clients,
  comparability.key AS comparable_key,
  count(*) AS repetitions,
  count_if(status = 'ok' AND verified) AS succeeded,
  count_if(status = 'unsupported') AS unsupported,
  count_if(status = 'did-not-finish') AS did_not_finish,
  max(ops) AS files,
  approx_percentile(CASE WHEN status = 'ok' AND verified THEN duration_ms END, 0.5) AS duration_ms_median,
  approx_percentile(CASE WHEN status = 'ok' AND verified THEN ops_per_s END, 0.5) AS files_s_median,
  approx_percentile(CASE WHEN status = 'ok' AND verified THEN bytes / 1e6 / (duration_ms / 1e3) END, 0.5) AS mb_s_median,
  CASE WHEN sum(ops) > 0 THEN CAST(sum(ok) AS double) / sum(ops) ELSE 0 END AS kept_rate,
  min(error_sample) AS first_error
FROM results
WHERE workload IN ('git-clone', 'tar-extract') AND operation <> 'step' AND operation NOT LIKE '(%' AND status NOT IN ('not-applicable', 'did-not-finish')
GROUP BY run_id, workload, operation, method, method_variant, cache, clients, comparability.key
ORDER BY run_id, workload, operation, method, method_variant, cache, clients, comparable_key
