import type { Measurement } from '../../runner/core/batch';
import { changesOf, compareWithHistory } from '../../runner/report/history/compare';
import { changesLines, historyLines } from '../../runner/report/history/text';
import { summaryLines } from '../../runner/report/text/summary';
import { cell, modelOf } from '../helpers/model';
import { runPoints, type RunPoint } from '../../runner/report/history/points';
import { toRecord, type StepFacts } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';

/** Records as the runner writes them (toRecord), of runs that differ in the facts and figures given. */
const FACTS: Omit<StepFacts, 'run_id'> = {
  host: {
    hostname: 'h', instance_type: 'local', vcpus: 2, memory_bytes: 24 * 1024 ** 3, kernel: '6.1', os: 'Debian 12', region: null, availability_zone: null,
    link_limit_mib_s: null, link_baseline_mib_s: null, link_limit_source: 'none', runner_id: null,
  },
  endpoint: { kind: 'embedded', url: 'http://127.0.0.1:41234', server: 'versitygw v1.8.0+s3ab3' },
  method: 's3fs', method_variant: 'default', method_version: '1.90', method_options: { stat_cache: 'on' },
  workload: 'small-reads', workload_params: { files: '10' },
  step: 1, cache: 'cold', repetition: 1, clients: 1, fleet: null,
};
const REQUESTS = { get: 10, get_ranged: 0, put: 0, mpu_create: 0, mpu_part: 0, mpu_complete: 0, mpu_abort: 0, head: 10, list: 1, delete: 0, copy: 0, other: 0, get_bytes: 10240 };

const runId = (i: number) => `202611${String(10 + i).padStart(2, '0')}T000000Z-abcdef`;

function record(i: number, mibS: number, opts: { facts?: Partial<StepFacts>; requests?: Partial<typeof REQUESTS> | null; repetition?: number } = {}): ResultRecord {
  const m: Measurement = {
    operation: 'read', objectSizeBytes: 1024, status: 'ok', supported: true, verified: true, ops: 10, ok: 10, failed: 0, bytes: 10240,
    durationMs: (10240 / 1024 ** 2 / mibS) * 1000, latency: null, errorSample: null, movesPayload: true,
  };
  const requests = opts.requests === null ? null : { ...REQUESTS, ...opts.requests };
  return toRecord({ ...FACTS, run_id: runId(i), repetition: opts.repetition ?? 1, ...opts.facts }, m, [], Date.parse('2026-11-28T00:00:00Z'), requests);
}

const pointsOf = (records: ResultRecord[]): RunPoint[] => {
  const byRun = new Map<string, ResultRecord[]>();
  for (const r of records) byRun.set(r.run_id, [...(byRun.get(r.run_id) ?? []), r]);
  return [...byRun].flatMap(([id, rs]) => runPoints(rs, id, 'results'));
};
const STEADY = [99, 101, 100, 98, 102, 100, 99, 101, 100, 100];

describe('a run\'s points', () => {
  test('the median of the good repetitions, requests per operation by type, support and verification', () => {
    const [p] = pointsOf([record(1, 100), record(1, 120, { repetition: 2 }), record(1, 90, { repetition: 3 })]);
    expect(p.median).toBeCloseTo(100, 2);
    expect(p.metric).toEqual({ name: 'throughput', unit: 'MiB/s', higherIsBetter: true });
    expect(p.behaviour).toMatchObject({ 'requests/op head': 1, 'requests/op get': 1, 'requests/op list': 0.1, 'GET bytes/byte read': 1, support: 'supported', verification: 'all verified' });
    expect(p.requestsCounted).toBe(true);
  });

  test('fleet steps and step rows are not cases', () => {
    const fleet = record(1, 100, { facts: { clients: 3 } });
    const step = { ...record(1, 100), operation: 'step' };
    expect(pointsOf([fleet, step])).toEqual([]);
  });
});

describe('a run against its comparable history', () => {
  test('steady history, unchanged behaviour: compared, nothing flagged', () => {
    const pts = pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 100.5)]);
    const cmp = compareWithHistory(pts, runId(10));
    expect(cmp.comparableRuns).toBe(10);
    expect(cmp.cases).toHaveLength(1);
    expect(cmp.cases[0]).toMatchObject({ label: 'same', flagged: false, behaviour: [] });
    expect(changesOf(cmp)).toMatchObject({ behaviour: [], speed: [], unflagged: 1, insufficient: 0 });
  });

  test('a 20% slower run on a steady history is flagged', () => {
    const cmp = compareWithHistory(pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 80)]), runId(10));
    expect(cmp.cases[0].flagged).toBe(true);
    expect(cmp.cases[0].speed).toMatchObject({ kind: 'compared', runs: 10 });
  });

  test('fewer than 5 earlier runs: insufficient history, nothing flagged however large the change', () => {
    const cmp = compareWithHistory(pointsOf([record(0, 100), record(1, 100), record(2, 50)]), runId(2));
    expect(cmp.cases[0].speed).toEqual({ kind: 'insufficient', runs: 2, changePct: expect.closeTo(-50, 1) });
    expect(changesOf(cmp)).toMatchObject({ speed: [], insufficient: 1 });
  });

  test('an option that triples HEADs: a behaviour change, labelled an option change with its diff, exactly', () => {
    const pts = pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 100, { facts: { method_options: { stat_cache: 'off' } }, requests: { head: 30 } })]);
    const c = compareWithHistory(pts, runId(10)).cases[0];
    expect(c.label).toBe('option change');
    expect(c.diff).toEqual(['option stat_cache: on → off']);
    expect(c.behaviour).toEqual([{ figure: 'requests/op head', before: '1', after: '3' }]);
    expect(c.behaviourAgainst).toBe(runId(9));
  });

  test('a new client version: compared and labelled', () => {
    const pts = pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 100, { facts: { method_version: '1.95' } })]);
    expect(compareWithHistory(pts, runId(10)).cases[0]).toMatchObject({ label: 'version change', diff: ['version 1.90 → 1.95'], behaviour: [] });
  });

  test('any other difference is not comparable, with the fields', () => {
    const pts = pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 100, { facts: { workload_params: { files: '20' }, host: { ...FACTS.host, vcpus: 8 } } })]);
    const cmp = compareWithHistory(pts, runId(10));
    expect(cmp.cases).toEqual([]);
    expect(cmp.notComparable.map((n) => [n.against, n.fields])).toEqual([[runId(9), ['workload_params', 'host_class']]]);
  });

  test('uncounted requests are not a behaviour change; a changed probe outcome is', () => {
    const pts = pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 100, { requests: null })]);
    expect(compareWithHistory(pts, runId(10)).cases[0].behaviour).toEqual([]);
    const unverified = { ...record(11, 100), verified: false, status: 'ok' as const };
    const withUnverified = pointsOf([...STEADY.map((v, i) => record(i, v)), unverified]);
    expect(compareWithHistory(withUnverified, runId(11)).cases[0].behaviour).toEqual([{ figure: 'verification', before: 'all verified', after: 'none verified' }]);
  });

  test('later runs never count as history', () => {
    const pts = pointsOf([record(0, 100), ...STEADY.map((v, i) => record(i + 1, v))]);
    expect(compareWithHistory(pts, runId(0)).cases).toEqual([]);
    expect(compareWithHistory(pts, runId(0)).firstSeen).toBe(1);
  });
});

describe('where a user sees it', () => {
  const slower = (i: number) => record(i, 80, { facts: { workload: 'large-read' } });
  const pts = pointsOf([
    ...STEADY.map((v, i) => record(i, v)), ...STEADY.map((v, i) => record(i, v, { facts: { workload: 'large-read' } })),
    record(10, 100, { facts: { method_options: { stat_cache: 'off' } }, requests: { head: 30 } }), slower(10),
  ]);
  const cmp = compareWithHistory(pts, runId(10));

  test('the summary ends with the changes: behaviour first, then flagged speed changes, then the count of the rest', () => {
    const lines = summaryLines(modelOf([cell({ method: 's3-api' })]), { history: cmp });
    const tail = changesLines(cmp);
    expect(lines.slice(lines.length - tail.length)).toEqual(tail);
    const text = tail.join('\n').replace(/\s+/g, ' ');
    expect(text).toContain('Changes against 10 comparable runs');
    const at = (s: string) => text.indexOf(s);
    expect(at('behaviour changes')).toBeLessThan(at('flagged speed changes: 1'));
    expect(at('flagged speed changes: 1')).toBeLessThan(at('not flagged: 1 cases compared'));
    expect(text).toMatch(/small-reads read 1 KiB \(cold\) · s3fs \[option change: option stat_cache: on → off\]: requests\/op head 1 → 3/);
    expect(text).toMatch(/large-read read 1 KiB \(cold\) · s3fs: 80 MiB\/s — FLAGGED slower: -20%/);
    expect(text).toMatch(/by chance alone about 0\.0\d+ of the 2 compared cases/);
  });

  test('without a history the summary has no such part', () => {
    expect(summaryLines(modelOf([cell({ method: 's3-api' })])).join('\n')).not.toContain('comparable run');
  });

  test('the series: every run of a case, oldest first, with its verdict against the runs before it', () => {
    const text = historyLines(pts, { workload: 'large-read' }).join('\n');
    expect(text).not.toContain('small-reads');
    expect(text.match(/20261\d+T000000Z-abcdef/g)).toHaveLength(11);
    expect(text).toContain('first run of this case');
    expect(text).toContain('insufficient history (4 runs');
    expect(text).toMatch(/FLAGGED\s+slower/);
  });
});
