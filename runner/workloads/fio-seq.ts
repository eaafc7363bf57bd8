import type { WorkloadDescriptor } from '../core/workload';
import { exportOf, meter, metadataRead, metadataWrite, per, readRequests, requestsOf, type MeterCase } from '../core/s3files-meter';
import { formatGivenSize, parseSize, SIZE_SCHEMA } from '../core/units';

export interface FioSeqParams {
  sizes: (string | number)[];
  files: number;
/** 'direct' (O_DIRECT, as seed 000) and/or 'buffered' (through the page cache). */
  io: ('direct' | 'buffered')[];
  ioengine: 'libaio' | 'psync' | 'sync';
  max_block_size: string | number;
}

/** fio's I/O size: bytes per operation, or its block size rule (the file size, at most 1 MiB) where nothing moved. */
const fioBlock = (c: MeterCase) => (c.perOpBytes > 0 ? c.perOpBytes : Math.min(c.fileSize, 1024 * 1024));

/**
 * Seed 000's fio runs: per size, N files written sequentially, then read back sequentially
 * (bs = file size, at most 1 MiB; libaio at queue depth 1; O_DIRECT and/or buffered). fio's JSON
 * becomes the records (IOPS, MB/s, latency from lat_ns); reads check the crc32c headers the write
 * pass put in every block. On a cold pass the mount is remounted between write and read.
 */
export const fioSeqDescriptor = {
  name: 'fio-seq',
  summary: 'fio sequential write then read of N files per size, direct and/or buffered',
  seeds: ['000-cli-vs-s3fs-vs-s3files-benchmark'],
  report: { table: 'measurements' },
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      sizes: { type: 'array', minItems: 1, items: SIZE_SCHEMA, default: ['1KiB', '100KiB', '1MiB', '10MiB', '100MiB'] },
      files: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
      io: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: ['direct', 'buffered'] }, default: ['direct'] },
      ioengine: { enum: ['libaio', 'psync', 'sync'], default: 'libaio' },
      max_block_size: { ...SIZE_SCHEMA, default: '1MiB' },
    },
  },
  describe: (p) => ({
    sizes: p.sizes.map((s) => formatGivenSize(s)).join(','), files: String(p.files), io: p.io.join(','),
    ioengine: p.ioengine, max_block_size: formatGivenSize(p.max_block_size),
  }),
  fleet: { shared: 'the store and its bandwidth', own: 'its files, in its own folder: each client writes then reads its own' },
  requires: ['file-system'],
  operations: ['read', 'write'],
  payloadReads: ['read'],
  reachesBucket: ['write'],
  // The largest size's files, written through the mount (a write-back cache may hold them all) into objects.
  stepBytes: (p) => p.files * Math.max(...p.sizes.map(parseSize)),
  // Each file is written, then read, in each I/O mode.
  work: { counts: ['files'], of: (p) => ({ ops: p.sizes.length * p.files * p.io.length, bytes: 2 * p.files * p.io.length * p.sizes.reduce((a: number, s) => a + parseSize(s), 0) }) },
  s3filesMetering: {
    // One operation is one fio I/O of its block size: data writes (of up to wsize each); the file's
    // create, commit and export are shared by its I/Os.
    write: {
      meter: (c) => [
        ...requestsOf(fioBlock(c), c.nfsWriteBytes).map(([n, io]) => meter('dataWrite', n, io)),
        ...per(Math.ceil(c.fileSize / fioBlock(c)), [metadataWrite(2), ...exportOf(c.fileSize)]),
      ],
    },
    // One operation is one fio I/O (NFS reads of up to rsize each). fio-seq reads only after its
    // written files are in the bucket (it waits for them), so they are exported and on
    // high-performance storage: a read below the cutoff is a data read, one at or above it streams
    // from the bucket. The open's metadata read is shared by the file's I/Os.
    read: {
      meter: (c) => [
        ...requestsOf(fioBlock(c), c.nfsReadBytes).map(([n, io]) => readRequests(c, n, io, c.fileSize, 'exported')),
        ...per(Math.ceil(c.fileSize / fioBlock(c)), [metadataRead()]),
      ],
    },
  },
} as const satisfies WorkloadDescriptor<FioSeqParams>;
