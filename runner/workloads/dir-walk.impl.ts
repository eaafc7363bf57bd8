import { Batch } from '../core/batch';
import type { WorkloadDefinition } from '../core/workload';
import { dirWalkDescriptor, type DirWalkParams } from './dir-walk';


/**
 * Seed 001's large-directory walk: N small objects under one prefix; enumerate every entry and
 * read its metadata (ListObjectsV2 pages through an object method; readdir + stat on a mount).
 * ops is the number of entries, so ops/s is entries per second.
 */
export const dirWalk: WorkloadDefinition<DirWalkParams> = {
  ...dirWalkDescriptor,
  async run(ctx) {
    const fixture = ctx.fixture!;
    // One listing of every entry: one operation planned (entries become its ops once it ends).
    const walk = new Batch('walk', fixture.spec.size, 'sequential', false).plan(1);
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
