-- Measurements whose step's time budget ran out (status did-not-finish), as seed 002 bounded its
-- pathological step: the work done out of the work planned, the rate reached and the total that
-- rate extrapolates to — an extrapolation, never a measured figure, so it is never ranked beside
-- finished ones (every other query leaves these records out, but report_cells, which counts them apart from
-- the figures).
-- Grouping: one row per record (no group of records).
SELECT
  run_id,
  workload,
  operation,
  method,
  method_variant,
  cache,
  clients,
  comparability.key AS comparable_key,
  repetition,
  step,
  progress.budget_s AS budget_s,
  progress.done AS done,
  progress.planned AS planned,
  progress.unit AS unit,
  progress.rate_per_s AS rate_per_s,
  progress.extrapolated_total_s AS extrapolated_total_s
FROM results
WHERE status = 'did-not-finish'
ORDER BY run_id, workload, operation, method, method_variant, cache, repetition
