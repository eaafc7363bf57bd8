import { dropGrant, parseDroppedGrant } from '../../scripts/rehearsal/iam';
import { iamRequestsOf, parseLoggedRequest } from '../../scripts/rehearsal/s3-iam';

/** A line of versitygw's access log as the embedded server writes it (26 fields). */
const line = (op: string, key: string, uri: string, requester = 'AKIAROLE') =>
  `root s3ab-bench [25/November/2026:21:53:25 +0000] 127.0.0.1 ${requester} REQID ${op} ${key} ${uri} 200 - 0 3 1 1 - aws-sdk-js/3 - HOSTID SigV4 - AuthHeader s3.us-east-1.amazonaws.com - arn:aws:s3:::/x Yes`;

describe('the rehearsal\'s S3 requests as IAM sees them (scripts/rehearsal/s3-iam.ts)', () => {
  test('a log line: requester, operation, bucket, key, URI', () => {
    expect(parseLoggedRequest(line('s3_GetObject', 's3ab/run/a', '/s3ab-bench/s3ab/run/a'))).toEqual({
      bucket: 's3ab-bench', requester: 'AKIAROLE', operation: 's3_GetObject', key: 's3ab/run/a', uri: '/s3ab-bench/s3ab/run/a', status: 200,
    });
    expect(parseLoggedRequest('log starts 2026-11-25 21:53:21 +0000 UTC')).toBeNull();
  });
  test('object operations: their action on the object (a version\'s action when the request names one)', () => {
    const of = (op: string, uri = '/s3ab-bench/k') => iamRequestsOf(parseLoggedRequest(line(op, 'k', uri))!);
    expect(of('s3_GetObject')).toEqual([{ action: 's3:GetObject', resource: 'arn:aws:s3:::s3ab-bench/k' }]);
    expect(of('s3_HeadObject', '/s3ab-bench/k?versionId=v1')).toEqual([{ action: 's3:GetObjectVersion', resource: 'arn:aws:s3:::s3ab-bench/k' }]);
    expect(of('s3_UploadPart', '/s3ab-bench/k?partNumber=1&uploadId=u')).toEqual([{ action: 's3:PutObject', resource: 'arn:aws:s3:::s3ab-bench/k' }]);
    expect(of('s3_DeleteObject', '/s3ab-bench/k?versionId=v1')).toEqual([{ action: 's3:DeleteObjectVersion', resource: 'arn:aws:s3:::s3ab-bench/k' }]);
    expect(of('s3_ListParts')).toEqual([{ action: 's3:ListMultipartUploadParts', resource: 'arn:aws:s3:::s3ab-bench/k' }]);
  });
  test('bucket operations: the bucket, with the listing\'s prefix as s3:prefix', () => {
    const r = parseLoggedRequest(line('s3_ListObjectsV2', '-', '/s3ab-bench?list-type=2&prefix=results%2F&max-keys=1'))!;
    expect(iamRequestsOf(r)).toEqual([{ action: 's3:ListBucket', resource: 'arn:aws:s3:::s3ab-bench', context: { 's3:prefix': 'results/' } }]);
    expect(iamRequestsOf(parseLoggedRequest(line('s3_HeadBucket', '-', '/s3ab-bench'))!)).toEqual([{ action: 's3:ListBucket', resource: 'arn:aws:s3:::s3ab-bench' }]);
    expect(iamRequestsOf(parseLoggedRequest(line('s3_ListObjectVersions', '-', '/s3ab-bench?versions&prefix=s3ab%2F'))!))
      .toEqual([{ action: 's3:ListBucketVersions', resource: 'arn:aws:s3:::s3ab-bench', context: { 's3:prefix': 's3ab/' } }]);
  });
  test('a DeleteObjects names its keys in its body only: unseen in the log; an operation without a mapping is refused, naming it', () => {
    expect(iamRequestsOf(parseLoggedRequest(line('s3_DeleteObjects', '-', '/s3ab-bench?delete'))!)).toBe('unseen');
    expect(() => iamRequestsOf(parseLoggedRequest(line('s3_PutBucketPolicy', '-', '/s3ab-bench?policy'))!)).toThrow(/no IAM action for the S3 operation s3_PutBucketPolicy/);
  });
});

describe('a grant taken out for the injected-defect rehearsal', () => {
  const policy = {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: 'arn:aws:s3:::data' },
      { Effect: 'Allow', Action: ['s3:ListBucket', 's3:GetBucketLocation'], Resource: 'arn:aws:s3:::results' },
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: 'arn:aws:s3:::results' },
    ],
  };
  test('only that action, only on statements naming that resource', () => {
    expect(dropGrant(policy, { role: 'RunnersRole', action: 's3:ListBucket', resource: 'results' }).Statement).toEqual([
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: 'arn:aws:s3:::data' },
      { Effect: 'Allow', Action: ['s3:GetBucketLocation'], Resource: 'arn:aws:s3:::results' },
    ]);
  });
  test('ROLE:ACTION[@RESOURCE]', () => {
    expect(parseDroppedGrant('RunnersRole:s3:ListBucket@s3ab-rehearsal-results')).toEqual({ role: 'RunnersRole', action: 's3:ListBucket', resource: 's3ab-rehearsal-results' });
    expect(parseDroppedGrant('PipelineReportFnRole:athena:GetQueryResults')).toEqual({ role: 'PipelineReportFnRole', action: 'athena:GetQueryResults', resource: undefined });
    expect(() => parseDroppedGrant('s3:ListBucket')).toThrow(/write ROLE:ACTION\[@RESOURCE\]/);
  });
});
