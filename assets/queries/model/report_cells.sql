-- The HTML report's cells: per workload, operation, I/O mode, object size, method, variant and cache
-- state, the spread over repetitions (min / median / max of successful, verified batches), latency
-- percentiles, success counts (metadata's success rate = ok / ops), support, propagation delays
-- and how many measurements ran faster than the link (served from a cache); did-not-finish records
-- (a step's time budget ran out) are counted apart with what they reached (medians of their budget,
-- share done and extrapolated total), never in a median of finished figures. `io` is the I/O mode a
-- record's parameters name (fio-seq: direct or buffered; from `direct` = 1/0 where `io` is absent),
-- NULL for workloads without one: direct and buffered results are different cases, never one median.
-- (map_keys first: Athena fails on a missing map key; CASE evaluates only the branch it takes.)
-- One client only (clients = 1: the plain steps): a fleet's per-client figures are never shown as
-- one client's, and a matrix run with fleets only has no cells here; fleet_scaling.sql has the fleets.
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
  comparable_key,
  count(*) AS records,
  count_if(good) AS repetitions,
  count(DISTINCT CASE WHEN good THEN repetition END) AS distinct_repetitions,
  count_if(status = 'failed') AS failed_batches,
  count_if(status = 'ok' AND NOT verified) AS unverified,
  count_if(status = 'unsupported') AS unsupported,
  count_if(status = 'not-applicable') AS not_applicable,
  count_if(status = 'did-not-finish') AS did_not_finish,
  approx_percentile(CASE WHEN status = 'did-not-finish' THEN progress.budget_s END, 0.5) AS dnf_budget_s,
  approx_percentile(CASE WHEN status = 'did-not-finish' AND progress.planned > 0 THEN progress.done / progress.planned END, 0.5) AS dnf_done_share,
  approx_percentile(CASE WHEN status = 'did-not-finish' THEN progress.extrapolated_total_s END, 0.5) AS dnf_extrapolated_s,
  sum(ops) AS ops,
  sum(ok) AS ok,
  sum(failed) AS failed,
  min(CASE WHEN good THEN throughput_mib_s END) AS mib_s_min,
  approx_percentile(CASE WHEN good THEN throughput_mib_s END, 0.5) AS mib_s_median,
  max(CASE WHEN good THEN throughput_mib_s END) AS mib_s_max,
  min(CASE WHEN good THEN ops_per_s END) AS ops_s_min,
  approx_percentile(CASE WHEN good THEN ops_per_s END, 0.5) AS ops_s_median,
  max(CASE WHEN good THEN ops_per_s END) AS ops_s_max,
  approx_percentile(CASE WHEN status IN ('ok', 'failed') AND ok > 0 THEN ops_per_s END, 0.5) AS ops_s_partial_median,
  min(CASE WHEN good THEN latency_us.mean END) AS mean_us_min,
  approx_percentile(CASE WHEN good THEN latency_us.mean END, 0.5) AS mean_us_median,
  max(CASE WHEN good THEN latency_us.mean END) AS mean_us_max,
  approx_percentile(CASE WHEN good THEN latency_us.p50 END, 0.5) AS p50_us_median,
  approx_percentile(CASE WHEN good THEN latency_us.p95 END, 0.5) AS p95_us_median,
  approx_percentile(CASE WHEN good THEN latency_us.p99 END, 0.5) AS p99_us_median,
  max(CASE WHEN good THEN latency_us.max END) AS max_us,
  min(CASE WHEN good THEN duration_ms END) AS duration_ms_min,
  approx_percentile(CASE WHEN good THEN duration_ms END, 0.5) AS duration_ms_median,
  max(CASE WHEN good THEN duration_ms END) AS duration_ms_max,
  min(CASE WHEN good THEN delay_ms END) AS delay_ms_min,
  approx_percentile(CASE WHEN good THEN delay_ms END, 0.5) AS delay_ms_median,
  max(CASE WHEN good THEN delay_ms END) AS delay_ms_max,
  count_if(contains(flags, 'served-from-cache')) AS served_from_cache,
  count_if(contains(flags, 'possibly-network-capped')) AS network_capped,
  count_if(contains(flags, 'step-failed')) AS step_failed,
  min(error_sample) AS first_error
FROM (
  SELECT *, status = 'ok' AND verified AS good,
    CASE
      WHEN contains(map_keys(workload_params), 'io') THEN workload_params['io']
      WHEN contains(map_keys(workload_params), 'direct') THEN (CASE workload_params['direct'] WHEN '1' THEN 'direct' WHEN '0' THEN 'buffered' END)
    END AS io,
    comparability.key AS comparable_key
  FROM results
) AS r
WHERE operation <> 'step' AND operation NOT LIKE '(%' AND clients = 1
GROUP BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, clients, comparable_key
ORDER BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, comparable_key
