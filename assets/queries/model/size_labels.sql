-- The object sizes of each run, each with the label its measurements recorded (object_size_label:
-- the size as the matrix spelled it), for every table and chart that names a size.
-- Where two spellings of one byte count were given, the first in sort order names it.
-- Grouping: the comparability key but method, method_variant, method_options, method_version, workload, workload_params, cache, clients, host_class, endpoint_class (a size has one label in a run, whichever case measured it).
SELECT
  run_id,
  object_size_bytes,
  min(object_size_label) AS object_size_label
FROM results
WHERE object_size_bytes IS NOT NULL AND object_size_label IS NOT NULL
GROUP BY run_id, object_size_bytes
ORDER BY run_id, object_size_bytes
