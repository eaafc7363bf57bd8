import { join } from 'node:path';
import type { Availability, Options } from '../core/method';
import type { MountPlan, MountPlanContext } from './kit/mount';
import { fuseProblem } from '../core/mounts-table';
import { parseSize } from '../core/units';
import { findBinary, once, toolsBin, versionOutput } from '../core/binaries';
import { mountMethod } from './kit/mount-session';
import { mountpointDescriptor } from './mountpoint';

/**
 * Mountpoint for Amazon S3. On EC2 the official `mount-s3` package; elsewhere the project's
 * launcher (crates/mount-s3-launcher, built by scripts/setup.mjs into .tools/bin/s3ab-mount-s3) around the
 * same library, with the same flags and upstream's rule that rename is refused (ENOSYS) on
 * general-purpose buckets. Flags by name: true = the flag, false = left out, else --name value.
 */

const probe = once(async (): Promise<Availability> => {
  const binary = findBinary('S3AB_MOUNT_S3', ['mount-s3', toolsBin('s3ab-mount-s3')]);
  if (!binary) {
    return { available: false, reason: process.env.S3AB_MOUNT_S3
      ? `S3AB_MOUNT_S3=${process.env.S3AB_MOUNT_S3} does not exist: point it at mount-s3, or unset it`
      : 'Mountpoint is not installed: `npm run setup` builds the launcher into .tools/bin (needs cargo, cmake, clang, libfuse-dev); on EC2 install the mount-s3 package' };
  }
  const fuse = fuseProblem();
  if (fuse) return { available: false, reason: fuse };
  const text = (await versionOutput(binary, ['--version'])) ?? '';
  const official = /^mount-s3 (\S+)/m.exec(text);
  if (official) return { available: true, version: `mount-s3 ${official[1]}`, path: binary };
  const launcher = /^s3ab-mount-s3 (\S+) \(mountpoint-s3-fs (\S+)\)/m.exec(text);
  if (launcher) return { available: true, version: `mountpoint-s3-fs ${launcher[2]} (s3ab-mount-s3 ${launcher[1]})`, path: binary };
  return { available: false, reason: `${binary} --version did not answer like mount-s3: ${text.split('\n')[0] || 'no output'}` };
});

async function plan(ctx: MountPlanContext): Promise<MountPlan> {
  const binary = (await probe()).path!;
  const { target, options } = ctx;
  const flags: string[] = [];
  const recorded: Options = {};
  const cacheDir = join(ctx.diskDir, 'cache');
  for (const [name, value] of Object.entries(options)) {
    const flag = `--${name.replace(/_/g, '-')}`;
    recorded[name] = value;
    if (value === false) continue;
    if (name === 'cache') {
      flags.push(flag, cacheDir);
      recorded.cache = 'local disk folder (the step\'s scratch folder), emptied before each cold mount';
    } else if (name === 'part_size') {
      flags.push(flag, String(parseSize(String(value))));
    } else {
      flags.push(...(value === true ? [flag] : [flag, String(value)]));
    }
  }
  const env: Record<string, string | undefined> = {};
  if (target.credentials) {
    Object.assign(env, {
      AWS_ACCESS_KEY_ID: target.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: target.credentials.secretAccessKey,
      AWS_SESSION_TOKEN: undefined, AWS_PROFILE: undefined, AWS_EC2_METADATA_DISABLED: 'true',
    });
  }
  const endpoint = target.endpointUrl ? ['--endpoint-url', target.endpointUrl] : [];
  const pathStyle = target.forcePathStyle ? ['--force-path-style'] : [];
  return {
    command: binary,
    args: [target.bucket, ctx.mountPoint, '--foreground', '--region', target.region, ...endpoint, ...pathStyle,
      '--log-directory', join(ctx.workDir, 'log'), ...flags],
    env,
    lifecycle: 'foreground',
    cacheDirs: options.cache === true ? [cacheDir] : [],
    // Mountpoint completes the upload in close()/fsync().
    uploadsAfterClose: false,
    recorded: {
      ...recorded, region: target.region, force_path_style: target.forcePathStyle,
      rename: 'refused (ENOSYS) unless the bucket supports RenameObject, as upstream',
      mount: `mount-s3 BUCKET MOUNTPOINT --foreground ${[...pathStyle, ...flags].join(' ')}`,
    },
  };
}

export const mountpoint = mountMethod(mountpointDescriptor, { probe, plan });
