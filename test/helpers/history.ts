import type { Measurement } from '../../runner/core/batch';
import type { ChangePoint, ChangePointFinder } from '../../runner/report/history/change-points';
import { runPoints, type RunPoint } from '../../runner/report/history/points';
import { toRecord, type StepFacts } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';

/** Records as the runner writes them (toRecord), of runs that differ in the facts and figures given. */
export const FACTS: Omit<StepFacts, 'run_id'> = {
  host: {
    hostname: 'h', instance_type: 'local', vcpus: 2, memory_bytes: 24 * 1024 ** 3, kernel: '6.1', os: 'Debian 12', region: null, availability_zone: null,
    link_limit_mib_s: null, link_baseline_mib_s: null, link_limit_source: 'none', runner_id: null,
  },
  endpoint: { kind: 'embedded', url: 'http://127.0.0.1:41234', server: 'versitygw v1.8.0+s3ab3' },
  method: 's3fs', method_variant: 'default', method_version: '1.90', method_options: { stat_cache: 'on' },
  workload: 'small-reads', workload_params: { files: '10' },
  step: 1, cache: 'cold', repetition: 1, clients: 1, fleet: null,
};
export const REQUESTS = { get: 10, get_ranged: 0, put: 0, mpu_create: 0, mpu_part: 0, mpu_complete: 0, mpu_abort: 0, head: 10, list: 1, delete: 0, copy: 0, other: 0, get_bytes: 10240 };

export const runId = (i: number) => `202611${String(10 + i).padStart(2, '0')}T000000Z-abcdef`;

export function record(i: number, mibS: number, opts: { facts?: Partial<StepFacts>; requests?: Partial<typeof REQUESTS> | null; repetition?: number } = {}): ResultRecord {
  const m: Measurement = {
    operation: 'read', objectSizeBytes: 1024, status: 'ok', supported: true, verified: true, ops: 10, ok: 10, failed: 0, bytes: 10240,
    durationMs: (10240 / 1024 ** 2 / mibS) * 1000, latency: null, errorSample: null, movesPayload: true,
  };
  const requests = opts.requests === null ? null : { ...REQUESTS, ...opts.requests };
  return toRecord({ ...FACTS, run_id: runId(i), repetition: opts.repetition ?? 1, ...opts.facts }, m, [], Date.parse('2026-11-28T00:00:00Z'), requests);
}

export const pointsOf = (records: ResultRecord[]): RunPoint[] => {
  const byRun = new Map<string, ResultRecord[]>();
  for (const r of records) byRun.set(r.run_id, [...(byRun.get(r.run_id) ?? []), r]);
  return [...byRun].flatMap(([id, rs]) => runPoints(rs, id, 'results'));
};

/** A change-point finder for tests that do not run Apache Otava (the unit tier starts no process): it says so. */
export const NOT_LOOKED_FOR: ChangePointFinder = (series) => ({ available: false, reason: `not looked for in this test (${series.length} series)` });

/** A finder that answers as Otava would, with the change points given per series (tests of how they are dated and shown). */
export const answering = (found: ChangePoint[][]): ChangePointFinder => () => ({ available: true, found });
