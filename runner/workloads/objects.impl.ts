import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Batch } from '../core/batch';
import { writePatternFile } from '../core/data';
import { formatSize, parseSize } from '../core/units';
import type { WorkloadDefinition } from '../core/workload';
import { objectsDescriptor, type ObjectsParams } from './objects';
import { bucketSyncBoundMs, waitForObjects } from './kit/common';


/**
 * Seed 000's object operations: for each size, upload, list, head, download and delete `files`
 * objects of incompressible data, one after another; per-operation latency and the batch total.
 */
/**
 * The objects under a folder, without folder markers: a FUSE client that keeps directories as
 * objects (s3fs's `dir/`, on S3 as here) writes one when the workload makes the folder, and it is
 * none of the workload's files.
 */
const filesIn = (listing: { key: string; size: number }[]) => listing.filter((o) => o.key !== '' && !o.key.endsWith('/'));

export const objects: WorkloadDefinition<ObjectsParams> = {
  ...objectsDescriptor,
  async run(ctx) {
    const syncLagMs = bucketSyncBoundMs(ctx.fs);
    for (const rawSize of ctx.params.sizes) {
      if (ctx.signal.aborted) return;
      const size = parseSize(rawSize);
      const label = formatSize(size).replace(' ', '');
      const dir = `${ctx.prefix}${label}/`;
      const local = join(ctx.scratchDir, label);
      await mkdir(local, { recursive: true });
      ctx.progress(`${label}: generating ${ctx.params.files} files`);
      const files: { name: string; path: string; digest: string }[] = [];
      for (let i = 1; i <= ctx.params.files; i++) {
        const name = `test_${label}_${i}.dat`;
        const path = join(local, name);
        files.push({ name, path, digest: await writePatternFile(path, `${ctx.dataSeed}/${label}/${i}`, size) });
      }
      const expectListing = (listing: { key: string; size: number }[]) => {
        const sizes = new Map(listing.map((o) => [o.key, o.size]));
        const missing = files.filter((f) => sizes.get(f.name) !== size).map((f) => f.name);
        return { ok: missing.length === 0 && listing.length === files.length, missing };
      };

      ctx.progress(`${label}: upload`);
      const upload = new Batch('upload', size).plan(files.length);
      for (const f of files) await upload.op(() => ctx.session.put(dir + f.name, { path: f.path, size }), () => size);
      // A client that syncs with the bucket in the background (S3 Files exports about a minute after
      // close; a write-back cache uploads after close) is given its bound before the check, untimed.
      if (syncLagMs) await waitForObjects(ctx.stored, dir, files.map((f) => f.name), size, syncLagMs);
      const stored = expectListing(filesIn(await ctx.stored.list(dir)));
      upload.verify(stored.ok, `after upload the bucket lacks ${stored.missing.length} of ${files.length} objects of ${size} bytes`);
      ctx.record(upload.finish());

      ctx.progress(`${label}: list`);
      const list = new Batch('list', size, 'sequential', false).plan(1);
      const listing = await list.op(() => ctx.session.list(dir));
      if (listing) {
        const seen = expectListing(listing);
        list.verify(seen.ok, `listing returned ${listing.length} entries, ${seen.missing.length} expected ones missing or of wrong size`);
      }
      ctx.record(list.finish());

      ctx.progress(`${label}: head`);
      const head = new Batch('head', size, 'sequential', false).plan(files.length);
      for (const f of files) {
        const meta = await head.op(() => ctx.session.head(dir + f.name));
        if (meta) head.verify(meta.size === size, `head of ${f.name} said ${meta.size} bytes, expected ${size}`);
      }
      ctx.record(head.finish());

      ctx.progress(`${label}: download`);
      const download = new Batch('download', size).plan(files.length);
      for (const f of files) {
        const fetched = await download.op(() => ctx.session.get(dir + f.name), (r) => r.bytes);
        if (!fetched) continue;
        download.readOf(dir + f.name, fetched.bytes);
        const digest = await fetched.digest();
        await fetched.discard();
        download.verify(digest === f.digest && fetched.bytes === size, `${f.name}: downloaded data does not match what was uploaded (${fetched.bytes} bytes)`);
      }
      ctx.record(download.finish());

      ctx.progress(`${label}: delete`);
      const del = new Batch('delete', size, 'sequential', false).plan(files.length);
      for (const f of files) await del.op(() => ctx.session.delete(dir + f.name));
      let left = filesIn(await ctx.stored.list(dir));
      for (const deadline = Date.now() + syncLagMs; left.length && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 1000)); // untimed: the deletes reach the bucket with the sync
        left = filesIn(await ctx.stored.list(dir));
      }
      del.verify(left.length === 0, `${left.length} objects still present after delete`);
      ctx.record(del.finish());
      await rm(local, { recursive: true, force: true });
    }
  },
};
