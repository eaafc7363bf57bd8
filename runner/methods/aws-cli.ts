import type { MethodDescriptor } from '../core/method';

/** One `aws` process per operation, as seed 000 ran it, so the CLI's fixed per-process cost shows (aws-cli.impl.ts). */
export const awsCliDescriptor = {
  name: 'aws-cli',
  kind: 'object',
  userAgent: /^aws-cli\//,
  summary: 'AWS CLI v2, one process per operation (aws s3 cp / ls / rm, aws s3api head-object)',
  offers: ['objects-in-bucket'],
  variants: {
    // The CLI's own defaults, written out so they are recorded.
    default: { max_concurrent_requests: 10, multipart_threshold: '8MB', multipart_chunksize: '8MB' },
  },
} as const satisfies MethodDescriptor;
