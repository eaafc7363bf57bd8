import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { UserError } from '../core/errors';
import { SCHEMA_VERSION, recordErrors } from '../results/record';
import type { RunManifest } from '../results/writer';
import { normalizeCells, normalizeHealth, normalizeMethodFacts, normalizeWorkloadFacts, type BadLine, type ReportInput } from './model';
import { namedQueries, openRecords, query } from './results-db';

/** Bad lines listed one by one in the report; the rest are counted. */
const MAX_LISTED_BAD_LINES = 200;
/** Lines buffered per run before they are appended to the run's file. */
const FLUSH_LINES = 4000;

/**
 * A results folder read once: every line of DIR/dt=*\/*.jsonl checked against the result schema,
 * the valid ones copied per run into a private temporary folder (so DuckDB reads one file per run
 * instead of thousands of step files, and never sees a bad line), the bad ones listed.
 */
export class ScannedResults {
  readonly badLines: BadLine[] = [];
  badLineCount = 0;
  recordCount = 0;
  readonly manifests = new Map<string, RunManifest>();
  private readonly runFiles = new Map<string, { path: string; pending: string[]; count: number }>();
  private readonly tmp: string;

  private constructor(readonly dir: string) {
    this.tmp = mkdtempSync(join(tmpdir(), 's3ab-report-'));
  }

  /** Reads a results folder; throws UserError when there is nothing to report. */
  static read(dir: string): ScannedResults {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new UserError(`no results folder at ${dir}`, 'run `s3ab run` (or `npm run local`) first, or point --results at a results folder');
    }
    const scan = new ScannedResults(dir);
    try {
      scan.readManifests();
      scan.readRecords();
    } catch (err) {
      scan.dispose();
      throw err;
    }
    if (!scan.runIds().length) {
      scan.dispose();
      throw new UserError(`no benchmark runs in ${dir}${scan.badLineCount ? ` (only ${scan.badLineCount} unreadable lines)` : ''}`,
        'run `s3ab run` (or `npm run local`) first, or point --results at a results folder');
    }
    return scan;
  }

  /** Every run with records or a manifest, oldest first (run ids start with their UTC start time). */
  runIds(): string[] {
    return [...new Set([...this.manifests.keys(), ...this.runFiles.keys()])].sort();
  }

  /** The run asked for, or the newest; throws UserError naming the runs there when it is missing. */
  pickRun(runId?: string): string {
    const runs = this.runIds();
    if (!runId) return runs[runs.length - 1];
    if (!runs.includes(runId)) throw new UserError(`no run ${runId} in ${this.dir}`, `runs there: ${runs.join(', ')}`);
    return runId;
  }

  /** Runs the report's SQL files over one run's records and assembles the renderer's input. */
  async reportInput(runId: string): Promise<ReportInput> {
    const file = this.runFiles.get(runId);
    const base: ReportInput = {
      runId,
      manifest: this.manifests.get(runId) ?? null,
      source: this.dir,
      otherRuns: this.runIds().filter((r) => r !== runId),
      cells: [], methods: [], workloads: [], health: [],
      badLines: this.badLines, badLineCount: this.badLineCount, recordCount: this.recordCount,
      generatedAt: new Date().toISOString(),
    };
    if (!file) return base;
    this.flush(file);
    const db = await openRecords([file.path], { materialize: true });
    try {
      const sql = Object.fromEntries(namedQueries().map((q) => [q.name, q.sql]));
      return {
        ...base,
        cells: normalizeCells(await query(db.connection, sql.report_cells)),
        methods: normalizeMethodFacts(await query(db.connection, sql.run_facts)),
        workloads: normalizeWorkloadFacts(await query(db.connection, sql.workload_facts)),
        health: normalizeHealth(await query(db.connection, sql.run_health)),
      };
    } finally {
      db.close();
    }
  }

  /** Removes the temporary copies. */
  dispose(): void {
    rmSync(this.tmp, { recursive: true, force: true });
  }

  private bad(file: string, line: number, reason: string): void {
    this.badLineCount++;
    if (this.badLines.length < MAX_LISTED_BAD_LINES) this.badLines.push({ file: relative(this.dir, file), line, reason: reason.slice(0, 300) });
  }

  private readManifests(): void {
    const runsDir = join(this.dir, '_runs');
    if (!existsSync(runsDir)) return;
    for (const name of readdirSync(runsDir).filter((f) => f.endsWith('.json')).sort()) {
      const path = join(runsDir, name);
      try {
        const m = JSON.parse(readFileSync(path, 'utf8')) as RunManifest;
        if (typeof m.run_id !== 'string' || typeof m.status !== 'string') throw new Error('no run_id or status');
        this.manifests.set(m.run_id, m);
      } catch (err) {
        this.bad(path, 1, `not a run manifest: ${(err as Error).message}`);
      }
    }
  }

  private readRecords(): void {
    const partitions = readdirSync(this.dir, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name.startsWith('dt=')).map((d) => d.name).sort();
    for (const part of partitions) {
      // Dot-files are steps still being written (the writer renames them when complete).
      const files = readdirSync(join(this.dir, part)).filter((f) => f.endsWith('.jsonl') && !f.startsWith('.')).sort();
      for (const name of files) this.readFile(join(this.dir, part, name));
    }
    for (const file of this.runFiles.values()) this.flush(file);
  }

  private readFile(path: string): void {
    const lines = readFileSync(path, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (!line.trim()) continue;
      let record: { run_id?: unknown; schema_version?: unknown };
      try {
        record = JSON.parse(line);
      } catch (err) {
        this.bad(path, i + 1, `not JSON: ${(err as Error).message}`);
        continue;
      }
      const errors = recordErrors(record);
      if (errors.length) {
        const version = record && typeof record === 'object' ? record.schema_version : undefined;
        const why = version !== SCHEMA_VERSION ? `schema_version ${JSON.stringify(version)}, this report reads ${SCHEMA_VERSION}` : errors.slice(0, 3).join('; ');
        this.bad(path, i + 1, `not a result record: ${why}`);
        continue;
      }
      this.recordCount++;
      const runId = record.run_id as string;
      let file = this.runFiles.get(runId);
      if (!file) this.runFiles.set(runId, (file = { path: join(this.tmp, `${runId}.jsonl`), pending: [], count: 0 }));
      file.pending.push(line);
      file.count++;
      if (file.pending.length >= FLUSH_LINES) this.flush(file);
    }
  }

  private flush(file: { path: string; pending: string[] }): void {
    if (!file.pending.length) return;
    appendFileSync(file.path, file.pending.join('\n') + '\n');
    file.pending.length = 0;
  }
}

/** Reads a results folder and returns the report input of one run (default: the newest). */
export async function loadReport(dir: string, runId?: string): Promise<ReportInput> {
  const scan = ScannedResults.read(dir);
  try {
    return await scan.reportInput(scan.pickRun(runId));
  } finally {
    scan.dispose();
  }
}
