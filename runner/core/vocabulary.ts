import { randomBytes } from 'node:crypto';
import resultSchema from '../../assets/schema/result.schema.json';
import type { ResultRecord } from './record.generated';

/**
 * The project's one vocabulary: cache states and their order, how a method and a step are named,
 * what a run id looks like, and where a run's data lives in the bucket. The runner, the report,
 * the Lambdas and the CDK app all read these facts from here; nothing else spells them out.
 */

// --- Cache states ---------------------------------------------------------------------------------

/** A record's cache state (the result schema's enum). */
export type CacheState = ResultRecord['cache'];
/** The cache states a matrix asks for on mount methods, in run order (a warm pass reuses the cold pass's mount). */
export type MatrixCacheState = 'cold' | 'warm';
export const MATRIX_CACHE_STATES: readonly MatrixCacheState[] = ['cold', 'warm'];
/** The state a workload pass runs in: a mount pass is cold or warm, an object method keeps nothing ('none'). */
export type PassCache = MatrixCacheState | 'none';

/**
 * Every cache state from least to most warmed: the order tables, charts and summaries show them in.
 * 'none' (object methods keep nothing) first, then a mount's first access, then its warmed states.
 */
export const CACHE_ORDER: readonly CacheState[] = ['none', 'cold', 'warm-disk', 'warm', 'warm-memory'];

/** Position of a cache state in CACHE_ORDER (unknown states last). */
export function cacheRank(cache: string | null | undefined): number {
  const i = CACHE_ORDER.indexOf((cache ?? 'none') as CacheState);
  return i < 0 ? CACHE_ORDER.length : i;
}

// --- Rows of requests only ------------------------------------------------------------------------

/**
 * A record that holds S3 requests and no measurement has an operation name in parentheses: the
 * requests a step's client made outside every measurement (mounting, readiness, fixture checks,
 * a priming pass, unmounting), or a stretch a workload names itself (semantics: '(after probes)').
 * Every query but the requests' leaves them out (`operation NOT LIKE '(%'`).
 */
export const OUTSIDE_MEASUREMENTS = '(outside measurements)';

/** Whether a record's operation is a row of requests only (no measurement). */
export function isRequestsOnly(operation: string): boolean {
  return operation.startsWith('(');
}

// --- Labels -----------------------------------------------------------------------------------------

/** `method` or `method:variant`: how a method variant is named in every table, chart, record and message. */
export function methodLabel(r: { method: string; method_variant: string }): string {
  return r.method_variant === 'default' ? r.method : `${r.method}:${r.method_variant}`;
}

/** A method label with its cache state, `s3fs:seed-000 (warm)`; the state is left out when 'none' or not wanted. */
export function methodCacheLabel(r: { method: string; method_variant: string; cache?: unknown }, withCache = true): string {
  const cache = r.cache === undefined || r.cache === null ? 'none' : String(r.cache);
  return withCache && cache !== 'none' ? `${methodLabel(r)} (${cache})` : methodLabel(r);
}

/** How a step is named in progress lines, the pipeline's step list and messages: `s3fs:seed-000 metadata rep 2`. */
export function stepLabel(step: { method: { name: string; variant: string }; workload: { name: string }; repetition: number }): string {
  return `${methodLabel({ method: step.method.name, method_variant: step.method.variant })} ${step.workload.name} rep ${step.repetition}`;
}

/** A budget or an extrapolated time, rounded as people say it: 45 s, 10 min, 2 h, 1.5 h. */
export function roughDuration(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} min`;
  const hours = seconds / 3600;
  return `${hours < 10 ? Math.round(hours * 10) / 10 : Math.round(hours)} h`;
}

/**
 * How a did-not-finish measurement is shown wherever it appears, never as a figure beside finished
 * ones: `DNF at 10 min — 10 % done, ≈ 2 h extrapolated` (the extrapolation marked as such).
 */
export function didNotFinishLabel(p: NonNullable<ResultRecord['progress']>): string {
  const share = p.planned > 0 ? (100 * p.done) / p.planned : 0;
  const pct = share > 0 && share < 1 ? share.toFixed(1) : Math.floor(share).toString();
  const total = p.extrapolated_total_s === null ? 'no extrapolation (no progress counted)' : `≈ ${roughDuration(p.extrapolated_total_s)} extrapolated`;
  return `DNF at ${roughDuration(p.budget_s)} — ${pct} % done, ${total}`;
}

// --- Run ids ----------------------------------------------------------------------------------------

/** A run id: UTC start time and a random suffix, 20261122T101500Z-ab12cd (the result schema's pattern). */
export const RUN_ID_PATTERN = new RegExp(resultSchema.properties.run_id.pattern);
/** The same pattern without anchors, to find a run id inside a file name. */
const RUN_ID_SOURCE = resultSchema.properties.run_id.pattern.replace(/^\^/, '').replace(/\$$/, '');
/** An example run id, for messages. */
export const RUN_ID_EXAMPLE = '20261122T101500Z-ab12cd';

export function isRunId(value: string): boolean {
  return RUN_ID_PATTERN.test(value);
}

export function newRunId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').slice(0, 15)}Z-${randomBytes(3).toString('hex')}`;
}

/** The UTC day of a run id (20261122T101500Z-ab12cd → 2026-11-22): every file of a run lands in one `dt=` partition. */
export function runDay(runId: string): string {
  return `${runId.slice(0, 4)}-${runId.slice(4, 6)}-${runId.slice(6, 8)}`;
}

/** The run id a result file or manifest is named after (`RUNID--s001--...jsonl`, `RUNID.json`), or null. */
export function runIdOfFile(name: string): string | null {
  return new RegExp(`^(${RUN_ID_SOURCE})(?:--|\\.json$|-)`).exec(name)?.[1] ?? null;
}

// --- Where results live -------------------------------------------------------------------------------

/**
 * The interval series' folder beside the records (DIR/intervals/dt=DAY/ locally, RESULTS/intervals/
 * in the results bucket): their own table (`intervals`), outside the records' dt= partitions.
 */
export const INTERVALS_FOLDER = 'intervals';

// --- Where a run's data lives in the bucket ----------------------------------------------------------

/** Every benchmark object is under this prefix (runners may write nothing else; teardown deletes under it). */
export const DATA_ROOT = 's3ab/';

/** `s3ab/RUNID/` (or `s3ab/RUNID/RUNNER/` for one runner of several): everything a run writes. */
export function runDataPrefix(runId: string, runnerId?: string | null): string {
  return `${DATA_ROOT}${runId}/${runnerId ? `${runnerId}/` : ''}`;
}

/** A fleet's common data under its run (the fixtures every client reads): `s3ab/RUNID/fleet/` (runner ids are instance ids, never "fleet"). */
export function fleetDataPrefix(runId: string): string {
  return runDataPrefix(runId, 'fleet');
}

/**
 * Clients that keep their data under a volume *name* rather than a prefix (JuiceFS: objects under
 * NAME/, the name [a-z0-9-] and at most 63 characters) get one per step under this root, beside
 * DATA_ROOT: `s3ab-RUNID-[RUNNER-]STEP/`, the run id in lower case. Runners may write under it too;
 * teardown and `s3ab clean` delete a run's `runVolumePrefix`.
 */
export const VOLUME_ROOT = 's3ab-';

/** Every volume of a run starts with this: `s3ab-20261122t101500z-ab12cd-`. */
export function runVolumePrefix(runId: string): string {
  return `${VOLUME_ROOT}${runId.toLowerCase()}-`;
}

/** What one runner's volumes start with: the run's, then the runner's id (lower case) when several share the run. */
export function runnerVolumePrefix(runId: string, runnerId?: string | null): string {
  const runner = runnerId ? `${runnerId.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-` : '';
  return `${runVolumePrefix(runId)}${runner}`;
}

/** A step's volume name: `s3ab-20261122t101500z-ab12cd-7`, or with a runner `...-i-0abc-7` (JuiceFS allows 63 characters). */
export function stepVolumeName(runId: string, runnerId: string | null | undefined, stepIndex: number): string {
  const name = `${runnerVolumePrefix(runId, runnerId)}${stepIndex}`;
  if (name.length > 63) throw new Error(`volume name ${name} is longer than 63 characters: use a shorter runner id`);
  return name;
}

/** A step's own prefix under the run's: `s3ab/RUNID/steps/007/`. */
export function stepDataPrefix(runPrefix: string, stepIndex: number): string {
  return `${runPrefix}steps/${String(stepIndex).padStart(3, '0')}/`;
}

/** A fixture's prefix under the run's: `s3ab/RUNID/fixtures/ID/`. */
export function fixtureDataPrefix(runPrefix: string, fixtureId: string): string {
  return `${runPrefix}fixtures/${fixtureId}/`;
}
