-- The POSIX semantics matrix: for each method and probe, in how many repetitions the operation
-- worked and was verified, was refused or left wrong data (unsupported), or could not be judged
-- (failed); the median propagation delay where one was measured, and the first reason given.
SELECT
  run_id,
  method,
  method_variant,
  operation AS probe,
  count_if(status = 'ok') AS supported_reps,
  count_if(status = 'unsupported') AS unsupported_reps,
  count_if(status = 'failed') AS failed_reps,
  approx_percentile(delay_ms, 0.5) AS delay_ms_median,
  min(error_sample) AS reason
FROM results
WHERE workload = 'semantics' AND operation <> 'step' AND status <> 'not-applicable'
GROUP BY run_id, method, method_variant, operation
ORDER BY run_id, method, method_variant, probe
