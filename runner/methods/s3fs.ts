import type { Knob } from '../core/knobs';
import type { MethodDescriptor, Options } from '../core/method';

const S3FS_HELP = 's3fs --help (the s3fs(1) man page)';

/** s3fs's documented `-o` options a matrix may tune, by name as the variants pass them. */
const KNOBS: Record<string, Knob> = {
  parallel_count: { kind: 'integer', min: 1, max: 1000, default: 5, summary: 'parallel requests of a multipart upload', source: S3FS_HELP, bound: 's3fs documents no maximum ("depending on a CPU and a network band"); 1000 at most' },
  multipart_size: { kind: 'integer', min: 5, max: 5120, unit: 'MB', default: 10, summary: 'part size of each multipart request', source: `${S3FS_HELP}: "minimum 5 MB, maximum 5 GB"` },
  max_stat_cache_size: { kind: 'integer', min: 0, max: 10000000, unit: 'entries', default: 100000, summary: 'entries of the stat (metadata) cache', source: S3FS_HELP, bound: 's3fs documents no maximum; ten million entries is about 4 GB of its memory' },
  stat_cache_expire: { kind: 'integer', min: 0, max: 31536000, unit: 's', default: 900, summary: 'how long a stat cache entry stays valid', source: S3FS_HELP, bound: 'a year at most' },
};

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
  knobs: KNOBS,
} as const satisfies MethodDescriptor;
