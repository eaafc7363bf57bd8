import type { MethodDescriptor, Options } from '../core/method';

/**
 * s3fs's own `-o` options by name: true = the flag, false = left out, anything else = name=value.
 * `use_cache: true` gets a cache folder on a RAM disk, as seed 000's /tmp was tmpfs.
 * sigv2 is off in both seed sets: AWS S3 has refused Signature V2 for buckets created since June
 * 2020 and versitygw refuses it too (s3fs then fails with "invalid credentials"); s3fs's default
 * (V4) is used instead. Set `sigv2: true` in a matrix to try it.
 */
const SEED_000: Options = { use_cache: true, enable_noobj_cache: true, use_path_request_style: true, sigv2: false };
const SEED_003: Options = {
  kernel_cache: true, max_stat_cache_size: 100000, multipart_size: 52, parallel_count: 30, multireq_max: 30,
  max_background: 1000, dbglevel: 'warn', sigv2: false, cipher_suites: 'AESGCM',
};

/** s3fs-fuse (s3fs.impl.ts): one object per file, uploads on close. */
export const s3fsDescriptor = {
  name: 's3fs',
  kind: 'mount',
  userAgent: /^s3fs\//,
  summary: 's3fs-fuse: FUSE mount, one object per file; upload on close; optional local file cache',
  offers: ['file-system', 'objects-in-bucket'],
  variants: {
    // Best practice: seed 003's tuned set (big parts, many parallel requests, kernel cache).
    default: SEED_003,
    // Seed 000's set: a local file cache on tmpfs and a cache of missing objects.
    'seed-000': SEED_000,
  },
} as const satisfies MethodDescriptor;
