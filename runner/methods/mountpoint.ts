import type { MethodDescriptor, Options } from '../core/method';

/** Flags both variants share (by name: true = the flag, false = left out, else --name value). */
const COMMON: Options = { allow_delete: true, allow_overwrite: true, part_size: '8MiB', max_threads: 16 };

/**
 * Mountpoint for Amazon S3 (mountpoint.impl.ts). Like upstream it refuses rename (ENOSYS) on
 * general-purpose buckets.
 */
export const mountpointDescriptor = {
  name: 'mountpoint',
  kind: 'mount',
  userAgent: /^(mountpoint-s3|s3ab-mount-s3)\//, // mount-s3 and the launcher (s3-crt's client names mountpoint-s3-client after itself)
  summary: 'Mountpoint for Amazon S3 (mount-s3 / mountpoint-s3-fs): fast sequential reads; no rename, append or in-place writes on general-purpose buckets',
  offers: ['file-system', 'objects-in-bucket'],
  variants: {
    // Upstream defaults plus delete and overwrite, which the workloads need; no caching.
    default: { ...COMMON, cache: false, metadata_ttl: 'minimal' },
    // AWS's advice for repeated reads: a local data cache (metadata then cached 60 s, upstream's default with --cache).
    cached: { ...COMMON, cache: true, metadata_ttl: '60' },
  },
} as const satisfies MethodDescriptor;
