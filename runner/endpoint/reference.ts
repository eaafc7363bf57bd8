import { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { HashingStream, patternStream } from '../core/data';
import type { Fixture, FixtureSpec } from '../core/workload';

const SINGLE_PUT_LIMIT = 16 * 1024 * 1024;

/**
 * The runner's own S3 client, independent of the method under test: it writes fixtures, checks
 * what a method left in the bucket, and removes the run's objects afterwards. Never timed.
 */
export class ReferenceStore {
  constructor(readonly client: S3Client, readonly bucket: string) {}

  async list(prefix: string): Promise<{ key: string; size: number }[]> {
    const out: { key: string; size: number }[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) out.push({ key: o.Key!.slice(prefix.length), size: o.Size ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async head(key: string): Promise<{ size: number } | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: res.ContentLength ?? 0 };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async getBytes(key: string): Promise<Buffer | null> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async putBytes(key: string, body: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: body.length }));
  }

  /** Deletes every object under `prefix`, 1000 per request. */
  async deletePrefix(prefix: string): Promise<number> {
    let deleted = 0;
    for (;;) {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix }));
      const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
      if (!keys.length) return deleted;
      const res = await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }));
      if (res.Errors?.length) throw new Error(`could not delete ${res.Errors[0].Key}: ${res.Errors[0].Message}`);
      deleted += keys.length;
    }
  }

  /** Writes a fixture's objects (deterministic data, so each digest is known) with `parallel` uploads at once. */
  async writeFixture(spec: FixtureSpec, prefix: string, parallel: number, onProgress: (done: number) => void): Promise<Fixture> {
    const digests: string[] = new Array(spec.count);
    let next = 0;
    let done = 0;
    const seedOf = (i: number) => `fixture/${spec.id}/${i}`;
    const worker = async () => {
      while (next < spec.count) {
        const i = next++;
        const hashing = new HashingStream();
        const body = patternStream(seedOf(i), spec.size).pipe(hashing);
        const key = prefix + spec.keyOf(i);
        if (spec.size <= SINGLE_PUT_LIMIT) {
          await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: spec.size }));
        } else {
          await new Upload({ client: this.client, params: { Bucket: this.bucket, Key: key, Body: body }, partSize: 8 * 1024 * 1024, queueSize: 4 }).done();
        }
        digests[i] = hashing.digest();
        onProgress(++done);
      }
    };
    const workers = spec.size > SINGLE_PUT_LIMIT ? 1 : parallel;
    await Promise.all(Array.from({ length: Math.min(workers, spec.count) }, worker));
    return { spec, prefix, digestOf: (i) => digests[i] };
  }
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}
