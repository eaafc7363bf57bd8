/* Generated from assets/schema/result.schema.json by scripts/gen-types.mjs. Do not edit: run `npm run gen`. */

/**
 * One measurement of s3-access-bench: one JSON line in results/dt=YYYY-MM-DD/*.jsonl. Single source for the TypeScript types (runner/core/record.generated.ts), the Glue table columns and the DuckDB reader. Bump schema_version on every change: minor for added fields, major for renamed or removed ones.
 */
export interface ResultRecord {
  /**
   * Version of this schema.
   */
  schema_version: '1.8.0';
  /**
   * One benchmark run: UTC start time and a random suffix.
   */
  run_id: string;
  /**
   * When the measurement's first operation started (UTC, ISO 8601). With recorded_at it gives the window several runners' measurements of one step share (aggregate throughput).
   */
  started_at: string;
  /**
   * When the measurement ended (UTC, ISO 8601).
   */
  recorded_at: string;
  /**
   * Facts about the machine that ran the measurement.
   */
  host: {
    hostname: string;
    /**
     * EC2 instance type, or 'local'.
     */
    instance_type: string;
    vcpus: number;
    memory_bytes: number;
    kernel: string;
    os: string;
    region: string | null;
    availability_zone: string | null;
    /**
     * Most the link to the store can carry (on EC2 the instance type's burst bandwidth, which lasts only while network I/O credits do); results above it were served from a cache. Null where unknown.
     */
    link_limit_mib_s: number | null;
    /**
     * What the link sustains (on EC2 the instance type's baseline bandwidth); results at or above 90% of it are flagged possibly-network-capped. Null where no sustained rate is known apart from link_limit_mib_s (a measured loopback, S3AB_LINK_LIMIT_MIBS, an unknown type).
     */
    link_baseline_mib_s: number | null;
    /**
     * How link_limit_mib_s and link_baseline_mib_s were found (measured loopback, instance type table, ...).
     */
    link_limit_source: string | null;
    /**
     * Which runner of a scaled-out run took the measurement (s3ab step --runner-id / S3AB_RUNNER_ID: the EC2 instance id on AWS); null for a single local run.
     */
    runner_id: string | null;
  };
  /**
   * The S3 endpoint under test.
   */
  endpoint: {
    kind: 'embedded' | 'custom' | 'aws';
    /**
     * Endpoint URL; null for the AWS default.
     */
    url: string | null;
    /**
     * Server software and version where known (e.g. versitygw v1.8.0).
     */
    server: string | null;
  };
  /**
   * Access method (s3-api, aws-cli, ...).
   */
  method: string;
  /**
   * Named option set of the method ('default' when it has one).
   */
  method_variant: string;
  /**
   * Version of the client software.
   */
  method_version: string;
  /**
   * Every option that shapes the method's behaviour, as strings.
   */
  method_options: {
    [k: string]: string;
  };
  workload: string;
  /**
   * The workload's parameters, as strings.
   */
  workload_params: {
    [k: string]: string;
  };
  /**
   * Step number within the run (1-based).
   */
  step: number;
  /**
   * What was measured (upload, list, head, download, delete, read, walk, ...).
   */
  operation: string;
  /**
   * Size of each object or file the operation handled, where all are the same size.
   */
  object_size_bytes: number | null;
  /**
   * object_size_bytes as the matrix spelled it ("64MiB", "16 MB": the unit given), or in whole binary or decimal units where the workload's parameters name no such size; null where object_size_bytes is null. What the report prints for the size.
   */
  object_size_label: string | null;
  /**
   * Cache state: 'cold' from a fresh mount with kernel and client caches dropped; 'warm' repeated on the same mount; 'warm-disk'/'warm-memory' where a client's disk and memory caches are told apart; 'none' for methods without a client cache.
   */
  cache: 'cold' | 'warm' | 'warm-disk' | 'warm-memory' | 'none';
  repetition: number;
  /**
   * How many clients ran this step at once against the same store (the matrix's `clients` entry): 1 for a plain step. Each client writes its own records, told apart by host.runner_id; fleet aggregates (fleet_scaling.sql) are taken over the window in which all of them were running.
   */
  clients: number;
  /**
   * How this client of a fleet step (clients > 1) was started with the others; null for a plain step.
   */
  fleet: {
    /**
     * This client's number in the fleet (1-based).
     */
    client: number;
    /**
     * The start barrier: 'file' (client processes on one host, a shared folder), 's3' (runners, marker objects in the results bucket).
     */
    barrier: 'file' | 's3';
    /**
     * The common start instant the barrier gave every client (UTC): the step's measuring began at it.
     */
    start_at: string;
    /**
     * This host's clock offset from its reference (chrony's estimate against the Amazon Time Sync Service on AWS) when it started; null where one clock serves every client (one host).
     */
    clock_offset_ms: number | null;
    /**
     * Where clock_offset_ms comes from: 'chrony', or 'one host' for local client processes.
     */
    clock_source: string;
    /**
     * The lead the barrier added to the latest ready marker's stamp to make start_at: the room every client had to see the last marker and wake at the start.
     */
    lead_ms: number;
    /**
     * How long after start_at this client began measuring, on its own clock (its timer's wake-up, or a lead too short for it to see the last marker in time): 0 when it started on time.
     */
    late_ms: number;
    /**
     * late_ms is above the late-start limit (core/barrier.ts LATE_START_LIMIT_MS: the clock bound a fleet's clients may differ by): this client broke the common start, and the fleet's all-running window starts with it.
     */
    late_start: boolean;
  } | null;
  /**
   * What a figure is comparable on: two records' figures compare only when their `key`s are equal (and their operation, object size and I/O mode, which a record names itself). Defined once, in runner/core/comparability.ts; every query, comparison and verdict groups by it or by a subset its heading declares.
   */
  comparability: {
    /**
     * Hash of everything the figure was measured under: method, variant, options_hash, method_version, workload, params_hash, cache, clients, host_class, endpoint_class.
     */
    key: string;
    /**
     * The same without method_version and options_hash: records that differ only in the client's version or options share it (a history labels such a difference instead of refusing to compare).
     */
    base_key: string;
    /**
     * Hash of method_options (keys sorted), without an option whose value is the endpoint's own address (s3fs's url): endpoint_class keys the endpoint, and the embedded server's port changes every run.
     */
    options_hash: string;
    /**
     * Hash of workload_params (keys sorted): every parameter is taken to change the figure.
     */
    params_hash: string;
    /**
     * The EC2 instance type, or for another host 'local:NvCPU:MGiB' (its vCPUs and memory).
     */
    host_class: string;
    /**
     * The endpoint's kind and what it is: 'embedded:SERVER', 'custom:HOST SERVER', 'aws:REGION'.
     */
    endpoint_class: string;
  };
  /**
   * ok: every operation succeeded and verified; failed: at least one failed or the step broke; unsupported: the method refuses the operation; did-not-finish: the step's time budget ran out before its work was done (see progress) — never ranked beside finished figures.
   */
  status: 'ok' | 'failed' | 'unsupported' | 'not-applicable' | 'did-not-finish';
  /**
   * Whether the method supports the operation at all.
   */
  supported: boolean;
  /**
   * Whether the data read or written was checked (checksums, sizes, listings) and matched.
   */
  verified: boolean;
  /**
   * Operations attempted.
   */
  ops: number;
  ok: number;
  failed: number;
  /**
   * Payload bytes moved by the successful operations.
   */
  bytes: number;
  /**
   * Wall time of the whole batch of operations.
   */
  duration_ms: number;
  /**
   * bytes / duration in MiB/s; null when the operation moves no payload.
   */
  throughput_mib_s: number | null;
  ops_per_s: number | null;
  /**
   * Per-operation latency of this one measurement from an HdrHistogram at 3 significant digits (microseconds; percentiles within 0.1%); null when not measured per operation. Summaries over repetitions give the min, median and max of these per-repetition figures (report_cells.sql); percentiles over several measurements (repetitions, runners, client processes) come from latency_histogram (latency_merged.sql), never from averaging these.
   */
  latency_us: {
    min: number;
    mean: number;
    p50: number;
    p95: number;
    p99: number;
    max: number;
  } | null;
  /**
   * The per-operation latency distribution as mergeable log buckets: HdrHistogram's layout over integer nanoseconds with 64 (2^6) sub-buckets per power of two (one bucket per ns below 128 ns; above, each bucket 1/64 of its power of two wide, so its upper bound is less than 1.6% above any latency in it; fio's own histogram has the same layout). One fixed set of bucket bounds for every record, so the counts of several measurements, processes or runners sum exactly. The non-empty buckets in ascending order, each its upper bound (microseconds, inclusive) and count; the counts sum to the operations timed (ok, but 1 for dir-walk, whose one timed walk visits ok entries). Percentiles of several measurements are read from the summed buckets (latency_merged.sql: the bound of the first bucket whose running count reaches p%), never averaged. Null where latency_us is null.
   *
   * @minItems 1
   */
  latency_histogram?:
    | {
        /**
         * Upper bound of the bucket (microseconds, inclusive): a whole number of nanoseconds, so at most three decimals.
         */
        le_us: number;
        count: number;
      }[]
    | null;
  /**
   * A measured delay that is not an operation latency: how long a change made through one path took to become visible through another (semantics probes' propagation delays). Null elsewhere.
   */
  delay_ms: number | null;
  /**
   * First error seen, if any.
   */
  error_sample: string | null;
  /**
   * Only with status did-not-finish: how far the measurement got when the step's time budget ran out. extrapolated_total_s is planned / rate_per_s — an extrapolation, not a measurement. Null otherwise.
   */
  progress?: {
    /**
     * The step's time budget (seconds).
     */
    budget_s: number;
    /**
     * Work done when the budget ran out, in unit.
     */
    done: number;
    /**
     * Work the measurement planned, in unit.
     */
    planned: number;
    unit: 'ops' | 'bytes' | 'files';
    /**
     * done per second over the time the measurement ran.
     */
    rate_per_s: number;
    /**
     * Modelled total time at that rate (planned / rate_per_s); null when nothing was done.
     */
    extrapolated_total_s: number | null;
  } | null;
  /**
   * Plausibility and integrity flags. served-from-cache: a cold read with bytes the server's log shows it did not send (per object where the measurement knows its objects, else the window's total), or faster than the link estimate where the log cannot show every byte of each object sent; link-estimate-low: faster than the link estimate with every byte of each object read shown sent by the server's log (a fact about the estimate, not the method); cache-unchecked: a payload read with no server log to check its cache claim against (fleet clients, AWS, a custom endpoint); not-warm: a warm read for which the server sent every byte again; possibly-network-capped: at or above 90% of the host's baseline (sustained) bandwidth and at most its burst — the network, not the method, may have set the figure (at the baseline, or above it only while burst credits lasted).
   */
  flags: (
    | 'served-from-cache'
    | 'not-warm'
    | 'possibly-network-capped'
    | 'link-estimate-low'
    | 'cache-unchecked'
    | 'step-failed'
    | 'interrupted'
  )[];
  /**
   * S3 requests the server answered during this measurement (from the end of the step's previous measurement to the end of this one), by type, counted from the server's access log; the runner's own untimed checks are left out. null: not counted (an endpoint whose log the runner cannot read).
   */
  requests: {
    /**
     * GetObject of the whole object.
     */
    get: number;
    /**
     * GetObject of part of an object (fewer bytes sent than its size).
     */
    get_ranged: number;
    /**
     * PutObject.
     */
    put: number;
    /**
     * CreateMultipartUpload.
     */
    mpu_create: number;
    /**
     * UploadPart.
     */
    mpu_part: number;
    /**
     * CompleteMultipartUpload.
     */
    mpu_complete: number;
    /**
     * AbortMultipartUpload.
     */
    mpu_abort: number;
    /**
     * HeadObject.
     */
    head: number;
    /**
     * ListObjects and ListObjectsV2.
     */
    list: number;
    /**
     * DeleteObject and DeleteObjects.
     */
    delete: number;
    /**
     * CopyObject and UploadPartCopy.
     */
    copy: number;
    /**
     * Any other request (HeadBucket, GetBucketLocation, ...).
     */
    other: number;
    /**
     * Bytes the server sent in GetObject bodies.
     */
    get_bytes: number;
  } | null;
}
