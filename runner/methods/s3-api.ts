import {
  DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { makeS3Client } from '../endpoint/s3-client';
import type { Fetched, ListedObject, MethodDefinition, OpenContext, Options, StorageSession } from '../core/method';
import { parseSize } from '../core/units';
// The SDK's version is part of every result; esbuild inlines this JSON.
import sdkPackage from '@aws-sdk/client-s3/package.json';

/**
 * The AWS SDK for JavaScript v3 at its best practice: multipart upload (lib-storage) and parallel
 * ranged GETs for objects above the part size, over a keep-alive connection pool.
 */
export const s3Api: MethodDefinition = {
  name: 's3-api',
  kind: 'object',
  summary: 'AWS SDK for JavaScript v3: multipart upload and parallel ranged GETs, keep-alive pool',
  variants: {
    default: { part_size: '8MiB', concurrency: 10, checksums: 'WHEN_SUPPORTED' },
    // The simplest use of the SDK (one GetObject stream, one PutObject), as seed 001's Lambda did.
    'single-stream': { part_size: '5GiB', concurrency: 1, checksums: 'WHEN_SUPPORTED' },
  },
  async probe() {
    return { available: true, version: `aws-sdk-js-v3 ${sdkPackage.version}` };
  },
  async open(ctx: OpenContext): Promise<StorageSession> {
    return new S3ApiSession(ctx);
  },
};

class S3ApiSession implements StorageSession {
  readonly version = `aws-sdk-js-v3 ${sdkPackage.version}`;
  readonly options: Options;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly partSize: number;
  private readonly concurrency: number;

  constructor(private readonly ctx: OpenContext) {
    this.partSize = parseSize(String(ctx.options.part_size));
    this.concurrency = Number(ctx.options.concurrency);
    if (!(this.partSize >= 5 * 1024 * 1024)) throw new Error('s3-api option part_size must be at least 5MiB (the S3 minimum)');
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new Error('s3-api option concurrency must be a whole number ≥ 1');
    const checksums = ctx.options.checksums === 'WHEN_REQUIRED' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED';
    this.client = makeS3Client(ctx.target, { maxSockets: this.concurrency * 2, checksums });
    this.bucket = ctx.target.bucket;
    this.options = { ...ctx.options, multipart_threshold: String(ctx.options.part_size), keep_alive: true, max_sockets: this.concurrency * 2 };
  }

  async put(key: string, file: { path: string; size: number }): Promise<void> {
    const abortSignal = this.ctx.signal;
    if (file.size <= this.partSize) {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: createReadStream(file.path), ContentLength: file.size }),
        { abortSignal },
      );
      return;
    }
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: createReadStream(file.path, { highWaterMark: 1024 * 1024 }) },
      partSize: this.partSize,
      queueSize: this.concurrency,
      leavePartsOnError: false,
    });
    const onAbort = () => void upload.abort();
    abortSignal.addEventListener('abort', onAbort, { once: true });
    try {
      await upload.done();
    } finally {
      abortSignal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Parallel ranged GETs: the first part tells the size; further parts run `concurrency` at a time
   * and are hashed in order, so at most `concurrency` parts are held in memory.
   */
  async get(key: string): Promise<Fetched> {
    const hash = createHash('sha256');
    const abortSignal = this.ctx.signal;
    const fetchRange = async (start: number, end: number) => {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${start}-${end}` }),
        { abortSignal },
      );
      return res;
    };
    let first;
    try {
      first = await fetchRange(0, this.partSize - 1);
    } catch (err) {
      // An empty object has no byte 0: ranged GET answers 416.
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 416) throw err;
      first = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal });
    }
    const total = totalSize(first.ContentRange, first.ContentLength);
    let bytes = 0;
    for await (const chunk of first.Body as Readable) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    const starts: number[] = [];
    for (let s = this.partSize; s < total; s += this.partSize) starts.push(s);
    const inFlight: Promise<Uint8Array>[] = [];
    let next = 0;
    const launch = () => {
      const s = starts[next++];
      inFlight.push(fetchRange(s, Math.min(s + this.partSize, total) - 1).then((r) => r.Body!.transformToByteArray()));
    };
    while (next < starts.length && inFlight.length < this.concurrency) launch();
    try {
      while (inFlight.length) {
        const part = await inFlight.shift()!;
        hash.update(part);
        bytes += part.length;
        if (next < starts.length) launch();
      }
    } catch (err) {
      await Promise.allSettled(inFlight);
      throw err;
    }
    const digest = hash.digest('hex');
    return { bytes, digest: async () => digest, discard: async () => {} };
  }

  async list(prefix: string): Promise<ListedObject[]> {
    const out: ListedObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
        { abortSignal: this.ctx.signal },
      );
      for (const o of page.Contents ?? []) out.push({ key: o.Key!.slice(prefix.length), size: o.Size ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async head(key: string): Promise<{ size: number }> {
    const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: this.ctx.signal });
    return { size: res.ContentLength ?? 0 };
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: this.ctx.signal });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

function totalSize(contentRange: string | undefined, contentLength: number | undefined): number {
  const m = contentRange ? /\/(\d+)$/.exec(contentRange) : null;
  return m ? Number(m[1]) : (contentLength ?? 0);
}
