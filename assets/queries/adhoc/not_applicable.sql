-- Workloads a method cannot run (a file-system workload on an object method): every record of
-- the workload on that method is 'not-applicable', with the reason. (Single probes that do not
-- apply, such as a bucket check on JuiceFS, are shown in their workload's table.)
SELECT
  run_id,
  workload,
  method,
  method_variant,
  count(*) AS records,
  min(error_sample) AS reason
FROM results
GROUP BY run_id, workload, method, method_variant
HAVING count_if(status <> 'not-applicable') = 0
ORDER BY run_id, workload, method, method_variant
