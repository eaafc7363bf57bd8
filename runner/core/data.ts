import { createCipheriv, createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { crc32 } from 'node:zlib';
import { pipeline } from 'node:stream/promises';

const CHUNK = 1024 * 1024;
const ZEROS = Buffer.alloc(CHUNK);

/**
 * Incompressible, reproducible test data: the AES-256-CTR keystream of a seed string.
 * Runs at GB/s, so generating data never limits a measurement, and the same seed always gives
 * the same bytes (and SHA-256), which lets every read be checked without keeping a copy.
 */
export function patternStream(seed: string, size: number): Readable {
  const key = createHash('sha256').update(seed).digest();
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  let left = size;
  return new Readable({
    highWaterMark: CHUNK,
    read() {
      if (left <= 0) {
        this.push(null);
        return;
      }
      const n = Math.min(CHUNK, left);
      left -= n;
      this.push(cipher.update(n === CHUNK ? ZEROS : ZEROS.subarray(0, n)));
    },
  });
}

/** The first `size` bytes of the pattern for `seed`, in memory (the same bytes as patternStream). */
export function patternBuffer(seed: string, size: number): Buffer {
  const key = createHash('sha256').update(seed).digest();
  return createCipheriv('aes-256-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(size));
}

/** A pass-through stream that hashes what flows through it (SHA-256, and CRC-32 in `crc`). */
export class HashingStream extends Transform {
  private readonly hash = createHash('sha256');
  bytes = 0;
  crc = 0;
  _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.hash.update(chunk);
    this.crc = crc32(chunk, this.crc);
    this.bytes += chunk.length;
    done(null, chunk);
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}

/** Writes the pattern for `seed` to `path`; returns its SHA-256. */
export async function writePatternFile(path: string, seed: string, size: number): Promise<string> {
  const hashing = new HashingStream();
  await pipeline(patternStream(seed, size), hashing, createWriteStream(path));
  return hashing.digest();
}

/** SHA-256 of the pattern for `seed`, without storing it. */
export async function patternDigest(seed: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of patternStream(seed, size)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** SHA-256 of a file, streamed. */
export async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
