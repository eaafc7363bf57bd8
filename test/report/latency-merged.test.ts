import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bucketUpperNs, LatencyHistogram, type LatencySummary } from '../../runner/core/stats';
import { namedQueries, openResults, query } from '../../runner/report/results-db';
import type { ResultRecord } from '../../runner/core/record.generated';
import { runBenchmark } from '../../runner/run';
import { fixtureLatenciesNs, writeReportFixture } from '../../scripts/fixtures/report-fixture';
import { latencyHistogramProblems } from '../helpers/latency';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/**
 * assets/queries/adhoc/latency_merged.sql on DuckDB (the SQL Athena runs) against percentiles computed
 * here from the raw latencies behind the records: the rendering fixture's synthetic ones, and the
 * ones a real run timed (captured as the runner recorded them). Equal to the last digit: the SQL
 * reads the bound of the bucket holding the nearest-rank latency of all merged measurements.
 */
const SQL = namedQueries().find((q) => q.name === 'latency_merged')!.sql;

/** latency_merged.sql's grouping: what makes measurements the same case. */
function caseKey(r: Pick<ResultRecord, 'run_id' | 'workload' | 'operation' | 'object_size_bytes' | 'method' | 'method_variant' | 'cache'>, io: string | null): string {
  // DuckDB returns BIGINT columns as BigInt.
  const size = r.object_size_bytes === null ? null : Number(r.object_size_bytes);
  return JSON.stringify([r.run_id, r.workload, r.operation, io, size, r.method, r.method_variant, r.cache]);
}

function ioOf(r: ResultRecord): string | null {
  const p = r.workload_params;
  if ('io' in p) return p.io;
  if ('direct' in p) return p.direct === '1' ? 'direct' : p.direct === '0' ? 'buffered' : null;
  return null;
}

/** p50 / p95 / p99 of raw latencies (ns): the nearest-rank latency's bucket bound, in µs. */
function rawPercentiles(ns: number[]): [number, number, number] {
  const sorted = ns.map((v) => Math.max(1, Math.round(v))).sort((a, b) => a - b);
  const at = (p: number) => bucketUpperNs(sorted[Math.ceil((sorted.length * p) / 100) - 1]) / 1000;
  return [at(50), at(95), at(99)];
}

/** The query's rows next to what the raw latencies of each case's good records give. */
async function compare(dir: string, runId: string, rawOf: (r: ResultRecord) => number[]): Promise<{ rows: number; mismatches: unknown[]; merged: number }> {
  const records: ResultRecord[] = [];
  for (const part of readdirSync(dir).filter((d) => d.startsWith('dt='))) {
    for (const f of readdirSync(join(dir, part))) {
      for (const line of readFileSync(join(dir, part, f), 'utf8').trim().split('\n')) records.push(JSON.parse(line));
    }
  }
  const cases = new Map<string, ResultRecord[]>();
  for (const r of records.filter((x) => x.status === 'ok' && x.verified && x.operation !== 'step' && x.latency_histogram)) {
    const key = caseKey(r, ioOf(r));
    cases.set(key, [...(cases.get(key) ?? []), r]);
  }
  const db = await openResults(dir, runId);
  try {
    const rows = await query(db.connection, SQL);
    const mismatches: unknown[] = [];
    for (const row of rows) {
      const key = caseKey(row as unknown as ResultRecord, row.io as string | null);
      const mine = cases.get(key) ?? [];
      cases.delete(key);
      const raw = mine.flatMap(rawOf);
      const expected = {
        key, measurements: mine.length, latencies: raw.length, percentiles: rawPercentiles(raw),
        min_us: Math.min(...mine.map((r) => r.latency_us!.min)), max_us: Math.max(...mine.map((r) => r.latency_us!.max)),
      };
      const actual = {
        key, measurements: Number(row.measurements), latencies: Number(row.latencies), percentiles: [row.p50_us, row.p95_us, row.p99_us],
        min_us: row.min_us, max_us: row.max_us,
      };
      if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push({ actual, expected });
    }
    // Every case with latencies has its row.
    for (const key of cases.keys()) mismatches.push({ missing: key });
    return { rows: rows.length, mismatches, merged: rows.filter((r) => Number(r.measurements) > 1).length };
  } finally {
    db.close();
  }
}

describe('latency_merged.sql over the rendering fixture', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-merged-fixture-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('every case\'s merged p50 / p95 / p99 equal those of the pooled raw latencies of its repetitions', async () => {
    const { runId } = await writeReportFixture(dir, { repetitions: 3 });
    const out = await compare(dir, runId, (r) => fixtureLatenciesNs(r.latency_us!, r.ok));
    expect(out.mismatches).toEqual([]);
    expect(out.rows).toBeGreaterThan(100);
    expect(out.merged).toBeGreaterThan(100);
  });
});

describe('latency_merged.sql over a real run (s3-api and s3-crt against the embedded versitygw, 3 repetitions)', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-merged-run-'));
  /** The latencies each histogram recorded, and which record summary it became. */
  const raw = new WeakMap<LatencyHistogram, number[]>();
  const made: { latency: LatencySummary; raw: number[] }[] = [];
  let runId = '';
  let records: ResultRecord[] = [];

  beforeAll(async () => {
    const recordNs = LatencyHistogram.prototype.recordNs;
    const fields = LatencyHistogram.prototype.fields;
    jest.spyOn(LatencyHistogram.prototype, 'recordNs').mockImplementation(function (this: LatencyHistogram, ns: number) {
      let list = raw.get(this);
      if (!list) raw.set(this, (list = []));
      list.push(ns);
      recordNs.call(this, ns);
    });
    jest.spyOn(LatencyHistogram.prototype, 'fields').mockImplementation(function (this: LatencyHistogram) {
      const out = fields.call(this);
      if (out.latency) made.push({ latency: out.latency, raw: raw.get(this) ?? [] });
      return out;
    });
    const matrixFile = join(dir, 'matrix.json');
    writeFileSync(matrixFile, JSON.stringify({ name: 'latency-merged-test', repetitions: 3, methods: ['s3-api', 's3-crt'], workloads: { objects: { sizes: ['1KiB', '256KiB'], files: 12 } } }));
    const outcome = await runBenchmark({ matrixFile, resultsDir: join(dir, 'results'), quiet: true });
    jest.restoreAllMocks();
    expect(outcome.manifest.problem).toBeNull();
    runId = outcome.manifest.run_id;
    for (const part of readdirSync(join(dir, 'results')).filter((d) => d.startsWith('dt='))) {
      for (const f of readdirSync(join(dir, 'results', part))) {
        for (const line of readFileSync(join(dir, 'results', part, f), 'utf8').trim().split('\n')) records.push(JSON.parse(line));
      }
    }
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('every record with latency_us carries buckets that count its operations and agree with its percentiles', () => {
    expect(records.filter((r) => r.latency_us).length).toBeGreaterThanOrEqual(2 * 3 * 2 * 5);
    expect(latencyHistogramProblems(records)).toEqual([]);
  });

  test('merged p50 / p95 / p99 per case equal those of the raw latencies the run timed, over its 3 repetitions', async () => {
    const unused = [...made];
    // A record's summary names the histogram it came from (its raw latencies).
    const rawOf = (r: ResultRecord) => {
      const i = unused.findIndex((m) => JSON.stringify(m.latency) === JSON.stringify(r.latency_us));
      if (i < 0) throw new Error(`no recorded latencies for ${r.method} ${r.operation} ${r.object_size_bytes} #${r.repetition}`);
      return unused.splice(i, 1)[0].raw;
    };
    const out = await compare(join(dir, 'results'), runId, rawOf);
    expect(out.mismatches).toEqual([]);
    // 2 methods × 2 sizes × 5 operations, each merged over 3 repetitions.
    expect([out.rows, out.merged]).toEqual([20, 20]);
  });
});
