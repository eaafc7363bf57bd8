import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Batch, type Measurement } from '../core/batch';
import { writePatternFile } from '../core/data';
import { formatSize, parseSize } from '../core/units';
import type { WorkloadContext, WorkloadDefinition } from '../core/workload';
import { objectsDescriptor, type ObjectsParams } from './objects';
import { bucketSyncBoundMs, waitForObjects } from './kit/common';

/**
 * The objects under a folder, without folder markers: a FUSE client that keeps directories as
 * objects (s3fs's `dir/`, on S3 as here) writes one when the workload makes the folder, and it is
 * none of the workload's files.
 */
const filesIn = (listing: { key: string; size: number }[]) => listing.filter((o) => o.key !== '' && !o.key.endsWith('/'));

/** One size's round: its files, written locally, and the folder they go to. */
interface Round {
  ctx: WorkloadContext<ObjectsParams>;
  size: number;
  dir: string;
  files: { name: string; path: string; digest: string }[];
  /** How long a client that syncs with the bucket in the background may take (0: none). */
  syncLagMs: number;
}

/**
 * Seed 000's object operations: for each size, upload, list, head, download and delete `files`
 * objects of incompressible data, one after another; per-operation latency and the batch total.
 */
export const objects: WorkloadDefinition<ObjectsParams> = {
  ...objectsDescriptor,
  async run(ctx) {
    const syncLagMs = bucketSyncBoundMs(ctx.fs);
    for (const rawSize of ctx.params.sizes) {
      if (ctx.signal.aborted) return;
      const size = parseSize(rawSize);
      const label = formatSize(size).replace(' ', '');
      const local = join(ctx.scratchDir, label);
      const files = await generateFiles(ctx, size, label, local);
      const round: Round = { ctx, size, dir: `${ctx.prefix}${label}/`, files, syncLagMs };
      for (const [operation, step] of [['upload', upload], ['list', list], ['head', head], ['download', download], ['delete', del]] as const) {
        ctx.progress(`${label}: ${operation}`);
        ctx.record(await step(round));
      }
      await rm(local, { recursive: true, force: true });
    }
  },
};

async function generateFiles(ctx: WorkloadContext<ObjectsParams>, size: number, label: string, local: string): Promise<Round['files']> {
  await mkdir(local, { recursive: true });
  ctx.progress(`${label}: generating ${ctx.params.files} files`);
  const files: Round['files'] = [];
  for (let i = 1; i <= ctx.params.files; i++) {
    const name = `test_${label}_${i}.dat`;
    const path = join(local, name);
    files.push({ name, path, digest: await writePatternFile(path, `${ctx.dataSeed}/${label}/${i}`, size) });
  }
  return files;
}

/** Whether a listing holds every file of the round at its size, and nothing else. */
function expectListing(round: Round, listing: { key: string; size: number }[]): { ok: boolean; missing: string[] } {
  const sizes = new Map(listing.map((o) => [o.key, o.size]));
  const missing = round.files.filter((f) => sizes.get(f.name) !== round.size).map((f) => f.name);
  return { ok: missing.length === 0 && listing.length === round.files.length, missing };
}

async function upload(round: Round): Promise<Measurement> {
  const { ctx, size, dir, files, syncLagMs } = round;
  const batch = new Batch('upload', size).plan(files.length);
  for (const f of files) await batch.op(() => ctx.session.put(dir + f.name, { path: f.path, size }), () => size);
  // A client that syncs with the bucket in the background (S3 Files exports about a minute after
  // close; a write-back cache uploads after close) is given its bound before the check, untimed.
  if (syncLagMs) await waitForObjects(ctx.stored, dir, files.map((f) => f.name), size, syncLagMs);
  const stored = expectListing(round, filesIn(await ctx.stored.list(dir)));
  batch.verify(stored.ok, `after upload the bucket lacks ${stored.missing.length} of ${files.length} objects of ${size} bytes`);
  return batch.finish();
}

async function list(round: Round): Promise<Measurement> {
  const batch = new Batch('list', round.size, 'sequential', false).plan(1);
  const listing = await batch.op(() => round.ctx.session.list(round.dir));
  if (listing) {
    const seen = expectListing(round, listing);
    batch.verify(seen.ok, `listing returned ${listing.length} entries, ${seen.missing.length} expected ones missing or of wrong size`);
  }
  return batch.finish();
}

async function head({ ctx, size, dir, files }: Round): Promise<Measurement> {
  const batch = new Batch('head', size, 'sequential', false).plan(files.length);
  for (const f of files) {
    const meta = await batch.op(() => ctx.session.head(dir + f.name));
    if (meta) batch.verify(meta.size === size, `head of ${f.name} said ${meta.size} bytes, expected ${size}`);
  }
  return batch.finish();
}

async function download({ ctx, size, dir, files }: Round): Promise<Measurement> {
  const batch = new Batch('download', size).plan(files.length);
  for (const f of files) {
    const fetched = await batch.op(() => ctx.session.get(dir + f.name), (r) => r.bytes);
    if (!fetched) continue;
    batch.readOf(dir + f.name, fetched.bytes);
    const digest = await fetched.digest();
    await fetched.discard();
    batch.verify(digest === f.digest && fetched.bytes === size, `${f.name}: downloaded data does not match what was uploaded (${fetched.bytes} bytes)`);
  }
  return batch.finish();
}

async function del({ ctx, size, dir, files, syncLagMs }: Round): Promise<Measurement> {
  const batch = new Batch('delete', size, 'sequential', false).plan(files.length);
  for (const f of files) await batch.op(() => ctx.session.delete(dir + f.name));
  let left = filesIn(await ctx.stored.list(dir));
  for (const deadline = Date.now() + syncLagMs; left.length && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 1000)); // untimed: the deletes reach the bucket with the sync
    left = filesIn(await ctx.stored.list(dir));
  }
  batch.verify(left.length === 0, `${left.length} objects still present after delete`);
  return batch.finish();
}
