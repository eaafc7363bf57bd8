import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForFixtureOnMount } from '../../runner/run/fixture-visibility';
import type { FileSystemAccess } from '../../runner/core/method';
import type { Fixture } from '../../runner/core/workload';

/** A directory standing in for a mount whose client imports bucket changes late (S3 Files). */
function lateMount(root: string, importMs: number): FileSystemAccess {
  return { mountPoint: root, pathOf: (key: string) => join(root, key), uploadsAfterClose: false, bucketLag: { exportMs: 0, importMs } } as unknown as FileSystemAccess;
}

const fixture: Fixture = {
  spec: { id: 'tiny', count: 3, size: 4, keyOf: (i) => `f${i}.bin` },
  prefix: 'fx/',
  digestOf: () => '',
  crc32Of: () => 0,
};

describe('waiting for a fixture on a mount that imports bucket changes late', () => {
  const root = mkdtempSync(join(tmpdir(), 's3ab-late-mount-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const signal = new AbortController().signal;

  test('returns at once for clients that read the bucket directly (no stat at all)', async () => {
    const fs = lateMount(join(root, 'nothing-here'), 0);
    await expect(waitForFixtureOnMount(fs, fixture, signal, () => {})).resolves.toBe(0);
  });

  test('waits until every object is there with its size, then returns the untimed wait', async () => {
    const dir = join(root, 'late');
    mkdirSync(join(dir, 'fx'), { recursive: true });
    writeFileSync(join(dir, 'fx', 'f0.bin'), 'abcd');
    writeFileSync(join(dir, 'fx', 'f1.bin'), 'ab'); // partly imported: wrong size for now
    setTimeout(() => {
      writeFileSync(join(dir, 'fx', 'f1.bin'), 'abcd');
      writeFileSync(join(dir, 'fx', 'f2.bin'), 'abcd');
    }, 300);
    const notes: string[] = [];
    const waited = await waitForFixtureOnMount(lateMount(dir, 10_000), fixture, signal, (t) => notes.push(t), 50);
    expect(waited).toBeGreaterThanOrEqual(250);
    expect(notes[0]).toMatch(/waiting for the fixture to appear on the mount \(1 of 3 there/);
  });

  test('fails naming the missing objects and the bound when the import is slower than it', async () => {
    const dir = join(root, 'never');
    mkdirSync(join(dir, 'fx'), { recursive: true });
    writeFileSync(join(dir, 'fx', 'f0.bin'), 'abcd');
    await expect(waitForFixtureOnMount(lateMount(dir, 200), fixture, signal, () => {}, 50))
      .rejects.toThrow(/2 of 3 objects of the fixture tiny, written through the S3 API, are not on the mount after 0 s \(first: fx\/f1\.bin\).*slower than its 0 s bound/);
  });
});
