import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Measurement } from '../../runner/core/batch';
import { KEY_FIELDS, keyDifferences, type ComparableFacts, type KeyField } from '../../runner/core/comparability';
import { LatencyHistogram } from '../../runner/core/stats';
import { toRecord, type StepFacts } from '../../runner/results/record';
import { attachIntervals, namedQueries, openRecords, query, type OpenedResults } from '../../runner/report/results-db';

/**
 * Every SQL file (model and adhoc) groups by the comparability key, or by a subset its heading
 * declares (`-- Grouping: the comparability key but FIELD, FIELD (why)`), or keeps one row per record.
 * Records that differ in exactly one field of the key are run through every query on DuckDB, each
 * pair in a run of its own: the pair's rows must be the rows of each record alone, added up — a
 * query that pools the two gives fewer.
 */

const host: StepFacts['host'] = {
  hostname: 'h', instance_type: 'local', vcpus: 2, memory_bytes: 24 * 1024 ** 3, kernel: '6.1', os: 'Debian 12', region: null, availability_zone: null,
  link_limit_mib_s: null, link_baseline_mib_s: null, link_limit_source: 'none', runner_id: null,
};
const endpoint: StepFacts['endpoint'] = { kind: 'embedded', url: 'http://127.0.0.1:41234', server: 'versitygw v1.8.0+s3ab3' };

/** A record each query selects: every workload a query filters on, in each status a query keeps apart. */
const profiles: { name: string; workload: string; operation: string; params: Record<string, string>; status: Measurement['status'] }[] = [
  { name: 'small-reads', workload: 'small-reads', operation: 'read', params: { files: '10' }, status: 'ok' },
  { name: 'web-serving', workload: 'web-serving', operation: 'read', params: { files: '10' }, status: 'ok' },
  { name: 'metadata', workload: 'metadata', operation: 'stat', params: { files: '10' }, status: 'ok' },
  { name: 'read-scaling', workload: 'read-scaling', operation: 'concurrent-4', params: { readers: '4' }, status: 'ok' },
  { name: 'git-clone', workload: 'git-clone', operation: 'clone', params: { repo: 'x' }, status: 'ok' },
  { name: 'semantics', workload: 'semantics', operation: 'rename', params: {}, status: 'ok' },
  { name: 'fio-seq', workload: 'fio-seq', operation: 'read', params: { io: 'direct' }, status: 'ok' },
  { name: 'objects', workload: 'objects', operation: 'put', params: { count: '10' }, status: 'ok' },
  { name: 'did-not-finish', workload: 'small-reads', operation: 'read', params: { files: '10' }, status: 'did-not-finish' },
  { name: 'not-applicable', workload: 'fio-seq', operation: 'read', params: { io: 'direct' }, status: 'not-applicable' },
];

/** Each field of the key, changed alone. */
const change: Record<KeyField, (f: StepFacts) => Partial<ComparableFacts>> = {
  method: () => ({ method: 'mountpoint' }),
  method_variant: () => ({ method_variant: 'tuned' }),
  method_options: (f) => ({ method_options: { ...f.method_options, parallel_count: '10' } }),
  method_version: () => ({ method_version: '1.95' }),
  workload: () => ({ workload: 'large-read' }),
  workload_params: (f) => ({ workload_params: { ...f.workload_params, depth: '2' } }),
  cache: () => ({ cache: 'warm' }),
  clients: () => ({ clients: 3 }),
  host_class: (f) => ({ host: { ...f.host, vcpus: 48 } }),
  endpoint_class: (f) => ({ endpoint: { ...f.endpoint, server: 'MinIO RELEASE.2026' } }),
};

function measurement(p: (typeof profiles)[number]): Measurement {
  const h = new LatencyHistogram();
  for (const ns of [1e6, 2e6, 3e6]) h.recordNs(ns);
  const finished = p.status === 'ok';
  return {
    operation: p.operation, objectSizeBytes: 8192, status: p.status, supported: p.status !== 'not-applicable', verified: finished,
    ops: 3, ok: finished ? 3 : 0, failed: 0, bytes: finished ? 3 * 8192 : 0, durationMs: 30, movesPayload: true,
    latency: finished ? h.summary() : null, latencyHistogram: finished ? h.buckets() : null,
    errorSample: p.status === 'not-applicable' ? 'not a file system' : null,
    ...(p.status === 'did-not-finish' ? { progress: { budget_s: 1, done: 1, planned: 3, unit: 'operations', rate_per_s: 1, extrapolated_total_s: 3 } } : {}),
  } as Measurement;
}

/** The fields of the key a query's heading lets it pool; null when it keeps one row per record. */
function declaredPooling(sql: string, name: string): KeyField[] | null {
  const line = sql.split('\n').find((l) => l.startsWith('-- Grouping: '));
  if (!line) throw new Error(`${name}: no "-- Grouping:" line in its heading`);
  if (/^-- Grouping: one row per (record|interval)/.test(line)) return null;
  const m = /^-- Grouping: the comparability key(?: but ([a-z_, ]+?))? \(/.exec(line);
  if (!m) throw new Error(`${name}: "${line}" names neither the comparability key nor one row per record`);
  const fields = m[1] ? m[1].split(', ') : [];
  for (const f of fields) if (!(KEY_FIELDS as readonly string[]).includes(f)) throw new Error(`${name}: "${f}" is not a field of the key`);
  return fields as KeyField[];
}

describe('every query keeps records of different comparability keys apart, or declares what it pools', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-comparable-'));
  let db: OpenedResults;
  /** Run ids per profile and field: the pair, the base alone, the changed record alone. */
  const runs: { profile: string; field: KeyField; both: string; base: string; other: string }[] = [];

  beforeAll(async () => {
    const lines: string[] = [];
    let n = 0;
    const runId = () => `20261128T020000Z-${(n++).toString(16).padStart(6, '0')}`;
    for (const p of profiles) {
      for (const field of KEY_FIELDS) {
        const ids = { profile: p.name, field, both: runId(), base: runId(), other: runId() };
        runs.push(ids);
        const facts = (run_id: string): StepFacts => ({
          run_id, host, endpoint, method: 's3fs', method_variant: 'default', method_version: '1.90', method_options: { parallel_count: '5' },
          workload: p.workload, workload_params: p.params, step: 1, cache: 'cold', repetition: 1, clients: 1, fleet: null,
        });
        const changed = (run_id: string): StepFacts => ({ ...facts(run_id), ...change[field](facts(run_id)) }) as StepFacts;
        expect({ field, differences: keyDifferences(facts(ids.both), changed(ids.both)) }).toEqual({ field, differences: [field] });
        const m = measurement(p);
        for (const f of [facts(ids.both), changed(ids.both), facts(ids.base), changed(ids.other)]) lines.push(JSON.stringify(toRecord(f, m, [], Date.parse('2026-11-28T02:00:01Z'))));
      }
    }
    const file = join(dir, 'records.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    db = await openRecords(file, { materialize: true });
    await attachIntervals(db.connection, []);
  });
  afterAll(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the declarations name fields of the key, and every query has one', () => {
    for (const q of namedQueries()) declaredPooling(q.sql, q.name);
    expect(namedQueries().map((q) => q.use).sort()).toEqual(expect.arrayContaining(['adhoc', 'model']));
  });

  test.each(namedQueries().map((q) => [q.name, q] as const))('%s', async (name, q) => {
    const pooled = declaredPooling(q.sql, name);
    const rows = await query(db.connection, q.sql);
    const count = new Map<string, number>();
    for (const r of rows) count.set(String(r.run_id), (count.get(String(r.run_id)) ?? 0) + 1);
    const rowsOf = (run: string) => count.get(run) ?? 0;
    const pooling: string[] = [];
    for (const r of runs) {
      if (pooled?.includes(r.field)) continue;
      if (rowsOf(r.both) !== rowsOf(r.base) + rowsOf(r.other)) pooling.push(`${r.profile}: ${r.field} (${rowsOf(r.both)} rows, ${rowsOf(r.base)} + ${rowsOf(r.other)} apart)`);
    }
    expect(pooling).toEqual([]);
    // Not vacuous: the query selects some of these records (interval_series reads intervals, none here).
    if (name !== 'interval_series') expect(rows.length).toBeGreaterThan(0);
  });
});
