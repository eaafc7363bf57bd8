import type { MethodDescriptor } from '../core/method';
import { NFS_OPTIONS } from '../core/nfs-options';

/**
 * Amazon EFS, the baseline shared file system (seed 004): NFS 4.1 through amazon-efs-utils'
 * `mount -t efs`. Its files live in EFS, not in the bucket: it does not offer 'objects-in-bucket',
 * so workloads that read fixtures written through the S3 API record not-applicable on it.
 */
export const efsDescriptor = {
  name: 'efs',
  kind: 'mount',
  summary: 'Amazon EFS (NFS 4.1 via amazon-efs-utils), a file-system baseline not backed by the bucket; AWS only',
  offers: ['file-system'],
  variants: { default: { file_system_id: '', ...NFS_OPTIONS } },
} as const satisfies MethodDescriptor;
