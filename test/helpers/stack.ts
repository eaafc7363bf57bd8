import type { Synthesized } from '../../scripts/rehearsal/synthesize';

/** Resources of one type, as [logicalId, properties]. */
export function resourcesOf(s: Synthesized, type: string): [string, Record<string, any>][] {
  return Object.entries(s.json.Resources).filter(([, r]) => r.Type === type).map(([id, r]) => [id, r.Properties ?? {}]);
}
