import type { WorkloadDescriptor } from '../core/workload';
import { writeFile } from '../core/s3files-meter';
import { formatGivenSize, formatSize, parseSize, SIZE_SCHEMA } from '../core/units';
import { treeCapacity, type TreeSpec } from '../core/tree-plan';

export interface TarExtractParams {
  /** Files in the archive (seed 002's ZFS source: 4,280; seed 004's kernel tree: ~54K). */
  files: number;
  /** Directories (seed 004's kernel tree: 3,657). */
  dirs: number;
  /** Total bytes of the files (seed 004: 726 MB). */
  totalSize: string | number;
  /** Every file is smaller than this (seed 004: 2 MB). */
  maxSize: string | number;
}

const TAR_EXTRACT_PARAMS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // Defaults: seconds (quick); the seed profile sets seed 002's 4,280 files (57 MB), full seed 004's kernel tree.
    files: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 200 },
    dirs: { type: 'integer', minimum: 1, maximum: 100_000, default: 15 },
    totalSize: { ...SIZE_SCHEMA, default: '2MB' },
    maxSize: { ...SIZE_SCHEMA, default: '2MB' },
  },
};

export function tarTree(p: TarExtractParams): TreeSpec {
  return { id: 'tar-extract', files: p.files, dirs: p.dirs, totalBytes: parseSize(p.totalSize), maxFileBytes: parseSize(p.maxSize) };
}

/** The archive must be able to hold `totalSize` in `files` files each smaller than `maxSize`. */
function validateTarExtractParams(p: TarExtractParams): { problem: string; fix: string } | null {
  const total = parseSize(p.totalSize);
  const max = parseSize(p.maxSize);
  const capacity = treeCapacity(p.files, max);
  if (total <= capacity) return null;
  const filesNeeded = Math.ceil(total / Math.max(1, max - 1));
  const maxNeeded = Math.ceil(total / p.files) + 1;
  return {
    problem: `${p.files} files each smaller than ${formatSize(max)} cannot hold totalSize ${formatSize(total)} (at most ${formatSize(capacity)})`,
    fix: `raise files to at least ${filesNeeded}, raise maxSize to at least ${formatSize(maxNeeded)} (${maxNeeded} bytes), or lower totalSize to at most ${formatSize(capacity)}`,
  };
}

/**
 * Seeds 002 and 004's `tar -xf` onto the mounted bucket, of a generated source-tree archive
 * (built offline, cached). Needs a file system.
 */
export const tarExtractDescriptor = {
  name: 'tar-extract',
  summary: 'tar -xf of a source-tree archive onto the mount; contents, modes, times checked',
  seeds: ['002-zerofs-vs-mountpoint-benchmarks', '004-efs-vs-objectivefs-small-files'],
  report: { table: 'measurements', checks: ['permissions', 'timestamps', 'ownership'] },
  // It writes its own files every time: a warm pass on the same mount would repeat the cold one.
  coldOnly: true,
  paramsSchema: TAR_EXTRACT_PARAMS_SCHEMA,
  validate: validateTarExtractParams,
  // The implementation adds the tar version (tar-extract.impl.ts).
  describe: (p) => ({ files: String(p.files), dirs: String(p.dirs), totalSize: formatGivenSize(p.totalSize), maxSize: formatGivenSize(p.maxSize) }),
  fleet: { shared: 'the store', own: 'its extracted tree, in its own folder' },
  requires: ['file-system'],
  operations: ['extract', 'permissions', 'timestamps', 'ownership'],
  reachesBucket: ['extract'],
  // The archive (cached locally) and the tree extracted from it into objects.
  stepBytes: (p) => 2 * parseSize(p.totalSize),
  // Unbudgeted, a big tree on a slow client takes hours (seed 002 extrapolated two): half a second a file.
  stepLimitS: (p) => Math.max(3600, 1800 + p.files / 2),
  work: { counts: ['files', 'dirs', 'totalSize'], of: (p) => ({ ops: p.files + p.dirs, bytes: parseSize(p.totalSize) }) },
  s3filesMetering: {
    // One operation is one extracted file (bytes per operation: the mean file size): create, data,
    // GNU tar -p as root setting mode, owner and times (three metadata writes: "changing
    // permissions"), commit on close, export. The archive's directories (one per 15 files) are left out.
    extract: { meter: (c) => writeFile(c, c.perOpBytes, 3) },
    permissions: { notModelled: 'an untimed check of what the extraction kept' },
    timestamps: { notModelled: 'an untimed check of what the extraction kept' },
    ownership: { notModelled: 'an untimed check of what the extraction kept' },
  },
} as const satisfies WorkloadDescriptor<TarExtractParams>;
