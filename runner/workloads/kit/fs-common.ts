import { mkdir } from 'node:fs/promises';
import type { Measurement } from '../../core/batch';
import type { FileSystemAccess } from '../../core/method';
import { LatencyHistogram } from '../../core/stats';
import type { WorkloadContext } from '../../core/workload';

/**
 * What a file-system workload's measuring core needs: a directory on the file system under test
 * that belongs to this step alone, and where its measurements go. The cores are plain functions
 * over this, so the same code runs on a FUSE mount, on tmpfs (performance script) and in tests.
 */
export interface FsRunContext {
  /** A directory on the file system under test, private to this step. */
  root: string;
  /** Local scratch directory (not on the file system under test) for generated inputs. */
  scratchDir: string;
  /** Seed for generated data, unique to the step. */
  dataSeed: string;
  signal: AbortSignal;
  record(m: Measurement): void;
  progress(note: string): void;
}

/**
 * The core's context for a runner step on a mount: the step's own prefix as a directory of the
 * mounted bucket (created here). The runner gives file-system workloads a mount (`requires:
 * 'file-system'`); object methods never get here.
 */
export async function fsRunContextOf<P>(ctx: WorkloadContext<P>): Promise<FsRunContext & { mount: FileSystemAccess }> {
  if (!ctx.fs) throw new Error('this workload needs a mounted file system (the runner should have recorded it as not applicable)');
  const root = ctx.fs.pathOf(ctx.prefix);
  await mkdir(root, { recursive: true });
  return {
    mount: ctx.fs, root, scratchDir: ctx.scratchDir, dataSeed: ctx.dataSeed, signal: ctx.signal,
    record: (m) => ctx.record(m), progress: (note) => ctx.progress(note),
  };
}

/**
 * Not an errno: a tool (git) failed on a path it had itself just created, which the file system
 * did not keep (Mountpoint keeps new directories only locally) — the file system refusing what
 * the tool needs, told apart from ENOENT on anything else.
 */
export const LOST_OWN_PATH = 'ELOST';

/**
 * errno codes with which a file system refuses an operation by design rather than failing at
 * it: Mountpoint answers appends with EPERM, in-place writes with EBADF, rename with ENOSYS; others
 * answer EOPNOTSUPP, EROFS, EXDEV. An operation that every attempt fails with one of these is
 * recorded as unsupported (success rate 0, `supported: false`), not as failed or fast.
 */
const REFUSAL_CODES = new Set(['EPERM', 'EACCES', 'ENOSYS', 'ENOTSUP', 'EOPNOTSUPP', 'EBADF', 'EROFS', 'EXDEV', LOST_OWN_PATH]);

/** The same refusals as strerror() words them in a tool's error text (git, tar). */
const REFUSAL_TEXT: [RegExp, string][] = [
  [/Operation not permitted/, 'EPERM'], [/Permission denied/, 'EACCES'], [/Function not implemented/, 'ENOSYS'],
  [/Operation not supported/, 'EOPNOTSUPP'], [/Bad file descriptor/, 'EBADF'], [/Read-only file system/, 'EROFS'],
  [/Invalid cross-device link/, 'EXDEV'],
];

export function isRefusal(code: string): boolean {
  return REFUSAL_CODES.has(code);
}

export function isRefusalText(text: string): boolean {
  return refusalCodeOf(text) !== null;
}

/** The errno name of the first refusal a tool's error text reports, or null. */
export function refusalCodeOf(text: string): string | null {
  let best: { at: number; code: string } | null = null;
  for (const [re, code] of REFUSAL_TEXT) {
    const at = text.search(re);
    if (at >= 0 && (!best || at < best.at)) best = { at, code };
  }
  return best?.code ?? null;
}

/** Counts of a batch of file operations, as measured in a thread. */
export interface FsCounts {
  ops: number;
  ok: number;
  failed: number;
  bytes: number;
  /** Latency of each successful operation, ns. */
  latenciesNs: ArrayLike<number>;
  /** The batch's duration, ns: operation time (sequential) or wall time (concurrent). */
  durationNs: number;
  /** errno code → count over failed operations. */
  errors: Record<string, number>;
  firstError: string | null;
  /** The batch's interval series, where it lasted long enough (runner/core/intervals.ts). */
  series?: Measurement['series'];
}

export interface FsOutcome {
  operation: string;
  objectSizeBytes: number | null;
  /** Whether what was read or written was checked and matched. */
  verified: boolean;
  verifyProblem: string | null;
  movesPayload: boolean;
  cache?: Measurement['cache'];
}

/**
 * Turns a batch's counts into a measurement: `unsupported` when every attempt was refused by
 * design, `failed` when any operation failed or the check found wrong data, else `ok`.
 */
export function fsMeasurement(c: FsCounts, o: FsOutcome): Measurement {
  const histogram = new LatencyHistogram();
  for (let i = 0; i < c.latenciesNs.length; i++) histogram.recordNs(c.latenciesNs[i]);
  const codes = Object.keys(c.errors);
  const refused = c.ops > 0 && c.ok === 0 && c.failed > 0 && codes.length > 0 && codes.every(isRefusal);
  const verified = o.verified && c.failed === 0;
  return {
    operation: o.operation,
    objectSizeBytes: o.objectSizeBytes,
    status: refused ? 'unsupported' : c.failed === 0 && o.verified ? 'ok' : 'failed',
    supported: !refused,
    verified,
    ops: c.ops,
    ok: c.ok,
    failed: c.failed,
    bytes: c.bytes,
    durationMs: c.durationNs / 1e6,
    ...histogram.fields(),
    errorSample: c.firstError ? withCodes(c.firstError, c.errors) : o.verifyProblem,
    movesPayload: o.movesPayload,
    ...(o.cache ? { cache: o.cache } : {}),
    ...(c.series ? { series: c.series } : {}),
  };
}

function withCodes(first: string, errors: Record<string, number>): string {
  const codes = Object.entries(errors).map(([code, n]) => `${code}×${n}`).join(', ');
  return codes ? `${first} [${codes}]` : first;
}

/** A measurement of something that could not be measured at all (setup failed or was refused). */
export function notMeasured(operation: string, objectSizeBytes: number | null, problem: string, refused: boolean, cache?: Measurement['cache']): Measurement {
  return {
    operation, objectSizeBytes, status: refused ? 'unsupported' : 'failed', supported: !refused, verified: false,
    ops: 0, ok: 0, failed: 0, bytes: 0, durationMs: 0, latency: null, errorSample: problem, movesPayload: false,
    ...(cache ? { cache } : {}),
  };
}
