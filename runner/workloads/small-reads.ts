import type { WorkloadDescriptor } from '../core/workload';
import { READS_FIXTURE_FILE } from '../core/s3files-meter';
import { formatGivenSize, parseSize, SIZE_SCHEMA } from '../core/units';

export interface SmallReadsParams {
  files: number;
  size: string | number;
  concurrency: number;
}

/** Seed 001's small-file reads: read N small objects, each verified by SHA-256. */
export const smallReadsDescriptor = {
  name: 'small-reads',
  summary: 'read N small objects, each checked by SHA-256',
  seeds: ['001-s3files-lambda-before-after-and-ec2-three-way'],
  report: { table: 'measurements' },
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      files: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1000 },
      size: { ...SIZE_SCHEMA, default: '8KiB' },
      concurrency: { type: 'integer', minimum: 1, maximum: 256, default: 1 },
    },
  },
  describe: (p) => ({ files: String(p.files), size: formatGivenSize(p.size), concurrency: String(p.concurrency) }),
  fixture: (p) => ({
    id: `small-reads-${p.files}x${parseSize(p.size)}`,
    count: p.files,
    size: parseSize(p.size),
    keyOf: (i) => `small-${String(i).padStart(6, '0')}.txt`,
  }),
  fleet: { shared: 'the data set: every client reads the same small objects', own: 'nothing (it only reads)' },
  requires: [],
  operations: ['read'],
  payloadReads: ['read'],
  work: { counts: ['files'], of: (p) => ({ ops: p.files, bytes: p.files * parseSize(p.size) }), parallelism: (p) => p.concurrency },
  s3filesMetering: {
    // Fixture files from the S3 API, 8 KiB by default: imported (smaller than the threshold), so
    // each read is a data read metered at 32 KiB, plus the open's metadata read.
    read: READS_FIXTURE_FILE,
  },
} as const satisfies WorkloadDescriptor<SmallReadsParams>;
