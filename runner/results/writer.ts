import { writeFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { intervalErrors } from './intervals';
import type { IntervalRecord } from '../core/interval.generated';
import { recordErrors } from './record';
import type { ResultRecord } from '../core/record.generated';
import type { ResolvedAdvice } from '../core/matrix';
import type { TuningGrid } from '../core/tune';
import { INTERVALS_FOLDER } from '../core/vocabulary';

export interface RunManifest {
  run_id: string;
  /** 'abandoned': still 'running' on disk, but its process on this host is gone (read so by readRunManifests). */
  status: 'running' | 'complete' | 'failed' | 'interrupted' | 'abandoned';
  started_at: string;
  ended_at: string | null;
  matrix: string;
  steps_total: number;
  steps_done: number;
  steps_failed: number;
  /** Steps whose time budget ran out: they stopped cleanly, measured as far as they got (did-not-finish records). */
  steps_did_not_finish?: number;
  /** Why the run did not complete. */
  problem: string | null;
  endpoint: ResultRecord['endpoint'] | null;
  /** Peak resident memory of the runner process, in bytes. */
  peak_rss_bytes: number | null;
  /**
   * Methods the matrix marks optional that are not available on this host (S3 Files off AWS):
   * announced at the start, not run, not counted in steps_total, neither failed nor measured.
   */
  skipped?: { method: string; variant: string; reason: string; steps: number }[];
  /** The matrix's option grids (`tune`): their settings, and which settings successive halving dropped after which round. */
  tuning?: TuningGrid[];
  /** Steps not run because successive halving dropped their setting: counted in steps_total, never failed. */
  steps_pruned?: number;
  /** The matrix's `advice`: what the report's Advice section is asked (absent: the matrix named none). */
  advice?: ResolvedAdvice;
  /** The runner process and its host, so a run that died without a word is seen as abandoned. */
  pid?: number;
  hostname?: string;
}

/**
 * Writes results in a Hive-style layout Athena reads unchanged (partition `dt`):
 *   DIR/dt=YYYY-MM-DD/RUNID--sNNN--METHOD--WORKLOAD.jsonl   one file per step, one record per line
 *   DIR/_runs/RUNID.json                                      the run manifest (status, counts)
 *   DIR/intervals/dt=YYYY-MM-DD/RUNID--sNNN--….jsonl          the step's interval series (long measurements only)
 * Step files appear atomically (written as a dot-file, then renamed; Athena skips dot-files), and
 * every record is checked against the schema before it is written.
 */
export class ResultsWriter {
  readonly partitionDir: string;
  private readonly manifestPath: string;

  private readonly suffix: string;

  /** `nameSuffix` (a runner id) ends every file name, so runners writing the same step of one run never collide. */
  constructor(readonly root: string, readonly manifest: RunManifest, options: { nameSuffix?: string } = {}) {
    this.suffix = options.nameSuffix ? `--${options.nameSuffix}` : '';
    this.partitionDir = join(root, `dt=${manifest.started_at.slice(0, 10)}`);
    this.manifestPath = join(root, '_runs', `${manifest.run_id}${this.suffix}.json`);
  }

  get manifestFile(): string {
    return this.manifestPath;
  }

  async open(): Promise<void> {
    await mkdir(this.partitionDir, { recursive: true });
    await mkdir(join(this.root, '_runs'), { recursive: true });
    await this.saveManifest();
  }

  async writeStep(step: number, method: string, workload: string, records: ResultRecord[]): Promise<string> {
    for (const r of records) {
      const errors = recordErrors(r);
      if (errors.length) throw new Error(`internal error: a ${workload} record does not match the result schema: ${errors.join('; ')}`);
    }
    const name = this.stepFileName(step, method, workload);
    const tmp = join(this.partitionDir, `.${name}.tmp`);
    await writeFile(tmp, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const path = join(this.partitionDir, name);
    await rename(tmp, path);
    return path;
  }

  /**
   * The interval series of a step's measurements, named as its records' file under
   * DIR/intervals/dt=…/; null (nothing written) when no measurement of the step had one.
   */
  async writeIntervals(step: number, method: string, workload: string, rows: IntervalRecord[]): Promise<string | null> {
    if (!rows.length) return null;
    for (const r of rows) {
      const errors = intervalErrors(r);
      if (errors.length) throw new Error(`internal error: a ${workload} interval does not match the interval schema: ${errors.join('; ')}`);
    }
    const dir = join(this.root, INTERVALS_FOLDER, `dt=${this.manifest.started_at.slice(0, 10)}`);
    await mkdir(dir, { recursive: true });
    const name = this.stepFileName(step, method, workload);
    const tmp = join(dir, `.${name}.tmp`);
    await writeFile(tmp, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const path = join(dir, name);
    await rename(tmp, path);
    return path;
  }

  /** RUNID--sNNN--METHOD--WORKLOAD[--RUNNER].jsonl: a step's records file, and its intervals file. */
  private stepFileName(step: number, method: string, workload: string): string {
    return `${this.manifest.run_id}--s${String(step).padStart(3, '0')}--${method}--${workload}${this.suffix}.jsonl`;
  }

  /** The manifest, written at once (an exit that cannot wait: the emergency path). */
  saveManifestSync(): void {
    writeFileSync(this.manifestPath, JSON.stringify(this.manifest, null, 2) + '\n');
  }

  async saveManifest(): Promise<void> {
    const tmp = `${this.manifestPath}.tmp`;
    const text = JSON.stringify(this.manifest, null, 2) + '\n';
    try {
      await writeFile(tmp, text);
      await rename(tmp, this.manifestPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      // A full disk: the manifest already exists, so rewriting it in place reuses its blocks.
      await rm(tmp, { force: true });
      writeFileSync(this.manifestPath, text);
    }
  }
}
