import { existsSync, readFileSync } from 'node:fs';
import { cpus, hostname, release, totalmem } from 'node:os';
import type { ResultRecord } from './record.generated';

export type HostFacts = ResultRecord['host'];

/**
 * A figure at or above this share of the baseline (sustained) bandwidth may have been set by the
 * network rather than the method: at the baseline once burst credits are spent, or above it only
 * while they last (AWS: typically 5 to 60 minutes).
 */
export const NEAR_BASELINE = 0.9;

function osName(): string {
  try {
    const text = readFileSync('/etc/os-release', 'utf8');
    return /^PRETTY_NAME="?([^"\n]*)"?/m.exec(text)?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** True on EC2 (read from DMI, so no network request is made anywhere else). */
export function onEc2(): boolean {
  const vendor = '/sys/devices/virtual/dmi/id/sys_vendor';
  return existsSync(vendor) && readFileSync(vendor, 'utf8').includes('Amazon EC2');
}

/**
 * Facts about this machine. On EC2 the SSM document passes the instance type, region and AZ in
 * S3AB_INSTANCE_TYPE / S3AB_REGION / S3AB_AZ (it reads them from IMDSv2); elsewhere they are 'local'/null.
 * `runnerId` names this runner among the several that run one step of a scaled-out run (null alone).
 */
export function hostFacts(link: { mibPerSecond: number | null; baselineMibPerSecond?: number | null; source: string | null } = { mibPerSecond: null, source: null },
  runnerId: string | null = null): HostFacts {
  return {
    hostname: hostname(),
    instance_type: process.env.S3AB_INSTANCE_TYPE ?? (onEc2() ? 'ec2-unknown' : 'local'),
    vcpus: cpus().length,
    memory_bytes: totalmem(),
    kernel: release(),
    os: osName(),
    region: process.env.S3AB_REGION ?? null,
    availability_zone: process.env.S3AB_AZ ?? null,
    link_limit_mib_s: link.mibPerSecond,
    link_baseline_mib_s: link.baselineMibPerSecond ?? null,
    link_limit_source: link.source,
    runner_id: runnerId,
  };
}
