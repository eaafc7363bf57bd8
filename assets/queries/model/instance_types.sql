-- Instance types compared (a matrix run on runners of several types): per run, workload,
-- operation, size, fio I/O mode, method and cache state, each instance type's median throughput,
-- operations per second and p50 latency over its runners' successful, verified measurements, with
-- how many runners and measurements of that type there were and how many failed.
-- Grouping: the comparability key (comparability.key: method, variant, options, version, workload, parameters, cache, clients, host class, endpoint class).
SELECT
  run_id,
  workload,
  operation,
  object_size_bytes,
  io,
  method,
  method_variant,
  cache,
  instance_type,
  clients,
  comparability.key AS comparable_key,
  count(DISTINCT CASE WHEN good THEN runner END) AS runners,
  count_if(good) AS measurements,
  count_if(NOT good AND status <> 'did-not-finish') AS failed_measurements,
  count_if(status = 'did-not-finish') AS did_not_finish,
  approx_percentile(CASE WHEN good THEN throughput_mib_s END, 0.5) AS mib_s_median,
  approx_percentile(CASE WHEN good THEN ops_per_s END, 0.5) AS ops_s_median,
  approx_percentile(CASE WHEN good THEN latency_us.p50 END, 0.5) AS p50_us_median,
  count_if(contains(flags, 'served-from-cache')) AS served_from_cache
FROM (
  SELECT
    *,
    status = 'ok' AND verified AS good,
    coalesce(host.runner_id, host.hostname) AS runner,
    host.instance_type AS instance_type,
    CASE WHEN workload = 'fio-seq' THEN workload_params['io'] END AS io
  FROM results
) AS r
WHERE operation <> 'step' AND operation NOT LIKE '(%' AND status NOT IN ('not-applicable', 'did-not-finish')
GROUP BY run_id, workload, operation, object_size_bytes, io, method, method_variant, cache, instance_type, clients, comparability.key
ORDER BY run_id, workload, operation, object_size_bytes, io, method, method_variant, cache, instance_type, clients, comparable_key
