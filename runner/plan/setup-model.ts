import runnerSetup from '../../assets/measured/runner-setup.json';
import { missingRequirement } from '../core/capabilities';
import { INSTALL } from '../core/install';
import { findMethodDescriptor } from '../methods/catalog';
import { findWorkloadDescriptor } from '../workloads/catalog';
import { AWS_FACTS } from './aws-facts';

/**
 * What a runner's setup installs for its shard: the assets/install.json components of the methods
 * and workloads of its steps that apply (a step that does not apply records so at once, without
 * its client: `s3ab step` probes only the others), nothing else — the contract with the setup
 * document: ValidateInput passes this list as each shard's `install`. The AWS CLI ships with
 * Amazon Linux 2023, and S3 Files' and EFS's client (amazon-efs-utils) is every runner's.
 */
export function installFor(steps: readonly { method: string; workload: string }[]): string[] {
  const needs = new Set<string>();
  for (const s of steps) {
    const method = findMethodDescriptor(s.method);
    const workload = findWorkloadDescriptor(s.workload);
    if (!method || !workload || missingRequirement(method, workload)) continue;
    for (const c of [...(INSTALL.methods[s.method] ?? []), ...(INSTALL.workloads[s.workload] ?? [])]) needs.add(c);
  }
  return Object.keys(INSTALL.components).filter((c) => needs.has(c));
}

/** The runner setup as measured here (`npm run bench:runner-setup`: assets/measured/runner-setup.json). */
const MEASURED = runnerSetup as unknown as {
  awscrt: { wallSeconds: number }; juicefs: { wallSeconds: number };
  s3fs: { version: string; serialCpuSeconds: number; makeCpuSeconds: number };
  packages: Record<'base' | 's3fs' | 'fio', { mib: number; unpackCpuSeconds: number }>;
  mountpointMiB: number; rclone: { mib: number; unzipCpuSeconds: number }; bundle: { wallSeconds: number };
};

/** A runner's vCPUs: every type the model plans with is a `large` (2 vCPUs); `make -j2` uses both. */
const VCPUS = 2;

/** Where a runner's setup goes, in seconds, for one install list on a link of `linkMiBps`. */
export interface SetupEstimate {
  /** One dnf transaction: the repository metadata, then the packages' download and unpacking. */
  packages: number;
  /** After it, at once: the s3fs build, rclone's zip, the pip wheels, the runner bundle and its check; the longest of them. */
  parallel: number;
  /** What the longest parallel part is. */
  longest: string;
  seconds: number;
}

/**
 * The setup's time for an install list, from the figures measured here and the sourced dnf
 * metadata refresh: the shard's dnf packages (Debian's builds of them measured: their size over
 * the link, their unpacking), then — in parallel, as the setup document runs them — s3fs built
 * from source (its serial configure, then `make` over the runner's 2 vCPUs, in CPU seconds
 * measured here), rclone's release zip, awscrt's and JuiceFS's wheels, and the bundle with its
 * `list --require` check.
 */
export function setupSeconds(install: readonly string[], linkMiBps: number): SetupEstimate {
  const has = (c: string) => install.includes(c);
  const packageSets = [MEASURED.packages.base, ...(has('s3fs') ? [MEASURED.packages.s3fs] : []), ...(has('fio') ? [MEASURED.packages.fio] : [])];
  const mib = packageSets.reduce((a, p) => a + p.mib, 0) + (has('mountpoint') ? MEASURED.mountpointMiB : 0);
  const unpackPerMiB = MEASURED.packages.s3fs.unpackCpuSeconds / MEASURED.packages.s3fs.mib;
  const unpack = packageSets.reduce((a, p) => a + p.unpackCpuSeconds, 0) + (has('mountpoint') ? MEASURED.mountpointMiB * unpackPerMiB : 0);
  const packages = AWS_FACTS.dnfMetadataSeconds + mib / linkMiBps + unpack;
  const parts: [string, number][] = [
    ['bundle', MEASURED.bundle.wallSeconds],
    ...(has('s3fs') ? [[`s3fs ${MEASURED.s3fs.version} build`, MEASURED.s3fs.serialCpuSeconds + MEASURED.s3fs.makeCpuSeconds / VCPUS] as [string, number]] : []),
    ...(has('rclone') ? [['rclone', MEASURED.rclone.mib / linkMiBps + MEASURED.rclone.unzipCpuSeconds] as [string, number]] : []),
    ...(has('awscrt') ? [['awscrt', MEASURED.awscrt.wallSeconds] as [string, number]] : []),
    ...(has('juicefs') ? [['juicefs', MEASURED.juicefs.wallSeconds] as [string, number]] : []),
  ];
  const [longest, parallel] = parts.reduce((a, b) => (b[1] > a[1] ? b : a));
  return { packages, parallel, longest, seconds: packages + parallel };
}
