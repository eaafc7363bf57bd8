import { mountMethod } from './mount-session';
import { NFS_OPTIONS, nfsDriver } from './nfs-mount';

/**
 * Amazon EFS, the baseline shared file system (seed 004): NFS 4.1 through amazon-efs-utils'
 * `mount -t efs`. Its files live in EFS, not in the bucket: workloads that read the bucket's
 * fixtures or check objects in the bucket do not apply to it.
 */
export const efs = mountMethod(nfsDriver({
  name: 'efs',
  summary: 'Amazon EFS (NFS 4.1 via amazon-efs-utils), a file-system baseline not backed by the bucket; AWS only',
  fsType: 'efs',
  fileSystemIdVariable: 'S3AB_EFS_FS_ID',
  variants: { default: { file_system_id: '', ...NFS_OPTIONS } },
}));
