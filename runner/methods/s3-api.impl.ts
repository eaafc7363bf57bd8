import {
  DeleteObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileDigest } from '../core/data';
import { multipartUpload, PartBuffers, rangedDownload, type TransferSettings } from './kit/s3-transfer';
import { makeS3Client } from '../endpoint/s3-client';
import type { Fetched, ListedObject, MethodDefinition, OpenContext, Options, StorageSession } from '../core/method';
import { parseSize } from '../core/units';
import { WriterThread } from './kit/writer-thread';
// The SDK's version is part of every result; esbuild inlines this JSON.
import sdkPackage from '@aws-sdk/client-s3/package.json';
import { s3ApiDescriptor } from './s3-api';

/** The s3-api method's client: the SDK session below. */
export const s3Api: MethodDefinition = {
  ...s3ApiDescriptor,
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
  private seq = 0;
  private readonly partBuffers: PartBuffers;
  /** Started on the first download larger than a part; stopped by close(). */
  private writerThread: WriterThread | null = null;

  constructor(private readonly ctx: OpenContext) {
    this.partSize = parseSize(String(ctx.options.part_size));
    this.concurrency = Number(ctx.options.concurrency);
    if (!(this.partSize >= 5 * 1024 * 1024)) throw new Error('s3-api option part_size must be at least 5MiB (the S3 minimum)');
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new Error('s3-api option concurrency must be a whole number ≥ 1');
    const checksums = ctx.options.checksums === 'WHEN_REQUIRED' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED';
    this.client = makeS3Client(ctx.target, { maxSockets: this.concurrency * 2, checksums });
    this.bucket = ctx.target.bucket;
    this.partBuffers = new PartBuffers(this.partSize);
    this.options = {
      ...ctx.options, multipart_threshold: String(ctx.options.part_size), keep_alive: true, max_sockets: this.concurrency * 2,
      download_writes: 'writer thread for multi-part downloads',
    };
  }

  private get transfer(): TransferSettings {
    return {
      client: this.client, bucket: this.bucket, partSize: this.partSize, concurrency: this.concurrency, signal: this.ctx.signal,
      writer: () => (this.writerThread ??= new WriterThread()),
    };
  }

  async put(key: string, file: { path: string; size: number }): Promise<void> {
    if (file.size > this.partSize) return multipartUpload(this.transfer, this.partBuffers, key, file.path, file.size);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: createReadStream(file.path), ContentLength: file.size }),
      { abortSignal: this.ctx.signal },
    );
  }

  /** Parallel ranged GETs into a scratch file, as s5cmd and the AWS CLI download; hashed afterwards. */
  async get(key: string): Promise<Fetched> {
    const path = join(this.ctx.scratchDir, `download-${this.seq++}`);
    const bytes = await rangedDownload(this.transfer, key, path);
    return { bytes, digest: () => fileDigest(path), discard: () => rm(path, { force: true }) };
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
    await this.writerThread?.close();
  }
}
