import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Availability, Options } from '../core/method';
import type { MountPlan, MountPlanContext, MountServer } from './kit/mount';
import { kernelHasNfs } from '../core/mounts-table';
import { findBinary, once, toolsBin, versionOutput } from '../core/binaries';
import { zerofsDescriptor } from './zerofs';
import { mountMethod } from './kit/mount-session';
import { freeLoopbackPort } from './kit/mount-server';

/** The version `npm run setup -- zerofs` builds: crates.io's newest (the registry's pin, assets/install.json). */
const CRATES_IO_LINE = /^0\./;

/** Why ZeroFS cannot mount on this host, or null: the kernel's NFS client and its mount helper. */
function nfsClientProblem(): string | null {
  if (!kernelHasNfs()) {
    return 'needs a kernel NFS client, and this kernel has none (no nfs in /proc/filesystems, no nfs module): ZeroFS serves NFSv3, not FUSE, so it mounts only where the kernel has an NFS client';
  }
  if (!findBinary('S3AB_MOUNT_NFS', ['mount.nfs', '/sbin/mount.nfs', '/usr/sbin/mount.nfs'])) {
    return 'needs mount.nfs, the kernel NFS client\'s mount helper: `apt-get install nfs-common` (`dnf install nfs-utils` on Amazon Linux)';
  }
  return null;
}

/** The zerofs program here (S3AB_ZEROFS, `npm run setup -- zerofs`'s .tools/bin/zerofs, or on PATH) and its version, or why not. */
const zerofsBinary = once(async (): Promise<Availability> => {
  const binary = findBinary('S3AB_ZEROFS', [toolsBin('zerofs'), 'zerofs']);
  if (!binary) {
    return { available: false, reason: process.env.S3AB_ZEROFS
      ? `S3AB_ZEROFS=${process.env.S3AB_ZEROFS} does not exist: point it at zerofs, or unset it`
      : 'ZeroFS is not installed: `npm run setup -- zerofs` (cargo install of crates.io\'s zerofs into .tools), or set S3AB_ZEROFS=/path/to/zerofs' };
  }
  const text = (await versionOutput(binary, ['--version'])) ?? '';
  const m = /zerofs (\d+\.\d+\.\d+\S*)/.exec(text);
  if (!m) return { available: false, reason: `${binary} --version did not answer like zerofs: ${text.split('\n')[0] || 'no output'}` };
  // The 0.x line is what crates.io has; ZeroFS's own releases are 2.x: say which one ran.
  const label = CRATES_IO_LINE.test(m[1]) ? `zerofs ${m[1]} (crates.io build)` : `zerofs ${m[1]}`;
  return { available: true, version: label, path: binary };
});

const probe = once(async (): Promise<Availability> => {
  const nfs = nfsClientProblem();
  if (nfs) return { available: false, reason: nfs, hostLacks: true };
  return zerofsBinary();
});

/** A TOML basic string. */
const tomlString = (s: string) => JSON.stringify(s);

/**
 * ZeroFS 0.19.1's configuration (its `zerofs init` format, which rejects unknown keys): the cache
 * in the step's scratch folder, the file system under the step's volume name in the bucket, one
 * NFS address on loopback, and the S3 settings. Secrets are `${VAR}` references that ZeroFS
 * expands from its environment, so the file holds none.
 */
export function zerofsConfig(p: {
  cacheDir: string; diskSizeGb: number; memorySizeGb: number; bucket: string; volumeName: string;
  nfs: { host: string; port: number }; endpointUrl?: string; region: string; credentials: boolean;
}): string {
  const lines = [
    '[cache]',
    `dir = ${tomlString(p.cacheDir)}`,
    `disk_size_gb = ${p.diskSizeGb.toFixed(1)}`,
    `memory_size_gb = ${p.memorySizeGb.toFixed(1)}`,
    '',
    '[storage]',
    `url = ${tomlString(`s3://${p.bucket}/${p.volumeName}`)}`,
    'encryption_password = "${ZEROFS_PASSWORD}"',
    '',
    '[servers.nfs]',
    `addresses = [${tomlString(`${p.nfs.host}:${p.nfs.port}`)}]`,
    '',
    '[aws]',
    `default_region = ${tomlString(p.region)}`,
  ];
  // Without keys, its S3 client (object_store) asks the instance's metadata service for the role's.
  if (p.credentials) lines.push('access_key_id = "${AWS_ACCESS_KEY_ID}"', 'secret_access_key = "${AWS_SECRET_ACCESS_KEY}"');
  if (p.endpointUrl) {
    // A named endpoint is addressed path-style (object_store's default); http needs saying.
    lines.push(`endpoint = ${tomlString(p.endpointUrl)}`);
    if (p.endpointUrl.startsWith('http:')) lines.push('allow_http = "true"');
  }
  return `${lines.join('\n')}\n`;
}

/** NFS mount options as `mount -o` text (true = the flag, false = left out, else name=value). */
export function nfsOptionText(options: Options): string {
  return Object.entries(options).filter(([, v]) => v !== false).map(([k, v]) => (v === true ? k : `${k}=${v}`)).join(',');
}

/**
 * The encryption password: ZEROFS_PASSWORD from the runner's environment when set (so its owner
 * can open the volume), else a random one for the step (the volume is removed with it). Either way
 * it reaches the server through its environment only.
 */
function encryptionPassword(): { password: string; recorded: string } {
  const given = process.env.ZEROFS_PASSWORD;
  if (given) return { password: given, recorded: 'ZEROFS_PASSWORD from the runner\'s environment (in the server\'s environment only)' };
  return { password: randomBytes(24).toString('base64url'), recorded: 'random per step (in the server\'s environment only)' };
}

/** The server and the mount of one step: its configuration file in the step's RAM folder, its cache on the step's disk. */
export async function zerofsServer(ctx: MountPlanContext, binary: string, host = '127.0.0.1'): Promise<{ server: MountServer; port: number; cacheDir: string; configPath: string; recordedPassword: string }> {
  const { target, options } = ctx;
  const port = await freeLoopbackPort(host);
  const cacheDir = join(ctx.diskDir, 'cache');
  const configPath = join(ctx.workDir, 'zerofs.toml');
  await writeFile(configPath, zerofsConfig({
    cacheDir, diskSizeGb: Number(options.cache_disk_size_gb ?? 10), memorySizeGb: Number(options.cache_memory_size_gb ?? 1),
    bucket: target.bucket, volumeName: ctx.volumeName, nfs: { host, port }, endpointUrl: target.endpointUrl, region: target.region,
    credentials: !!target.credentials,
  }), { mode: 0o600 });
  const { password, recorded } = encryptionPassword();
  const env: Record<string, string | undefined> = { ZEROFS_PASSWORD: password, AWS_ACCESS_KEY_ID: undefined, AWS_SECRET_ACCESS_KEY: undefined };
  if (target.credentials) {
    env.AWS_ACCESS_KEY_ID = target.credentials.accessKeyId;
    env.AWS_SECRET_ACCESS_KEY = target.credentials.secretAccessKey;
  }
  return {
    server: { what: 'the zerofs server', command: binary, args: ['run', '--config', configPath], env, listens: { host, port } },
    port, cacheDir, configPath, recordedPassword: recorded,
  };
}

async function plan(ctx: MountPlanContext): Promise<MountPlan> {
  const binary = (await probe()).path!;
  const { server, port, cacheDir, recordedPassword } = await zerofsServer(ctx, binary);
  const nfsOptions: Options = {};
  for (const [name, value] of Object.entries(ctx.options)) if (!name.startsWith('cache_')) nfsOptions[name] = value;
  const optionText = nfsOptionText({ ...nfsOptions, port, mountport: port });
  return {
    command: 'mount',
    args: ['-t', 'nfs', '-o', optionText, `${server.listens.host}:/`, ctx.mountPoint],
    lifecycle: 'helper',
    server,
    // Its cache is the server's: a cold mount restarts the server with it emptied.
    cacheDirs: [cacheDir],
    // close() returns once the NFS client has committed the file to the server; the bucket holds
    // its LSM tree, not the file, so there is no object to wait for.
    uploadsAfterClose: false,
    recorded: {
      ...ctx.options,
      mount: `mount -t nfs -o ${nfsOptionText({ ...nfsOptions, port: 'PORT', mountport: 'PORT' })} 127.0.0.1:/ MOUNTPOINT`,
      server: 'zerofs run --config zerofs.toml, one server per mount, on a free loopback port (PORT)',
      data: `an encrypted LSM tree under ${ctx.volumeName}/ in the bucket (a fresh file system per step)`,
      cache_dir: 'local disk folder (the step\'s scratch folder), emptied before each cold mount',
      encryption_password: recordedPassword,
    },
  };
}

export const zerofs = mountMethod(zerofsDescriptor, { probe, plan });
