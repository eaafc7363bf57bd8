-- The workloads of each run with their parameters, how many methods ran them and how many
-- repetitions were recorded.
SELECT
  run_id,
  workload,
  arbitrary(workload_params) AS workload_params,
  count(DISTINCT method) AS methods,
  max(repetition) AS repetitions,
  count(*) AS records
FROM results
GROUP BY run_id, workload
ORDER BY run_id, workload
