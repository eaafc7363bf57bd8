import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { UserError } from '../core/errors';
import { memoryBackedTmp } from '../core/tmp';
import { runIdOfFile } from '../core/vocabulary';
import { intervalErrors } from '../results/intervals';
import { readRunManifests, unreadableManifestError, type BadManifest } from '../results/manifests';
import { SCHEMA_VERSION, recordErrors, upgradeRecord } from '../results/record';
import type { ResultRecord } from '../core/record.generated';
import type { RunManifest } from '../results/writer';
import { buildReportModel, type BadLine, type ModelRows, type ReportModel } from './model';
import { MODEL_QUERIES } from './model-queries.generated';
import { attachIntervals, intervalFiles, modelQueries, openRecords, query, type OpenedResults } from './results-db';

/** Bad lines listed one by one in the report; the rest are counted. */
const MAX_LISTED_BAD_LINES = 200;
/** Lines buffered per run before they are appended to the run's file. */
const FLUSH_LINES = 4000;

interface RunCopy {
  path: string;
  pending: string[];
  count: number;
}

/**
 * A results folder, read run by run: every line of a run's step files (DIR/dt=*\/RUNID--*.jsonl,
 * plus any file not named after a run) is checked against the result schema; the valid lines go
 * into one private copy per run (in RAM where /dev/shm exists), which DuckDB reads as the table
 * `results` — one file instead of thousands of step files, never a bad line; the bad ones are
 * listed with file, line and reason. The run's interval series (DIR/intervals/) are checked the
 * same way and read as the table `intervals`. Runs not asked for are not read.
 */
export class ScannedResults {
  readonly badLines: BadLine[] = [];
  badLineCount = 0;
  recordCount = 0;
  /** Each run's manifests: one, or one per runner of an AWS execution. */
  readonly manifests = new Map<string, RunManifest[]>();
  /** Files under _runs/ that are not readable manifests (their runs' status is unknown). */
  readonly badManifests: BadManifest[] = [];
  /** Step files by the run their name gives; '' for files named otherwise. */
  private readonly filesByRun = new Map<string, string[]>();
  private readonly read = new Set<string>();
  private readonly copies = new Map<string, RunCopy>();
  private tmp: string | null = null;
  // The copies go even when the process ends without dispose() (an uncaught error, a closed pipe).
  private readonly removeOnExit = () => this.dispose();

  private constructor(readonly dir: string) {}

  /** Lists a results folder (manifests and file names, nothing read yet); UserError when there is nothing to report. */
  static open(dir: string): ScannedResults {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new UserError(`no results folder at ${dir}`, 'run `s3ab run` (or `npm run local`) first, or point --results at a results folder');
    }
    const scan = new ScannedResults(dir);
    scan.readManifests();
    scan.listFiles();
    if (!scan.runIds().length && !scan.filesByRun.has('')) {
      throw new UserError(`no benchmark runs in ${dir}`, 'run `s3ab run` (or `npm run local`) first, or point --results at a results folder');
    }
    return scan;
  }

  /** Every run with a manifest, step files or records read, oldest first (run ids start with their UTC start time). */
  runIds(): string[] {
    return [...new Set([...this.manifests.keys(), ...[...this.filesByRun.keys()].filter(Boolean), ...this.copies.keys()])].sort();
  }

  /** The run asked for, or the newest; throws UserError naming the runs there when it is missing. */
  pickRun(runId?: string): string {
    // Files not named after a run may hold any run: read them before deciding.
    this.readFiles('');
    // A run known only by its files' names is a run when one of its lines is a record: files with
    // none are data problems, and a folder of nothing else has nothing to report (exit 2, not an empty summary).
    for (const run of this.runIds()) if (!this.manifests.has(run)) this.readRun(run);
    const runs = this.runIds().filter((r) => this.manifests.has(r) || this.copies.has(r));
    if (!runs.length) {
      const unreadable = this.badLineCount ? `: ${this.badLineCount} unreadable line(s), e.g. ${this.badLines[0].file} line ${this.badLines[0].line} (${this.badLines[0].reason})` : '';
      throw new UserError(`no readable measurement in ${this.dir}${unreadable}`, 'point --results at the folder a run wrote (`s3ab run`, `npm run local`), or run one first');
    }
    const unreadable = this.badManifests.find((b) => b.runId === runId);
    if (runId && unreadable) throw unreadableManifestError(unreadable);
    if (!runId) {
      // The newest run whose status is known: a run with an unreadable manifest is named as a data problem, not reported.
      const known = runs.filter((r) => !this.badManifests.some((b) => b.runId === r));
      return known[known.length - 1] ?? runs[runs.length - 1];
    }
    if (!runs.includes(runId)) throw new UserError(`no run ${runId} in ${this.dir}`, `runs there: ${runs.join(', ')}`);
    return runId;
  }

  /** Reads and checks the run's files (once); openRun and reportInput do it when needed. */
  readRun(runId: string): void {
    this.readFiles('');
    this.readFiles(runId);
  }

  /** One run's valid records in DuckDB as `results` (a table), or null when the run has none. */
  async openRun(runId: string): Promise<OpenedResults | null> {
    this.readRun(runId);
    const copy = this.copies.get(runId);
    if (!copy) return null;
    // One DuckDB thread: on this shared 2-core machine a second thread made reading the copy 2–3x
    // slower whenever other work ran (1.5 s vs 4 s for 100,000 records), and barely helped otherwise.
    const opened = await openRecords([copy.path], { materialize: true, threads: 1 });
    await attachIntervals(opened.connection, this.intervalsOf(runId));
    return opened;
  }

  /** The run's interval-series lines that match their schema, in one private file (none: no series). */
  private intervalsOf(runId: string): string[] {
    const good: string[] = [];
    for (const path of intervalFiles(this.dir, runId)) {
      readFileSync(path, 'utf8').split('\n').forEach((line, i) => {
        if (!line.trim()) return;
        let row: unknown;
        try {
          row = JSON.parse(line);
        } catch (err) {
          this.bad(path, i + 1, `not JSON: ${(err as Error).message}`);
          return;
        }
        const errors = intervalErrors(row);
        if (errors.length) this.bad(path, i + 1, `not an interval of a series: ${errors.slice(0, 3).join('; ')}`);
        else good.push(line);
      });
    }
    if (!good.length) return [];
    const path = join(this.tmpDir(), `${runId}.intervals.jsonl`);
    writeFileSync(path, good.join('\n') + '\n');
    return [path];
  }

  /** The run's valid records (upgraded to this schema where older), as the report reads them; none: []. */
  records(runId: string): ResultRecord[] {
    this.readRun(runId);
    const copy = this.copies.get(runId);
    if (!copy) return [];
    return readFileSync(copy.path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as ResultRecord);
  }

  /** The private folder of the copies (in RAM where /dev/shm exists), removed on dispose or exit. */
  private tmpDir(): string {
    if (!this.tmp) {
      this.tmp = mkdtempSync(join(memoryBackedTmp(), 's3ab-report-'));
      process.once('exit', this.removeOnExit);
    }
    return this.tmp;
  }

  /** Runs the model's SQL files over one run's records and builds the report model. */
  async reportModel(runId: string): Promise<ReportModel> {
    const db = await this.openRun(runId);
    const rows = {} as ModelRows;
    try {
      if (db) {
        const sql = Object.fromEntries(modelQueries().map((q) => [q.name, q.sql]));
        for (const name of MODEL_QUERIES) rows[name] = await query(db.connection, sql[name]);
      }
    } finally {
      db?.close();
    }
    return buildReportModel(rows, {
      runId,
      manifests: this.manifests.get(runId) ?? [],
      source: this.dir,
      otherRuns: this.runIds().filter((r) => r !== runId),
      badLines: [...this.badLines].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line),
      badLineCount: this.badLineCount, badManifests: [...this.badManifests], recordCount: this.recordCount,
      generatedAt: new Date().toISOString(),
    });
  }

  /** Removes the private copies. */
  dispose(): void {
    if (this.tmp) rmSync(this.tmp, { recursive: true, force: true });
    this.tmp = null;
    process.removeListener('exit', this.removeOnExit);
  }

  private bad(file: string, line: number, reason: string): void {
    this.badLineCount++;
    if (this.badLines.length < MAX_LISTED_BAD_LINES) this.badLines.push({ file: relative(this.dir, file), line, reason: reason.slice(0, 300) });
  }

  private readManifests(): void {
    const { manifests, bad } = readRunManifests(this.dir);
    for (const m of manifests) this.manifests.set(m.run_id, [...(this.manifests.get(m.run_id) ?? []), m]);
    this.badManifests.push(...bad);
    for (const b of bad) this.bad(b.path, 1, b.reason);
  }

  private listFiles(): void {
    const partitions = readdirSync(this.dir, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name.startsWith('dt=')).map((d) => d.name).sort();
    for (const part of partitions) {
      // Dot-files are steps still being written (the writer renames them when complete).
      for (const name of readdirSync(join(this.dir, part)).filter((f) => f.endsWith('.jsonl') && !f.startsWith('.')).sort()) {
        // The writer names step files RUNID--sNNN--METHOD--WORKLOAD.jsonl.
        const run = runIdOfFile(name) ?? '';
        let files = this.filesByRun.get(run);
        if (!files) this.filesByRun.set(run, (files = []));
        files.push(join(this.dir, part, name));
      }
    }
  }

  private readFiles(run: string): void {
    if (this.read.has(run)) return;
    this.read.add(run);
    for (const path of this.filesByRun.get(run) ?? []) this.readFile(path);
    for (const copy of this.copies.values()) this.flush(copy);
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
      if (record === null || typeof record !== 'object' || Array.isArray(record)) {
        const got = record === null ? 'null' : Array.isArray(record) ? 'an array' : `a ${typeof record}`;
        this.bad(path, i + 1, `not a JSON object (${got}): a result record is one object per line`);
        continue;
      }
      const upgraded = upgradeRecord(record);
      const errors = recordErrors(upgraded);
      if (errors.length) {
        const version = record.schema_version;
        const why = version !== SCHEMA_VERSION ? `schema_version ${JSON.stringify(version)}, this report reads ${SCHEMA_VERSION}` : errors.slice(0, 3).join('; ');
        this.bad(path, i + 1, `not a result record: ${why}`);
        continue;
      }
      this.recordCount++;
      const runId = record.run_id as string;
      let copy = this.copies.get(runId);
      if (!copy) this.copies.set(runId, (copy = { path: join(this.tmpDir(), `${runId}.jsonl`), pending: [], count: 0 }));
      copy.pending.push(upgraded === record ? line : JSON.stringify(upgraded));
      copy.count++;
      if (copy.pending.length >= FLUSH_LINES) this.flush(copy);
    }
  }

  private flush(copy: RunCopy): void {
    if (!copy.pending.length) return;
    appendFileSync(copy.path, copy.pending.join('\n') + '\n');
    copy.pending.length = 0;
  }
}
