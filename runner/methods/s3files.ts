import { mountMethod } from './mount-session';
import { NFS_OPTIONS, nfsDriver } from './nfs-mount';

/**
 * Amazon S3 Files: a managed NFS 4.1/4.2 file system over the bucket (built on EFS), mounted with
 * amazon-efs-utils' `mount -t s3files`, as seed 000 and seed 001 did. Changes reach the bucket
 * asynchronously (about a minute in seed 001), which the semantics probe's delays show.
 */
export const s3files = mountMethod(nfsDriver({
  name: 's3files',
  summary: 'Amazon S3 Files: managed NFS over the bucket (mount -t s3files via amazon-efs-utils); AWS only',
  fsType: 's3files',
  fileSystemIdVariable: 'S3AB_S3FILES_FS_ID',
  // Seed 001 saw about a minute each way between the file system and the bucket; checks wait up
  // to three (untimed), and a step fails naming the lag if the sync takes longer.
  bucketLag: { exportMs: 180_000, importMs: 180_000 },
  variants: { default: { file_system_id: '', ...NFS_OPTIONS } },
}));
