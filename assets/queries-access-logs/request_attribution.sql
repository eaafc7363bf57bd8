-- S3 requests per run, runner and step, counted from the data bucket's S3 server access logs
-- (table access_logs). A request on a step's own prefix (s3ab/RUN/[RUNNER/]steps/NNN/) is that
-- step's; a request on the run's fixtures (s3ab/RUN/[RUNNER/]fixtures/) belongs to the step of the
-- same runner whose measurements (first started_at to last recorded_at, one second either side:
-- the log's times have one-second resolution) were running then. The runner's own requests
-- (user agent s3ab-runner) are left out; anything else of the run is reported with step NULL.
-- logged: requests found so far (delivery takes minutes to hours).
WITH logs AS (
  SELECT
    regexp_extract(key, '^s3ab/([^/]+)/', 1) AS run_id,
    coalesce(nullif(regexp_extract(key, '^s3ab/[^/]+/([^/]+)/(steps|fixtures)/', 1), ''), '') AS runner,
    TRY_CAST(nullif(regexp_extract(key, '/steps/([0-9]+)/', 1), '') AS integer) AS key_step,
    parse_datetime(requestdatetime, 'dd/MMM/yyyy:HH:mm:ss Z') AS at,
    operation,
    coalesce(bytessent, 0) AS bytessent,
    coalesce(objectsize, 0) AS objectsize
  FROM access_logs
  WHERE key LIKE 's3ab/%' AND coalesce(useragent, '') NOT LIKE '%s3ab-runner%'
),
windows AS (
  SELECT
    run_id,
    coalesce(host.runner_id, '') AS runner,
    step,
    min(from_iso8601_timestamp(started_at)) AS first_at,
    max(from_iso8601_timestamp(recorded_at)) AS last_at
  FROM results
  GROUP BY run_id, coalesce(host.runner_id, ''), step
),
attributed AS (
  SELECT l.*, coalesce(l.key_step, w.step) AS step
  FROM logs l
  LEFT JOIN windows w
    ON l.key_step IS NULL AND w.run_id = l.run_id AND w.runner = l.runner
    AND l.at BETWEEN w.first_at - INTERVAL '1' SECOND AND w.last_at + INTERVAL '1' SECOND
),
counted AS (
  SELECT
    run_id, runner, step,
    count(*) AS logged,
    count_if(operation = 'REST.GET.OBJECT' AND bytessent >= objectsize) AS get,
    count_if(operation = 'REST.GET.OBJECT' AND bytessent < objectsize) AS get_ranged,
    count_if(operation = 'REST.PUT.OBJECT') AS put,
    count_if(operation = 'REST.POST.UPLOADS') AS mpu_create,
    count_if(operation = 'REST.PUT.PART') AS mpu_part,
    count_if(operation = 'REST.POST.UPLOAD') AS mpu_complete,
    count_if(operation = 'REST.DELETE.UPLOAD') AS mpu_abort,
    count_if(operation = 'REST.HEAD.OBJECT') AS head,
    count_if(operation = 'REST.GET.BUCKET') AS list,
    count_if(operation IN ('REST.DELETE.OBJECT', 'REST.POST.MULTI_OBJECT_DELETE')) AS delete_requests,
    count_if(operation IN ('REST.COPY.OBJECT', 'REST.COPY.PART')) AS copy,
    sum(CASE WHEN operation = 'REST.GET.OBJECT' THEN bytessent ELSE 0 END) AS get_bytes
  FROM attributed
  GROUP BY run_id, runner, step
)
-- Every step of the run, with or without requests logged so far.
SELECT
  coalesce(c.run_id, w.run_id) AS run_id,
  coalesce(c.runner, w.runner) AS runner,
  coalesce(c.step, w.step) AS step,
  coalesce(c.logged, 0) AS logged,
  c.get, c.get_ranged, c.put, c.mpu_create, c.mpu_part, c.mpu_complete, c.mpu_abort, c.head, c.list, c.delete_requests, c.copy, c.get_bytes
FROM counted c
FULL OUTER JOIN windows w ON c.run_id = w.run_id AND c.runner = w.runner AND c.step = w.step
ORDER BY run_id, runner, step
