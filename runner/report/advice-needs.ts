import type { Need as MatrixNeed } from '../core/matrix.generated';
import { PROBES } from '../workloads/semantics';

/**
 * What an application may need of a method, and the semantics probes that decide it: the one
 * table the advisor (advice.ts) reads. A need holds for a method only when every probe it lists was
 * measured and supported in every repetition; a probe marked `delay` also needs its measured
 * propagation delay (the median over repetitions) to be at most the advisor's delay threshold.
 * The needs' names are the matrix format's (`advice.needs`, assets/schema/matrix.schema.json): the
 * table must define exactly those, which the compiler checks.
 */

type Probe = (typeof PROBES)[number];

export interface NeedProbe {
  probe: Probe;
  /** The probe measures a propagation delay: the need holds only within the delay threshold. */
  delay?: true;
}

export interface NeedDefinition {
  /** What the application does that needs it, for --help and the docs. */
  what: string;
  probes: readonly NeedProbe[];
}

const p = (...probes: Probe[]): NeedProbe[] => probes.map((probe) => ({ probe }));

export const NEEDS = {
  create: { what: 'creates new files', probes: p('create') },
  overwrite: { what: 'rewrites existing files in place', probes: p('overwrite') },
  append: { what: 'appends to files (logs, journals)', probes: p('append') },
  'random-write': { what: 'writes at offsets inside a file (databases, archives)', probes: p('random-write') },
  truncate: { what: 'truncates files', probes: p('truncate') },
  rename: { what: 'renames files and directories (atomic saves, tar, build tools)', probes: p('rename-file', 'rename-dir') },
  delete: { what: 'deletes files', probes: p('delete') },
  directories: { what: 'creates and removes directories', probes: p('mkdir-rmdir') },
  symlinks: { what: 'makes symbolic links', probes: p('symlink') },
  hardlinks: { what: 'makes hard links', probes: p('hardlink') },
  permissions: { what: 'sets modes and owners (chmod, chown)', probes: p('chmod', 'chown') },
  timestamps: { what: 'sets file times (utimes: tar, rsync, make)', probes: p('utimes') },
  'open-file-attrs': { what: 'reads the attributes of a file it holds open', probes: p('attrs-on-open-file') },
  locks: { what: 'locks files (flock and fcntl)', probes: p('flock', 'fcntl-lock') },
  'read-after-write': {
    what: 'reads through S3 what it wrote through the mount: in the bucket at close, and within the delay threshold',
    probes: [{ probe: 'read-after-write' }, { probe: 'mount-to-s3-delay', delay: true }],
  },
  'sees-s3-writes': {
    what: 'reads on the mount what others wrote through S3, within the delay threshold',
    probes: [{ probe: 's3-to-mount-delay', delay: true }],
  },
} as const satisfies Record<MatrixNeed, NeedDefinition>;

export type Need = keyof typeof NEEDS;

/** Every need's name, in the table's order. */
export const NEED_NAMES = Object.keys(NEEDS) as Need[];

export const isNeed = (name: string): name is Need => Object.hasOwn(NEEDS, name);

/** The delay threshold of the propagation probes when none is given: a second, the order of an interactive wait. */
export const DEFAULT_MAX_DELAY_MS = 1000;
