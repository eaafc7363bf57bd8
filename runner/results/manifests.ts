import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunManifest } from './writer';

/** A file under _runs/ that is not a run manifest, and why. */
export interface BadManifest {
  path: string;
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
      manifests.push(m);
    } catch (err) {
      bad.push({ path, reason: `not a run manifest: ${(err as Error).message}` });
    }
  }
  manifests.sort((a, b) => a.started_at.localeCompare(b.started_at));
  return { manifests, bad };
}
