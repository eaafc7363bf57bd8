import { errorSummary } from './errors';
import { openMeter, type WorkMeter, type WorkProgress, type WorkUnit } from './meter';
import { countLive, cutSeries, OpLog, seriesSettings, withByteProgress, type IntervalSeries } from './intervals';
import { withExcludedTime } from './op-timing';
import { LatencyHistogram, type LatencyBucket, type LatencySummary, nowNs } from './stats';
import type { CacheState } from './vocabulary';

/** What a workload reports for one operation batch; the runner adds run, host and method facts. */
export interface Measurement {
  operation: string;
  objectSizeBytes: number | null;
  status: 'ok' | 'failed' | 'unsupported' | 'not-applicable' | 'did-not-finish';
  supported: boolean;
  verified: boolean;
  ops: number;
  ok: number;
  failed: number;
  bytes: number;
  durationMs: number;
  latency: LatencySummary | null;
  /** The same latencies as mergeable buckets (stats.ts): set wherever `latency` is, null or absent where it is null. */
  latencyHistogram?: LatencyBucket[] | null;
  errorSample: string | null;
  /** False for operations that move no payload (list, head, delete): their throughput is null. */
  movesPayload: boolean;
  /** A measured propagation delay (semantics probes), when the measurement is one. */
  delayMs?: number | null;
  /**
   * Rates a measuring tool reported itself (fio's bandwidth and IOPS), used instead of deriving
   * them from bytes, operations and duration.
   */
  rates?: { throughputMibS: number | null; opsPerS: number | null };
  /** A finer cache state than the pass's (e.g. 'warm-disk' / 'warm-memory' where a client has both caches). */
  cache?: CacheState;
  /** Parameters that differ between records of one step (e.g. fio's `direct`), added to workload_params. */
  params?: Record<string, string>;
  /**
   * When the first operation started (epoch ms), where the measurement knows it; otherwise the
   * record's start is its end minus durationMs.
   */
  startedAtMs?: number;
  /** With status did-not-finish: how far it got when the step's budget ran out (core/meter.ts). */
  progress?: WorkProgress;
  /** The interval series of a measurement long enough to have one (runner/core/intervals.ts). */
  series?: IntervalSeries | null;
  /**
   * Payload bytes read per object key, where the workload knows which object each read was: the
   * served-from-cache check compares each with what the server sent for that object.
   */
  objectReads?: Record<string, number>;
}

/**
 * The measurement of work cut short by its step's budget: what was done until then, never a
 * figure to rank (status did-not-finish, unverified, no rates), with its progress.
 */
export function didNotFinish(meter: WorkMeter, counts: Partial<Measurement> = {}): Measurement {
  return {
    operation: meter.operation, objectSizeBytes: meter.objectSizeBytes, supported: true, ops: 0, ok: 0, failed: 0, bytes: 0,
    durationMs: ((meter.cutAtMs ?? Date.now()) - meter.startedAtMs), latency: null, movesPayload: false, startedAtMs: meter.startedAtMs,
    ...(meter.cache ? { cache: meter.cache } : {}),
    ...counts,
    status: 'did-not-finish', verified: false, errorSample: null, rates: { throughputMibS: null, opsPerS: null }, progress: meter.progress(),
  };
}

/** The one record of a workload a method cannot run (a file-system workload on an object method). */
export function notApplicable(operation: string, reason: string): Measurement {
  return {
    operation, objectSizeBytes: null, status: 'not-applicable', supported: false, verified: false,
    ops: 0, ok: 0, failed: 0, bytes: 0, durationMs: 0, latency: null, errorSample: reason, movesPayload: false,
  };
}

/**
 * A row of S3 requests and no measurement (core/vocabulary.ts isRequestsOnly): `operation` in
 * parentheses; nothing was timed, so it has no rates, and its requests are the whole figure.
 */
export function requestsOnly(operation: string): Measurement {
  if (!operation.startsWith('(')) throw new Error(`a row of requests only is named in parentheses, not ${operation}`);
  return {
    operation, objectSizeBytes: null, status: 'ok', supported: true, verified: true,
    ops: 0, ok: 0, failed: 0, bytes: 0, durationMs: 0, latency: null, errorSample: null, movesPayload: false,
  };
}

/**
 * Times a batch of operations one by one, as seed 000 timed "10 files per size": each operation's
 * latency goes into an HdrHistogram; the batch duration is the sum of operation times in
 * sequential mode (so untimed verification between operations does not count) or the wall time
 * from start() to finish() in concurrent mode.
 */
export class Batch {
  private readonly histogram = new LatencyHistogram();
  private activeNs = 0n;
  private wallStart: bigint | null = null;
  private wallStartMs: number | null = null;
  private ok = 0;
  private failed = 0;
  private bytes = 0;
  private firstError: string | null = null;
  private verification: boolean | null = null;
  private planned: { count: number; unit: WorkUnit } | null = null;
  private meter: WorkMeter | null = null;
  /** Completions for the interval series, on the batch's own clock (ns since its start: wall or active time); null when the series is off. */
  private log = seriesSettings.intervalMs > 0 ? new OpLog() : null;
  private objectReads: Record<string, number> | null = null;

  constructor(
    readonly operation: string,
    readonly objectSizeBytes: number | null,
    private readonly mode: 'sequential' | 'concurrent' = 'sequential',
    private readonly movesPayload = true,
  ) {}

  /**
   * The work this batch plans, in operations (default) or bytes: when its step's time budget runs
   * out before it finishes, it is recorded as did-not-finish with the share done.
   */
  plan(count: number, unit: Extract<WorkUnit, 'ops' | 'bytes'> = 'ops'): this {
    this.planned = { count, unit };
    // Room for every planned completion up front: a log growing inside the timed operations allocates (and can start a GC) there.
    if (this.log && unit === 'ops' && this.log.length === 0) this.log = new OpLog(count);
    return this;
  }

  start(): void {
    this.wallStart ??= nowNs();
    this.wallStartMs ??= Date.now();
    if (this.planned && !this.meter) {
      const unit = this.planned.unit;
      this.meter = openMeter(this.operation, this.objectSizeBytes, this.planned.count, unit, () => (unit === 'bytes' ? this.bytes : this.ok + this.failed));
    }
  }

  /** Cut short by its step's budget: no further operation runs or counts. */
  private get cut(): boolean {
    return this.meter?.cutAtMs !== null && this.meter?.cutAtMs !== undefined;
  }

  /**
   * Runs one timed operation. `fn` returns the payload bytes it moved. A failure is counted and
   * its first message kept; it is not thrown, so one failed object does not hide the others.
   * Returns the operation's result, or undefined when it failed.
   */
  async op<T>(fn: () => Promise<T>, bytesOf: (r: T) => number = () => 0): Promise<T | undefined> {
    this.start();
    if (this.cut) return undefined;
    const t0 = nowNs();
    // Bytes a session reports while the operation runs (parts of a large transfer) go into the series as they land.
    let early = 0;
    const onBytes = (n: number, overNs: number) => {
      early += n;
      countLive(n, 0);
      this.log?.progress(this.clockNs(t0), n, overNs);
    };
    try {
      // A client that times its own requests reports the protocol around them (op-timing.ts).
      const { value: result, excludedNs } = await withByteProgress(onBytes, () => withExcludedTime(fn));
      const elapsed = nowNs() - t0;
      const dt = elapsed > excludedNs ? elapsed - excludedNs : elapsed;
      this.activeNs += dt;
      this.histogram.recordNs(Number(dt));
      this.ok++;
      const bytes = bytesOf(result);
      this.bytes += bytes;
      countLive(Math.max(0, bytes - early), 1);
      this.log?.ok(this.clockNs(), Number(dt), Math.max(0, bytes - early));
      return result;
    } catch (err) {
      // Ended by the budget running out: not a failure of the method, and not done.
      if (this.cut) return undefined;
      this.activeNs += nowNs() - t0;
      this.log?.failed(this.clockNs());
      this.fail(err);
      return undefined;
    }
  }

  /**
   * Now on the clock the batch's duration is measured with: wall time since start() (concurrent),
   * or the operations' own time (sequential; `opStart` inside a running operation).
   */
  private clockNs(opStart?: bigint): number {
    if (this.mode === 'concurrent') return Number(nowNs() - (this.wallStart ?? nowNs()));
    return Number(this.activeNs + (opStart !== undefined ? nowNs() - opStart : 0n));
  }

  /** Counts a failure found outside a timed operation (for example a checksum mismatch). */
  fail(err: unknown): void {
    this.failed++;
    this.firstError ??= errorSummary(err);
  }

  /** Notes that a read took `bytes` of the object `key` (outside the timed operation: bookkeeping only). */
  readOf(key: string, bytes: number): void {
    this.objectReads ??= {};
    this.objectReads[key] = (this.objectReads[key] ?? 0) + bytes;
  }

  /** Records the outcome of checking the data; any false makes the batch unverified. */
  verify(passed: boolean, problem?: string): void {
    this.verification = (this.verification ?? true) && passed;
    if (!passed) this.firstError ??= problem ?? 'verification failed';
  }

  finish(): Measurement {
    this.meter?.end();
    if (this.meter?.cutShort) {
      return didNotFinish(this.meter, {
        ops: this.ok + this.failed, ok: this.ok, failed: this.failed, bytes: this.bytes, latency: this.histogram.summary(), movesPayload: this.movesPayload,
      });
    }
    const durationNs = this.mode === 'concurrent' && this.wallStart !== null ? nowNs() - this.wallStart : this.activeNs;
    const series = this.log ? cutSeries(this.log, 0, Number(durationNs), seriesSettings.intervalMs, this.mode === 'concurrent' ? 'wall' : 'active') : null;
    const verified = this.verification === true && this.failed === 0;
    return {
      operation: this.operation,
      objectSizeBytes: this.objectSizeBytes,
      status: this.failed === 0 && this.verification !== false ? 'ok' : 'failed',
      supported: true,
      verified,
      ops: this.ok + this.failed,
      ok: this.ok,
      failed: this.failed,
      bytes: this.bytes,
      durationMs: Number(durationNs) / 1e6,
      ...this.histogram.fields(),
      errorSample: this.firstError,
      movesPayload: this.movesPayload,
      ...(this.wallStartMs !== null ? { startedAtMs: this.wallStartMs } : {}),
      ...(series ? { series } : {}),
      ...(this.objectReads ? { objectReads: this.objectReads } : {}),
    };
  }
}
