/**
 * The building blocks of Amazon S3 Files' metering rules (the model itself, with its sources, is
 * runner/report/s3files-metering.ts): each workload descriptor says, per operation, which file
 * operations one operation makes (`s3filesMetering`), written with these; the report prices them.
 */

/** The four metered categories, in the order the reports list them. */
export const METER_CATEGORIES = ['dataRead', 'dataWrite', 'metadataRead', 'metadataWrite'] as const;
export type MeterCategory = (typeof METER_CATEGORIES)[number];

/** One kind of metered event per operation: how many, and the bytes each moves (data only; metadata is flat). */
export interface Meter {
  category: MeterCategory | 'directRead';
  count: number;
  size: number;
}

/** What a rule knows about the operation and the model's constants it needs. */
export interface MeterCase {
  /** The file the operation works on (object size, or bytes per operation where the record has none). */
  fileSize: number;
  /** Bytes the operation moved (a fio I/O: its block size). */
  perOpBytes: number;
  /** The workload's `files` parameter where it has one. */
  files: number | null;
  /** Reads of at least this many bytes of data in the bucket stream from it (no S3 Files data read). */
  cutoff: number;
  /** Files written through the S3 API smaller than this are imported onto high-performance storage. */
  importBelow: number;
  /** The mount's NFS read and write sizes: a file moves in requests of at most these. */
  nfsReadBytes: number;
  nfsWriteBytes: number;
}

/** How S3 Files meters one operation of a workload: the file operations it makes, or why that is not modelled. */
export type S3FilesRule = { meter: (c: MeterCase) => Meter[] } | { notModelled: string };

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
export type DataAt = 'just-written' | 'exported' | 'bucket';

export const meter = (category: Meter['category'], count: number, size = 0): Meter => ({ category, count, size });
export const metadataRead = (count = 1) => meter('metadataRead', count);
export const metadataWrite = (count = 1) => meter('metadataWrite', count);

/** A file of `size` bytes moved in requests of at most `max`: [count, bytes] of the full ones and the rest. */
export function requestsOf(size: number, max: number): [number, number][] {
  const full = Math.floor(size / max);
  const rest = size - full * max;
  return [[full, max] as [number, number], [rest > 0 ? 1 : 0, rest] as [number, number]].filter(([n]) => n > 0);
}

/** `count` reads of `io` bytes each of a file of `fileSize`: metered data reads, or reads streamed from the bucket. */
export function readRequests(c: MeterCase, count: number, io: number, fileSize: number, at: DataAt): Meter {
  const onFileSystem = at !== 'bucket' || fileSize < c.importBelow;
  const direct = at !== 'just-written' && (!onFileSystem || io >= c.cutoff);
  return meter(direct ? 'directRead' : 'dataRead', count, io);
}

/**
 * Reading a whole file: opening it is a metadata read ("reading a file is metered as both a data
 * read and a metadata read"; a direct stream costs "an S3 Files metadata read (4 KiB)" — once per
 * file here, not per request), then its NFS reads of up to rsize each.
 */
export function readFile(c: MeterCase, fileSize: number, at: DataAt): Meter[] {
  return [metadataRead(), ...requestsOf(fileSize, c.nfsReadBytes).map(([n, io]) => readRequests(c, n, io, fileSize, at))];
}

/**
 * Exporting a written file to the bucket (about a minute after the last write): "metered as a
 * file system metadata and a file read" — a metadata read and one file read of its size (the data
 * minimum applies, as to any file read); an empty file has no data to read.
 */
export function exportOf(fileSize: number): Meter[] {
  return [metadataRead(), ...(fileSize > 0 ? [meter('dataRead', 1, fileSize)] : [])];
}

/**
 * Writing a new file through the mount: the create is a metadata write, the data goes in NFS
 * writes of up to wsize (data writes), `setattrs` attribute changes (metadata writes), the commit
 * — fsync, or close after writing — a metadata write, then the export.
 */
export function writeFile(c: MeterCase, fileSize: number, setattrs = 0): Meter[] {
  return [
    metadataWrite(), ...requestsOf(fileSize, c.nfsWriteBytes).map(([n, io]) => meter('dataWrite', n, io)),
    metadataWrite(setattrs), metadataWrite(fileSize > 0 ? 1 : 0), ...exportOf(fileSize),
  ];
}

/** Meters spread over `n` operations (what happens once per file, for an operation that is one I/O of it). */
export const per = (n: number, meters: Meter[]): Meter[] => meters.map((m) => ({ ...m, count: m.count / Math.max(1, n) }));

/** The rule of reading a whole file written through the S3 API (a fixture). */
export const READS_FIXTURE_FILE: S3FilesRule = { meter: (c) => readFile(c, c.fileSize, 'bucket') };
