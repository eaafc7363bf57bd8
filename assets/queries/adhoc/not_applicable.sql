-- Workloads a method cannot run (a file-system workload on an object method): every record of
-- the workload on that method is 'not-applicable', with the reason. (Single probes that do not
-- apply, such as a bucket check on JuiceFS, are shown in their workload's table.)
-- Grouping: the comparability key but method_options, method_version, workload_params, cache, clients, host_class, endpoint_class (whether a method can run a workload at all is a fact of the method and workload, whatever it was measured under).
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
