import { efsDescriptor } from './efs';
import { mountMethod } from './kit/mount-session';
import { nfsDriver } from './kit/nfs-mount';

/** EFS through amazon-efs-utils' `mount -t efs`, by the file system id in S3AB_EFS_FS_ID or the option. */
export const efs = mountMethod(efsDescriptor, nfsDriver({ name: 'efs', fsType: 'efs', fileSystemIdVariable: 'S3AB_EFS_FS_ID' }));
