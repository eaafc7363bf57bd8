/* Generated from assets/schema/matrix.schema.json by scripts/gen-types.mjs. Do not edit: run `npm run gen`. */

export type MethodSpec = string | MethodSelection;
/**
 * A need of the application, decided by semantics probes (`s3ab advise --help` lists each with its probes).
 */
export type Need =
  | 'create'
  | 'overwrite'
  | 'append'
  | 'random-write'
  | 'truncate'
  | 'rename'
  | 'delete'
  | 'directories'
  | 'symlinks'
  | 'hardlinks'
  | 'permissions'
  | 'timestamps'
  | 'open-file-attrs'
  | 'locks'
  | 'read-after-write'
  | 'sees-s3-writes';
/**
 * What the pick optimizes among the Pareto set (`--priority`).
 */
export type AdvicePriority = 'throughput' | 'p99' | 'cost';
/**
 * A time: a number of milliseconds, or a string with us, ms or s ("800us", "20ms", "1.5s").
 */
export type Latency = number | string;

/**
 * A benchmark matrix: methods x workloads x parameters x cache states x repetitions. The input of `s3ab run --matrix FILE` and of a state machine execution; the profiles in assets/profiles/ are matrices too. Method and workload names, and each workload's parameters, are checked against the runner's registries (see `s3ab list`).
 */
export interface Matrix {
  $schema?: string;
  /**
   * Name of the matrix, recorded with the run.
   */
  name?: string;
  description?: string;
  /**
   * How often every method x workload step is repeated.
   */
  repetitions?: number;
  /**
   * Fleet sizes: every method x workload step runs once per entry with that many clients at once against the same store, started together by a barrier (1: one client, the plain step). Locally (`s3ab run --clients`) the clients are separate processes on this host; on AWS (execution layout 'fleet') they are runners. A workload whose descriptor says it makes no sense at fleet scale records not-applicable for entries above 1.
   *
   * @minItems 1
   */
  clients?: number[];
  /**
   * Time budget of every step, in seconds: a measurement still running when it runs out stops cleanly and is recorded as did-not-finish, with its progress and an extrapolated total, never ranked beside finished figures. `s3ab run --step-budget` overrides it. Unset: no budget (the step watchdog's per-workload default still bounds a hung step).
   */
  budget_s?: number;
  /**
   * Cache states measured on mount methods, in one step on one mount: 'cold' from a fresh mount with the kernel's and the client's caches dropped, then 'warm' repeated on the same mount. Object methods have no client cache: they run once, recorded as 'none'.
   *
   * @minItems 1
   */
  cache?: ('cold' | 'warm')[];
  /**
   * Methods to benchmark: a name, or an object naming a variant, option overrides and whether the method is optional (skipped where unavailable).
   *
   * @minItems 1
   */
  methods: MethodSpec[];
  /**
   * Workloads to run, by name, each with its parameters (an empty object takes the workload's defaults).
   */
  workloads: {
    [k: string]: {};
  };
  advice?: AdviceRequest;
}
export interface MethodSelection {
  name: string;
  /**
   * Named option set of the method.
   */
  variant?: string;
  /**
   * Overrides of the variant's options.
   */
  options?: {
    [k: string]: string | number | boolean;
  };
  /**
   * A grid of settings to compare: each of the method's knobs (its documented settings, declared with their defaults and ranges in runner/methods/NAME.ts; a wrong name is refused listing them) named here with the values to try. The entry expands into one variant per combination, named after its settings (mountpoint:part_size=8MiB,max_threads=16), each run and recorded like any variant, on the same fixtures; the step count (and so the run's time) covers the whole grid. A value outside the knob's documented range is refused, naming the range.
   */
  tune?: {
    /**
     * @minItems 1
     */
    [k: string]: (string | number | boolean)[];
  };
  /**
   * With `tune`: successive halving. After each round of repetitions from the second on, a setting whose range (min to max over its repetitions so far) lies wholly below the best setting's range in every case of a workload is dropped from that workload's remaining rounds; overlapping settings stay. The run records which setting was dropped after which round. false: every setting runs every repetition.
   */
  halving?: boolean;
  /**
   * Skip this method, announced at the start and named as skipped in the summary and the run manifest, where it is not available on the host (e.g. s3files, which needs an NFS client: AWS only), instead of failing the run. Its steps keep their numbers, so a matrix has the same steps everywhere.
   */
  optional?: boolean;
}
/**
 * The question the report's Advice section answers for every workload of the run, as `s3ab advise` does: what the application needs of the method (methods whose measured semantics probes fail a need are ruled out; the run measures the probes where it includes the semantics workload), the limits, and what the pick optimizes. Each field is the `s3ab advise` option of the same name (docs/advice.md): needs, priority, max_cost_per_million, p99_under (leave out methods whose p99 is not below it), max_delay (the propagation threshold of read-after-write and sees-s3-writes). Recorded in the run manifest.
 */
export interface AdviceRequest {
  /**
   * What the application needs of the method (`s3ab advise --needs`); [] compares every method without ruling any out.
   */
  needs: Need[];
  priority?: AdvicePriority;
  /**
   * Leave out methods whose cost per million operations is above this, in USD (`--max-cost-per-million`).
   */
  max_cost_per_million?: number;
  p99_under?: Latency;
  max_delay?: Latency;
}
