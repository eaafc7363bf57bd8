import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { onEc2 } from '../core/host';
import type { Availability, Options } from '../core/method';
import type { MountPlanContext } from './kit/mount';
import { fuseProblem } from '../core/mounts-table';
import { findBinary, once, versionOutput } from '../core/binaries';
import { mountMethod } from './kit/mount-session';
import { s3fsDescriptor } from './s3fs';

const probe = once(async (): Promise<Availability> => {
  const binary = findBinary('S3AB_S3FS', ['s3fs']);
  if (!binary) {
    return { available: false, reason: process.env.S3AB_S3FS
      ? `S3AB_S3FS=${process.env.S3AB_S3FS} does not exist: point it at s3fs, or unset it`
      : 's3fs is not installed: `apt-get install s3fs` (Debian/Ubuntu) or `npm run setup`, or set S3AB_S3FS=/path/to/s3fs' };
  }
  const fuse = fuseProblem();
  if (fuse) return { available: false, reason: fuse };
  const text = (await versionOutput(binary, ['--version'])) ?? '';
  const m = /V(\d+\.\d+(?:\.\d+)?)/.exec(text);
  if (!m) return { available: false, reason: `${binary} --version did not answer like s3fs: ${text.split('\n')[0] || 'no output'}` };
  const tls = /with (\w+)/.exec(text)?.[1];
  return { available: true, version: `s3fs ${m[1]}${tls ? ` (${tls})` : ''}`, path: binary };
});

/** The options as s3fs's `-o` flags, and as the records name them. */
async function optionFlags(options: Options, url: string, workDir: string): Promise<{ flags: string[]; recorded: Options }> {
  const flags: string[] = [];
  const recorded: Options = {};
  for (const [name, value] of Object.entries(options)) {
    if (value === false) continue;
    if (name === 'use_cache' && value === true) {
      const dir = join(workDir, 'cache');
      await mkdir(dir, { recursive: true });
      flags.push(`use_cache=${dir}`);
      recorded.use_cache = 'RAM disk folder (tmpfs), emptied before each cold mount';
      continue;
    }
    // A cipher list only means something on TLS connections.
    if (name === 'cipher_suites' && !url.startsWith('https:')) {
      recorded.cipher_suites = `${value} (not applied: plain HTTP endpoint)`;
      continue;
    }
    flags.push(value === true ? name : `${name}=${value}`);
    recorded[name] = value;
  }
  return { flags, recorded };
}

/** Where s3fs finds its credentials: a passwd file for the target's keys, the environment, or the instance role. */
async function credentialFlags(ctx: MountPlanContext, flags: string[], recorded: Options): Promise<void> {
  const { target } = ctx;
  if (target.credentials) {
    const passwd = join(ctx.workDir, 'passwd-s3fs');
    await writeFile(passwd, `${target.credentials.accessKeyId}:${target.credentials.secretAccessKey}\n`, { mode: 0o600 });
    flags.push(`passwd_file=${passwd}`);
  } else if (process.env.AWS_ACCESS_KEY_ID && process.env.AWS_SECRET_ACCESS_KEY) {
    // s3fs reads AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN itself.
    recorded.credentials = 'environment';
  } else if (onEc2()) {
    flags.push('iam_role=auto');
    recorded.iam_role = 'auto';
  } else {
    throw new Error('s3fs needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (s3fs does not read AWS_PROFILE)');
  }
}

async function plan(ctx: MountPlanContext) {
  const binary = (await probe()).path!;
  const { target } = ctx;
  const url = target.endpointUrl ?? `https://s3.${target.region}.amazonaws.com`;
  const options: Options = { ...ctx.options };
  // Servers on an IP address (the embedded one) need path-style requests whatever the option set says.
  if (target.forcePathStyle) options.use_path_request_style = true;
  const { flags, recorded } = await optionFlags(options, url, ctx.workDir);
  const env: Record<string, string | undefined> = {};
  await credentialFlags(ctx, flags, recorded);
  flags.push(`url=${url}`, `endpoint=${target.region}`);
  recorded.url = url;
  recorded.endpoint = target.region;
  return {
    command: binary,
    // -f: stay in the foreground, so the runner owns the client process and sees it die.
    args: [target.bucket, ctx.mountPoint, '-f', '-o', flags.join(',')],
    env,
    lifecycle: 'foreground' as const,
    cacheDirs: options.use_cache === true ? [join(ctx.workDir, 'cache')] : [],
    // s3fs uploads on flush/close: close() returns after the PUT.
    uploadsAfterClose: false,
    recorded: { ...recorded, mount: `s3fs BUCKET MOUNTPOINT -f -o ${Object.keys(recorded).filter((k) => k !== 'credentials').join(',')}` },
  };
}

export const s3fs = mountMethod(s3fsDescriptor, { probe, plan });
