import { createHash, type Hash } from 'node:crypto';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readRestOnThread } from './reader-thread';

const CHUNK = 1024 * 1024;

/**
 * Reads a file front to back into SHA-256. The first 1 MiB is read here; a longer file is read on,
 * through the same open file, by a reader thread (runner/methods/kit/reader-thread.ts) with blocking 1 MiB
 * reads back to back, as fio reads, while this thread hashes what arrives: the hash overlaps the
 * file system's latency, and a late event loop does not slow the reads. `hashing: false` reads the
 * same way without hashing (the overhead check in bench:mounts).
 */
export async function readFileHashed(path: string, chunk = CHUNK, hashing = true): Promise<{ bytes: number; digest: string }> {
  const hash = createHash('sha256');
  const sink: Pick<Hash, 'update'> = hashing ? hash : { update: () => hash };
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(chunk);
    const first = (await file.read(buffer, 0, chunk, 0)).bytesRead;
    sink.update(buffer.subarray(0, first));
    // One open file: the reader thread reads on with the same descriptor.
    const bytes = first < chunk ? first : await readRestOnThread(file.fd, first, sink);
    return { bytes, digest: hashing ? hash.digest('hex') : '' };
  } finally {
    await file.close();
  }
}

/**
 * Copies a local file to `destination` with sequential 1 MiB writes (O_CREAT|O_TRUNC), reading the
 * next chunk while the previous one is written. Sequential writes only: what every S3 file system
 * accepts, including Mountpoint. Returns the bytes written.
 */
export async function copyInto(source: string, destination: string, chunk = CHUNK): Promise<number> {
  const input = await open(source, 'r');
  try {
    const output = await open(destination, 'w');
    try {
      const buffers = [Buffer.allocUnsafe(chunk), Buffer.allocUnsafe(chunk)];
      let which = 0;
      let position = 0;
      let pending = input.read(buffers[0], 0, chunk, 0);
      for (;;) {
        const { bytesRead } = await pending;
        if (bytesRead === 0) break;
        const current = buffers[which];
        which ^= 1;
        pending = input.read(buffers[which], 0, chunk, position + bytesRead);
        let written = 0;
        while (written < bytesRead) {
          const { bytesWritten } = await output.write(current, written, bytesRead - written, position + written);
          written += bytesWritten;
        }
        position += bytesRead;
      }
      await output.close();
      return position;
    } catch (err) {
      await output.close().catch(() => {});
      throw err;
    }
  } finally {
    await input.close();
  }
}

/** Every regular file under `dir` (recursively), with its size from lstat: one readdir per directory, one lstat per entry. */
export async function walkFiles(dir: string): Promise<{ path: string; size: number }[]> {
  const out: { path: string; size: number }[] = [];
  const visit = async (rel: string) => {
    const entries = await readdir(join(dir, rel));
    for (const name of entries) {
      const relPath = rel ? `${rel}/${name}` : name;
      const st = await lstat(join(dir, relPath));
      if (st.isDirectory()) await visit(relPath);
      else out.push({ path: relPath, size: st.size });
    }
  };
  await visit('');
  return out;
}
