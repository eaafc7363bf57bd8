import prices from '../../assets/prices.json';
import type { WorkloadDescriptor } from '../core/workload';
import { exportOf, metadataRead, metadataWrite, READS_FIXTURE_FILE, readFile, writeFile } from '../core/s3files-meter';
import { formatGivenSize, formatSize, parseSize, SIZE_SCHEMA } from '../core/units';

export interface SyncBehaviourParams {
  /** Files of each size read (fixture written through the S3 API) and written through the mount. */
  per_size: number;
  /** Sizes of the fixture's files, written through the S3 API: below, at and above the import threshold. */
  read_sizes: (string | number)[];
  /** Sizes of the files written through the mount: their export lag, then reads of them around both direct-read thresholds. */
  write_sizes: (string | number)[];
  /** Entries of the listed folder; files of the renamed folder; files chmod-ed. */
  files: number;
  /** Repeated listings after the first. */
  list_repeats: number;
  /** How long a wait for the bucket (export, rename, versions) may last, in seconds (at least the client's own sync bound). */
  timeout_s: number;
}

const METERING = prices.s3Files.meteringFromAwsDocs;

/**
 * S3 Files' import rule as the stack creates the file system (no synchronization configuration,
 * so AWS's default): files written through the S3 API smaller than this are imported onto its
 * high-performance storage. Recorded with every result of the workload (`s3files_import_below`).
 */
const IMPORT_BELOW_BYTES = METERING.importSizeLessThanKiB * 1024;

/**
 * The two direct-read thresholds AWS's documentation gives (assets/prices.json
 * `directReadCutoffFrom`): reads this large of data already in the bucket stream from it. The
 * workload reads files written through the mount just below and at each, and says which holds.
 * "128 KB" is taken at its larger reading, 128 KiB, so that a read at it is at or above it under
 * either reading (128,000 or 131,072 bytes).
 */
export const DIRECT_READ_THRESHOLDS = [
  { operation: 'direct-read-128KB', bytes: 128 * 1024, page: 'version B of the metering page, an older s3-files.html: "reads of 128 KB or larger"' },
  { operation: 'direct-read-1MiB', bytes: METERING.directReadCutoffKiB * 1024, page: 'version A of the metering page, s3-files-performance.html: "1 MiB or larger"' },
] as const;

/**
 * A threshold holds when the fastest read just at it takes at least this many times the fastest
 * just below it: the sizes differ by a few percent, so the transfer barely does, and a read that
 * turns into an S3 GET pays a request's round trip the file system's own read does not.
 */
export const DIRECT_READ_STEP = 2;

/** The size of the files renamed and chmod-ed: small, so that their time is the operation's, not the data's. */
export const SMALL_FILE_BYTES = 4096;

const SYNC_OPERATIONS = [
  'list-first', 'list-repeat', 'read', 'export-lag', 'read-exported', ...DIRECT_READ_THRESHOLDS.map((t) => t.operation),
  'rename-dir', 'rename-dir-in-bucket', 'chmod', 'chmod-versions',
] as const;

const bytesOf = (sizes: (string | number)[]) => sizes.reduce((a: number, s) => a + parseSize(s), 0);

/**
 * What Amazon S3 Files documents about its synchronization with the bucket, measured on every mount
 * method alike (docs/workloads.md "sync-behaviour" cites the pages): reads around the import and
 * direct-read thresholds, cold and warm; the first listing of a folder against repeated ones; the
 * lag from close() to the object in the bucket, per size; a folder's rename on the mount and in the
 * bucket; the object versions chmod writes.
 */
export const syncBehaviourDescriptor = {
  name: 'sync-behaviour',
  summary: 'what S3 Files documents, on every mount: reads around the import and direct-read thresholds, first vs repeated listing, export lag per size, folder rename, versions written by chmod',
  seeds: ['000-cli-vs-s3fs-vs-s3files-benchmark', '001-s3files-lambda-before-after-and-ec2-three-way'],
  // The direct-read verdicts: outcomes with their line, never a time.
  report: { table: 'measurements', verdicts: DIRECT_READ_THRESHOLDS.map((t) => t.operation) },
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      per_size: { type: 'integer', minimum: 1, maximum: 1000, default: 5 },
      read_sizes: { type: 'array', minItems: 1, items: SIZE_SCHEMA, default: ['64KiB', '127KiB', '128KiB', '256KiB'] },
      write_sizes: { type: 'array', minItems: 1, items: SIZE_SCHEMA, default: ['120KiB', '128KiB', '1020KiB', '1MiB', '8MiB'] },
      files: { type: 'integer', minimum: 1, maximum: 10000, default: 100 },
      list_repeats: { type: 'integer', minimum: 1, maximum: 1000, default: 5 },
      timeout_s: { type: 'number', minimum: 1, maximum: 3600, default: 30 },
    },
  },
  validate: (p) => {
    const sizes = p.write_sizes.map(parseSize);
    const missing = DIRECT_READ_THRESHOLDS.find((t) => !sizes.some((s) => s < t.bytes) || !sizes.some((s) => s >= t.bytes));
    return missing ? {
      problem: `write_sizes needs a size below ${missing.bytes} bytes and one at or above it, to tell whether ${missing.operation} holds`,
      fix: 'give write_sizes sizes on both sides of 128 KiB and of 1 MiB, e.g. ["120KiB", "128KiB", "1020KiB", "1MiB"]',
    } : null;
  },
  describe: (p) => ({
    per_size: String(p.per_size), read_sizes: p.read_sizes.map((s) => formatGivenSize(s)).join(','),
    write_sizes: p.write_sizes.map((s) => formatGivenSize(s)).join(','), files: String(p.files),
    list_repeats: String(p.list_repeats), timeout_s: String(p.timeout_s),
    s3files_import_below: formatSize(IMPORT_BELOW_BYTES),
  }),
  fixture: (p) => {
    const sizes = p.read_sizes.map(parseSize);
    return {
      id: `sync-behaviour-${p.per_size}x${sizes.join('-')}`,
      count: p.per_size * sizes.length,
      size: Math.max(...sizes),
      keyOf: (i) => `size-${sizes[Math.floor(i / p.per_size)]}/f-${String(i % p.per_size).padStart(4, '0')}.bin`,
      sizeOf: (i) => sizes[Math.floor(i / p.per_size)],
    };
  },
  fleet: { notApplicable: 'it measures one client\'s view of its own writes and the bucket\'s lag behind them; N clients at once would measure the same thing N times' },
  requires: ['file-system'],
  operations: SYNC_OPERATIONS,
  payloadReads: ['read', 'read-exported'],
  // None per record: a client that uploads after close (rclone's write-back, S3 Files' export)
  // sends a size's PUTs in a later size's stretch or while the bucket is polled ('(after close)'),
  // so export-lag's uploads are held to reaching the bucket per step, over its export-lag rows
  // and that row together (test/runner/request-windows.test.ts).
  reachesBucket: [],
  // The files written through the mount, the renamed and chmod-ed files, and a read of each.
  stepBytes: (p) => 2 * p.per_size * bytesOf(p.write_sizes) + 2 * p.files * SMALL_FILE_BYTES,
  work: {
    counts: ['per_size', 'files'],
    of: (p) => ({
      ops: 1 + p.list_repeats + p.per_size * (p.read_sizes.length + 2 * p.write_sizes.length) + 2 * p.files + 2,
      bytes: p.per_size * (bytesOf(p.read_sizes) + 2 * bytesOf(p.write_sizes)) + 2 * p.files * SMALL_FILE_BYTES,
    }),
  },
  s3filesMetering: {
    // readdir: "listing a directory" is a metadata read.
    'list-first': { meter: () => [metadataRead()] },
    'list-repeat': { meter: () => [metadataRead()] },
    // Fixture files from the S3 API: imported below the threshold, else streamed from the bucket.
    read: READS_FIXTURE_FILE,
    // One file written through the mount and exported.
    'export-lag': { meter: (c) => writeFile(c, c.fileSize) },
    // The same files, exported since: on high-performance storage, read directly at or above the cutoff.
    'read-exported': { meter: (c) => readFile(c, c.fileSize, 'exported') },
    'direct-read-128KB': { notModelled: 'a verdict over the read-exported figures: no file operation of its own' },
    'direct-read-1MiB': { notModelled: 'a verdict over the read-exported figures: no file operation of its own' },
    // One rename (a metadata write), then each of the folder's files exported under its new name.
    'rename-dir': { meter: (c) => [metadataWrite(), ...Array.from({ length: c.files ?? 1 }, () => exportOf(SMALL_FILE_BYTES)).flat()] },
    'rename-dir-in-bucket': { notModelled: 'the wait for the bucket to match the rename: its export is metered with rename-dir' },
    // chmod: a metadata write ("changing permissions"), then the export of the changed file.
    chmod: { meter: () => [metadataWrite(), ...exportOf(SMALL_FILE_BYTES)] },
    'chmod-versions': { notModelled: 'a count of the object versions in the bucket: no file operation' },
  },
} as const satisfies WorkloadDescriptor<SyncBehaviourParams>;
