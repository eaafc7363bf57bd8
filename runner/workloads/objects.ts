import type { WorkloadDescriptor } from '../core/workload';
import { metadataRead, metadataWrite, readFile, writeFile } from '../core/s3files-meter';
import { formatGivenSize, parseSize, SIZE_SCHEMA } from '../core/units';

export interface ObjectsParams {
  sizes: (string | number)[];
  files: number;
}

/**
 * Seed 000's object operations: for each size, upload, list, head, download and delete `files`
 * objects of incompressible data, one after another; per-operation latency and the batch total.
 */
export const objectsDescriptor = {
  name: 'objects',
  summary: 'upload, list, head, download, delete N objects per size',
  seeds: ['000-cli-vs-s3fs-vs-s3files-benchmark'],
  report: { table: 'measurements' },
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      sizes: { type: 'array', minItems: 1, items: SIZE_SCHEMA, default: ['1KiB', '100KiB', '1MiB', '10MiB', '100MiB'] },
      files: { type: 'integer', minimum: 1, maximum: 10000, default: 10 },
    },
  },
  describe: (p) => ({ sizes: p.sizes.map((s) => formatGivenSize(s)).join(','), files: String(p.files) }),
  fleet: { shared: 'the bucket', own: 'its objects, under its own prefix: every client uploads, lists, reads and deletes its own' },
  requires: [],
  operations: ['upload', 'list', 'head', 'download', 'delete'],
  payloadReads: ['download'],
  reachesBucket: ['upload', 'delete'],
  // The largest size's files, generated locally and uploaded, and one download of them.
  stepBytes: (p) => (p.files + 1) * Math.max(...p.sizes.map(parseSize)),
  // Each object goes up, is listed, headed, read and deleted: operations per object, bytes up and down.
  work: { counts: ['files'], of: (p) => ({ ops: p.sizes.length * p.files, bytes: 2 * p.files * p.sizes.reduce((a: number, s) => a + parseSize(s), 0) }) },
  s3filesMetering: {
    // One object written through the mount: create, its data in wsize writes, commit on close, and
    // the export ~60 s later (a read of the whole file and a metadata read).
    upload: { meter: (c) => writeFile(c, c.fileSize) },
    // readdir of the folder (a metadata read: "listing a directory") and a stat of each of the
    // `files` entries for its size (a metadata read each: "viewing file attributes").
    list: { meter: (c) => [metadataRead(1 + (c.files ?? 0))] },
    // stat: one metadata read.
    head: { meter: () => [metadataRead()] },
    // The files were written through the mount seconds before (upload, list, head, then download)
    // and are not yet exported: S3 Files serves every read from the file system, large ones too.
    download: { meter: (c) => readFile(c, c.fileSize, 'just-written') },
    // unlink: a metadata write (version A: "deleting files").
    delete: { meter: () => [metadataWrite()] },
  },
} as const satisfies WorkloadDescriptor<ObjectsParams>;
