import type { StoreTarget } from '../core/target';

/** How the user named the store: an S3-compatible endpoint and bucket, or a bucket on AWS S3. */
export interface TargetOptions {
  endpoint?: string;
  bucket: string;
  region?: string;
}

/** The region to use: the option, else AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1. */
function regionFor(region?: string): string {
  return region || process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1';
}

/**
 * The one way a named store becomes a StoreTarget, for `s3ab run --endpoint`, `s3ab step` and the
 * step's results bucket alike: with an endpoint, path-style requests to it (S3-compatible servers
 * on an IP or without wildcard DNS need them); without one, AWS S3's regional endpoint. Credentials
 * come from the standard AWS chain. (The embedded server makes its own target.)
 */
export function targetFor(o: TargetOptions): StoreTarget {
  const region = regionFor(o.region);
  return o.endpoint
    ? { kind: 'custom', endpointUrl: o.endpoint, region, bucket: o.bucket, forcePathStyle: true, server: null }
    : { kind: 'aws', endpointUrl: undefined, region, bucket: o.bucket, forcePathStyle: false, server: 'Amazon S3' };
}
