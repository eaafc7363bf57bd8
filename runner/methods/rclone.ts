import type { MethodDescriptor, Options } from '../core/method';

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
} as const satisfies MethodDescriptor;
