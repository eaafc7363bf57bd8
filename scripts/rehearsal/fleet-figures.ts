/**
 * What a rehearsal's fleet execution shows of its barrier, from the records the runners uploaded:
 * per fleet step and pass, how many runners recorded it, whether they all started at one instant
 * (`fleet.start_at`), and how far apart their first measurements began (started_at) — on one host,
 * the barrier's own precision, with no clock offset between the sandboxes — and how many of its
 * records did not finish or failed (a client that lost its budget waiting at the barrier shows here).
 */
import type { StepRecord } from './step-figures';

export type FleetRecord = Pick<StepRecord, 'step' | 'started_at' | 'host' | 'cache'> & {
  status?: string;
  clients?: number;
  fleet?: { client: number; start_at: string; clock_source: string; clock_offset_ms: number | null } | null;
};

export interface FleetPassFigure { step: number; cache: string; clients: number; runners: number; startInstants: number; spreadMs: number; clockSources: string[]; didNotFinish: number; failed: number }

export function fleetFigures(records: readonly FleetRecord[]): FleetPassFigure[] {
  const passes = new Map<string, FleetRecord[]>();
  for (const r of records) {
    if ((r.clients ?? 1) <= 1 || r.status === 'not-applicable') continue;
    const key = `${r.step} ${r.cache}`;
    passes.set(key, [...(passes.get(key) ?? []), r]);
  }
  return [...passes.values()].map((rs) => {
    const firstByRunner = new Map<string, number>();
    for (const r of rs) {
      const t = Date.parse(r.started_at);
      const id = r.host.runner_id ?? '?';
      firstByRunner.set(id, Math.min(firstByRunner.get(id) ?? Infinity, t));
    }
    const firsts = [...firstByRunner.values()];
    return {
      step: rs[0].step, cache: rs[0].cache, clients: rs[0].clients ?? 1, runners: firstByRunner.size,
      startInstants: new Set(rs.map((r) => r.fleet?.start_at ?? 'none')).size,
      spreadMs: Math.max(...firsts) - Math.min(...firsts),
      clockSources: [...new Set(rs.map((r) => r.fleet?.clock_source ?? 'none'))],
      didNotFinish: rs.filter((r) => r.status === 'did-not-finish').length,
      failed: rs.filter((r) => r.status === 'failed').length,
    };
  }).sort((a, b) => a.step - b.step || a.cache.localeCompare(b.cache));
}
