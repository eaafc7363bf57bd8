/**
 * EC2 instance types a runner may use, and the Amazon Linux 2023 image each needs. Pure data and
 * functions (no CDK): the ValidateInput function bundles this file.
 */

export type Architecture = 'arm64' | 'x86_64';

/**
 * The runner type when nothing asks for another: the cheapest current Graviton type whose BASELINE
 * bandwidth (6.25 Gbit/s ≈ 745 MiB/s, sustained; 30 Gbit/s burst) carries the fastest method of the
 * seeds (Mountpoint's 459 MiB/s in seed 001) below the possibly-network-capped mark (90% of the
 * baseline). A c7g.large sustains 0.937 Gbit/s ≈ 112 MiB/s: its "up to 12.5" is a burst of minutes.
 * Figures: assets/instance-network.json; price: assets/prices.json; docs/runner-types.md "Runner type".
 */
export const DEFAULT_RUNNER_INSTANCE_TYPE = 'c8gn.large';

/** The form of an instance type: family letters, generation digit, attribute letters, ".", size. */
export const INSTANCE_TYPE_FORM = '<family><generation>[<attributes>].<size>, e.g. c7g.large (Graviton, arm64) or m7i.large (x86_64)';

/**
 * The family prefixes of current EC2 instance types that boot Amazon Linux 2023. Mac families
 * (mac1, mac2…) are left out on purpose: they run macOS only.
 */
const FAMILIES = new Set(['a', 'c', 'd', 'dl', 'f', 'g', 'gr', 'h', 'hpc', 'i', 'im', 'inf', 'is', 'm', 'p', 'r', 't', 'trn', 'u', 'vt', 'x', 'z']);

const TYPE = /^([a-z]+)(\d+)([a-z-]*)\.([a-z0-9]+)$/;

/**
 * The CPU architecture of an instance type, or null when the name is not an instance type of a
 * known family. Graviton (arm64) families have a "g" right after the generation digit
 * (c7g, m7gd, c6gn, t4g, r8g, im4gn, x2gd, hpc7g), plus the first-generation a1.
 */
export function architectureOf(instanceType: string): Architecture | null {
  const m = TYPE.exec(instanceType);
  if (!m || !FAMILIES.has(m[1])) return null;
  const [, family, generation, attributes] = m;
  if (family === 'a' && generation === '1') return 'arm64';
  return attributes.startsWith('g') ? 'arm64' : 'x86_64';
}

/**
 * The image a runner of each architecture launches: Amazon Linux 2023's public SSM parameter,
 * which EC2 RunInstances resolves at launch (`resolve:ssm:` in ImageId; the caller needs
 * ssm:GetParameters on it). Always the latest AL2023, as the launch template's own image.
 */
export const AL2023_PARAMETER_PREFIX = '/aws/service/ami-amazon-linux-latest/';
export const RUNNER_IMAGE: Record<Architecture, string> = {
  arm64: `resolve:ssm:${AL2023_PARAMETER_PREFIX}al2023-ami-kernel-default-arm64`,
  x86_64: `resolve:ssm:${AL2023_PARAMETER_PREFIX}al2023-ami-kernel-default-x86_64`,
};

/**
 * Runners per execution. WaitUntilReady reads them in one DescribeInstanceInformation page
 * (MaxResults ≤ 50), so this must stay ≤ 50 (the pipeline checks it at synth).
 */
export const MAX_RUNNERS = 20;
/** DescribeInstanceInformation's largest page. */
export const SSM_INSTANCE_INFORMATION_PAGE = 50;

/**
 * The families whose On-Demand instances count against the account's "Running On-Demand Standard
 * (A, C, D, H, I, M, R, T, Z) instances" quota (Service Quotas: service `ec2`, code L-1216C47A,
 * counted in vCPUs). The other families (DL, F, G, Inf, P, Trn, U, VT, X, HPC, Mac) have quotas of
 * their own; the I family's im/is types are I instances.
 */
const STANDARD_QUOTA_FAMILIES = new Set(['a', 'c', 'd', 'h', 'i', 'im', 'is', 'm', 'r', 't', 'z']);

/** Whether On-Demand instances of this type count against the Standard vCPU quota (L-1216C47A). */
export function countsAgainstStandardQuota(instanceType: string): boolean {
  const m = TYPE.exec(instanceType);
  return !!m && STANDARD_QUOTA_FAMILIES.has(m[1]);
}

/**
 * The vCPUs of an instance type from its size, as AWS's instance type tables list them for the
 * families a runner can be: medium 1 (T: 2), large 2, xlarge 4, Nxlarge 4·N; T's nano, micro and
 * small 2 (t3, t3a, t4g; t2's are 1). Null for sizes it cannot tell (metal, t2's small sizes):
 * the capacity check then asks EC2 (a running instance's CpuOptions).
 */
export function vcpusOf(instanceType: string): number | null {
  const m = TYPE.exec(instanceType);
  if (!m) return null;
  const [, family, generation, , size] = m;
  const burstable = family === 't';
  if (['nano', 'micro', 'small'].includes(size)) return burstable && generation !== '2' ? 2 : null;
  if (size === 'medium') return burstable ? 2 : 1;
  if (size === 'large') return 2;
  const x = /^(\d*)xlarge$/.exec(size);
  return x ? 4 * Number(x[1] || 1) : null;
}
