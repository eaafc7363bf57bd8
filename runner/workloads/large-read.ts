import type { WorkloadDescriptor } from '../core/workload';
import { formatSize } from '../core/units';
import { SIZE_SCHEMA, sizeOf } from './params';

export interface LargeReadParams {
  files: number;
  size: string | number;
}

/**
 * Seed 001's large-file throughput: N large objects, each stream-read into SHA-256 (the read time
 * includes hashing, as in the seed), then the digest written back as a small object.
 */
export const largeReadDescriptor = {
  name: 'large-read',
  summary: 'stream-read N large objects into SHA-256, write each digest back (seed 001)',
  seed: '001-s3files-lambda-before-after-and-ec2-three-way',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      files: { type: 'integer', minimum: 1, maximum: 100, default: 5 },
      size: { ...SIZE_SCHEMA, default: '1GiB' },
    },
  },
  describe: (p) => ({ files: String(p.files), size: formatSize(sizeOf(p.size)) }),
  fixture: (p) => ({
    id: `large-read-${p.files}x${sizeOf(p.size)}`,
    count: p.files,
    size: sizeOf(p.size),
    keyOf: (i) => `large-${i}.bin`,
  }),
  requires: [],
  operations: ['read', 'write-digest'],
  payloadReads: ['read'],
  reachesBucket: ['write-digest'],
  // An S3 client downloads one object at a time into a local file.
  stepBytes: (p) => sizeOf(p.size),
  work: { counts: ['files'], of: (p) => ({ ops: p.files, bytes: p.files * sizeOf(p.size) }) },
} as const satisfies WorkloadDescriptor<LargeReadParams>;
