import type { Measurement } from './batch';
import type { Capability } from './capabilities';
import type { S3FilesRule } from './s3files-meter';
import type { PassCache } from './vocabulary';
import type { FileSystemAccess, StorageSession } from './method';

/** A set of objects a workload reads, written once per run by the loader and shared by every method. */
export interface FixtureSpec {
  /** Stable name within the run, e.g. `dir-walk-10000x4096`. */
  id: string;
  count: number;
  /** Size of every object; when they differ (sizeOf), the largest. */
  size: number;
  /** Key of object i, relative to the fixture prefix. */
  keyOf(i: number): string;
  /** Size of object i when the objects differ in size (a source tree, a range of sizes). */
  sizeOf?(i: number): number;
}

export interface Fixture {
  spec: FixtureSpec;
  /** Bucket-relative prefix ending in '/'. */
  prefix: string;
  /** Expected SHA-256 of object i. */
  digestOf(i: number): string;
  /** Expected CRC-32 (zlib) of object i: the cheap check of the parallel file readers. */
  crc32Of(i: number): number;
}

/** One object of a fixture as a file on a mount: where it is, its size and its CRC-32. */
export interface FixtureFile {
  path: string;
  size: number;
  crc32: number;
}

/** The objects of `fixture` as files on `mount`, in fixture order. */
export function fixtureFilesOn(mount: FileSystemAccess, fixture: Fixture): FixtureFile[] {
  const { spec } = fixture;
  return Array.from({ length: spec.count }, (_, i) => ({
    path: mount.pathOf(fixture.prefix + spec.keyOf(i)), size: spec.sizeOf?.(i) ?? spec.size, crc32: fixture.crc32Of(i),
  }));
}

export interface WorkloadContext<P> {
  params: P;
  session: StorageSession;
  /** The mounted file system (mount methods only; always present for workloads that require one). */
  fs: FileSystemAccess | null;
  /**
   * Cache state of this pass: 'cold' on a fresh mount, 'warm' repeated on the same mount, 'none'
   * for object methods. A workload that writes and then reads calls fs.remount() in between on a
   * cold pass, so that its reads are cold too.
   */
  cache: PassCache;
  /**
   * A bucket-relative prefix ending in '/' that belongs to this step and pass alone. On mount
   * methods it already exists, holding an empty anchor object `.s3ab-pass`.
   */
  prefix: string;
  /** The fixture declared by the workload, already written. */
  fixture: Fixture | null;
  /** A private local directory for files the workload generates. */
  scratchDir: string;
  /** Seed for generated data, unique to the step. */
  dataSeed: string;
  signal: AbortSignal;
  /**
   * Reports a measurement. Its S3 requests are those the server answered since the previous
   * record or cut, unless `requests` names the stretches of the server's log that are its own
   * (from cutRequests: a workload that records after later checks, semantics).
   */
  record(m: Measurement, requests?: readonly RequestWindow[]): void;
  /**
   * Ends the current stretch of the server's log (since the previous record or cut) and returns
   * it, for a measurement recorded later or for recordRequests.
   */
  cutRequests(): RequestWindow;
  /**
   * A row of requests and no measurement (`operation` in parentheses, e.g. '(after probes)'): the
   * requests of `windows`, which no measurement can claim (a probe's setup, uploads that land
   * later). Written only where the requests are counted and there are some.
   */
  recordRequests(operation: string, windows: readonly RequestWindow[]): void;
  /** A short note for the progress display. */
  progress(note: string): void;
  /** Independent check of what is in the bucket, through the reference S3 client (untimed). */
  reference: ReferenceView;
  /**
   * Where to check what a workload wrote (untimed): the bucket through the reference client when
   * the method's files are objects, else the method's own file system (JuiceFS, EFS).
   */
  stored: Pick<ReferenceView, 'list'>;
  /**
   * What the method offers. A check that looks at the bucket through the S3 API (propagation,
   * written objects) applies only where the method offers 'objects-in-bucket'; elsewhere it is
   * recorded as not-applicable.
   */
  offers: readonly Capability[];
}

/**
 * A stretch of the server's access log (byte offsets): the requests answered between two cuts.
 * Opaque to workloads; `from` = `to` where the runner cannot read the server's log.
 */
export interface RequestWindow {
  readonly from: number;
  readonly to: number;
}

/** What workloads may do through the runner's own S3 client: check results, stage changes from the S3 side. */
export interface ReferenceView {
  list(prefix: string): Promise<{ key: string; size: number }[]>;
  /** Size of an object, or null when there is none. */
  head(key: string): Promise<{ size: number } | null>;
  /** An object's bytes, or null when there is none. */
  getBytes(key: string): Promise<Buffer | null>;
  putBytes(key: string, body: Buffer): Promise<void>;
  deletePrefix(prefix: string): Promise<number>;
  /**
   * How many versions the bucket holds of each key under `prefix` (relative keys), and whether it
   * keeps versions at all: an unversioned bucket lists each object once, as version "null".
   */
  versions(prefix: string): Promise<{ versioned: boolean; counts: Map<string, number> }>;
}

/**
 * What a workload means at fleet scale (matrix `clients` above 1): what the clients share and what
 * each has to itself, or why it makes no sense there (its fleet steps record not-applicable).
 */
export type FleetFacts = { readonly shared: string; readonly own: string } | { readonly notApplicable: string };

/**
 * What a workload is, as data: its parameters and how they are checked and described, what it
 * requires of a method, the fixture it reads and the operations it records. Everything a matrix
 * is checked against and the report orders by, without loading the workload's code. One per
 * workload in runner/workloads/NAME.ts, listed in runner/workloads/catalog.ts.
 */
export interface WorkloadDescriptor<P = Record<string, unknown>> {
  readonly name: string;
  readonly summary: string;
  /** The published benchmarks it reproduces (docs/seeds.md): a list, as tar-extract serves seeds 002 and 004. */
  readonly seeds: readonly SeedId[];
  /** How the report shows its results. */
  readonly report: ReportFacts;
  /**
   * How Amazon S3 Files meters each of its operations (runner/core/s3files-meter.ts builds the
   * rules; runner/report/s3files-metering.ts prices them): one entry per declared operation, or
   * '*' for all of them.
   */
  readonly s3filesMetering: Readonly<Record<string, S3FilesRule>>;
  /**
   * Capabilities a method must offer (runner/core/capabilities.ts). Where one is missing, the
   * step records one `not-applicable` measurement with the reason instead of running.
   */
  readonly requires: readonly Capability[];
  /** What the clients of a fleet step share and what each has to itself, or why it is not applicable at fleet scale. */
  readonly fleet: FleetFacts;
  /** Runs once per step on a fresh mount (recorded as cold): repeating it warm would measure nothing new. */
  readonly coldOnly?: boolean;
  /**
   * The operations it records (semantics: its probes; metadata: its tests), in the order tables
   * and charts show them. Records name no other operation, besides rows of requests only (a name
   * in parentheses: core/vocabulary.ts isRequestsOnly).
   */
  readonly operations: readonly string[];
  /**
   * Operations whose payload is read from the store: on a cold pass the server must send at least
   * the bytes they read (fewer: served from a cache), on a warm pass less (all again: not warm).
   * @default none
   */
  readonly payloadReads?: readonly string[];
  /**
   * Operations that, where they succeed on a method whose files are objects in the bucket, must
   * have reached it: they change the bucket (a write, a delete, a rename, metadata that has to
   * persist) or read what only the bucket holds. Where requests are counted they never show none
   * (test/runner/request-windows.test.ts; cold payload reads are held to it by payloadReads).
   * Operations a mount may serve from its own cache (a stat, a listing, a read) are not in it.
   * @default none
   */
  readonly reachesBucket?: readonly string[];
  /** JSON Schema of the parameters, with defaults; checked before anything is created. */
  readonly paramsSchema: Record<string, unknown>;
  /**
   * Checks across parameters that the schema cannot express (run before anything is created):
   * null when the parameters can be run, else what is wrong and how to fix it.
   */
  validate?(params: P): { problem: string; fix: string } | null;
  /** Parameters as strings for the `workload_params` field. */
  describe(params: P): Record<string, string>;
  /** The objects to write before measuring, if any. */
  fixture?(params: P): FixtureSpec;
  /**
   * How much work a step does, for the measured model of an AWS execution (runner/plan/): a
   * measurement made with some parameters is scaled to others by the ratio of their work.
   */
  readonly work: WorkFacts<P>;
  /**
   * The most bytes one step generates at once beyond the fixtures: local files (generated inputs,
   * downloads, a mount's write cache) and the objects they become. The run checks it against the
   * temp folders' free space before anything is created. @default 0 (nothing large)
   */
  stepBytes?(params: P): number;
  /**
   * How long a step of these parameters may run when the matrix gives it no time budget, in
   * seconds; the step watchdog ends it a grace after that (runner/run/step-watchdog.ts).
   * @default DEFAULT_STEP_LIMIT_S (1 h)
   */
  stepLimitS?(params: P): number;
}

/** What the measured model needs of a workload (runner/plan/step-model.ts). */
export interface WorkFacts<P> {
  /**
   * The parameters that count its work (files, objects, ops, reads): a measured sample divides
   * them (`npm run cost:aws -- --measure`), and dividing them divides `of(params)` alike. Empty:
   * the workload's size is fixed by parameters that are not counts (sizes, reader counts).
   */
  readonly counts: readonly (keyof P & string)[];
  /** Its operations (requests scale with them) and payload bytes (transfer scales with them) for these parameters. */
  of(params: P): { ops: number; bytes: number };
  /** Requests its clients have in flight at once, so their latencies overlap. @default 1 */
  parallelism?(params: P): number;
}

/** The published benchmarks the project reproduces, by id (each described in docs/seeds.md). */
const SEEDS = [
  '000-cli-vs-s3fs-vs-s3files-benchmark',
  '001-s3files-lambda-before-after-and-ec2-three-way',
  '002-zerofs-vs-mountpoint-benchmarks',
  '003-s3fs-tuning-ibm-cos',
  '004-efs-vs-objectivefs-small-files',
] as const;
export type SeedId = (typeof SEEDS)[number];

/**
 * The summary table a workload's results go in (runner/report/text/workload-tables.ts):
 * - `measurements`: per case and method the time, throughput, operations per second, latency
 *   percentiles, the sustained rate where a series exists, and "vs best";
 * - `metadata-suite`: seed 002's synthetic table: operations per second, latency percentiles and
 *   the success rate of each test;
 * - `semantics`: the probe matrix (supported, refused, failed; propagation delays).
 */
export type ReportTable = 'measurements' | 'metadata-suite' | 'semantics';

interface ReportFacts {
  readonly table: ReportTable;
  /**
   * Operations that check what the method kept (untimed: tar-extract's permissions): a failure is
   * a finding about the method, shown in its verdict, not a broken measurement. @default none
   */
  readonly checks?: readonly string[];
  /**
   * Operations that record a verdict over other operations' figures, with no file operation of
   * their own (sync-behaviour's direct-read thresholds): status ok when it holds, unsupported when
   * not, its explanatory line in error_sample. Reports show the outcome and the line, never a time,
   * a rate or a rank. @default none
   */
  readonly verdicts?: readonly string[];
}

/** The data seed of a fixture's object i: the same bytes whether written through S3 or through a mount. */
export function fixtureSeed(spec: Pick<FixtureSpec, 'id'>, i: number): string {
  return `fixture/${spec.id}/${i}`;
}

/** Bytes of a fixture's objects together. */
export function fixtureBytes(spec: FixtureSpec): number {
  if (!spec.sizeOf) return spec.count * spec.size;
  let total = 0;
  for (let i = 0; i < spec.count; i++) total += spec.sizeOf(i);
  return total;
}

/**
 * How the runner writes a fixture (runner/endpoint/reference.ts `writeFixture`): objects up to
 * `singlePutLimit` as one PUT each, `parallel` at a time; larger ones one after another, each a
 * multipart upload of `partSize` parts with `partsInFlight` in flight.
 */
export const FIXTURE_WRITES = { singlePutLimit: 16 * 1024 * 1024, parallel: 16, partSize: 8 * 1024 * 1024, partsInFlight: 4 } as const;

/** What writing a fixture takes: single PUTs, multipart uploads and their parts, bytes. */
export function fixtureWrites(spec: FixtureSpec): { puts: number; multipart: number; parts: number; bytes: number } {
  const out = { puts: 0, multipart: 0, parts: 0, bytes: 0 };
  for (let i = 0; i < spec.count; i++) {
    const size = spec.sizeOf?.(i) ?? spec.size;
    out.bytes += size;
    if (size <= FIXTURE_WRITES.singlePutLimit) out.puts++;
    else {
      out.multipart++;
      out.parts += Math.ceil(size / FIXTURE_WRITES.partSize);
    }
  }
  return out;
}

/** How a workload measures (runner/workloads/NAME.impl.ts), written once against StorageSession. */
interface WorkloadImplementation<P = Record<string, unknown>> {
  /** Measures, reporting each operation batch through ctx.record. */
  run(ctx: WorkloadContext<P>): Promise<void>;
}

/** A workload the runner can run: its descriptor joined with its implementation (runner/workloads/index.ts). */
export type WorkloadDefinition<P = Record<string, unknown>> = WorkloadDescriptor<P> & WorkloadImplementation<P>;
