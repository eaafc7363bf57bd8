import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { UserError, errorSummary } from '../core/errors';
import type { StoreTarget } from '../core/target';

const NETWORK_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'TimeoutError', 'EPIPE'];

/** True for errors that mean the endpoint cannot be reached at all (as opposed to a refused request). */
export function isUnreachable(err: unknown): boolean {
  const e = err as { code?: string; name?: string; message?: string; cause?: unknown };
  const text = `${e?.code ?? ''} ${e?.name ?? ''} ${e?.message ?? ''}`;
  if (NETWORK_CODES.some((c) => text.includes(c)) || /socket hang up|connect ECONN/i.test(text)) return true;
  return e?.cause ? isUnreachable(e.cause) : false;
}

/**
 * Checks, before anything is created, that the endpoint answers, the credentials are accepted, the
 * bucket exists, and objects can be written and deleted under `prefix`. Each failure becomes a
 * UserError that names the problem and the fix.
 */
export async function preflight(client: S3Client, target: StoreTarget, prefix: string): Promise<void> {
  const where = target.endpointUrl ?? `AWS S3 (${target.region})`;
  try {
    // ListObjectsV2, not HeadBucket: a HEAD answer has no body, so a refused key and a missing
    // bucket can look alike (versitygw answers both with 404).
    await client.send(new ListObjectsV2Command({ Bucket: target.bucket, Prefix: prefix, MaxKeys: 1 }));
    const key = `${prefix}preflight`;
    await client.send(new PutObjectCommand({ Bucket: target.bucket, Key: key, Body: 'ok' }));
    await client.send(new DeleteObjectCommand({ Bucket: target.bucket, Key: key }));
  } catch (err) {
    throw explain(err, target, where);
  }
}

export function explain(err: unknown, target: StoreTarget, where: string): UserError {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  const name = e?.name ?? '';
  if ((err as { name?: string })?.name === 'TimeoutError' && !/connect/i.test(String((err as Error)?.message))) {
    return new UserError(`the S3 endpoint ${where} accepted the connection but did not answer: ${errorSummary(err)}`,
      'check that the server is running and answering S3 requests (it may be frozen or overloaded), and that the URL points at its S3 port');
  }
  if (isUnreachable(err)) {
    return new UserError(`cannot reach the S3 endpoint ${where}: ${errorSummary(err)}`, 'check the URL (scheme, host, port) and that the server is running');
  }
  if (name === 'CredentialsProviderError' || /Could not load credentials/i.test(String((err as Error)?.message))) {
    return new UserError(`no AWS credentials found for ${where}`, 'set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, for this endpoint');
  }
  const refusedKey = /InvalidAccessKeyId|SignatureDoesNotMatch|AccessDenied|UserNotFound|InvalidToken|ExpiredToken/.test(name);
  if (refusedKey || (status === 403 && name !== 'NoSuchBucket')) {
    return new UserError(
      `the endpoint ${where} refused the credentials for bucket "${target.bucket}" (${name || 'HTTP 403'})`,
      'check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) and that they may read, write and delete objects in this bucket',
    );
  }
  if (name === 'NoSuchBucket' || (status === 404 && name === 'NotFound')) {
    return new UserError(`bucket "${target.bucket}" does not exist at ${where}`, 'create it first, or name an existing bucket with --bucket');
  }
  if (status === 301 || name === 'PermanentRedirect') {
    return new UserError(`bucket "${target.bucket}" is in another region than ${target.region}`, 'pass the bucket\'s region with --region');
  }
  return new UserError(`the endpoint ${where} rejected the preflight check: ${errorSummary(err)}`, 'check the endpoint URL, bucket and credentials');
}
