import type { MethodDescriptor } from '../core/method';
import { NFS_OPTIONS } from '../core/nfs-options';

/**
 * Amazon S3 Files: a managed NFS 4.1/4.2 file system over the bucket (built on EFS), mounted with
 * amazon-efs-utils' `mount -t s3files`, as seed 000 and seed 001 did. Changes reach the bucket
 * asynchronously (about a minute in seed 001), which the semantics probe's delays show.
 */
export const s3filesDescriptor = {
  name: 's3files',
  kind: 'mount',
  summary: 'Amazon S3 Files: managed NFS over the bucket (mount -t s3files via amazon-efs-utils); AWS only',
  offers: ['file-system', 'objects-in-bucket'],
  variants: { default: { file_system_id: '', ...NFS_OPTIONS } },
} as const satisfies MethodDescriptor;
