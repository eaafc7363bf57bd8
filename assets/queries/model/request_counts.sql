-- Requests and request cost: per workload, operation, I/O mode (as report_cells.sql derives it),
-- object size, method and cache state, the S3
-- requests the server answered during the measurements (summed over repetitions, by type), the
-- operations they served, the bytes read and the GET bytes sent; how many measurements were not
-- counted (an endpoint whose log the runner cannot read), and the cache claims the counts refuted.
-- all_ops, all_bytes and files (the workload's files parameter) are every measurement's, counted or
-- not: the S3 Files metering model's input (runner/report/s3files-metering.ts), which needs no counts.
-- Grouping: the comparability key (comparability.key: method, variant, options, version, workload, parameters, cache, clients, host class, endpoint class).
SELECT
  run_id,
  workload,
  operation,
  io,
  object_size_bytes,
  method,
  method_variant,
  cache,
  clients,
  comparability.key AS comparable_key,
  count(*) AS measurements,
  count_if(requests IS NULL) AS not_counted,
  sum(CASE WHEN requests IS NOT NULL THEN ops END) AS ops,
  sum(CASE WHEN requests IS NOT NULL THEN bytes END) AS bytes,
  sum(ops) AS all_ops,
  sum(bytes) AS all_bytes,
  max(CASE WHEN contains(map_keys(workload_params), 'files') THEN try_cast(workload_params['files'] AS bigint) END) AS files,
  sum(requests.get) AS get,
  sum(requests.get_ranged) AS get_ranged,
  sum(requests.put) AS put,
  sum(requests.mpu_create) AS mpu_create,
  sum(requests.mpu_part) AS mpu_part,
  sum(requests.mpu_complete) AS mpu_complete,
  sum(requests.mpu_abort) AS mpu_abort,
  sum(requests.head) AS head,
  sum(requests.list) AS list,
  sum(requests.delete) AS delete_requests,
  sum(requests.copy) AS copy,
  sum(requests.other) AS other,
  sum(requests.get_bytes) AS get_bytes,
  count_if(contains(flags, 'served-from-cache')) AS served_from_cache,
  count_if(contains(flags, 'not-warm')) AS not_warm
FROM (
  SELECT *,
    CASE
      WHEN contains(map_keys(workload_params), 'io') THEN workload_params['io']
      WHEN contains(map_keys(workload_params), 'direct') THEN (CASE workload_params['direct'] WHEN '1' THEN 'direct' WHEN '0' THEN 'buffered' END)
    END AS io
  FROM results
) AS r
WHERE operation <> 'step' AND status NOT IN ('not-applicable', 'did-not-finish')
GROUP BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, clients, comparability.key
ORDER BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, clients, comparable_key
