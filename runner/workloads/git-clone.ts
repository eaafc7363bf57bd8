import type { WorkloadDescriptor } from '../core/workload';



export interface GitCloneParams {
  /** Files at the head commit. */
  files: number;
  /** Commits of history. */
  commits: number;
}

const GIT_CLONE_PARAMS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // Defaults: seconds (quick); the seed and full profiles set their own sizes.
    files: { type: 'integer', minimum: 1, maximum: 200_000, default: 60 },
    commits: { type: 'integer', minimum: 1, maximum: 100_000, default: 8 },
  },
};

/**
 * Seed 002's `git clone` onto the mounted bucket, from a generated local repository with a real
 * history (built offline with git fast-import, cached). Needs a file system.
 */
export const gitCloneDescriptor = {
  name: 'git-clone',
  summary: 'git clone onto the mount from a local repository with history; checkout verified',
  seeds: ['002-zerofs-vs-mountpoint-benchmarks'],
  report: { table: 'measurements' },
  // It writes its own files every time: a warm pass on the same mount would repeat the cold one.
  coldOnly: true,
  paramsSchema: GIT_CLONE_PARAMS_SCHEMA,
  // The implementation adds the git version (git-clone.impl.ts).
  describe: (p) => ({ files: String(p.files), commits: String(p.commits) }),
  fleet: { shared: 'the store', own: 'its clone, in its own folder (N developers cloning at once)' },
  requires: ['file-system'],
  operations: ['clone'],
  // Unbudgeted, a big history on a slow client takes hours, as a big tar does: half a second a file.
  stepLimitS: (p) => Math.max(3600, 1800 + p.files / 2),
  // The clone writes the head commit's files and the history's objects.
  work: { counts: ['files', 'commits'], of: (p) => ({ ops: p.files + p.commits, bytes: 0 }) },
  reachesBucket: ['clone'],
  s3filesMetering: {
    // One operation is a whole clone: thousands of creates, writes, renames and fsyncs that the
    // record does not itemize.
    clone: { notModelled: 'one operation is a whole git clone, whose file operations the record does not itemize' },
  },
} as const satisfies WorkloadDescriptor<GitCloneParams>;
