-- Latency percentiles of merged distributions: per run, workload, operation, I/O mode,
-- object size and comparability key (method, variant, cache state, fleet size...), the latency_histogram buckets of every successful,
-- verified measurement (all repetitions, all runners and client processes) summed bucket by
-- bucket, and p50 / p95 / p99 read from the sums — the upper bound of the first bucket whose
-- running count reaches p% of all latencies (nearest rank, as HdrHistogram reads one; counts
-- compared as integers, so both engines agree exactly). Never an average of percentiles: the
-- report's p50_us_median etc. are medians of per-repetition percentiles, a different figure.
-- min_us, max_us are exact (over latency_us), mean_us is the latencies' mean (each measurement's
-- mean weighted by its ok, which within a case is proportional to its latencies: dir-walk times one
-- walk per ok entries). Buckets bound a latency to within 1.6% (result schema).
-- (Buckets are unnested by position: Trino spreads an array of rows over columns, DuckDB keeps one
-- struct column. Each record's own figures ride on its first bucket's row, so one pass sums both.)
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
  sum(measurements) AS measurements,
  max(latencies) AS latencies,
  min(CASE WHEN below * 100 >= latencies * 50 THEN le_us END) AS p50_us,
  min(CASE WHEN below * 100 >= latencies * 95 THEN le_us END) AS p95_us,
  min(CASE WHEN below * 100 >= latencies * 99 THEN le_us END) AS p99_us,
  min(min_us) AS min_us,
  round(sum(mean_x_count) / sum(counted), 3) AS mean_us,
  max(max_us) AS max_us
FROM (
  SELECT
    *,
    sum(n) OVER (PARTITION BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, clients, comparable_key ORDER BY le_us ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS below,
    sum(n) OVER (PARTITION BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, clients, comparable_key) AS latencies
  FROM (
    SELECT
      run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, clients, comparable_key, le_us,
      sum(n) AS n,
      count(first_min_us) AS measurements,
      min(first_min_us) AS min_us,
      max(first_max_us) AS max_us,
      sum(first_mean_x_count) AS mean_x_count,
      sum(first_count) AS counted
    FROM (
      SELECT
        run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, clients, comparable_key,
        latency_histogram[i].le_us AS le_us,
        latency_histogram[i].count AS n,
        CASE WHEN i = 1 THEN latency_us.min END AS first_min_us,
        CASE WHEN i = 1 THEN latency_us.max END AS first_max_us,
        CASE WHEN i = 1 THEN latency_us.mean * ok END AS first_mean_x_count,
        CASE WHEN i = 1 THEN ok END AS first_count
      FROM (
        SELECT *, comparability.key AS comparable_key,
          CASE
            WHEN contains(map_keys(workload_params), 'io') THEN workload_params['io']
            WHEN contains(map_keys(workload_params), 'direct') THEN (CASE workload_params['direct'] WHEN '1' THEN 'direct' WHEN '0' THEN 'buffered' END)
          END AS io
        FROM results
        WHERE status = 'ok' AND verified AND operation <> 'step' AND latency_histogram IS NOT NULL
      ) AS r
      CROSS JOIN UNNEST(sequence(1, json_array_length(CAST(latency_histogram AS JSON)))) AS b (i)
    ) AS buckets
    GROUP BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, clients, comparable_key, le_us
  ) AS merged
) AS cumulative
GROUP BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, clients, comparable_key
ORDER BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, clients, comparable_key
