import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { UserError } from '../core/errors';
import { processAlive } from '../core/process-state';
import { join } from 'node:path';
import { runIdOfFile } from '../core/vocabulary';
import type { RunManifest } from './writer';

/** Still "running" on disk, written by a process of this host that is gone. */
function abandoned(m: RunManifest): boolean {
  return m.status === 'running' && m.hostname === hostname() && typeof m.pid === 'number' && m.pid !== process.pid && !processAlive(m.pid);
}

/**
 * Rewrites the manifests of abandoned runs in a results folder as such (a new run notices them);
 * returns their run ids.
 */
export function markAbandoned(dir: string): string[] {
  const runsDir = join(dir, '_runs');
  if (!existsSync(runsDir)) return [];
  const found: string[] = [];
  for (const name of readdirSync(runsDir).filter((f) => f.endsWith('.json'))) {
    try {
      const m = JSON.parse(readFileSync(join(runsDir, name), 'utf8')) as RunManifest;
      if (!abandoned(m)) continue;
      m.status = 'abandoned';
      m.problem = `the run's process (pid ${m.pid} on ${m.hostname}) ended without finishing it: killed, or the machine stopped`;
      writeFileSync(join(runsDir, name), JSON.stringify(m, null, 2) + '\n');
      found.push(m.run_id);
    } catch {
      // not a manifest: the readers list it as such
    }
  }
  return found;
}

/** A file under _runs/ that is not a run manifest, and why. */
export interface BadManifest {
  path: string;
  /** The run its name gives (RUNID.json), or null: that run's status is unknown. */
  runId: string | null;
  reason: string;
}

/**
 * Every run manifest of a results folder (DIR/_runs/*.json), oldest run first. The one reader of
 * manifests: the text summary and the HTML report both use it, so a file that is not a manifest
 * (not JSON, no run id or status) is left out and named the same way in both, never a crash.
 */
export function readRunManifests(dir: string): { manifests: RunManifest[]; bad: BadManifest[] } {
  const runsDir = join(dir, '_runs');
  const manifests: RunManifest[] = [];
  const bad: BadManifest[] = [];
  if (!existsSync(runsDir)) return { manifests, bad };
  for (const name of readdirSync(runsDir).filter((f) => f.endsWith('.json')).sort()) {
    const path = join(runsDir, name);
    try {
      const m = JSON.parse(readFileSync(path, 'utf8')) as RunManifest;
      if (typeof m?.run_id !== 'string' || typeof m?.status !== 'string' || typeof m?.started_at !== 'string') throw new Error('no run_id, status or started_at');
      manifests.push(abandoned(m) ? { ...m, status: 'abandoned', problem: `the run's process (pid ${m.pid} on ${m.hostname}) ended without finishing it: killed, or the machine stopped` } : m);
    } catch (err) {
      const runId = runIdOfFile(name);
      bad.push({ path, runId, reason: `not a run manifest: ${(err as Error).message}${runId ? ` (the status of run ${runId} is unknown)` : ''}` });
    }
  }
  manifests.sort((a, b) => a.started_at.localeCompare(b.started_at));
  return { manifests, bad };
}

/**
 * The error for a run asked for by name whose manifest cannot be read: its status (complete,
 * failed, interrupted) is unknown, so its records are not reported as if it were known.
 */
export function unreadableManifestError(b: BadManifest): UserError {
  return new UserError(`the manifest of run ${b.runId}, ${b.path}, cannot be read: ${b.reason.replace(/^not a run manifest: /, '')}`,
    `restore that file (s3ab writes it as JSON at the run's end), or move it away to report the run's records without a manifest (their status unknown)`);
}
