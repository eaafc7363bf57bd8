import type { Measurement } from './batch';
import type { StorageSession } from './method';

/** A set of objects a workload reads, written once per run by the loader and shared by every method. */
export interface FixtureSpec {
  /** Stable name within the run, e.g. `dir-walk-10000x4096`. */
  id: string;
  count: number;
  size: number;
  /** Key of object i, relative to the fixture prefix. */
  keyOf(i: number): string;
}

export interface Fixture {
  spec: FixtureSpec;
  /** Bucket-relative prefix ending in '/'. */
  prefix: string;
  /** Expected SHA-256 of object i. */
  digestOf(i: number): string;
}

export interface WorkloadContext<P> {
  params: P;
  session: StorageSession;
  /** A bucket-relative prefix ending in '/' that belongs to this step alone. */
  prefix: string;
  /** The fixture declared by the workload, already written. */
  fixture: Fixture | null;
  /** A private local directory for files the workload generates. */
  scratchDir: string;
  /** Seed for generated data, unique to the step. */
  dataSeed: string;
  signal: AbortSignal;
  record(m: Measurement): void;
  /** A short note for the progress display. */
  progress(note: string): void;
  /** Independent check of what is in the bucket, through the reference S3 client (untimed). */
  reference: {
    list(prefix: string): Promise<{ key: string; size: number }[]>;
  };
}

/**
 * A workload: what is measured. Each lives in its own file under runner/workloads/ and is listed in
 * runner/workloads/index.ts. It is written once against StorageSession, so it runs on every method.
 */
export interface WorkloadDefinition<P = Record<string, unknown>> {
  readonly name: string;
  readonly summary: string;
  /** The published benchmark it reproduces. */
  readonly seed: string;
  /** JSON Schema of the parameters, with defaults; checked before anything is created. */
  readonly paramsSchema: Record<string, unknown>;
  /** Parameters as strings for the `workload_params` field. */
  describe(params: P): Record<string, string>;
  /** The objects to write before measuring, if any. */
  fixture?(params: P): FixtureSpec;
  /** Measures, reporting each operation batch through ctx.record. */
  run(ctx: WorkloadContext<P>): Promise<void>;
}
