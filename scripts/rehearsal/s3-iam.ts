/**
 * The IAM requests of a rehearsal's S3 traffic: each line of the embedded server's access log
 * names its requester (the access key: one per role), operation, bucket, key and URI, which give
 * the IAM action, the resource ARN and the context keys S3 evaluates (s3:prefix of a listing).
 * Two things a log line does not hold — the keys of a DeleteObjects (in its body) and the source
 * of a copy (a header) — come from the rehearsal's own clients (the functions' and the stand-ins'),
 * which record them as they send them (`recordBodyResources`); for a runner's own processes they
 * are counted as unseen.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { IamRequest } from './iam';


/** One access-log line, split (versitygw writes S3's server-access-log fields, unquoted). */
export interface LoggedRequest { bucket: string; requester: string; operation: string; key: string; uri: string; status: number }

export function parseLoggedRequest(line: string): LoggedRequest | null {
  const f = line.split(' ');
  if (f.length < 26 || !f[2].startsWith('[')) return null;
  return { bucket: f[1], requester: f[5], operation: f[7], key: f[8] === '-' ? '' : f[8], uri: f[9], status: Number(f[10]) || 0 };
}

const query = (uri: string) => new URLSearchParams(uri.includes('?') ? uri.slice(uri.indexOf('?') + 1) : '');

type Mapped = Omit<IamRequest, 'principal' | 'source'>;

/** An object operation: its action (the version's, when the request names a version). */
const onObject = (action: string, versioned?: string) => (r: LoggedRequest): Mapped[] =>
  [{ action: versioned && query(r.uri).get('versionId') ? versioned : action, resource: `arn:aws:s3:::${r.bucket}/${r.key}` }];
/** A bucket operation, with s3:prefix when the request lists under one. */
const onBucket = (action: string) => (r: LoggedRequest): Mapped[] => {
  const prefix = query(r.uri).get('prefix');
  return [{ action, resource: `arn:aws:s3:::${r.bucket}`, ...(prefix !== null ? { context: { 's3:prefix': prefix } } : {}) }];
};

/** The IAM action(s) of each S3 operation as versitygw names it (s3_Operation); 'body' when the log cannot say. */
const S3_OPERATIONS: Record<string, ((r: LoggedRequest) => Mapped[]) | 'body'> = {
  s3_GetObject: onObject('s3:GetObject', 's3:GetObjectVersion'),
  s3_HeadObject: onObject('s3:GetObject', 's3:GetObjectVersion'),
  s3_GetObjectAttributes: onObject('s3:GetObjectAttributes', 's3:GetObjectVersionAttributes'),
  s3_GetObjectTagging: onObject('s3:GetObjectTagging', 's3:GetObjectVersionTagging'),
  s3_PutObject: onObject('s3:PutObject'),
  s3_CreateMultipartUpload: onObject('s3:PutObject'),
  s3_UploadPart: onObject('s3:PutObject'),
  s3_CompleteMultipartUpload: onObject('s3:PutObject'),
  // The copy's destination; its source (a header) is 'body'-like: recorded by the rehearsal's own clients.
  s3_CopyObject: onObject('s3:PutObject'),
  s3_UploadPartCopy: onObject('s3:PutObject'),
  s3_AbortMultipartUpload: onObject('s3:AbortMultipartUpload'),
  s3_ListParts: onObject('s3:ListMultipartUploadParts'),
  s3_DeleteObject: onObject('s3:DeleteObject', 's3:DeleteObjectVersion'),
  s3_DeleteObjects: 'body',
  s3_ListObjectsV2: onBucket('s3:ListBucket'),
  s3_ListObjects: onBucket('s3:ListBucket'),
  s3_HeadBucket: onBucket('s3:ListBucket'),
  s3_ListObjectVersions: onBucket('s3:ListBucketVersions'),
  s3_ListMultipartUploads: onBucket('s3:ListBucketMultipartUploads'),
  s3_GetBucketLocation: onBucket('s3:GetBucketLocation'),
  s3_GetBucketVersioning: onBucket('s3:GetBucketVersioning'),
  s3_CreateBucket: onBucket('s3:CreateBucket'),
  s3_ListBuckets: () => [{ action: 's3:ListAllMyBuckets', resource: '*' }],
};

/** The IAM requests of one logged request: 'unseen' when its resources are in its body only; throws on an operation without a mapping. */
export function iamRequestsOf(r: LoggedRequest): Mapped[] | 'unseen' {
  const map = S3_OPERATIONS[r.operation];
  if (!map) throw new Error(`rehearsal: no IAM action for the S3 operation ${r.operation} (scripts/rehearsal/s3-iam.ts S3_OPERATIONS): add it`);
  return map === 'body' ? 'unseen' : map(r);
}

/**
 * Records, as an in-process client sends them, the IAM requests its access-log lines cannot show:
 * each key of a DeleteObjects (s3:DeleteObject, or s3:DeleteObjectVersion with a version id) and
 * the source of a CopyObject (s3:GetObject).
 */
export function recordBodyResources(client: S3Client, principal: string, record: (req: IamRequest) => void): void {
  client.middlewareStack.add((next, context) => async (args) => {
    const input = args.input as Record<string, any>;
    const source = 'S3 request body (the rehearsal\'s own client)';
    if (context.commandName === 'DeleteObjectsCommand') {
      for (const o of input.Delete?.Objects ?? []) {
        record({ principal, action: o.VersionId ? 's3:DeleteObjectVersion' : 's3:DeleteObject', resource: `arn:aws:s3:::${input.Bucket}/${o.Key}`, source });
      }
    }
    if (context.commandName === 'CopyObjectCommand' && typeof input.CopySource === 'string') {
      const [path, version] = decodeURIComponent(input.CopySource).replace(/^\//, '').split('?versionId=');
      record({ principal, action: version ? 's3:GetObjectVersion' : 's3:GetObject', resource: `arn:aws:s3:::${path}`, source });
    }
    return next(args);
  }, { step: 'initialize', name: 's3abRehearsalIam' });
}
