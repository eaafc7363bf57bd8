import { resolve } from 'node:path';
import { ScannedResults } from '../load';
import { runDate, runPoints, type RunPoint } from './points';
import { otavaChangePoints } from './change-points';
import { runHistory, type RunHistory } from './series';

/**
 * A results history: every run of the results folder and of each `--history DIR`, read as the
 * report reads a run (ScannedResults: every line checked against the result schema, older schema
 * versions upgraded, bad lines left out), reduced to points (points.ts). A run found in two
 * folders counts once (the first folder's).
 */
export interface LoadedHistory {
  points: RunPoint[];
  /** Every run read, oldest first (run ids start with their UTC start time). */
  runs: string[];
  /** Folders read, and the lines they held that are not records (left out). */
  folders: { dir: string; runs: number; badLines: number }[];
}

/** Reads the folders' runs into points; `scan` reuses a folder already open (its runs are read once). */
export function loadHistory(dirs: string[], opts: { scans?: Map<string, ScannedResults> } = {}): LoadedHistory {
  const seen = new Set<string>();
  const points: RunPoint[] = [];
  const folders: LoadedHistory['folders'] = [];
  for (const dir of [...new Set(dirs.map((d) => resolve(d)))]) {
    const own = opts.scans?.get(dir);
    const scan = own ?? ScannedResults.open(dir);
    try {
      // Files not named after a run may hold any run's records: read them before listing the runs.
      scan.readRun('');
      let runs = 0;
      for (const runId of scan.runIds()) {
        if (seen.has(runId)) continue;
        const records = scan.records(runId);
        if (!records.length) continue;
        seen.add(runId);
        runs++;
        const manifest = scan.manifests.get(runId)?.map((m) => m.started_at).sort()[0];
        points.push(...runPoints(records, runDate(runId, manifest), dir));
      }
      folders.push({ dir, runs, badLines: scan.badLineCount });
    } finally {
      if (!own) scan.dispose();
    }
  }
  return { points, runs: [...seen].sort(), folders };
}

/**
 * The run's history read from its results folder (through the scan already open: its runs are read
 * once) and from the other history folders, its change points found by Apache Otava where installed.
 */
export function loadRunHistory(scan: ScannedResults, runId: string, historyDirs: string[] = []): RunHistory {
  const loaded = loadHistory([scan.dir, ...historyDirs], { scans: new Map([[resolve(scan.dir), scan]]) });
  return runHistory(loaded.points, runId, loaded.runs.length, otavaChangePoints);
}
