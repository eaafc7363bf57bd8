import type { Capability } from './capabilities';
import type { Knob } from './knobs';
import type { StoreTarget } from './target';

type OptionValue = string | number | boolean;
export type Options = Record<string, OptionValue>;

/** Whether a method can run on this host, and its client version when it can. */
export interface Availability {
  available: boolean;
  version?: string;
  /** Why not, and how to fix it, when unavailable. */
  reason?: string;
  /** The client's executable, where it has one. */
  path?: string;
  /**
   * The host itself lacks what the method needs (a kernel NFS client): installing the method's
   * components does not help, so no install command is offered for it.
   */
  hostLacks?: boolean;
}

export interface ListedObject {
  /** Key relative to the listed prefix. */
  key: string;
  size: number;
}

/**
 * Something the data came back as: the bytes were consumed as they arrived (`s3-api`) or landed in
 * a file (`aws-cli`). `digest()` gives their SHA-256 (computed while streaming where possible);
 * `discard()` frees what is left.
 */
export interface Fetched {
  bytes: number;
  digest(): Promise<string>;
  discard(): Promise<void>;
}

/**
 * A mounted bucket, for workloads written against plain POSIX paths (fio, the semantics probe,
 * metadata operations, git clone, tar extraction, parallel readers in worker threads or child
 * processes: anything that can be given a directory). Present on mount methods' sessions only.
 */
export interface FileSystemAccess {
  /** The mount point: the bucket's root directory. */
  readonly mountPoint: string;
  /** Local path of a bucket key (`a/b.txt` → `<mountPoint>/a/b.txt`). */
  pathOf(key: string): string;
  /**
   * True when close() returns before the data is in the bucket (a write-back cache, e.g. rclone's
   * --vfs-cache-mode writes): a write is only done when the object is there, so time it until then.
   */
  readonly uploadsAfterClose: boolean;
  /** Bounds of the client's background sync with the bucket (zero for clients that talk to S3 directly). */
  readonly bucketLag: { readonly exportMs: number; readonly importMs: number };
  /**
   * A cold start: unmounts, empties the client's own cache, drops the kernel's caches and mounts
   * again. The next access goes to the store. With `keepDiskCache` the client's disk cache is
   * kept (memory caches are still dropped): the next access is served from that disk cache.
   */
  remount(opts?: { keepDiskCache?: boolean }): Promise<void>;
  /** True when the client keeps a local disk cache (s3fs use_cache, Mountpoint --cache, ...). */
  readonly diskCache: boolean;
  /** Throws a clear error when the client process died or the mount went away. */
  check(): void;
  /** Pid of the client process (null for kernel clients such as NFS). */
  readonly clientPid: number | null;
}

/**
 * One opened method: the operations every storage workload is written against.
 * Object methods implement it on the S3 API; mount methods implement it on POSIX paths.
 * Keys are relative to the bucket.
 */
export interface StorageSession {
  /** Client version and the options in force, recorded in every result. */
  readonly version: string;
  readonly options: Options;
  /** The mounted file system (mount methods only). */
  readonly fs?: FileSystemAccess;
  put(key: string, file: { path: string; size: number }): Promise<void>;
  get(key: string): Promise<Fetched>;
  /** Every object under `prefix` (which ends with '/'), with its size: the metadata of each entry. */
  list(prefix: string): Promise<ListedObject[]>;
  head(key: string): Promise<{ size: number }>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
  /**
   * Ends the session at once without waiting on its client (the step watchdog fired): a mount's
   * FUSE connection is aborted, the mount detached, the client killed. close() still follows.
   * @default nothing beyond the step's abort (which stops object clients)
   */
  abandon?(why: string): void;
}

export interface OpenContext {
  target: StoreTarget;
  options: Options;
  /** A private local directory for the session's temporary files, removed after the step. */
  scratchDir: string;
  /**
   * The step's volume name, for a client that keeps its data in the bucket under a name rather
   * than a prefix (JuiceFS): `s3ab-RUNID-…-STEP`; the step's end and the run's end remove it.
   * @default `s3ab-session-PID-TIME` (tests and benches against a throwaway server)
   */
  volumeName?: string;
  signal: AbortSignal;
  /** Ends the step early with this reason (a mount whose client died mid-run). */
  abortStep?: (reason: Error) => void;
  /** The runner's own S3 client, to see when written data has really arrived (untimed checks). */
  reference?: { head(key: string): Promise<{ size: number } | null> };
  /** Told about each mount as it comes up (tests use it to inject faults). */
  onMounted?: (info: { method: string; mountPoint: string; clientPid: number | null }) => void;
}

/**
 * What an access method is, as data: everything a matrix is checked against and `s3ab list`, the
 * report and the Lambdas read, without loading the method's client code. One per method in
 * runner/methods/NAME.ts, listed in runner/methods/catalog.ts.
 */
export interface MethodDescriptor {
  readonly name: string;
  /** 'object' methods speak the S3 API; 'mount' methods expose the bucket as a file system. */
  readonly kind: 'object' | 'mount';
  readonly summary: string;
  /**
   * What its client sends as User-Agent, to tell its requests apart in a server's access log
   * (the cost model's step figures). Absent for clients that make no S3 request of their own (NFS).
   */
  readonly userAgent?: RegExp;
  /** What it offers workloads (runner/core/capabilities.ts). */
  readonly offers: readonly Capability[];
  /** Named option sets; 'default' is the method's best-practice configuration. */
  readonly variants: Readonly<Record<string, Options>>;
  /**
   * The client's documented settings a matrix may tune (`tune`: runner/core/tune.ts), by option
   * name, with their defaults and ranges. Absent: the method has none to tune.
   */
  readonly knobs?: Readonly<Record<string, Knob>>;
}

/** How an access method works: its client code (runner/methods/NAME.impl.ts). */
interface MethodImplementation {
  /** Is it installed and usable here? Never throws. */
  probe(): Promise<Availability>;
  open(ctx: OpenContext): Promise<StorageSession>;
}

/** A method the runner can run: its descriptor joined with its implementation (runner/methods/index.ts). */
export type MethodDefinition = MethodDescriptor & MethodImplementation;
