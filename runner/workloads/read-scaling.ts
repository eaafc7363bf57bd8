import type { WorkloadDescriptor } from '../core/workload';
import { READS_FIXTURE_FILE } from '../core/s3files-meter';
import { createHash } from 'node:crypto';
import { formatGivenSize, parseSize, SIZE_SCHEMA } from '../core/units';

export interface ReadScalingParams {
  /** Single-stream read sizes (seed 003: 1 MB to 1 GB). */
  sizes: (string | number)[];
  /** Files read one after another per size. */
  filesPerSize: number;
  /** Size of each concurrently read file (seed 003: about 200 MB). */
  concurrentSize: string | number;
  /** Numbers of concurrent readers, each reading its own file. */
  readers: number[];
  /** Bytes per read() call. */
  chunk: string | number;
}

const READ_SCALING_PARAMS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // Defaults: seconds (quick); the seed and full profiles set seed 003's 1 MB–1 GB and 200 MB files.
    sizes: { type: 'array', minItems: 1, items: SIZE_SCHEMA, default: ['1MB', '16MB'] },
    filesPerSize: { type: 'integer', minimum: 1, maximum: 100, default: 1 },
    concurrentSize: { ...SIZE_SCHEMA, default: '4MB' },
    readers: { type: 'array', minItems: 0, items: { type: 'integer', minimum: 1, maximum: 256 }, default: [1, 4, 16] },
    chunk: { ...SIZE_SCHEMA, default: '1MiB' },
  },
};

/** The files the workload reads: `filesPerSize` per size, then max(readers) of `concurrentSize`. */
export function readScalingFiles(p: ReadScalingParams): { name: string; size: number }[] {
  const out: { name: string; size: number }[] = [];
  for (const raw of p.sizes) {
    const size = parseSize(raw);
    for (let i = 0; i < p.filesPerSize; i++) out.push({ name: `single-${size}-${i}.bin`, size });
  }
  const most = Math.max(0, ...p.readers);
  for (let i = 0; i < most; i++) out.push({ name: `concurrent-${i}.bin`, size: parseSize(p.concurrentSize) });
  return out;
}

function describeReadScalingParams(p: ReadScalingParams): Record<string, string> {
  return {
    sizes: p.sizes.map((s) => formatGivenSize(s)).join(','), filesPerSize: String(p.filesPerSize),
    concurrentSize: formatGivenSize(p.concurrentSize), readers: p.readers.join(','), chunk: formatGivenSize(p.chunk),
  };
}

/**
 * Seed 003's read scaling on the mounted bucket. The files are a fixture written once per run
 * through the S3 API, so the mount first meets them cold. Needs a file system.
 */
export const readScalingDescriptor = {
  name: 'read-scaling',
  summary: 'single-stream reads from 1 MB to 1 GB and 1/4/16 concurrent readers of ~200 MB files',
  seeds: ['003-s3fs-tuning-ibm-cos'],
  report: { table: 'measurements' },
  paramsSchema: READ_SCALING_PARAMS_SCHEMA,
  describe: describeReadScalingParams,
  fixture: (p) => {
    const files = readScalingFiles(p);
    const key = files.map((f) => f.size).join('-');
    return {
      id: `read-scaling-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`, count: files.length,
      size: Math.max(...files.map((f) => f.size)), keyOf: (i) => files[i].name, sizeOf: (i) => files[i].size,
    };
  },
  fleet: { notApplicable: 'it scales readers inside one client; scaling across clients is large-read\'s and small-reads\' at fleet scale' },
  requires: ['file-system'],
  operations: ['single-stream', 'concurrent-1', 'concurrent-4', 'concurrent-16'],
  payloadReads: ['single-stream', 'concurrent-1', 'concurrent-4', 'concurrent-16'],
  // Sizes and reader counts, not counts, set its size: a sample runs it whole.
  work: { counts: [], of: (p) => ({ ops: readScalingFiles(p).length, bytes: readScalingFiles(p).reduce((a, f) => a + f.size, 0) }) },
  s3filesMetering: {
    // Fixture files from the S3 API of 1 MB and more: not imported, every read streams from the
    // bucket; one operation is one file (concurrent-N: N operations).
    '*': READS_FIXTURE_FILE,
  },
} as const satisfies WorkloadDescriptor<ReadScalingParams>;
