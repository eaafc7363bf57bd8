import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WriterThread } from '../../runner/methods/kit/writer-thread';

describe('the writer thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-writer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('writes handed-over and copied chunks at their offsets, in any order, and flushes before close', async () => {
    const writer = new WriterThread(4 * 1024);
    const path = join(dir, 'out');
    const fd = openSync(path, 'w');
    const expected = Buffer.alloc(64 * 1024);
    for (let i = 0; i < expected.length; i++) expected[i] = (i * 7) % 251;
    let paused = 0;
    // Chunks of 1 KiB, written back to front; even ones own their buffer (handed over), odd ones are views (copied).
    for (let off = expected.length - 1024; off >= 0; off -= 1024) {
      const chunk = (off / 1024) % 2 === 0 ? Buffer.from(expected.subarray(off, off + 1024)) : expected.subarray(off, off + 1024);
      if (!writer.write(fd, chunk, off)) paused++;
    }
    expect(paused).toBeGreaterThan(0); // the 4 KiB backlog asked the source to pause
    await writer.flushed(fd);
    closeSync(fd);
    expect(readFileSync(path).equals(expected)).toBe(true);
    // The views were copied, not detached: the source buffer is intact.
    expect(expected[1024]).toBe((1024 * 7) % 251);
    await writer.close();
  });

  test('a failed write surfaces from flushed() with the system error', async () => {
    const writer = new WriterThread();
    const fd = openSync(join(dir, 'ro'), 'w');
    closeSync(fd);
    const readOnly = openSync(join(dir, 'ro'), 'r');
    writer.write(readOnly, Buffer.from('data'), 0);
    await expect(writer.flushed(readOnly)).rejects.toMatchObject({ code: 'EBADF' });
    closeSync(readOnly);
    await writer.close();
  });
});
