import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Batch } from '../core/batch';
import { formatSize } from '../core/units';
import type { WorkloadDefinition } from '../core/workload';
import { largeReadDescriptor, type LargeReadParams } from './large-read';
import { readFixture } from './kit/common';


/**
 * Seed 001's large-file throughput: N large objects, each stream-read into SHA-256 (the read time
 * includes hashing, as in the seed), then the digest written back as a small object.
 */
export const largeRead: WorkloadDefinition<LargeReadParams> = {
  ...largeReadDescriptor,
  async run(ctx) {
    const fixture = ctx.fixture!;
    ctx.progress(`reading ${fixture.spec.count} × ${formatSize(fixture.spec.size)}`);
    ctx.record(await readFixture(ctx, 'read', fixture.spec.count, 1, true));

    ctx.progress('writing digests');
    const write = new Batch('write-digest', 64).plan(fixture.spec.count);
    const keys: string[] = [];
    for (let i = 0; i < fixture.spec.count; i++) {
      const path = join(ctx.scratchDir, `digest-${i}.sha256`);
      await writeFile(path, fixture.digestOf(i));
      const key = `${ctx.prefix}${fixture.spec.keyOf(i)}.sha256`;
      keys.push(key);
      await write.op(() => ctx.session.put(key, { path, size: 64 }), () => 64);
    }
    const stored = await ctx.stored.list(ctx.prefix);
    const present = stored.filter((o) => o.key.endsWith('.sha256') && o.size === 64).length;
    write.verify(present === keys.length, `${present} of ${keys.length} digests arrived in the bucket`);
    ctx.record(write.finish());
  },
};
