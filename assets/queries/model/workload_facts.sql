-- The workloads of each run: every parameter set their records carry (one row per set; a
-- workload can record several, e.g. fio-seq's direct and buffered I/O), with how many methods
-- ran the workload and how many repetitions and records it has in all.
-- Grouping: the comparability key but method, method_variant, method_options, method_version, cache, clients, host_class, endpoint_class (one row per parameter set a workload ran with; workload_params stays apart).
SELECT
  f.run_id AS run_id,
  f.workload AS workload,
  s.workload_params,
  f.methods,
  f.repetitions,
  f.records
FROM (
  SELECT run_id, workload, count(DISTINCT method) AS methods, max(repetition) AS repetitions, count(*) AS records
  FROM results
  GROUP BY run_id, workload
) AS f
JOIN (
  SELECT DISTINCT run_id, workload, workload_params
  FROM results
) AS s ON s.run_id = f.run_id AND s.workload = f.workload
ORDER BY run_id, workload
