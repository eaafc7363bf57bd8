/**
 * Amazon S3 Files' IAM in a rehearsal: this machine has no NFS client, so the mounts do not
 * happen here — but the requests they make on AWS are known and evaluated against the template:
 * a client's mount (s3files:ClientMount and ClientWrite, ClientRootAccess when it mounts as root;
 * through an access point, with s3files:AccessPointArn) against its role and the file-system
 * policy; and S3 Files' own synchronization with the bucket, made with its service role (the
 * EventBridge rule it keeps, and the objects of the files a client wrote through the mount).
 */
import type { IamRequest } from './iam';
import { ACCOUNT, REGION } from './template';

const SOURCE = 'S3 Files (stand-in for the mount)';

/** A client's mount of the file system (`root`: as root, no access point; else through `accessPoint`). */
export function mountRequests(principal: string, fileSystemArn: string, how: { root: true } | { accessPoint: string }): IamRequest[] {
  const context = 'accessPoint' in how ? { 's3files:AccessPointArn': how.accessPoint } : undefined;
  const actions = ['s3files:ClientMount', 's3files:ClientWrite', ...('root' in how ? ['s3files:ClientRootAccess'] : [])];
  return actions.map((action) => ({ principal, action, resource: fileSystemArn, ...(context ? { context } : {}), source: SOURCE }));
}

/** What S3 Files does with its role when the file system is created: its EventBridge rule for the bucket's changes. */
export function ruleRequests(serviceRole: string, fileSystemId: string): IamRequest[] {
  const rule = `arn:aws:events:${REGION}:${ACCOUNT}:rule/DO-NOT-DELETE-S3-Files-${fileSystemId}`;
  return [
    ...['events:PutRule', 'events:PutTargets'].map((action) => ({ principal: serviceRole, action, resource: rule, context: { 'events:ManagedBy': 'elasticfilesystem.amazonaws.com' }, source: SOURCE })),
    { principal: serviceRole, action: 'events:DescribeRule', resource: rule, source: SOURCE },
  ];
}

/**
 * What S3 Files does with its role for files a client wrote through the mount: lists the prefix,
 * writes each file's object, reads it back, and deletes the objects of names moved away from.
 */
export function syncRequests(serviceRole: string, bucket: string, prefix: string, files: string[]): IamRequest[] {
  return [
    { principal: serviceRole, action: 's3:ListBucket', resource: `arn:aws:s3:::${bucket}`, context: { 's3:prefix': prefix }, source: SOURCE },
    ...files.flatMap((f) => ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'].map((action) => ({ principal: serviceRole, action, resource: `arn:aws:s3:::${bucket}/${prefix}${f}`, source: SOURCE }))),
  ];
}
