-- Integrity of each run, per method and workload: records, failed and unverified batches, broken
-- steps and the first error seen. A run is trustworthy when every count but `records` is zero;
-- `did_not_finish` counts measurements whose step ran out of its time budget (complete as far as
-- they got, never ranked); `first_failure` is the first error of a failed or unverified one.
-- Grouping: the comparability key but method_options, method_version, workload_params, cache, clients, host_class, endpoint_class (integrity counts of a run per method variant and workload, no figure).
SELECT
  run_id,
  method,
  method_variant,
  workload,
  count(*) AS records,
  count_if(status = 'failed') AS failed,
  count_if(status = 'ok' AND NOT verified) AS unverified,
  count_if(contains(flags, 'step-failed')) AS in_failed_steps,
  count_if(status = 'unsupported') AS unsupported,
  count_if(status = 'did-not-finish') AS did_not_finish,
  min(error_sample) AS first_error,
  min(CASE WHEN status = 'failed' OR (status = 'ok' AND NOT verified) THEN error_sample END) AS first_failure
FROM results
-- Rows of requests only (operation in parentheses) are no measurement.
WHERE operation NOT LIKE '(%'
GROUP BY run_id, method, method_variant, workload
ORDER BY run_id, method, method_variant, workload
