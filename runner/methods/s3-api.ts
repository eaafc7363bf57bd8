import type { MethodDescriptor } from '../core/method';

/**
 * The AWS SDK for JavaScript v3 at its best practice: parallel multipart upload and parallel ranged
 * GETs for objects above the part size, over a keep-alive connection pool (s3-api.impl.ts).
 */
export const s3ApiDescriptor = {
  name: 's3-api',
  kind: 'object',
  userAgent: /^aws-sdk-js\//, // the SDK's own User-Agent (the runner's reference client adds s3ab-runner to it)
  summary: 'AWS SDK for JavaScript v3: multipart upload and parallel ranged GETs, keep-alive pool',
  offers: ['objects-in-bucket'],
  variants: {
    default: { part_size: '8MiB', concurrency: 10, checksums: 'WHEN_SUPPORTED' },
    // The simplest use of the SDK (one GetObject stream, one PutObject), as seed 001's Lambda did.
    'single-stream': { part_size: '5GiB', concurrency: 1, checksums: 'WHEN_SUPPORTED' },
  },
} as const satisfies MethodDescriptor;
