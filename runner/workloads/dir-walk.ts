import { Batch } from '../core/batch';
import { formatSize } from '../core/units';
import type { WorkloadDefinition } from '../core/workload';
import { SIZE_SCHEMA, sizeOf } from './common';

interface DirWalkParams {
  objects: number;
  size: string | number;
}

/**
 * Seed 001's large-directory walk: N small objects under one prefix; enumerate every entry and
 * read its metadata (ListObjectsV2 pages through an object method; readdir + stat on a mount).
 * ops is the number of entries, so ops/s is entries per second.
 */
export const dirWalk: WorkloadDefinition<DirWalkParams> = {
  name: 'dir-walk',
  summary: 'enumerate N small objects under one prefix with their metadata (seed 001)',
  seed: '001-s3files-lambda-before-after-and-ec2-three-way',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      objects: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 10000 },
      size: { ...SIZE_SCHEMA, default: '1KiB' },
    },
  },
  describe: (p) => ({ objects: String(p.objects), size: formatSize(sizeOf(p.size)) }),
  fixture: (p) => ({
    id: `dir-walk-${p.objects}x${sizeOf(p.size)}`,
    count: p.objects,
    size: sizeOf(p.size),
    keyOf: (i) => `file-${String(i).padStart(6, '0')}.txt`,
  }),
  async run(ctx) {
    const fixture = ctx.fixture!;
    const walk = new Batch('walk', fixture.spec.size, 'sequential', false);
    const listing = await walk.op(() => ctx.session.list(fixture.prefix));
    const m = walk.finish();
    if (listing) {
      const bad = listing.filter((o) => o.size !== fixture.spec.size).length;
      const ok = listing.length === fixture.spec.count && bad === 0;
      m.verified = ok && m.failed === 0;
      if (!ok) {
        m.status = 'failed';
        m.errorSample = `walk saw ${listing.length} entries (${bad} of wrong size), expected ${fixture.spec.count}`;
      }
      // One walk visits every entry: count entries as operations.
      m.ops = m.ok = listing.length;
    }
    ctx.record(m);
  },
};
