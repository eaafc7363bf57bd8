import type { OpenContext } from '../core/method';
import type { MatrixSource } from '../catalog';
import type { EmbeddedEndpoint } from '../endpoint/embedded';
import type { RunManifest } from '../results/writer';
import type { FleetMember, StepEnv } from './step';

/** This process as one runner of an AWS fleet: its place at the barrier, and the fleet's shared data. */
export interface FleetRun {
  member: FleetMember;
  /** The fleet's clients in all (its largest step's `clients`): each reads the fixtures client 1 writes. */
  size: number;
  /** The fleet's common data prefix ("s3ab/RUNID/fleet/"): the fixtures, written once by client 1 and deleted by it at the end. */
  sharedPrefix: string;
}

/** Everything `s3ab run` and `s3ab step` can ask of a run. */
export interface RunOptions extends MatrixSource {
  resultsDir: string;
  endpoint?: string;
  bucket?: string;
  region?: string;
  /** No progress output (tests). */
  quiet?: boolean;
  /** Called with the embedded endpoint once it runs (tests use it to inject faults). */
  onEndpoint?: (e: EmbeddedEndpoint) => void;
  /** Called as each step starts (tests use it to inject faults at a known point). */
  onStep?: (index: number, label: string) => void;
  /** Called whenever a mount comes up (tests use it to kill or stop the client). */
  onMounted?: OpenContext['onMounted'];
  signal?: AbortSignal;
  /** Run only these steps (1-based numbers of the expanded matrix): `s3ab step` on AWS runners. */
  onlySteps?: number[];
  /**
   * Called with each step's record file as soon as it is written, before the next step starts
   * (`s3ab step` uploads it, so the steps a runner finished survive a later failure). A throw
   * ends the run, failed.
   */
  onStepFile?: (file: string) => Promise<void>;
  /** Called with each step's interval-series file (runner/results/intervals.ts), before its record file. */
  onIntervalsFile?: (file: string) => Promise<void>;
  /** Width of the interval series of long measurements, in ms; 0 keeps none. @default DEFAULT_INTERVAL_MS (1 s) */
  seriesIntervalMs?: number;
  /** Use this run id instead of a new one (every runner of an execution shares it). */
  runId?: string;
  /** Names this runner in object prefixes and result file names, so runners of one step never collide. */
  runnerId?: string;
  /** Wait for another run's mounts to end instead of refusing (the host's mount lock). */
  waitForLock?: boolean;
  /** A named endpoint's liveness checks during the run (tests shorten them). @default ENDPOINT_WATCH (run/store.ts) */
  endpointWatch?: { intervalMs: number; misses: number };
  /**
   * The step watchdog's grace beyond a step's budget, and the limit of a step without a budget in
   * place of its workload's default (tests shorten them). @default run/step-watchdog.ts
   */
  watchdog?: StepEnv['watchdog'];
  /** This process is one runner of an AWS fleet (`s3ab step --fleet-client`): fleet steps wait at its barrier; fixtures are shared. (`s3ab run --clients` runs its own client processes: run/fleet.ts.) */
  fleet?: FleetRun;
  /** With --bucket and no --endpoint: the bucket is on AWS S3 (regional endpoint, standard credentials). */
  awsTarget?: boolean;
}

export interface RunOutcome {
  manifest: RunManifest;
  resultsDir: string;
  files: string[];
  manifestFile: string;
}
