import prices from '../../assets/prices.json';
import { METER_CATEGORIES, type MeterCase, type MeterCategory, type S3FilesRule } from '../core/s3files-meter';
import { NFS_OPTIONS } from '../core/nfs-options';
import { s3filesDescriptor } from '../methods/s3files';
import { findWorkloadDescriptor } from '../workloads/catalog';

/**
 * Amazon S3 Files' own metering, modelled: what S3 Files would charge, besides the S3 requests it
 * makes, for the file operations of one measurement of the `s3files` method. A model from AWS's
 * published metering rules, not a bill: nothing here sees S3 Files' meters (docs/honest-numbers.md "Requests and
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
 * Which file operations each workload operation makes is the workload's own fact (its descriptor's
 * `s3filesMetering`, written with runner/core/s3files-meter.ts); this file holds the prices, the
 * metered sizes and the sum.
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
const ROUND_UP_BYTES = METERING.roundUpKiB * KiB;
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
interface S3FilesNotModelled {
  modelled: false;
  reason: string;
}

export type S3FilesModel = S3FilesMetering | S3FilesNotModelled;

export interface MeteringOptions {
  /** The direct-read cutoff (default DIRECT_READ_CUTOFF_BYTES, version A of AWS's metering page). */
  directReadCutoffBytes?: number;
}

/**
 * The rule for a workload's operation: the workload descriptor's `s3filesMetering` (its entry for
 * the operation, or '*'), the one mapping of the model (test/unit/s3files-metering.test.ts checks
 * that every declared operation has one).
 */
export function s3filesRule(workload: string, operation: string): S3FilesRule | undefined {
  const rules = findWorkloadDescriptor(workload)?.s3filesMetering;
  return rules?.[operation] ?? rules?.['*'];
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
  const c: MeterCase = {
    fileSize: m.objectSizeBytes ?? perOpBytes, perOpBytes, files: m.files ?? null,
    cutoff: opts.directReadCutoffBytes ?? DIRECT_READ_CUTOFF_BYTES, importBelow: IMPORT_SIZE_LESS_THAN_BYTES,
    // The mount's NFS read and write sizes (runner/core/nfs-options.ts).
    nfsReadBytes: NFS_OPTIONS.rsize, nfsWriteBytes: NFS_OPTIONS.wsize,
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
