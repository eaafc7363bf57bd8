import type { WorkloadDescriptor } from '../core/workload';
import { metadataRead } from '../core/s3files-meter';
import { formatGivenSize, parseSize, SIZE_SCHEMA } from '../core/units';

export interface DirWalkParams {
  objects: number;
  size: string | number;
}

/**
 * Seed 001's large-directory walk: N small objects under one prefix; enumerate every entry and
 * read its metadata (ListObjectsV2 pages through an object method; readdir + stat on a mount).
 * ops is the number of entries, so ops/s is entries per second.
 */
export const dirWalkDescriptor = {
  name: 'dir-walk',
  summary: 'enumerate N small objects under one prefix with their metadata',
  seeds: ['001-s3files-lambda-before-after-and-ec2-three-way'],
  report: { table: 'measurements' },
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      objects: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 10000 },
      size: { ...SIZE_SCHEMA, default: '1KiB' },
    },
  },
  describe: (p) => ({ objects: String(p.objects), size: formatGivenSize(p.size) }),
  fixture: (p) => ({
    id: `dir-walk-${p.objects}x${parseSize(p.size)}`,
    count: p.objects,
    size: parseSize(p.size),
    keyOf: (i) => `file-${String(i).padStart(6, '0')}.txt`,
  }),
  fleet: { shared: 'the fixture tree: every client walks the same objects', own: 'nothing (it only reads)' },
  requires: [],
  operations: ['walk'],
  work: { counts: ['objects'], of: (p) => ({ ops: p.objects, bytes: 0 }) },
  s3filesMetering: {
    // One operation is one entry: its stat is a metadata read. The readdir calls (one per page of
    // entries) are left out: fewer than one per hundred entries.
    walk: { meter: () => [metadataRead()] },
  },
} as const satisfies WorkloadDescriptor<DirWalkParams>;
