import { stat } from 'node:fs/promises';
import { relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FileSystemAccess } from '../core/method';
import { fixtureFilesOn, type Fixture, type FixtureFile } from '../core/workload';

/**
 * Waits, untimed, until every object of `fixture` (written through the S3 API) is on the mount
 * with its size: clients that sync with the bucket in the background (S3 Files) show new objects
 * only after a while, and a workload that started earlier would fail on files that are merely late.
 * Returns at once for clients that talk to S3 directly (`bucketLag.importMs` 0). Throws naming the
 * missing files when they are still not there after `importMs`.
 */
export async function waitForFixtureOnMount(
  fs: FileSystemAccess, fixture: Fixture, signal: AbortSignal, note: (text: string) => void, pollMs = 2000,
): Promise<number> {
  const limit = fs.bucketLag.importMs;
  if (limit <= 0) return 0;
  const started = Date.now();
  const { spec } = fixture;
  let missing = fixtureFilesOn(fs, fixture);
  for (;;) {
    const still: FixtureFile[] = [];
    for (const file of missing) {
      const found = await stat(file.path).then((s) => s.size, () => -1);
      if (found !== file.size) still.push(file);
    }
    missing = still;
    const waited = Date.now() - started;
    if (!missing.length) return waited;
    if (waited >= limit) {
      throw new Error(`${missing.length} of ${spec.count} objects of the fixture ${spec.id}, written through the S3 API, are not on the mount after ${Math.round(waited / 1000)} s (first: ${relative(fs.mountPoint, missing[0].path)}): the file system's import from the bucket is slower than its ${Math.round(limit / 1000)} s bound`);
    }
    note(`waiting for the fixture to appear on the mount (${spec.count - missing.length} of ${spec.count} there; the file system imports bucket changes in the background)`);
    await sleep(pollMs, undefined, { signal });
  }
}
