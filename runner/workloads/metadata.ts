import type { WorkloadDescriptor } from '../core/workload';
import { formatSize } from '../core/units';
import { SIZE_SCHEMA, sizeOf } from './params';

/** Seed 002's tests, in the order they run and reports show them: the single list. */
export const METADATA_TESTS = [
  'sequential-writes', 'data-modifications', 'single-file-append', 'empty-files', 'empty-directories',
  'file-moves', 'random-reads', 'deletion', 'traversal',
] as const;
export type MetadataTest = (typeof METADATA_TESTS)[number];

/**
 * Tree shape of the traversal test, as seed 002's suite: 3 levels of 10 files and 3 subdirectories
 * per directory, the 27 deepest directories empty: 169 entries in 40 directories.
 */
export const TRAVERSAL_TREE = { depth: 3, filesPerDir: 10, dirsPerDir: 3 } as const;

export interface MetadataParams {
  /** Operations per test (seed 002: 100, reduced from 10,000 for Mountpoint). */
  ops: number;
  /** Bytes per write or read (seed 002's suite: 4096). */
  size: string | number;
  /** fsync every N operations in the writing tests (seed 002's suite: 100). */
  syncEvery: number;
  tests: MetadataTest[];
}

export const METADATA_PARAMS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // Default: seconds (quick); the seed and full profiles set seed 002's 100 and 10,000.
    ops: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 20 },
    size: { ...SIZE_SCHEMA, default: '4KiB' },
    syncEvery: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 100 },
    tests: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...METADATA_TESTS] }, default: [...METADATA_TESTS] },
  },
};

export function describeMetadataParams(p: MetadataParams): Record<string, string> {
  return { ops: String(p.ops), size: formatSize(sizeOf(p.size)), syncEvery: String(p.syncEvery), tests: p.tests.join(',') };
}

/**
 * Seed 002's metadata suite (ZeroFS's bench): nine tests of one operation each, on the mounted
 * bucket. Needs a file system: object methods record it as not applicable.
 */
export const metadataDescriptor = {
  name: 'metadata',
  summary: 'seed 002\'s metadata suite: sequential writes, modifications, appends, empty files/dirs, moves, random reads, deletion, traversal',
  seed: '002-zerofs-vs-mountpoint-benchmarks',
  // It writes its own files every time: a warm pass on the same mount would repeat the cold one.
  coldOnly: true,
  paramsSchema: METADATA_PARAMS_SCHEMA,
  describe: describeMetadataParams,
  requires: ['file-system'],
  operations: METADATA_TESTS,
  work: { counts: ['ops'], of: (p) => ({ ops: p.ops * p.tests.length, bytes: p.ops * p.tests.length * sizeOf(p.size) }) },
  // Not empty-directories (Mountpoint keeps a new directory locally until a file is written in
  // it), random-reads and traversal (what was just written may come from the client's cache).
  reachesBucket: ['sequential-writes', 'data-modifications', 'single-file-append', 'empty-files', 'file-moves', 'deletion'],
} as const satisfies WorkloadDescriptor<MetadataParams>;
