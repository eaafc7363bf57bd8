-- Workloads a method cannot run (a file-system workload on an object method): one record each,
-- status 'not-applicable', with the reason.
SELECT
  run_id,
  workload,
  method,
  method_variant,
  count(*) AS records,
  min(error_sample) AS reason
FROM results
WHERE status = 'not-applicable'
GROUP BY run_id, workload, method, method_variant
ORDER BY run_id, workload, method, method_variant
