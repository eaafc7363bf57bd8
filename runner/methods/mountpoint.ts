import type { Knob } from '../core/knobs';
import type { MethodDescriptor, Options } from '../core/method';

const MOUNT_S3_HELP = 'mount-s3 --help (Mountpoint\'s doc/CONFIGURATION.md)';

/** Mountpoint's documented settings a matrix may tune; flags by option name as the variants pass them. */
const KNOBS: Record<string, Knob> = {
  // Used for GETs and PUTs alike, so within S3's multipart part limits.
  part_size: { kind: 'size', min: '5MiB', max: '5GiB', default: '8MiB', summary: 'part size of its ranged GETs and multipart PUTs (--part-size)', source: `${MOUNT_S3_HELP}; S3's part limits, 5 MiB to 5 GiB` },
  max_threads: { kind: 'integer', min: 1, max: 1024, default: 16, summary: 'FUSE daemon threads (--max-threads)', source: MOUNT_S3_HELP, bound: 'Mountpoint documents no maximum; 1024 keeps a grid within what one host runs' },
  metadata_ttl: {
    kind: 'number-or', keywords: ['minimal', 'indefinite'], min: 1, max: 31536000, integer: true, unit: 's', default: 'minimal',
    summary: 'how long cached metadata stays valid (--metadata-ttl; 60 s with --cache)', source: `${MOUNT_S3_HELP}; 0 is deprecated upstream in favour of minimal`,
    bound: 'a year at most: longer is indefinite',
  },
  cache: { kind: 'boolean', default: false, summary: 'local data cache in the step\'s scratch folder (--cache DIR)', source: MOUNT_S3_HELP },
};

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
  knobs: KNOBS,
} as const satisfies MethodDescriptor;
