import runnerSetup from '../../assets/measured/runner-setup.json';
import { missingRequirement } from '../core/capabilities';
import { type CostTerm, INSTALL, needsOf } from '../core/install';
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
    for (const c of [...(needsOf(s.method) ?? []), ...(needsOf(s.workload) ?? [])]) needs.add(c);
  }
  return Object.keys(INSTALL.components).filter((c) => needs.has(c));
}

/**
 * The runner setup as measured here (`npm run bench:runner-setup`: assets/measured/runner-setup.json),
 * by the keys the registry's cost terms name.
 */
const MEASURED = runnerSetup as unknown as {
  's3-crt-client': { wallSeconds: number; cpus: number }; juicefs: { wallSeconds: number };
  s3fs: { version: string; serialCpuSeconds: number; makeCpuSeconds: number };
  packages: Record<string, { mib: number; unpackCpuSeconds: number }>;
  mountpointMiB: number; rclone: { mib: number; unzipCpuSeconds: number }; bundle: { wallSeconds: number };
  s3CrtClientMiB?: number;
} & Record<string, unknown>;

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
 * The state of the s3-crt client's build cache in the results bucket (lib/runner-setup-script.ts
 * buildCacheKey: tool-cache/s3ab-s3-crt/ARCH/HASH/, per runner architecture and crate hash) when
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
 * One cost term of a component (assets/install.json, its runner recipe's `cost`): `packages`
 * and `rpm` join the one dnf transaction (a measured package set, or a binary's size, over the
 * link and unpacked); the others run in parallel after it — `autotools` a source build (its
 * serial configure, then `make` over the runner's vCPUs, in CPU seconds measured here),
 * `download` a file over the link and unpacked, `wall` a measured wall time (a pip install),
 * `cargo` a crate through its build cache (a cold build measured here, or the binary's download).
 */
function termSeconds(t: CostTerm, linkMiBps: number, buildCache: BuildCache): { phase: 'packages' | 'parallel'; mib?: number; unpack?: number; seconds?: number; label?: string } {
  const unpackPerMiB = MEASURED.packages.s3fs.unpackCpuSeconds / MEASURED.packages.s3fs.mib;
  switch (t.term) {
    case 'packages': return { phase: 'packages', mib: MEASURED.packages[t.measured].mib, unpack: MEASURED.packages[t.measured].unpackCpuSeconds };
    case 'rpm': { const mib = MEASURED[t.measured] as number; return { phase: 'packages', mib, unpack: mib * unpackPerMiB }; }
    case 'autotools': {
      const b = MEASURED[t.measured] as { version: string; serialCpuSeconds: number; makeCpuSeconds: number };
      return { phase: 'parallel', label: `${t.measured} ${b.version} build`, seconds: b.serialCpuSeconds + b.makeCpuSeconds / VCPUS };
    }
    case 'download': {
      const d = MEASURED[t.measured] as { mib: number; unzipCpuSeconds: number };
      return { phase: 'parallel', label: t.measured, seconds: d.mib / linkMiBps + d.unzipCpuSeconds };
    }
    case 'wall': return { phase: 'parallel', label: t.measured, seconds: (MEASURED[t.measured] as { wallSeconds: number }).wallSeconds };
    case 'cargo': {
      // The s3-crt client's figures, or another crate's own entry (its cold build, its binary's MiB).
      const own = t.measured === 's3-crt-client' ? null : MEASURED[t.measured] as { wallSeconds: number; cpus: number; mib: number };
      return buildCache === 'cold'
        ? { phase: 'parallel', label: `${t.measured} build`, seconds: own ? own.wallSeconds * own.cpus / VCPUS : s3CrtClientBuildSeconds() }
        : { phase: 'parallel', label: `${t.measured} from the build cache`, seconds: (own ? own.mib : s3CrtClientMiB()) / linkMiBps };
    }
  }
}

/**
 * The setup's time for an install list: the base packages (Debian's builds of Node.js, unzip,
 * FUSE measured here) and the sourced dnf metadata refresh, plus each component's cost terms from
 * the registry (termSeconds); the parallel part is the longest of the runner bundle with its
 * `list --require` check and the components' parallel terms, as the setup document runs them.
 */
export function setupSeconds(install: readonly string[], linkMiBps: number, buildCache: BuildCache): SetupEstimate {
  const terms = install.flatMap((c) => INSTALL.components[c]?.runner?.cost ?? []).map((t) => termSeconds(t, linkMiBps, buildCache));
  const inPackages = [{ mib: MEASURED.packages.base.mib, unpack: MEASURED.packages.base.unpackCpuSeconds }, ...terms.filter((t) => t.phase === 'packages')];
  const packages = AWS_FACTS.dnfMetadataSeconds + inPackages.reduce((a, t) => a + (t.mib ?? 0) / linkMiBps + (t.unpack ?? 0), 0);
  const parts: [string, number][] = [['bundle', MEASURED.bundle.wallSeconds], ...terms.filter((t) => t.phase === 'parallel').map((t) => [t.label!, t.seconds!] as [string, number])];
  const [longest, parallel] = parts.reduce((a, b) => (b[1] > a[1] ? b : a));
  return { packages, parallel, longest, seconds: packages + parallel };
}
