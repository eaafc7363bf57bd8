import { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, ListObjectVersionsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { HashingStream, patternStream } from '../core/data';
import { FIXTURE_WRITES, fixtureSeed, type Fixture, type FixtureSpec } from '../core/workload';

const SINGLE_PUT_LIMIT = FIXTURE_WRITES.singlePutLimit;

/**
 * The runner's own S3 client, independent of the method under test: it writes fixtures, checks
 * what a method left in the bucket, and removes the run's objects afterwards. Never timed.
 */
export class ReferenceStore {
  /** `signal` ends every request of this view at once when it aborts (a step's or a run's end). */
  constructor(readonly client: S3Client, readonly bucket: string, private readonly signal?: AbortSignal) {}

  /**
   * The same store, every request of it ended when `signal` aborts: a check inside a step must not
   * outlive the step (each request's own bounds, 30 s idle times 3 attempts, would hold it for
   * minutes against an endpoint that stopped answering).
   */
  boundTo(signal: AbortSignal): ReferenceStore {
    return new ReferenceStore(this.client, this.bucket, signal);
  }

  private get options(): { abortSignal?: AbortSignal } {
    return this.signal ? { abortSignal: this.signal } : {};
  }

  async list(prefix: string): Promise<{ key: string; size: number }[]> {
    const out: { key: string; size: number }[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }), this.options);
      for (const o of page.Contents ?? []) out.push({ key: o.Key!.slice(prefix.length), size: o.Size ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async head(key: string): Promise<{ size: number } | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), this.options);
      return { size: res.ContentLength ?? 0 };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async getBytes(key: string): Promise<Buffer | null> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), this.options);
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async putBytes(key: string, body: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: body.length }), this.options);
  }

  /** Versions per key under `prefix` (relative keys); `versioned` false when every version is S3's "null" one. */
  async versions(prefix: string): Promise<{ versioned: boolean; counts: Map<string, number> }> {
    const counts = new Map<string, number>();
    let versioned = false;
    let keyMarker: string | undefined;
    let versionMarker: string | undefined;
    do {
      const page = await this.client.send(new ListObjectVersionsCommand({ Bucket: this.bucket, Prefix: prefix, KeyMarker: keyMarker, VersionIdMarker: versionMarker }), this.options);
      for (const v of page.Versions ?? []) {
        const key = v.Key!.slice(prefix.length);
        counts.set(key, (counts.get(key) ?? 0) + 1);
        if (v.VersionId && v.VersionId !== 'null') versioned = true;
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      versionMarker = page.IsTruncated ? page.NextVersionIdMarker : undefined;
    } while (keyMarker);
    return { versioned, counts };
  }

  /** Deletes every object under `prefix`, 1000 per request. */
  async deletePrefix(prefix: string): Promise<number> {
    let deleted = 0;
    for (;;) {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix }), this.options);
      const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
      if (!keys.length) return deleted;
      const res = await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }), this.options);
      if (res.Errors?.length) throw new Error(`could not delete ${res.Errors[0].Key}: ${res.Errors[0].Message}`);
      deleted += keys.length;
    }
  }

  /**
   * Writes a fixture's objects (deterministic data, so each digest is known): objects up to the
   * single-PUT limit `parallel` at a time, larger ones one after another as multipart uploads.
   */
  async writeFixture(spec: FixtureSpec, prefix: string, parallel: number, onProgress: (done: number) => void): Promise<Fixture> {
    const digests: string[] = new Array(spec.count);
    const crcs: number[] = new Array(spec.count);
    let done = 0;
    const seedOf = (i: number) => fixtureSeed(spec, i);
    const sizeOf = (i: number) => spec.sizeOf?.(i) ?? spec.size;
    const upload = async (i: number) => {
      const size = sizeOf(i);
      const hashing = new HashingStream();
      const body = patternStream(seedOf(i), size).pipe(hashing);
      const key = prefix + spec.keyOf(i);
      if (size <= SINGLE_PUT_LIMIT) {
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: size }), this.options);
      } else {
        const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: key, Body: body }, partSize: FIXTURE_WRITES.partSize, queueSize: FIXTURE_WRITES.partsInFlight });
        const abortUpload = () => void upload.abort().catch(() => {});
        this.signal?.addEventListener('abort', abortUpload, { once: true });
        try {
          await upload.done();
        } finally {
          this.signal?.removeEventListener('abort', abortUpload);
        }
      }
      digests[i] = hashing.digest();
      crcs[i] = hashing.crc;
      onProgress(++done);
    };
    const all = Array.from({ length: spec.count }, (_, i) => i);
    const small = all.filter((i) => sizeOf(i) <= SINGLE_PUT_LIMIT);
    let next = 0;
    const worker = async () => {
      while (next < small.length && !this.signal?.aborted) await upload(small[next++]);
    };
    await Promise.all(Array.from({ length: Math.min(parallel, small.length) }, worker));
    for (const i of all.filter((x) => sizeOf(x) > SINGLE_PUT_LIMIT)) await upload(i);
    if (this.signal?.aborted) throw this.signal.reason;
    return { spec, prefix, digestOf: (i) => digests[i], crc32Of: (i) => crcs[i] };
  }
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}
