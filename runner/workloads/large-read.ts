import type { WorkloadDescriptor } from '../core/workload';
import { READS_FIXTURE_FILE, writeFile } from '../core/s3files-meter';
import { formatGivenSize, parseSize, SIZE_SCHEMA } from '../core/units';

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
  summary: 'stream-read N large objects into SHA-256, write each digest back',
  seeds: ['001-s3files-lambda-before-after-and-ec2-three-way'],
  report: { table: 'measurements' },
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      files: { type: 'integer', minimum: 1, maximum: 100, default: 5 },
      size: { ...SIZE_SCHEMA, default: '1GiB' },
    },
  },
  describe: (p) => ({ files: String(p.files), size: formatGivenSize(p.size) }),
  fixture: (p) => ({
    id: `large-read-${p.files}x${parseSize(p.size)}`,
    count: p.files,
    size: parseSize(p.size),
    keyOf: (i) => `large-${i}.bin`,
  }),
  fleet: { shared: 'the data set: every client reads the same large objects', own: 'the digests it writes back, in its own folder' },
  requires: [],
  operations: ['read', 'write-digest'],
  payloadReads: ['read'],
  reachesBucket: ['write-digest'],
  // An S3 client downloads one object at a time into a local file.
  stepBytes: (p) => parseSize(p.size),
  work: { counts: ['files'], of: (p) => ({ ops: p.files, bytes: p.files * parseSize(p.size) }) },
  s3filesMetering: {
    // Fixture files written through the S3 API: only in the bucket when at least the import
    // threshold (seed 001's 1 GiB: every read streams from the bucket), imported when smaller.
    read: READS_FIXTURE_FILE,
    // The 64-byte digest written back as a new file: create, one data write (metered at 32 KiB),
    // commit, export.
    'write-digest': { meter: (c) => writeFile(c, c.fileSize) },
  },
} as const satisfies WorkloadDescriptor<LargeReadParams>;
