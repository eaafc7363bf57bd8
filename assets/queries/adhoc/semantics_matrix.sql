-- The POSIX semantics matrix: for each method and probe, in how many repetitions the operation
-- worked and was verified, was refused or left wrong data (unsupported), or could not be judged
-- (failed), or did not apply (a bucket check on a method whose files are not objects); the median
-- propagation delay where one was measured, and the first reason given.
-- Grouping: the comparability key (comparability.key: method, variant, options, version, workload, parameters, cache, clients, host class, endpoint class).
SELECT
  r.run_id,
  r.method,
  r.method_variant,
  r.operation AS probe,
  r.cache,
  r.clients,
  r.comparability.key AS comparable_key,
  count_if(r.status = 'ok') AS supported_reps,
  count_if(r.status = 'unsupported') AS unsupported_reps,
  count_if(r.status = 'failed') AS failed_reps,
  count_if(r.status = 'not-applicable') AS not_applicable_reps,
  approx_percentile(r.delay_ms, 0.5) AS delay_ms_median,
  min(r.error_sample) AS reason
FROM results r
-- Methods that cannot run the workload at all (object methods: every record not-applicable) stay out.
WHERE r.workload = 'semantics' AND r.operation <> 'step' AND r.operation NOT LIKE '(%' AND r.status <> 'did-not-finish'
  AND EXISTS (
    SELECT 1 FROM results a
    WHERE a.run_id = r.run_id AND a.workload = 'semantics' AND a.method = r.method AND a.method_variant = r.method_variant
      AND a.operation <> 'step' AND a.status <> 'not-applicable'
  )
GROUP BY r.run_id, r.method, r.method_variant, r.operation, r.cache, r.clients, r.comparability.key
ORDER BY run_id, method, method_variant, probe, cache, clients, comparable_key
