import type { Knob } from '../core/knobs';
import type { MethodDescriptor } from '../core/method';

const JUICEFS_HELP = 'juicefs mount --help (the pinned release)';

/** JuiceFS's documented mount flags a matrix may tune, by name as the variant passes them. */
const KNOBS: Record<string, Knob> = {
  buffer_size: { kind: 'integer', min: 32, max: 65536, unit: 'MiB', default: 300, summary: 'total read/write buffering', source: JUICEFS_HELP, bound: 'JuiceFS documents no range; 32 MiB to 64 GiB' },
  prefetch: { kind: 'integer', min: 0, max: 64, default: 1, summary: 'blocks prefetched in parallel', source: JUICEFS_HELP, bound: 'JuiceFS documents no maximum; 64 blocks at most' },
  cache_size: { kind: 'integer', min: 0, max: 1048576, unit: 'MiB', default: 102400, summary: 'local disk cache for reads', source: JUICEFS_HELP, bound: 'JuiceFS documents no maximum; 1 TiB at most' },
};

/**
 * JuiceFS (juicefs.impl.ts): a POSIX file system that keeps its metadata in a database and its
 * data in the bucket as 4 MiB blocks of chunks, not one object per file. So it does not offer
 * 'objects-in-bucket': fixtures are written through its own mount (untimed), and checks that look
 * at the bucket record not-applicable. A fresh volume per step: metadata in a local SQLite file
 * (the embedded default), data under the step's volume name in the bucket.
 *
 * Option names are juicefs's own flags (true = the flag, false = left out, else --name value);
 * `format_*` go to `juicefs format`, the rest to `juicefs mount`.
 */
export const juicefsDescriptor = {
  name: 'juicefs',
  kind: 'mount',
  userAgent: /^aws-sdk-go-v2\//, // JuiceFS's object client is the AWS SDK for Go v2 with its default User-Agent
  summary: 'JuiceFS (metadata in a local SQLite file, data as chunks in the bucket): full POSIX; its files are not objects',
  offers: ['file-system'],
  variants: {
    // JuiceFS's documented defaults, written out, with the two choices its docs leave to the user
    // stated: a 10 GiB local disk cache (the default of 100 GiB does not fit small runners) and no
    // writeback (close() returns once the blocks are in the bucket: its safe, default mode).
    default: {
      format_block_size: '4M', format_compress: 'none', format_trash_days: 0,
      cache_size: 10240, writeback: false, buffer_size: 300, prefetch: 1, max_uploads: 20,
      attr_cache: '1s', entry_cache: '1s', dir_entry_cache: '1s',
      // No hourly metadata dumps into the bucket, no usage report to juicefs.com.
      backup_meta: '0', no_usage_report: true,
    },
  },
  knobs: KNOBS,
} as const satisfies MethodDescriptor;
