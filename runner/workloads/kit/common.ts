import type { Measurement } from '../../core/batch';
import type { FileSystemAccess } from '../../core/method';
import type { ReferenceView, WorkloadContext } from '../../core/workload';
import { Batch } from '../../core/batch';

/** Reads objects 0..count-1 of the fixture with up to `concurrency` in flight, verifying each SHA-256. */
export async function readFixture<P>(ctx: WorkloadContext<P>, operation: string, count: number, concurrency: number, includeDigest: boolean): Promise<Measurement> {
  const fixture = ctx.fixture!;
  const batch = new Batch(operation, fixture.spec.size, concurrency > 1 ? 'concurrent' : 'sequential').plan(count);
  let next = 0;
  const worker = async () => {
    while (next < count && !ctx.signal.aborted) {
      const i = next++;
      const key = fixture.prefix + fixture.spec.keyOf(i);
      let digest: string | undefined;
      const fetched = await batch.op(
        async () => {
          const f = await ctx.session.get(key);
          if (includeDigest) digest = await f.digest();
          return f;
        },
        (f) => f.bytes,
      );
      if (!fetched) continue;
      batch.readOf(key, fetched.bytes);
      digest ??= await fetched.digest();
      await fetched.discard();
      const expected = fixture.digestOf(i);
      batch.verify(digest === expected && fetched.bytes === fixture.spec.size,
        `${key}: read ${fetched.bytes} bytes with SHA-256 ${digest.slice(0, 12)}…, expected ${fixture.spec.size} bytes ${expected.slice(0, 12)}…`);
    }
  };
  batch.start();
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return batch.finish();
}

/**
 * How long a check may wait for what a mount wrote to be in the bucket: a write-back client (rclone)
 * gets two minutes to upload after close, a file system that syncs in the background (S3 Files)
 * its export bound; every other client has uploaded before close returned (`floorMs` at least).
 */
export function bucketSyncBoundMs(fs: Pick<FileSystemAccess, 'uploadsAfterClose' | 'bucketLag'> | null, floorMs = 0): number {
  return fs ? Math.max(fs.uploadsAfterClose ? 120_000 : floorMs, fs.bucketLag.exportMs) : 0;
}

/**
 * Waits until every one of `names` is an object of `size` bytes under `prefix` (polled through the
 * runner's reference client, untimed by the caller unless it chooses). A write-back client uploads
 * after close; every other client has uploaded before close returned, so the first look decides.
 */
export async function waitForObjects(
  reference: Pick<ReferenceView, 'list'>, prefix: string, names: string[], size: number, timeoutMs: number,
): Promise<{ ok: boolean; problem: string | null }> {
  return waitForObjectSizes(reference, prefix, names.map((key) => ({ key, size })), timeoutMs);
}

/** waitForObjects for objects of different sizes: every `key` (relative to `prefix`) with its `size`. */
export async function waitForObjectSizes(
  reference: Pick<ReferenceView, 'list'>, prefix: string, expected: { key: string; size: number }[], timeoutMs: number,
): Promise<{ ok: boolean; problem: string | null }> {
  const deadline = Date.now() + timeoutMs;
  // A listing of thousands of keys takes a while: poll it less often.
  const longest = expected.length > 1000 ? 1000 : 100;
  for (let delay = 5; ; delay = Math.min(delay * 2, longest)) {
    const sizes = new Map((await reference.list(prefix)).map((o) => [o.key, o.size]));
    const missing = expected.filter((e) => sizes.get(e.key) !== e.size);
    if (!missing.length) return { ok: true, problem: null };
    if (Date.now() > deadline) {
      const first = missing[0];
      const sized = new Set(expected.map((e) => e.size)).size === 1 ? ` with ${first.size} bytes` : ' with their sizes';
      return {
        ok: false,
        problem: `${missing.length} of ${expected.length} files were not in the bucket${sized} ${Math.round(timeoutMs / 1000)} s after close (e.g. ${first.key}: ${sizes.get(first.key) ?? 'absent'}${sized === ' with their sizes' ? `, expected ${first.size}` : ''})`,
      };
    }
    await new Promise((r) => setTimeout(r, delay));
  }
}
