import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bucketUpperNs } from '../../runner/core/stats';
import { namedQueries, openResults, query } from '../../runner/report/results-db';
import { recordErrors } from '../../runner/results/record';
import { evenSeries, writeFleetRecords, type FleetCase, type FleetClient } from '../../scripts/fixtures/fleet-fixture';

/**
 * assets/queries/model/fleet_scaling.sql on DuckDB (the SQL Athena runs) over fleet records with windows,
 * series and latencies chosen so that every figure can be worked out by hand: the all-running
 * window, each client's bytes inside it (pro rata from its series, or its mean rate × the window),
 * the spread of the clients' own rates, and p50 / p95 / p99 of the merged histograms.
 */
const SQL = namedQueries().find((q) => q.name === 'fleet_scaling')!.sql;
const RUN = '20261126T040000Z-0f1ee7';
const MS = 1e6;
const read = { method: 's3-crt', workload: 'large-read', operation: 'read', sizeBytes: 10 * 1024 * 1024, cache: 'cold' as const, repetition: 1 };

// Three clients and a fourth that failed (its early end must not shrink the window).
// client-1: 100 → 110 s, ten 1 s intervals of 50 MiB / 5 ops.
// client-2: 101 → 111.5 s, interval i of 10·(i+1) MiB / i+1 ops, then half a second of 5 MiB.
// client-3: 102.5 → 109 s, no series: 390 MiB, 39 ops (60 MiB/s, 6 ops/s).
// All running: last start 102.5 → first finish 109 = 6.5 s. Inside it: client-1 half of
// [102, 103] + six whole intervals = 25 + 300 MiB, 2.5 + 30 ops; client-2 half of [102, 103] +
// [103, 109] = 10 + 330 MiB, 1 + 33 ops; client-3 60 × 6.5 = 390 MiB, 6 × 6.5 = 39 ops.
const fleet: FleetClient[] = [
  { client: 1, startS: 100, endS: 110, mib: 500, ok: 50, series: evenSeries(10, 50, 5), latenciesNs: [[1 * MS, 50]] },
  {
    client: 2, startS: 101, endS: 111.5, mib: 555, ok: 55,
    series: [...Array.from({ length: 10 }, (_, i) => ({ offsetS: i, durationS: 1, mib: 10 * (i + 1), ops: i + 1 })), { offsetS: 10, durationS: 0.5, mib: 5, ops: 0 }],
    latenciesNs: [[2 * MS, 54], [100 * MS, 1]],
  },
  { client: 3, startS: 102.5, endS: 109, mib: 390, ok: 39, latenciesNs: [[3 * MS, 37], [200 * MS, 2]] },
  { client: 4, startS: 100, endS: 105, mib: 0, ok: 10, status: 'failed', latenciesNs: [] },
];
const cases: FleetCase[] = [
  // The baseline: one client, 100 MiB/s for 10 s.
  { step: 1, ...read, clients: [{ client: 1, startS: 10, endS: 20, mib: 1000, ok: 100, series: evenSeries(10, 100, 10), latenciesNs: [[1 * MS, 99], [9 * MS, 1]] }] },
  { step: 2, ...read, clients: fleet, fleetSize: 4 },
  // Two clients that never ran at the same time: no aggregate.
  {
    step: 3, ...read, clients: [
      { client: 1, startS: 200, endS: 201, mib: 10, ok: 1, latenciesNs: [[1 * MS, 1]] },
      { client: 2, startS: 202, endS: 203, mib: 10, ok: 1, latenciesNs: [[1 * MS, 1]] },
    ],
  },
];

describe('fleet_scaling.sql on synthetic fleet records', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-fleet-scaling-'));
  let rows: Record<string, unknown>[] = [];
  let cells: Record<string, unknown>[] = [];
  let intervals: Record<string, unknown>[] = [];
  const byClients = (k: number) => rows.find((r) => r.clients === k)!;

  beforeAll(async () => {
    const records = await writeFleetRecords(dir, RUN, cases, { linkLimitMibS: 1192 });
    expect(records.flatMap(recordErrors)).toEqual([]);
    const db = await openResults(dir, RUN);
    try {
      // DuckDB counts come back as BigInt.
      const plain = (list: Record<string, unknown>[]) => list.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
      rows = plain(await query(db.connection, SQL));
      const sql = (name: string) => namedQueries().find((q) => q.name === name)!.sql;
      cells = plain(await query(db.connection, sql('report_cells')));
      intervals = plain(await query(db.connection, sql('interval_series')));
    } finally {
      db.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('one row per fleet size, keyed as the report\'s cases', () => {
    expect(rows.map((r) => [r.clients, r.workload, r.operation, r.object_size_bytes, r.method, r.cache, r.repetition, r.io])).toEqual([
      [1, 'large-read', 'read', 10 * 1024 * 1024, 's3-crt', 'cold', 1, null],
      [2, 'large-read', 'read', 10 * 1024 * 1024, 's3-crt', 'cold', 1, null],
      [4, 'large-read', 'read', 10 * 1024 * 1024, 's3-crt', 'cold', 1, null],
    ]);
  });

  test('the aggregate counts each good client\'s bytes inside the all-running window only', () => {
    const r = byClients(4);
    expect([r.clients_ok, r.clients_failed, r.hosts]).toEqual([3, 1, 1]);
    // The failed client by name, for the verdict.
    expect(r.failed_clients).toBe('client-4');
    expect(r.window_ms).toBeCloseTo(6500, 6);
    expect(r.start_spread_ms).toBeCloseTo(2500, 6);
    expect(r.aggregate_mib_s).toBeCloseTo((325 + 340 + 390) / 6.5, 9);
    expect(r.aggregate_ops_s).toBeCloseTo((32.5 + 34 + 39) / 6.5, 9);
    // Two clients from their series, one from its mean rate.
    expect(r.aggregate_basis).toBe('mixed');
    // The spread of the clients' own rates: 500 MiB / 10 s, 555 / 10.5, 390 / 6.5.
    expect([r.client_mib_s_min, r.client_mib_s_max]).toEqual([50, 60]);
    expect([r.client_ops_s_min, r.client_ops_s_max]).toEqual([5, 6]);
    // Local clients share one host: one link.
    expect(r.fleet_link_limit_mib_s).toBe(1192);
  });

  test('p50 / p95 / p99 come from the clients\' histograms summed bucket by bucket, not from their own percentiles', () => {
    const r = byClients(4);
    // 144 latencies: 50 at 1 ms, 54 at 2, 37 at 3, 1 at 100, 2 at 200 ms. Ranks 72, 137, 143.
    expect(r.latencies).toBe(144);
    expect([r.p50_us, r.p95_us, r.p99_us]).toEqual([2 * MS, 3 * MS, 200 * MS].map((ns) => bucketUpperNs(ns) / 1000));
    // The clients' own p99s are 1, 100 and 200 ms: their mean (~100 ms) is a latency the merge never gives.
  });

  test('one client is the baseline: its own rate, over its own window', () => {
    const r = byClients(1);
    expect([r.clients_ok, r.clients_failed, r.failed_clients, r.aggregate_basis]).toEqual([1, 0, null, 'series']);
    expect(r.window_ms).toBeCloseTo(10_000, 6);
    expect(r.aggregate_mib_s).toBeCloseTo(100, 9);
    expect(r.aggregate_ops_s).toBeCloseTo(10, 9);
    expect([r.client_mib_s_min, r.client_mib_s_max]).toEqual([100, 100]);
    // 100 latencies: the 99th is the last at 1 ms, the 100th at 9 ms.
    expect([r.p50_us, r.p99_us]).toEqual([bucketUpperNs(MS) / 1000, bucketUpperNs(MS) / 1000]);
  });

  test('clients that never all ran at once get no aggregate', () => {
    const r = byClients(2);
    expect(r.window_ms).toBeCloseTo(-1000, 6);
    expect([r.aggregate_mib_s, r.aggregate_ops_s, r.aggregate_basis]).toEqual([null, null, null]);
    expect(r.clients_ok).toBe(2);
  });

  test('the report\'s other tables keep one client only: never a median over different numbers of clients', () => {
    expect(cells.map((c) => [c.method, c.clients, c.records, c.repetitions, c.mib_s_median])).toEqual([['s3-crt', 1, 1, 1, 100]]);
    expect(intervals.length).toBe(10);
    expect(new Set(intervals.map((i) => i.step))).toEqual(new Set([1]));
  });
});

describe('a matrix of fleets only ("clients": [3])', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-fleet-only-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('puts no per-client figure into the main tables as if it were one client\'s: report_cells and interval_series are empty, fleet_scaling has the fleet', async () => {
    const only3 = { step: 1, ...read, clients: fleet.slice(0, 3) };
    await writeFleetRecords(dir, RUN, [only3], { linkLimitMibS: 1192 });
    const db = await openResults(dir, RUN);
    try {
      const sql = (name: string) => namedQueries().find((q) => q.name === name)!.sql;
      expect(await query(db.connection, sql('report_cells'))).toEqual([]);
      expect(await query(db.connection, sql('interval_series'))).toEqual([]);
      expect((await query(db.connection, SQL)).map((r) => Number(r.clients))).toEqual([3]);
    } finally {
      db.close();
    }
  });
});
