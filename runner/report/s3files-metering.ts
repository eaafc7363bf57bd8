import prices from '../../assets/prices.json';
import { NFS_OPTIONS } from '../methods/nfs-options';
import { s3filesDescriptor } from '../methods/s3files';
import { TRAVERSAL_TREE } from '../workloads/metadata';

/**
 * Amazon S3 Files' own metering, modelled: what S3 Files would charge, besides the S3 requests it
 * makes, for the file operations of one measurement of the `s3files` method. A model from AWS's
 * published metering rules, not a bill: nothing here sees S3 Files' meters (README "Requests and
 * request cost").
 *
 * The rules (assets/prices.json `s3Files.meteringFromAwsDocs`, each with the page it is from): every
 * file-system operation is a data read, a data write, a metadata read or a metadata write (one
 * operation may be two of them); a data read or write is metered at its size rounded up to 1 KiB,
 * at least 32 KiB; a metadata operation at 4 KiB; reads are charged per metered GB at the read rate,
 * writes at the write rate (`s3Files.readPerGB`, `writePerGB`). Reads of data that is in the bucket
 * stream directly from it — when the file's data is not on S3 Files' high-performance storage, or
 * when the read is at least DIRECT_READ_CUTOFF_BYTES — and cost an S3 GET (counted at the server
 * where it can be, not here) and a 4 KiB metadata read, but no S3 Files data read. Writes land on
 * high-performance storage (a data write) and are exported to the bucket about a minute later:
 * a file read of the data and a metadata read, at the read rate.
 *
 * Where AWS's two versions of the metering page disagree, the model follows version A
 * (docs.aws.amazon.com, taken as the newer one; neither copy is dated):
 * - the direct-read cutoff is 1 MiB (version B: 128 KB), see DIRECT_READ_CUTOFF_BYTES;
 * - creating, deleting and renaming files and directories, changing their attributes and fsync are
 *   metadata *writes* (version B: reads, only the commit — fsync, close after writing — a write).
 */

const KiB = 1024;
const METERING = prices.s3Files.meteringFromAwsDocs;

/** The S3 Files prices (assets/prices.json `s3Files`): region, date, source and the read and write rates per GB. */
export const S3FILES_PRICES = prices.s3Files;

/** A GB of metered data: 2^30 bytes, as AWS's S3 pricing examples convert bytes (not stated for S3 Files; 10^9 would add 7%). */
export const GB = 1024 ** 3;

/** A data read or write is metered at its size rounded up to ROUND_UP_BYTES, at least this. */
export const DATA_MINIMUM_BYTES = METERING.dataMinimumKiB * KiB;
export const ROUND_UP_BYTES = METERING.roundUpKiB * KiB;
/** Every metadata read or write is metered at this. */
export const METADATA_BYTES = METERING.metadataKiB * KiB;

/**
 * The direct-read cutoff: a read of at least this many bytes of data that is also in the bucket
 * streams directly from the bucket, even when the data is on high-performance storage: an S3 GET
 * and a 4 KiB metadata read, no S3 Files data read. Version A of AWS's metering page (and the
 * performance page) says 1 MiB; version B and an older copy of the overview page say 128 KB. We
 * follow A, taken as the newer text (neither copy is dated): AWS's pricing page as quoted by third
 * parties says "1 MiB or larger", and so does a dated note of April 2026. The mount reads in rsize = 1 MiB requests, so a sequential read of a
 * file of 1 MiB or more streams from the bucket under either version; they differ for reads of
 * 128 KiB to 1 MiB (`meterS3Files(m, { directReadCutoffBytes: 128 * 1024 })` models version B).
 */
export const DIRECT_READ_CUTOFF_BYTES = METERING.directReadCutoffKiB * KiB;

/**
 * S3 Files imports the data of files smaller than this (the import rule's `sizeLessThan`, default
 * 128 KiB) onto high-performance storage when their directory is first accessed; a larger file
 * written through the S3 API stays in the bucket only, and every read of it streams from there.
 */
export const IMPORT_SIZE_LESS_THAN_BYTES = METERING.importSizeLessThanKiB * KiB;

/** The mount's NFS read and write sizes (runner/methods/nfs-options.ts): a file moves in requests of at most these. */
const NFS_READ_BYTES = NFS_OPTIONS.rsize;
const NFS_WRITE_BYTES = NFS_OPTIONS.wsize;

/** The four metered categories, in the order the reports list them. */
export const METER_CATEGORIES = ['dataRead', 'dataWrite', 'metadataRead', 'metadataWrite'] as const;
export type MeterCategory = (typeof METER_CATEGORIES)[number];
export const METER_LABELS: Record<MeterCategory, string> = {
  dataRead: 'data read', dataWrite: 'data write', metadataRead: 'metadata read', metadataWrite: 'metadata write',
};

/** What one measurement of the s3files method says about its operations (a row of request_counts.sql, or a record). */
export interface S3FilesMeasurement {
  method: string;
  workload: string;
  operation: string;
  /** The record's object or file size; null where the workload has none (the model then takes bytes per operation). */
  objectSizeBytes: number | null;
  ops: number;
  bytes: number;
  /** The workload's `files` parameter where it has one: objects' listing returns that many entries. */
  files?: number | null;
}

/** The modelled S3 Files metering of one measurement, per operation. */
export interface S3FilesMetering {
  modelled: true;
  /** Metered operations and metered bytes (after minimums and rounding) per operation of the measurement, by category. */
  perOp: Record<MeterCategory, { ops: number; bytes: number }>;
  /** Reads per operation that stream directly from the bucket: an S3 GET each, no S3 Files data read. */
  directReadsPerOp: number;
  /** Metered bytes per operation charged at the read rate (data and metadata reads, exports included) and at the write rate. */
  readBytesPerOp: number;
  writeBytesPerOp: number;
  /** The modelled S3 Files charge per 1,000 operations at S3FILES_PRICES, USD. */
  costPer1000Ops: number;
}

/** A measurement the model has no rule for, with why. */
export interface S3FilesNotModelled {
  modelled: false;
  reason: string;
}

export type S3FilesModel = S3FilesMetering | S3FilesNotModelled;

export interface MeteringOptions {
  /** The direct-read cutoff (default DIRECT_READ_CUTOFF_BYTES, version A of AWS's metering page). */
  directReadCutoffBytes?: number;
}

/** One kind of metered event per operation: how many, and the bytes each moves (data only; metadata is a flat 4 KiB). */
interface Meter {
  category: MeterCategory | 'directRead';
  count: number;
  size: number;
}

/** What a rule knows about the operation. */
interface Case {
  /** The file the operation works on (object size, or bytes per operation where the record has none). */
  fileSize: number;
  /** Bytes the operation moved (a fio I/O: its block size). */
  perOpBytes: number;
  files: number | null;
  cutoff: number;
}

/**
 * Where the data a read meets lies, which decides whether S3 Files serves it (a metered data read)
 * or streams it from the bucket (no S3 Files data read).
 * - `just-written`: written through the mount moments before and not yet exported (S3 Files waits
 *   for 60 s without writes): "Recently modified data that has not yet been synchronized to S3 is
 *   always served from the file system" — every read is a data read, whatever its size.
 * - `exported`: written through the mount and in the bucket since: on high-performance storage, so
 *   reads below the cutoff are data reads and reads at or above it stream from the bucket.
 * - `bucket`: written through the S3 API (a fixture): imported onto high-performance storage when
 *   smaller than the import threshold (then as `exported`), else only in the bucket: every read
 *   streams from it.
 */
type DataAt = 'just-written' | 'exported' | 'bucket';

const meter = (category: Meter['category'], count: number, size = 0): Meter => ({ category, count, size });
const metadataRead = (count = 1) => meter('metadataRead', count);
const metadataWrite = (count = 1) => meter('metadataWrite', count);

/** A file of `size` bytes moved in requests of at most `max`: [count, bytes] of the full ones and the rest. */
function requestsOf(size: number, max: number): [number, number][] {
  const full = Math.floor(size / max);
  const rest = size - full * max;
  return [[full, max] as [number, number], [rest > 0 ? 1 : 0, rest] as [number, number]].filter(([n]) => n > 0);
}

/** `count` reads of `io` bytes each of a file of `fileSize`: metered data reads, or reads streamed from the bucket. */
function readRequests(count: number, io: number, fileSize: number, at: DataAt, cutoff: number): Meter {
  const onFileSystem = at !== 'bucket' || fileSize < IMPORT_SIZE_LESS_THAN_BYTES;
  const direct = at !== 'just-written' && (!onFileSystem || io >= cutoff);
  return meter(direct ? 'directRead' : 'dataRead', count, io);
}

/**
 * Reading a whole file: opening it is a metadata read ("reading a file is metered as both a data
 * read and a metadata read"; a direct stream costs "an S3 Files metadata read (4 KiB)" — once per
 * file here, not per request), then its NFS reads of up to rsize each.
 */
function readFile(fileSize: number, at: DataAt, cutoff: number): Meter[] {
  return [metadataRead(), ...requestsOf(fileSize, NFS_READ_BYTES).map(([n, io]) => readRequests(n, io, fileSize, at, cutoff))];
}

/**
 * Exporting a written file to the bucket (about a minute after the last write): "metered as a
 * file system metadata and a file read" — a metadata read and one file read of its size (the data
 * minimum applies, as to any file read); an empty file has no data to read.
 */
function exportOf(fileSize: number): Meter[] {
  return [metadataRead(), ...(fileSize > 0 ? [meter('dataRead', 1, fileSize)] : [])];
}

/**
 * Writing a new file through the mount: the create is a metadata write, the data goes in NFS
 * writes of up to wsize (data writes), `setattrs` attribute changes (metadata writes), the commit
 * — fsync, or close after writing — a metadata write, then the export.
 */
function writeFile(fileSize: number, setattrs = 0): Meter[] {
  return [
    metadataWrite(), ...requestsOf(fileSize, NFS_WRITE_BYTES).map(([n, io]) => meter('dataWrite', n, io)),
    metadataWrite(setattrs), metadataWrite(fileSize > 0 ? 1 : 0), ...exportOf(fileSize),
  ];
}

/** Meters spread over `n` operations (what happens once per file, for an operation that is one I/O of it). */
const per = (n: number, meters: Meter[]): Meter[] => meters.map((m) => ({ ...m, count: m.count / Math.max(1, n) }));

/** fio's I/O size: bytes per operation, or its block size rule (the file size, at most 1 MiB) where nothing moved. */
const fioBlock = (c: Case) => (c.perOpBytes > 0 ? c.perOpBytes : Math.min(c.fileSize, 1024 * KiB));

/** Directories of the metadata suite's traversal tree: 1 + 3 + 9 + 27. */
const TRAVERSAL_DIRECTORIES = Array.from({ length: TRAVERSAL_TREE.depth + 1 }, (_, level) => TRAVERSAL_TREE.dirsPerDir ** level).reduce((a, b) => a + b, 0);

type Rule = { meter: (c: Case) => Meter[] } | { notModelled: string };

/**
 * Which file operations each workload's operation makes, and so how S3 Files meters it: the one
 * mapping of the model. Keys are `workload operation`; `semantics *` covers every probe. A workload
 * or operation not listed is reported as not modelled (test/unit/s3files-metering.test.ts checks
 * that every declared operation has a row).
 */
const RULES: Record<string, Rule> = {
  // One object written through the mount: create, its data in wsize writes, commit on close, and
  // the export ~60 s later (a read of the whole file and a metadata read).
  'objects upload': { meter: (c) => writeFile(c.fileSize) },
  // readdir of the folder (a metadata read: "listing a directory") and a stat of each of the
  // `files` entries for its size (a metadata read each: "viewing file attributes").
  'objects list': { meter: (c) => [metadataRead(1 + (c.files ?? 0))] },
  // stat: one metadata read.
  'objects head': { meter: () => [metadataRead()] },
  // The files were written through the mount seconds before (upload, list, head, then download)
  // and are not yet exported: S3 Files serves every read from the file system, large ones too.
  'objects download': { meter: (c) => readFile(c.fileSize, 'just-written', c.cutoff) },
  // unlink: a metadata write (version A: "deleting files").
  'objects delete': { meter: () => [metadataWrite()] },
  // One operation is one entry: its stat is a metadata read. The readdir calls (one per page of
  // entries) are left out: fewer than one per hundred entries.
  'dir-walk walk': { meter: () => [metadataRead()] },
  // Fixture files written through the S3 API: only in the bucket when at least the import
  // threshold (seed 001's 1 GiB: every read streams from the bucket), imported when smaller.
  'large-read read': { meter: (c) => readFile(c.fileSize, 'bucket', c.cutoff) },
  // The 64-byte digest written back as a new file: create, one data write (metered at 32 KiB),
  // commit, export.
  'large-read write-digest': { meter: (c) => writeFile(c.fileSize) },
  // Fixture files from the S3 API, 8 KiB by default: imported (smaller than the threshold), so
  // each read is a data read metered at 32 KiB, plus the open's metadata read.
  'small-reads read': { meter: (c) => readFile(c.fileSize, 'bucket', c.cutoff) },
  // Fixture files from the S3 API; the record has no size, so the mean file size (bytes per read)
  // stands for all: files above the import threshold would stream from the bucket instead.
  'web-serving read': { meter: (c) => readFile(c.fileSize, 'bucket', c.cutoff) },
  // Fixture files from the S3 API of 1 MB and more: not imported, every read streams from the
  // bucket; one operation is one file (concurrent-N: N operations).
  'read-scaling single-stream': { meter: (c) => readFile(c.fileSize, 'bucket', c.cutoff) },
  'read-scaling concurrent-1': { meter: (c) => readFile(c.fileSize, 'bucket', c.cutoff) },
  'read-scaling concurrent-4': { meter: (c) => readFile(c.fileSize, 'bucket', c.cutoff) },
  'read-scaling concurrent-16': { meter: (c) => readFile(c.fileSize, 'bucket', c.cutoff) },
  // One operation is one fio I/O of its block size: data writes (of up to wsize each); the file's
  // create, commit and export are shared by its I/Os.
  'fio-seq write': {
    meter: (c) => [
      ...requestsOf(fioBlock(c), NFS_WRITE_BYTES).map(([n, io]) => meter('dataWrite', n, io)),
      ...per(Math.ceil(c.fileSize / fioBlock(c)), [metadataWrite(2), ...exportOf(c.fileSize)]),
    ],
  },
  // One operation is one fio I/O (NFS reads of up to rsize each). fio-seq reads only after its
  // written files are in the bucket (it waits for them), so they are exported and on
  // high-performance storage: a read below the cutoff is a data read, one at or above it streams
  // from the bucket. The open's metadata read is shared by the file's I/Os.
  'fio-seq read': {
    meter: (c) => [
      ...requestsOf(fioBlock(c), NFS_READ_BYTES).map(([n, io]) => readRequests(n, io, c.fileSize, 'exported', c.cutoff)),
      ...per(Math.ceil(c.fileSize / fioBlock(c)), [metadataRead()]),
    ],
  },
  // The metadata suite's payload tests record their bytes per write or read (4 KiB by default) as
  // the object size. Create, write (metered at 32 KiB), fsync (a metadata write in version A),
  // close, and the new file's export.
  'metadata sequential-writes': { meter: (c) => writeFile(c.fileSize) },
  // open (a metadata read), one write into the existing file, commit on close. The file's export
  // happens once after the whole batch and is left out.
  'metadata data-modifications': { meter: (c) => [metadataRead(), meter('dataWrite', 1, c.fileSize), metadataWrite()] },
  // As data-modifications: open, one appended write, commit on close; the one export after the
  // batch (AWS: appends are exported with UploadPartCopy, reading only the new data) is left out.
  'metadata single-file-append': { meter: (c) => [metadataRead(), meter('dataWrite', 1, c.fileSize), metadataWrite()] },
  // open(O_CREAT) and close: a create (metadata write); the export of an empty file reads no data,
  // only its metadata.
  'metadata empty-files': { meter: () => writeFile(0) },
  // mkdir: a metadata write (version A: "creating ... directories"). Whether a directory's export
  // is metered, AWS does not say: left out.
  'metadata empty-directories': { meter: () => [metadataWrite()] },
  // rename: "metered as a metadata read and a metadata write" (version A's own example); its sync
  // copies the object to the new key, "metered as a metadata read and a file read based on the
  // data's location" — the 4 KiB file, written in the test's setup, is on high-performance storage.
  'metadata file-moves': { meter: (c) => [metadataRead(2), metadataWrite(), meter('dataRead', 1, c.fileSize)] },
  // open (a metadata read) and one read at a random offset of a file written in the test's setup
  // moments before: served by the file system, a data read (4 KiB: metered at 32 KiB).
  'metadata random-reads': { meter: (c) => [metadataRead(), meter('dataRead', 1, c.fileSize)] },
  // unlink: a metadata write.
  'metadata deletion': { meter: () => [metadataWrite()] },
  // One operation walks the whole tree: a readdir (metadata read) of each of its 40 directories.
  'metadata traversal': { meter: () => [metadataRead(TRAVERSAL_DIRECTORIES)] },
  // One operation is one extracted file (bytes per operation: the mean file size): create, data,
  // GNU tar -p as root setting mode, owner and times (three metadata writes: "changing
  // permissions"), commit on close, export. The archive's directories (one per 15 files) are left out.
  'tar-extract extract': { meter: (c) => writeFile(c.perOpBytes, 3) },
  'tar-extract permissions': { notModelled: 'an untimed check of what the extraction kept' },
  'tar-extract timestamps': { notModelled: 'an untimed check of what the extraction kept' },
  'tar-extract ownership': { notModelled: 'an untimed check of what the extraction kept' },
  // One operation is a whole clone: thousands of creates, writes, renames and fsyncs that the
  // record does not itemize.
  'git-clone clone': { notModelled: 'one operation is a whole git clone, whose file operations the record does not itemize' },
  // Each probe is a short sequence of different operations and checks (and the propagation probes
  // mostly wait).
  'semantics *': { notModelled: 'a probe is a sequence of different file operations and checks' },
};

/** The rule for a workload's operation, if the table has one. */
export function s3filesRule(workload: string, operation: string): Rule | undefined {
  return RULES[`${workload} ${operation}`] ?? RULES[`${workload} *`];
}

/** Bytes S3 Files meters for one event of a category: metadata 4 KiB; data its size rounded up to 1 KiB, at least 32 KiB. */
export function meteredBytes(category: MeterCategory, size: number): number {
  if (category === 'metadataRead' || category === 'metadataWrite') return METADATA_BYTES;
  return Math.max(DATA_MINIMUM_BYTES, Math.ceil(size / ROUND_UP_BYTES) * ROUND_UP_BYTES);
}

/**
 * The modelled S3 Files metering of a measurement: null for any method but s3files; "not
 * modelled", with the reason, for an operation the table has no rule for or a measurement without
 * operations.
 */
export function meterS3Files(m: S3FilesMeasurement, opts: MeteringOptions = {}): S3FilesModel | null {
  if (m.method !== s3filesDescriptor.name) return null;
  const rule = s3filesRule(m.workload, m.operation);
  if (!rule) return { modelled: false, reason: `no metering rule for ${m.workload} ${m.operation}` };
  if ('notModelled' in rule) return { modelled: false, reason: rule.notModelled };
  if (!(m.ops > 0)) return { modelled: false, reason: 'no operations' };
  const perOpBytes = m.bytes / m.ops;
  const c: Case = {
    fileSize: m.objectSizeBytes ?? perOpBytes, perOpBytes, files: m.files ?? null,
    cutoff: opts.directReadCutoffBytes ?? DIRECT_READ_CUTOFF_BYTES,
  };
  const perOp = Object.fromEntries(METER_CATEGORIES.map((k) => [k, { ops: 0, bytes: 0 }])) as S3FilesMetering['perOp'];
  let directReadsPerOp = 0;
  for (const e of rule.meter(c)) {
    if (!(e.count > 0)) continue;
    if (e.category === 'directRead') {
      directReadsPerOp += e.count;
      continue;
    }
    perOp[e.category].ops += e.count;
    perOp[e.category].bytes += e.count * meteredBytes(e.category, e.size);
  }
  const readBytesPerOp = perOp.dataRead.bytes + perOp.metadataRead.bytes;
  const writeBytesPerOp = perOp.dataWrite.bytes + perOp.metadataWrite.bytes;
  return {
    modelled: true, perOp, directReadsPerOp, readBytesPerOp, writeBytesPerOp,
    costPer1000Ops: (1000 * (readBytesPerOp * S3FILES_PRICES.readPerGB + writeBytesPerOp * S3FILES_PRICES.writePerGB)) / GB,
  };
}
