import type { WorkloadDescriptor } from '../core/workload';
import { meter, metadataRead, metadataWrite, writeFile } from '../core/s3files-meter';
import { formatGivenSize, parseSize, SIZE_SCHEMA } from '../core/units';

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
/** Directories of the traversal tree: 1 + 3 + 9 + 27. */
const TRAVERSAL_DIRECTORIES = Array.from({ length: TRAVERSAL_TREE.depth + 1 }, (_, level) => TRAVERSAL_TREE.dirsPerDir ** level).reduce((a, b) => a + b, 0);

export interface MetadataParams {
  /** Operations per test (seed 002: 100, reduced from 10,000 for Mountpoint). */
  ops: number;
  /** Bytes per write or read (seed 002's suite: 4096). */
  size: string | number;
  /** fsync every N operations in the writing tests (seed 002's suite: 100). */
  syncEvery: number;
  tests: MetadataTest[];
}

const METADATA_PARAMS_SCHEMA = {
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

function describeMetadataParams(p: MetadataParams): Record<string, string> {
  return { ops: String(p.ops), size: formatGivenSize(p.size), syncEvery: String(p.syncEvery), tests: p.tests.join(',') };
}

/**
 * Seed 002's metadata suite (ZeroFS's bench): nine tests of one operation each, on the mounted
 * bucket. Needs a file system: object methods record it as not applicable.
 */
export const metadataDescriptor = {
  name: 'metadata',
  summary: 'metadata suite: sequential writes, modifications, appends, empty files/dirs, moves, random reads, deletion, traversal',
  seeds: ['002-zerofs-vs-mountpoint-benchmarks'],
  report: { table: 'metadata-suite' },
  // It writes its own files every time: a warm pass on the same mount would repeat the cold one.
  coldOnly: true,
  paramsSchema: METADATA_PARAMS_SCHEMA,
  describe: describeMetadataParams,
  fleet: { shared: 'the store; each client works in its own folder of one tree', own: 'its folder and every file in it' },
  requires: ['file-system'],
  operations: METADATA_TESTS,
  work: { counts: ['ops'], of: (p) => ({ ops: p.ops * p.tests.length, bytes: p.ops * p.tests.length * parseSize(p.size) }) },
  // Not empty-directories (Mountpoint keeps a new directory locally until a file is written in
  // it), random-reads and traversal (what was just written may come from the client's cache).
  reachesBucket: ['sequential-writes', 'data-modifications', 'single-file-append', 'empty-files', 'file-moves', 'deletion'],
  s3filesMetering: {
    // The payload tests record their bytes per write or read (4 KiB by default) as the object size.
    // Create, write (metered at 32 KiB), fsync (a metadata write in version A), close, and the new
    // file's export.
    'sequential-writes': { meter: (c) => writeFile(c, c.fileSize) },
    // open (a metadata read), one write into the existing file, commit on close. The file's export
    // happens once after the whole batch and is left out.
    'data-modifications': { meter: (c) => [metadataRead(), meter('dataWrite', 1, c.fileSize), metadataWrite()] },
    // As data-modifications: open, one appended write, commit on close; the one export after the
    // batch (AWS: appends are exported with UploadPartCopy, reading only the new data) is left out.
    'single-file-append': { meter: (c) => [metadataRead(), meter('dataWrite', 1, c.fileSize), metadataWrite()] },
    // open(O_CREAT) and close: a create (metadata write); the export of an empty file reads no data,
    // only its metadata.
    'empty-files': { meter: (c) => writeFile(c, 0) },
    // mkdir: a metadata write (version A: "creating ... directories"). Whether a directory's export
    // is metered, AWS does not say: left out.
    'empty-directories': { meter: () => [metadataWrite()] },
    // rename: "metered as a metadata read and a metadata write" (version A's own example); its sync
    // copies the object to the new key, "metered as a metadata read and a file read based on the
    // data's location" — the 4 KiB file, written in the test's setup, is on high-performance storage.
    'file-moves': { meter: (c) => [metadataRead(2), metadataWrite(), meter('dataRead', 1, c.fileSize)] },
    // open (a metadata read) and one read at a random offset of a file written in the test's setup
    // moments before: served by the file system, a data read (4 KiB: metered at 32 KiB).
    'random-reads': { meter: (c) => [metadataRead(), meter('dataRead', 1, c.fileSize)] },
    // unlink: a metadata write.
    deletion: { meter: () => [metadataWrite()] },
    // One operation walks the whole tree: a readdir (metadata read) of each of its directories.
    traversal: { meter: () => [metadataRead(TRAVERSAL_DIRECTORIES)] },
  },
} as const satisfies WorkloadDescriptor<MetadataParams>;
