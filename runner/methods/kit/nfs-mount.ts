import type { Availability } from '../../core/method';
import type { MountDriver, MountPlan, MountPlanContext, BucketLag } from './mount';
import { kernelHasNfs } from '../../core/mounts-table';
import { findBinary, once, versionOutput } from '../../core/binaries';

export interface NfsMethodConfig {
  name: string;
  /** `mount -t TYPE` through amazon-efs-utils' helper mount.TYPE. */
  fsType: 's3files' | 'efs';
  /** Variable holding the file system id when the matrix does not give one (AWS mode sets it). */
  fileSystemIdVariable: string;
  /** Bounds of the file system's background sync with the bucket (S3 Files); none for EFS. */
  bucketLag?: BucketLag;
}

/**
 * A file system the kernel's NFS client mounts through amazon-efs-utils (S3 Files, EFS): the mount
 * helper exits once mounted, so there is no client process to own; unmount is `umount`, lazily
 * when busy. Only on AWS: the file system lives in a VPC and needs an NFS client in the kernel.
 */
export function nfsDriver(config: NfsMethodConfig): MountDriver {
  const helper = `mount.${config.fsType}`;
  const probe = once(async (): Promise<Availability> => {
    if (!kernelHasNfs()) {
      return { available: false, reason: `needs an NFS client: AWS only (this kernel has no NFS client; ${config.name} mounts on EC2 in the file system's VPC through amazon-efs-utils)` };
    }
    const binary = findBinary(`S3AB_MOUNT_${config.fsType.toUpperCase()}`, [helper, `/usr/sbin/${helper}`, `/sbin/${helper}`]);
    if (!binary) return { available: false, reason: `needs amazon-efs-utils (${helper}): \`dnf install amazon-efs-utils\` on Amazon Linux` };
    const text = (await versionOutput(binary, ['--version'])) ?? '';
    const version = /(\d+\.\d+\.\d+)/.exec(text)?.[1] ?? 'unknown';
    return { available: true, version: `amazon-efs-utils ${version} (${helper}, kernel NFS client)`, path: binary };
  });

  const plan = async (ctx: MountPlanContext): Promise<MountPlan> => {
    const id = String(ctx.options.file_system_id || process.env[config.fileSystemIdVariable] || '');
    if (!/^fs-[0-9a-f]+$/.test(id)) {
      throw new Error(`${config.name} needs its file system id (fs-...): give it as the method option file_system_id or in ${config.fileSystemIdVariable}`);
    }
    const flags: string[] = [];
    for (const [name, value] of Object.entries(ctx.options)) {
      if (name === 'file_system_id' || value === false) continue;
      flags.push(value === true ? name : `${name}=${value}`);
    }
    return {
      command: 'mount',
      args: ['-t', config.fsType, '-o', flags.join(','), `${id}:/`, ctx.mountPoint],
      lifecycle: 'helper',
      cacheDirs: [],
      uploadsAfterClose: false,
      bucketLag: config.bucketLag,
      recorded: { ...ctx.options, file_system_id: id, mount: `mount -t ${config.fsType} -o ${flags.join(',')} ${id}:/ MOUNTPOINT` },
    };
  };
  return { probe, plan };
}
