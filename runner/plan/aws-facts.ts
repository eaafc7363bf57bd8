import network from '../../assets/instance-network.json';
import prices from '../../assets/prices.json';

/**
 * What the measured model assumes about AWS, each fact with where it comes from. Measured here:
 * assets/measured/ (steps, preparation, states, runner setup). Prices: assets/prices.json. Link
 * bandwidth: assets/instance-network.json. A change to any of these is named in the assumptions table of
 * docs/runner-types.md with its source.
 */
export const AWS_FACTS = {
  /**
   * One S3 request's round trip from a runner in the bucket's region, in sequence, added to what
   * the step took here (under 1 ms on loopback): seed 000's figures on EC2 (s3fs's uploads
   * 35–55 ms for a whole file, its cached STATs 15 ms, S3 Files' small reads a few ms) put a
   * single request near 10 ms (docs/seeds.md).
   */
  requestSeconds: 0.01,
  /**
   * RunInstances to a running, booted Amazon Linux instance: 25.8 s median of cold launches to
   * SSH (API 19 %, pending→running 69 %, boot 12 %), github.com/brevdev/ec2-coldboot-research
   * ("Key Findings"); daemonology.net's ec2-boot-bench (2021) finds the same order.
   */
  bootSeconds: 26,
  /**
   * From boot to the SSM agent's first "Online": reported from 30 s to several minutes
   * (github.com/DataDog/stratus-red-team#108, waiting on DescribeInstanceInformation). Taken at 60 s: twice the quick case; WaitUntilReady waits up to its own bound.
   */
  ssmOnlineSeconds: 60,
  /** WaitUntilReady checks DescribeInstanceInformation this often (lib/pipeline/index.ts `ready`): the check after the runner is online comes half of it later, on average. */
  readyPollSeconds: 30,
  /**
   * A runner ends when its shard's task ends: the shard's iteration of RunBenchmarkShards
   * terminates its instance once the runner's callback has arrived (the pipeline's contract with
   * this model; Teardown still terminates every runner of the run by tag). A runner done early
   * does not wait, billed, for the others, the document functions and Aggregate.
   */
  runnersEndWithTheirShard: true,
  /**
   * `dnf` refreshing Amazon Linux 2023's repository metadata on a fresh instance: 15 s in the
   * debug log of github.com/aws/aws-cdk/issues/36717 (makecache 01:04:51 → 01:05:06, 2026-01-19).
   */
  dnfMetadataSeconds: 15,
  /**
   * S3 performs each key of a DeleteObjects as a delete: at least 3,500 PUT/COPY/POST/DELETE per
   * second per partitioned prefix ("Best practices design patterns: optimizing Amazon S3
   * performance", https://docs.aws.amazon.com/AmazonS3/latest/userguide/optimizing-performance.html).
   */
  deletesPerSecond: 3500,
  /**
   * An Athena query of the Aggregate state, over one run's day (the `dt` predicate): Athena cannot
   * run here (DuckDB stands in) and AWS publishes no latency, so the model takes 20 s, the task
   * timeout the pipeline gave a query before Athena's queue was counted in it; the queries run at
   * once. An estimate, named as one.
   */
  athenaQuerySeconds: 20,
  /** The model queries Aggregate runs (assets/queries/model/*.sql, restricted to the run; a unit test holds it to MODEL_QUERIES). */
  summaryQueries: 9,
  /** The runner's root volume: RunnerFleet's default `rootVolumeGiB` (lib/runner-fleet.ts), gp3, billed while the runner lives. */
  rootVolumeGiB: 30,
  /** ValidateInput's memory (MB) and the document functions' (lib/pipeline/index.ts, lib/document-functions.ts), for Lambda's GB-seconds. */
  functionMemoryMb: 512,
} as const;

/**
 * Runner types that stand in for another where the stack's Availability Zones do not offer it:
 * the same architecture, vCPUs and baseline link (assets/instance-network.json), so the plan's
 * shards and timeouts do not change; only the price does (assets/prices.json). Not every AZ offers
 * every type (`ec2:DescribeInstanceTypeOfferings --location-type availability-zone` tells which
 * do); c8gn is newer than c7gn and offered in fewer. Source: AWS's Network specifications tables
 * (c8gn.large and c7gn.large 6.25 / 30 Gbit/s, c8gn.xlarge and c7gn.xlarge 12.5 / 40 Gbit/s; both
 * Graviton, 2 and 4 vCPUs). test/unit/capacity.test.ts checks every pair against those files.
 */
export const EQUIVALENT_TYPES: Readonly<Record<string, string>> = {
  'c8gn.large': 'c7gn.large',
  'c8gn.xlarge': 'c7gn.xlarge',
};

/**
 * Step Functions' limit on an execution's input and on the state data a state passes on (the
 * quotas page of the Step Functions developer guide: 256 KiB, UTF-8 bytes); beyond it the
 * execution fails with States.DataLimitExceeded, which no Catch catches.
 */
export const STATE_DATA_LIMIT_BYTES = 256 * 1024;

/** The link a runner type sustains, in MiB/s: its baseline (assets/instance-network.json); 0 when the type is not listed. */
export function baselineMiBps(instanceType: string): number {
  return ((network as Record<string, { baselineGbps?: number }>)[instanceType]?.baselineGbps ?? 0) * 1e9 / 8 / 2 ** 20;
}

/** A runner type's on-demand price per hour (assets/prices.json), or null when it is not priced. */
export function instanceHourly(instanceType: string): number | null {
  const price = (prices.ec2OnDemandHourly as Record<string, unknown>)[instanceType];
  return typeof price === 'number' ? price : null;
}

/** What a runner of this type costs per hour while it lives: instance, public IPv4 address, root volume; null when the type is not priced. */
export function runnerHourly(instanceType: string): number | null {
  const instance = instanceHourly(instanceType);
  return instance === null ? null : instance + prices.runner.publicIpv4Hourly + (AWS_FACTS.rootVolumeGiB * prices.runner.ebsGp3PerGBMonth) / 730;
}

/** The instance types assets/prices.json prices, cheapest first. */
export function pricedTypes(): string[] {
  return Object.entries(prices.ec2OnDemandHourly).filter(([, v]) => typeof v === 'number').sort((a, b) => (a[1] as number) - (b[1] as number)).map(([k]) => k);
}

export const PRICES = prices;
