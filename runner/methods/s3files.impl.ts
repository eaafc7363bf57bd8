import { mountMethod } from './kit/mount-session';
import { nfsDriver } from './kit/nfs-mount';
import { s3filesDescriptor } from './s3files';

/** S3 Files through amazon-efs-utils' `mount -t s3files`, by the file system id AWS mode sets. */
export const s3files = mountMethod(s3filesDescriptor, nfsDriver({
  name: 's3files',
  fsType: 's3files',
  fileSystemIdVariable: 'S3AB_S3FILES_FS_ID',
  // Seed 001 saw about a minute each way between the file system and the bucket; checks wait up
  // to three (untimed), and a step fails naming the lag if the sync takes longer.
  bucketLag: { exportMs: 180_000, importMs: 180_000 },
}));
