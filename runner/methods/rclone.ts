import type { Knob } from '../core/knobs';
import type { MethodDescriptor, Options } from '../core/method';

const RCLONE_HELP = 'rclone mount --help and rclone help flags (the pinned release)';

/** rclone's documented mount flags a matrix may tune, by name as the variants pass them (without --). */
const KNOBS: Record<string, Knob> = {
  vfs_cache_mode: { kind: 'choice', values: ['off', 'minimal', 'writes', 'full'], default: 'off', summary: 'what the VFS caches on local disk', source: RCLONE_HELP },
  buffer_size: { kind: 'size', min: '0', max: '1GiB', default: '16MiB', summary: 'in-memory read buffer per open file', source: RCLONE_HELP, bound: 'rclone documents no maximum; it is held per open file, so 1 GiB at most' },
  vfs_read_ahead: { kind: 'size', min: '0', max: '16GiB', default: '0', summary: 'extra read-ahead on disk beyond --buffer-size (cache mode full)', source: RCLONE_HELP, bound: 'rclone documents no maximum; 16 GiB at most of the step\'s scratch disk' },
  // Needs rclone 1.68 or later (the pinned 1.75 has it).
  vfs_read_chunk_streams: { kind: 'integer', min: 0, max: 64, default: 0, summary: 'parallel streams of a file\'s read (0: one sequential stream)', source: RCLONE_HELP, bound: 'rclone documents no maximum; 64 streams at most' },
};

/**
 * rclone's mount flags by name (without the leading --). The S3 remote is given through
 * RCLONE_S3_* variables, so no secret appears in `ps`.
 *  - expect_continue_timeout 0: rclone otherwise waits 1 s for "100 Continue" on every multipart
 *    part against servers that do not send it (versitygw, MinIO).
 *  - vfs_write_back 0s: with a write cache, start the upload at close instead of rclone's default
 *    5 s later; the write is timed until the object is in the bucket either way.
 */
const COMMON: Options = { expect_continue_timeout: '0', vfs_write_back: '0s', dir_cache_time: '5m0s', s3_chunk_size: '5Mi', s3_upload_concurrency: 4 };

/** rclone mount over rclone's S3 backend (rclone.impl.ts). */
export const rcloneDescriptor = {
  name: 'rclone',
  kind: 'mount',
  userAgent: /^rclone\//,
  summary: 'rclone mount (VFS over the S3 backend); with a write cache, uploads after close',
  offers: ['file-system', 'objects-in-bucket'],
  variants: {
    // rclone's advice for applications that expect a file system: cache writes locally.
    default: { vfs_cache_mode: 'writes', ...COMMON },
    // No local cache: streaming reads and writes, no random writes.
    off: { vfs_cache_mode: 'off', ...COMMON },
  },
  knobs: KNOBS,
} as const satisfies MethodDescriptor;
