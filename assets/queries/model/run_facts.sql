-- What ran, per run and method variant: the client version and options, the host and endpoint,
-- and when the measurements were taken. Several hosts or versions in one run show as counts > 1.
-- Grouping: the comparability key but method_options, method_version, workload, workload_params, cache, clients, host_class, endpoint_class (facts of a run per method variant: several versions or hosts show as counts > 1).
SELECT
  run_id,
  method,
  method_variant,
  min(method_version) AS method_version,
  count(DISTINCT method_version) AS method_versions,
  arbitrary(method_options) AS method_options,
  count(DISTINCT host.hostname) AS hosts,
  arbitrary(host.hostname) AS hostname,
  arbitrary(host.instance_type) AS instance_type,
  arbitrary(host.vcpus) AS vcpus,
  arbitrary(host.memory_bytes) AS memory_bytes,
  arbitrary(host.kernel) AS kernel,
  arbitrary(host.os) AS os,
  arbitrary(host.region) AS region,
  arbitrary(host.availability_zone) AS availability_zone,
  max(host.link_limit_mib_s) AS link_limit_mib_s,
  max(host.link_baseline_mib_s) AS link_baseline_mib_s,
  arbitrary(host.link_limit_source) AS link_limit_source,
  arbitrary(endpoint.kind) AS endpoint_kind,
  arbitrary(endpoint.url) AS endpoint_url,
  arbitrary(endpoint.server) AS endpoint_server,
  count(*) AS records,
  min(recorded_at) AS first_recorded_at,
  max(recorded_at) AS last_recorded_at
FROM results
GROUP BY run_id, method, method_variant
ORDER BY run_id, method, method_variant
