import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { MarkerStore } from '../core/barrier';

/**
 * A fleet's start-barrier markers as objects (runners of an AWS execution): PREFIX/ROUND/CLIENT,
 * empty, in a bucket every runner reaches (the results bucket: the barrier's polling stays out of
 * the measured data bucket's requests). A marker's stamp is its Last-Modified — S3's clock, one
 * for every runner, in whole seconds (FLEET_BARRIER.s3.leadMs covers the rounding).
 */
export class S3Markers implements MarkerStore {
  readonly where: string;

  /** `prefix`: the run's own, ending in "/" (fleet-barrier/RUNID/). */
  constructor(private readonly client: S3Client, private readonly bucket: string, private readonly prefix: string, private readonly signal?: AbortSignal) {
    if (!prefix.endsWith('/')) throw new Error(`S3Markers: prefix "${prefix}" must end with "/"`);
    this.where = `s3://${bucket}/${prefix}`;
  }

  private get options() {
    return this.signal ? { abortSignal: this.signal } : undefined;
  }

  async put(round: string, client: number): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: `${this.prefix}${safe(round)}/${client}`, Body: '', ContentLength: 0 }), this.options);
  }

  async list(round: string): Promise<{ client: number; atMs: number }[]> {
    return (await this.keys(`${this.prefix}${safe(round)}/`))
      .map((o) => ({ client: Number(o.key.slice(o.key.lastIndexOf('/') + 1)), atMs: o.atMs }))
      .filter((m) => Number.isInteger(m.client) && m.client >= 1);
  }

  /** One DeleteObject per marker (a handful per step): each request names its key, as IAM sees it. */
  async removeOwn(client: number): Promise<void> {
    const mine = (await this.keys(this.prefix)).filter((o) => o.key.endsWith(`/${client}`));
    for (const o of mine) await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: o.key }), this.options);
  }

  private async keys(prefix: string): Promise<{ key: string; atMs: number }[]> {
    const out: { key: string; atMs: number }[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }), this.options);
      for (const o of page.Contents ?? []) out.push({ key: o.Key!, atMs: o.LastModified?.getTime() ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }
}

const safe = (round: string) => round.replace(/[^A-Za-z0-9._-]/g, '_');
