import type { StoreTarget } from '../../core/target';
import type { Availability, Options } from '../../core/method';

/** Upper bounds of a client's background sync with its bucket, in ms. */
export interface BucketLag {
  /** A closed file reaching the bucket. */
  exportMs: number;
  /** An object written through the S3 API appearing on the mount. */
  importMs: number;
}

/**
 * How a mount method's client is started for one mount. Each mount method's driver (runner/methods/NAME.impl.ts)
 * turns its options into one of these; the shared
 * machinery in runner/methods/kit/mount-session.ts mounts it, waits until it is ready, serves POSIX
 * paths, resets caches and unmounts.
 */
export interface MountPlan {
  /**
   * Commands run once before the first mount of the session, each to success (JuiceFS: `juicefs
   * format` of the step's volume). @default none
   */
  prepare?: { what: string; command: string; args: string[]; env?: Record<string, string | undefined> }[];
  /** Executable and arguments. */
  command: string;
  args: string[];
  /** Environment changes for the client (undefined removes a variable). */
  env?: Record<string, string | undefined>;
  /**
   * 'foreground': the command is the file-system client and stays in the foreground for the life
   * of the mount (FUSE clients; the runner owns the process). 'helper': the command mounts and
   * exits, the kernel is the client (NFS: S3 Files, EFS).
   */
  lifecycle: 'foreground' | 'helper';
  /** Directories holding the client's own cache: emptied before a cold mount. */
  cacheDirs: string[];
  /**
   * Whether the cache in `cacheDirs` serves reads (a data cache), so that a remount keeping it
   * measures reads from it. Default: true when there are cache directories. (rclone's
   * `--vfs-cache-mode writes` caches written files only.)
   */
  cachesReads?: boolean;
  /**
   * True when close() returns before the data is uploaded (write-back caches): writes are then
   * timed until the objects are in the bucket.
   */
  uploadsAfterClose: boolean;
  /**
   * How long the bucket may lag behind the file system and back, for clients that keep their own
   * copy and sync it with the bucket in the background (S3 Files: about a minute each way in seed
   * 001). Untimed waits for checks use these bounds. @default none (the client talks to S3 itself)
   */
  bucketLag?: BucketLag;
  /** Every option that shapes the client's behaviour, as recorded in results (no secrets). */
  recorded: Options;
  /**
   * A server the kernel's client mounts from, started before each mount and stopped after each
   * unmount (ZeroFS: its NFS server over the bucket). Its cache is among `cacheDirs`, so a cold
   * mount restarts it with an empty one. @default none
   */
  server?: MountServer;
}

/** A file-system server beside a mount (runner/methods/kit/mount-server.ts runs it). */
export interface MountServer {
  /** What it is, in messages. */
  what: string;
  command: string;
  args: string[];
  /** Environment changes for the server (undefined removes a variable): secrets go here, never in args. */
  env?: Record<string, string | undefined>;
  /** The loopback address it serves on: it is ready when a TCP connection there succeeds. */
  listens: { host: string; port: number };
}

export interface MountPlanContext {
  target: StoreTarget;
  options: Options;
  /** The empty directory to mount on. */
  mountPoint: string;
  /** A private directory on a RAM disk for credentials files and logs; removed after the step. */
  workDir: string;
  /**
   * A private directory on the local disk (in the step's scratch folder) for a client's data cache,
   * so that a "warm disk cache" is one; removed after the step. (On a host whose temporary folder
   * is itself a RAM disk, it is one too: the session then reports no disk cache.)
   */
  diskDir: string;
  /** The step's volume name, for a client that keeps its data under a name (core/vocabulary.ts stepVolumeName). */
  volumeName: string;
}

/**
 * How a mount method's client is installed-checked and started (runner/methods/NAME.impl.ts);
 * `mountMethod()` (runner/methods/kit/mount-session.ts) joins it with the method's descriptor into a
 * method the runner can run.
 */
export interface MountDriver {
  /** Client installed and usable here (FUSE device, NFS client...)? Never throws. */
  probe(): Promise<Availability>;
  /** The client's command line for this mount. */
  plan(ctx: MountPlanContext): Promise<MountPlan>;
}
