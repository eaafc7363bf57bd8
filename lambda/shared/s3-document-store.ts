import { CopyObjectCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createWriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Document, DocumentStore } from './documents';

/**
 * Seed 001's "before" pattern: documents are objects under PREFIX/inbox/; each is downloaded to
 * /tmp and read from there, metadata is uploaded, and a move is CopyObject + DeleteObject
 * (S3 has no rename).
 */
export class S3DocumentStore implements DocumentStore {
  readonly method = 's3-api';
  readonly variant = 'lambda';
  readonly cache = 'none' as const;
  readonly version: string;
  readonly options: Record<string, string>;

  constructor(private readonly client: S3Client, private readonly bucket: string, private readonly prefix: string, private readonly tmpDir = '/tmp', sdkVersion = 'unknown') {
    if (!prefix.endsWith('/')) throw new Error(`prefix "${prefix}" must end with /`);
    this.version = `aws-sdk-js-v3 ${sdkVersion}`;
    this.options = { download: 'GetObject to /tmp', move: 'CopyObject + DeleteObject', metadata: 'PutObject' };
  }

  private key(dir: 'inbox' | 'processed', name: string): string {
    return `${this.prefix}${dir}/${name}`;
  }

  async seed(docs: Document[]): Promise<void> {
    await Promise.all(docs.map((d) => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key('inbox', d.name), Body: d.body }))));
  }

  private async listUnder(prefix: string): Promise<string[]> {
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) names.push(o.Key!.slice(prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return names;
  }

  list(): Promise<string[]> {
    return this.listUnder(`${this.prefix}inbox/`);
  }

  listProcessed(): Promise<string[]> {
    return this.listUnder(`${this.prefix}processed/`);
  }

  async read(name: string): Promise<Buffer> {
    const local = join(this.tmpDir, `s3ab-${name}`);
    const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key('inbox', name) }));
    await pipeline(res.Body as Readable, createWriteStream(local));
    try {
      return await readFile(local);
    } finally {
      // Lambda reuses /tmp between invocations: clean as seed 001 does.
      await rm(local, { force: true });
    }
  }

  async writeMetadata(name: string, body: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key('processed', `${name}.meta.json`), Body: body, ContentType: 'application/json' }));
  }

  async move(name: string): Promise<void> {
    await this.client.send(new CopyObjectCommand({
      Bucket: this.bucket, Key: this.key('processed', name), CopySource: `${this.bucket}/${encodeURI(this.key('inbox', name))}`,
    }));
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key('inbox', name) }));
  }

  async cleanup(): Promise<void> {
    const keys = [...(await this.list()).map((n) => this.key('inbox', n)), ...(await this.listProcessed()).map((n) => this.key('processed', n))];
    for (let i = 0; i < keys.length; i += 1000) {
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }));
    }
  }
}
