import { S3Client } from '@aws-sdk/client-s3';

/**
 * The S3 client of a handler: the regional endpoint on AWS; S3AB_S3_ENDPOINT (path-style) when
 * the handler runs against a local S3-compatible server in tests. Credentials from the standard chain.
 */
export function s3Client(): S3Client {
  const endpoint = process.env.S3AB_S3_ENDPOINT;
  return new S3Client({
    region: process.env.AWS_REGION ?? 'us-east-1',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    maxAttempts: 5,
  });
}

/** Reads a required environment variable, naming it when it is missing. */
export function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`environment variable ${name} is not set (the stack sets it; tests must too)`);
  return v;
}
