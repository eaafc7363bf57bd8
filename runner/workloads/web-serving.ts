import type { WorkloadDescriptor } from '../core/workload';
import { READS_FIXTURE_FILE } from '../core/s3files-meter';
import { formatGivenSize, formatSize, parseSize, SIZE_SCHEMA } from '../core/units';
import { planTree, treeCapacity, type TreeSpec } from '../core/tree-plan';

export interface WebServingParams {
  /** Small files the readers pick from (seed 004: 10K). */
  files: number;
  /** Mean file size (seed 004's tree: 726 MB over ~54K files ≈ 13.4 KB). */
  meanSize: string | number;
  /** Every file is smaller than this (seed 004: 2 MB). */
  maxSize: string | number;
  /** Files read per cache state, over all readers. */
  reads: number;
  /** Parallel readers (seed 004: 16). */
  readers: number;
  /** The hot share of the files... */
  hotFraction: number;
  /** ...receives this share of the reads (seed 004: 80/20). */
  hotShare: number;
  /** Bytes per read() call. */
  chunk: string | number;
}

const WEB_SERVING_PARAMS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // Defaults: seconds (quick); the seed and full profiles set seed 004's 10K files.
    files: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 200 },
    meanSize: { ...SIZE_SCHEMA, default: 13445 },
    maxSize: { ...SIZE_SCHEMA, default: '2MB' },
    reads: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 800 },
    readers: { type: 'integer', minimum: 1, maximum: 256, default: 16 },
    hotFraction: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: 0.2 },
    hotShare: { type: 'number', minimum: 0, maximum: 1, default: 0.8 },
    chunk: { ...SIZE_SCHEMA, default: '256KiB' },
  },
};

/** The file set: a kernel-tree-shaped set of small files, ~15 per directory as in seed 004's tree. */
export function webServingTree(p: WebServingParams): TreeSpec {
  return {
    id: 'web-serving', files: p.files, dirs: Math.max(1, Math.round(p.files / 15)),
    totalBytes: p.files * parseSize(p.meanSize), maxFileBytes: parseSize(p.maxSize),
  };
}

/** Files of mean size `meanSize` must fit under `maxSize`. */
function validateWebServingParams(p: WebServingParams): { problem: string; fix: string } | null {
  const mean = parseSize(p.meanSize);
  const max = parseSize(p.maxSize);
  if (p.files * mean <= treeCapacity(p.files, max)) return null;
  return {
    problem: `files of mean size ${formatSize(mean)} cannot all be smaller than maxSize ${formatSize(max)}`,
    fix: `raise maxSize above ${formatSize(mean)} (${mean + 1} bytes or more) or lower meanSize below ${formatSize(max)}`,
  };
}

function describeWebServingParams(p: WebServingParams): Record<string, string> {
  return {
    files: String(p.files), meanSize: formatGivenSize(p.meanSize), maxSize: formatGivenSize(p.maxSize), reads: String(p.reads),
    readers: String(p.readers), hotFraction: String(p.hotFraction), hotShare: String(p.hotShare), chunk: formatGivenSize(p.chunk),
  };
}

/**
 * Seed 004's parallel small-file reads on the mounted bucket. The files are a fixture written once
 * per run through the S3 API (a kernel-tree-shaped set), so the mount first meets them cold.
 * Needs a file system.
 */
export const webServingDescriptor = {
  name: 'web-serving',
  summary: '16 parallel readers over 10K small files, 80/20 access: p95 latency and MB/s per cache state',
  seeds: ['004-efs-vs-objectivefs-small-files'],
  report: { table: 'measurements' },
  paramsSchema: WEB_SERVING_PARAMS_SCHEMA,
  validate: validateWebServingParams,
  describe: describeWebServingParams,
  fixture: (p) => {
    const plan = planTree(webServingTree(p));
    return {
      id: `web-serving-${p.files}x${parseSize(p.meanSize)}-max${parseSize(p.maxSize)}`, count: plan.files.length,
      size: Math.max(...plan.files.map((f) => f.size)), keyOf: (i) => plan.files[i].path, sizeOf: (i) => plan.files[i].size,
    };
  },
  fleet: { shared: 'the site: every client serves the same files, as N web servers behind a load balancer (seed 004)', own: 'nothing (it only reads)' },
  requires: ['file-system'],
  operations: ['read'],
  payloadReads: ['read'],
  // The readers share the reads: their requests overlap.
  work: { counts: ['files', 'reads'], of: (p) => ({ ops: p.reads, bytes: p.reads * parseSize(p.meanSize) }), parallelism: (p) => p.readers },
  s3filesMetering: {
    // Fixture files from the S3 API; the record has no size, so the mean file size (bytes per read)
    // stands for all: files above the import threshold would stream from the bucket instead.
    read: READS_FIXTURE_FILE,
  },
} as const satisfies WorkloadDescriptor<WebServingParams>;
