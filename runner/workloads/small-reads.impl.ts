import type { WorkloadDefinition } from '../core/workload';
import { smallReadsDescriptor, type SmallReadsParams } from './small-reads';
import { readFixture } from './kit/common';


/** Seed 001's small-file reads: read N small objects, each verified by SHA-256. */
export const smallReads: WorkloadDefinition<SmallReadsParams> = {
  ...smallReadsDescriptor,
  async run(ctx) {
    ctx.record(await readFixture(ctx, 'read', ctx.params.files, ctx.params.concurrency, false));
  },
};
