import type { WorkloadDescriptor } from '../core/workload';



export interface SemanticsParams {
  /** How long the propagation probes (and checks of write-back uploads) wait, in seconds (at least the client's own sync bound, see MountPlan.bucketLag). */
  propagation_timeout_s: number;
}

/** The probes, in the order they run and reports show them: the single list. */
export const PROBES = [
  'create', 'overwrite', 'append', 'random-write', 'truncate', 'rename-file', 'rename-dir', 'delete', 'mkdir-rmdir',
  'symlink', 'hardlink', 'chmod', 'chown', 'utimes', 'attrs-on-open-file', 'flock', 'fcntl-lock', 'read-after-write', 's3-to-mount-delay', 'mount-to-s3-delay',
] as const;

/**
 * Rows of requests only (core/vocabulary.ts): the files the probes work on, created before each
 * probe as setup; and what the server answered after the last probe — the remount and checks of
 * what persisted, uploads that land late.
 */
export const PROBE_SETUP = '(probe setup)';
export const AFTER_PROBES = '(after probes)';

/**
 * POSIX semantics and propagation delays, per method: every operation that succeeds is checked by
 * reading the data back on the mount and in the bucket (and metadata after a fresh mount); one that
 * returns success but leaves wrong data is recorded as unsupported, with the reason.
 */
export const semanticsDescriptor = {
  name: 'semantics',
  summary: 'POSIX semantics probe (create, append, rename, links, locks, ...) and S3↔mount propagation delays, each verified',
  seeds: ['001-s3files-lambda-before-after-and-ec2-three-way'],
  report: { table: 'semantics' },
  coldOnly: true,
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      propagation_timeout_s: { type: 'number', minimum: 1, maximum: 3600, default: 30 },
    },
  },
  describe: (p) => ({ propagation_timeout_s: String(p.propagation_timeout_s) }),
  fleet: { notApplicable: 'its probes check one client\'s view of its own writes; run by N clients at once they would measure the same thing N times' },
  requires: ['file-system'],
  operations: PROBES,
  // A fixed set of probes: its time is theirs and their propagation waits, not a count.
  work: { counts: [], of: () => ({ ops: PROBES.length, bytes: 0 }) },
  // Every probe but the locks: each changes the bucket, reads what only it holds, or (metadata)
  // must persist across a fresh mount, which on a method whose files are objects means in the bucket.
  reachesBucket: PROBES.filter((p) => p !== 'flock' && p !== 'fcntl-lock'),
  s3filesMetering: {
    // Each probe is a short sequence of different operations and checks (and the propagation probes
    // mostly wait).
    '*': { notModelled: 'a probe is a sequence of different file operations and checks' },
  },
} as const satisfies WorkloadDescriptor<SemanticsParams>;
