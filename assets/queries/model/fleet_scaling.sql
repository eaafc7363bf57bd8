-- Fleet scaling: one step run by k clients at once (the record's `clients`; 1 = a plain
-- step, the baseline). Per run, workload, operation, I/O mode, object size, method, variant, cache
-- state, repetition, clients and fleet_key (the rest of the comparability key but the host class:
-- client version, options, parameters, endpoint):
-- * clients_ok: clients (host.runner_id) whose measurement is good (ok and verified);
--   clients_failed: the others (failed, unverified, did-not-finish), failed_clients their names
--   (host.runner_id, else the hostname), sorted and joined with ', ' (null when none failed);
-- * start_spread_ms: how far apart the good clients began (last start - first start);
-- * the all-running window = first finish - last start over the good clients (min recorded_at -
--   max started_at). window_ms <= 0: the clients never all ran at once, and there is no aggregate;
-- * aggregate_mib_s / aggregate_ops_s over that window only (MiB/s null where no payload moves):
--   each good client's bytes (operations) inside it, from its interval series where it has one on the wall clock (intervals partly
--   inside count pro rata), else its mean rate x the window. aggregate_basis says which: 'series',
--   'mean rate' or 'mixed' (some clients each way);
-- * client_*_min / _max: the spread of the good clients' own rates;
-- * p50 / p95 / p99 from the good clients' latency_histogram buckets summed bucket by bucket
--   (nearest rank, as latency_merged.sql reads them): never an average of percentiles;
-- * hosts (distinct hostnames: local client processes share one) and fleet_link_limit_mib_s (a
--   host's link limit x hosts, where the hosts have one and are of one instance type).
-- Buckets are unnested by position (Trino spreads an array of rows over columns, DuckDB keeps one
-- struct column); io as report_cells.sql derives it.
-- Grouping: the comparability key but host_class (one fleet spans its clients' hosts; hosts and fleet_link_limit_mib_s say how many and whether of one instance type).
WITH measured AS (
  SELECT
    run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients,
    concat_ws('|', coalesce(method_version, ''), comparability.options_hash, comparability.params_hash, comparability.endpoint_class) AS fleet_key,
    step, runner, runner_key, hostname, instance_type, link_limit_mib_s,
    status = 'ok' AND verified AS good,
    to_unixtime(from_iso8601_timestamp(started_at)) AS t0,
    to_unixtime(from_iso8601_timestamp(recorded_at)) AS t1,
    bytes, throughput_mib_s, ops_per_s, latency_histogram
  FROM (
    SELECT *,
      coalesce(host.runner_id, host.hostname) AS runner,
      coalesce(host.runner_id, '') AS runner_key,
      host.hostname AS hostname,
      host.instance_type AS instance_type,
      host.link_limit_mib_s AS link_limit_mib_s,
      CASE
        WHEN contains(map_keys(workload_params), 'io') THEN workload_params['io']
        WHEN contains(map_keys(workload_params), 'direct') THEN (CASE workload_params['direct'] WHEN '1' THEN 'direct' WHEN '0' THEN 'buffered' END)
      END AS io
    FROM results
  ) AS r
  WHERE operation <> 'step' AND operation NOT LIKE '(%' AND status NOT IN ('not-applicable', 'unsupported')
    AND (throughput_mib_s IS NOT NULL OR ops_per_s IS NOT NULL OR status <> 'ok')
),
windowed AS (
  SELECT *,
    max(CASE WHEN good THEN t0 END) OVER (PARTITION BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key) AS w0,
    min(CASE WHEN good THEN t1 END) OVER (PARTITION BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key) AS w1,
    min(CASE WHEN good THEN t0 END) OVER (PARTITION BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key) AS first_t0
  FROM measured
),
series AS (
  SELECT *,
    CASE
      WHEN contains(map_keys(workload_params), 'io') THEN workload_params['io']
      WHEN contains(map_keys(workload_params), 'direct') THEN (CASE workload_params['direct'] WHEN '1' THEN 'direct' WHEN '0' THEN 'buffered' END)
    END AS io
  FROM intervals
  WHERE clock = 'wall'
),
per_client AS (
  SELECT
    m.run_id, m.workload, m.operation, m.io, m.object_size_bytes, m.method, m.method_variant, m.cache, m.repetition, m.clients, m.fleet_key,
    m.step, m.runner, m.hostname, m.instance_type, m.link_limit_mib_s, m.good, m.t0, m.t1, m.w0, m.w1, m.first_t0,
    m.throughput_mib_s, m.ops_per_s,
    count(s.interval_index) AS intervals,
    -- Each interval's share inside [w0, w1]: its overlap with the window over its width.
    sum(s.bytes * greatest(least(m.t0 + (s.offset_ms + s.duration_ms) / 1e3, m.w1) - greatest(m.t0 + s.offset_ms / 1e3, m.w0), 0) / (s.duration_ms / 1e3)) AS series_bytes,
    sum(s.ops * greatest(least(m.t0 + (s.offset_ms + s.duration_ms) / 1e3, m.w1) - greatest(m.t0 + s.offset_ms / 1e3, m.w0), 0) / (s.duration_ms / 1e3)) AS series_ops
  FROM windowed AS m
  LEFT JOIN series AS s
    ON m.good AND m.w1 > m.w0 AND s.duration_ms > 0
    AND s.run_id = m.run_id AND s.step = m.step AND coalesce(s.runner_id, '') = m.runner_key
    AND s.workload = m.workload AND s.operation = m.operation AND s.method = m.method AND s.method_variant = m.method_variant
    AND s.cache = m.cache AND s.repetition = m.repetition
    AND coalesce(s.object_size_bytes, -1) = coalesce(m.object_size_bytes, -1) AND coalesce(s.io, '') = coalesce(m.io, '')
  GROUP BY
    m.run_id, m.workload, m.operation, m.io, m.object_size_bytes, m.method, m.method_variant, m.cache, m.repetition, m.clients, m.fleet_key,
    m.step, m.runner, m.hostname, m.instance_type, m.link_limit_mib_s, m.good, m.t0, m.t1, m.w0, m.w1, m.first_t0,
    m.throughput_mib_s, m.ops_per_s
),
aggregated AS (
  SELECT
    run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key,
    count(DISTINCT CASE WHEN good THEN runner END) AS clients_ok,
    count(DISTINCT CASE WHEN NOT good THEN runner END) AS clients_failed,
    array_join(array_sort(array_agg(DISTINCT runner) FILTER (WHERE NOT good)), ', ') AS failed_clients,
    count(DISTINCT CASE WHEN good THEN hostname END) AS hosts,
    count(DISTINCT CASE WHEN good THEN instance_type END) AS instance_types,
    max(w0 - first_t0) * 1e3 AS start_spread_ms,
    max(w1 - w0) * 1e3 AS window_ms,
    CASE WHEN max(w1 - w0) > 0 AND count(CASE WHEN good THEN throughput_mib_s END) > 0 THEN
      sum(CASE WHEN good THEN (CASE WHEN intervals > 0 THEN series_bytes ELSE throughput_mib_s * 1048576 * (w1 - w0) END) END) / 1048576 / max(w1 - w0)
    END AS aggregate_mib_s,
    CASE WHEN max(w1 - w0) > 0 THEN
      sum(CASE WHEN good THEN (CASE WHEN intervals > 0 THEN series_ops ELSE ops_per_s * (w1 - w0) END) END) / max(w1 - w0)
    END AS aggregate_ops_s,
    CASE WHEN max(w1 - w0) > 0 THEN
      (CASE WHEN min(CASE WHEN good THEN intervals END) > 0 THEN 'series' WHEN max(CASE WHEN good THEN intervals END) = 0 THEN 'mean rate' ELSE 'mixed' END)
    END AS aggregate_basis,
    min(CASE WHEN good THEN throughput_mib_s END) AS client_mib_s_min,
    max(CASE WHEN good THEN throughput_mib_s END) AS client_mib_s_max,
    min(CASE WHEN good THEN ops_per_s END) AS client_ops_s_min,
    max(CASE WHEN good THEN ops_per_s END) AS client_ops_s_max,
    CASE WHEN count(DISTINCT CASE WHEN good THEN instance_type END) = 1 THEN
      max(CASE WHEN good THEN link_limit_mib_s END) * count(DISTINCT CASE WHEN good THEN hostname END)
    END AS fleet_link_limit_mib_s
  FROM per_client
  GROUP BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key
),
buckets AS (
  SELECT
    run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key,
    latency_histogram[i].le_us AS le_us,
    latency_histogram[i].count AS n
  FROM measured
  CROSS JOIN UNNEST(sequence(1, json_array_length(CAST(latency_histogram AS JSON)))) AS b (i)
  WHERE good AND latency_histogram IS NOT NULL
),
cumulative AS (
  SELECT *,
    sum(n) OVER (PARTITION BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key ORDER BY le_us ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS below,
    sum(n) OVER (PARTITION BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key) AS latencies
  FROM (
    SELECT run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key, le_us, sum(n) AS n
    FROM buckets
    GROUP BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key, le_us
  ) AS merged
),
percentiles AS (
  SELECT
    run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key,
    max(latencies) AS latencies,
    min(CASE WHEN below * 100 >= latencies * 50 THEN le_us END) AS p50_us,
    min(CASE WHEN below * 100 >= latencies * 95 THEN le_us END) AS p95_us,
    min(CASE WHEN below * 100 >= latencies * 99 THEN le_us END) AS p99_us
  FROM cumulative
  GROUP BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, repetition, clients, fleet_key
)
SELECT
  a.run_id,
  a.workload,
  a.operation,
  a.io,
  a.object_size_bytes,
  a.method,
  a.method_variant,
  a.cache,
  a.repetition,
  a.clients,
  a.fleet_key,
  a.clients_ok,
  a.clients_failed,
  a.failed_clients,
  a.hosts,
  a.start_spread_ms,
  a.window_ms,
  a.aggregate_mib_s,
  a.aggregate_ops_s,
  a.aggregate_basis,
  a.client_mib_s_min,
  a.client_mib_s_max,
  a.client_ops_s_min,
  a.client_ops_s_max,
  p.latencies,
  p.p50_us,
  p.p95_us,
  p.p99_us,
  a.fleet_link_limit_mib_s
FROM aggregated AS a
LEFT JOIN percentiles AS p
  ON p.run_id = a.run_id AND p.workload = a.workload AND p.operation = a.operation
  AND coalesce(p.io, '') = coalesce(a.io, '') AND coalesce(p.object_size_bytes, -1) = coalesce(a.object_size_bytes, -1)
  AND p.method = a.method AND p.method_variant = a.method_variant AND p.cache = a.cache
  AND p.repetition = a.repetition AND p.clients = a.clients AND p.fleet_key = a.fleet_key
ORDER BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, clients, repetition
