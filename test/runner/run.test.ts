import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile, resolveMatrix } from '../../runner/core/matrix';
import { recordErrors } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';
import { runBenchmark } from '../../runner/run';
import { printSummary } from '../../runner/report/summary';
import { namedQueries, openResults, query } from '../../runner/report/results-db';
import { alive } from '../helpers/cli';
import { CATALOG } from '../../runner/catalog';
import { latencyHistogramProblems } from '../helpers/latency';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

function readRecords(dir: string): ResultRecord[] {
  const out: ResultRecord[] = [];
  for (const part of readdirSync(dir).filter((d) => d.startsWith('dt='))) {
    for (const f of readdirSync(join(dir, part))) {
      expect(f).toMatch(/\.jsonl$/); // no leftover temporary files
      for (const line of readFileSync(join(dir, part, f), 'utf8').trim().split('\n')) out.push(JSON.parse(line));
    }
  }
  return out;
}

describe('a quick run against the embedded versitygw', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-results-'));
  let records: ResultRecord[] = [];
  let serverPid = 0;
  let runId = '';

  beforeAll(async () => {
    const outcome = await runBenchmark({ profile: 'quick', repetitions: 1, resultsDir: dir, quiet: true, onEndpoint: (e) => (serverPid = e.pid) });
    expect(outcome.manifest.problem).toBeNull();
    expect(outcome.manifest.status).toBe('complete');
    runId = outcome.manifest.run_id;
    records = readRecords(dir);
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('every record matches the result schema', () => {
    expect(records.length).toBeGreaterThan(20);
    for (const r of records) expect(recordErrors(r)).toEqual([]);
    expect(latencyHistogramProblems(records)).toEqual([]);
  });

  test('every method × workload of the profile produced verified measurements', () => {
    const quick = resolveMatrix(loadProfile('quick'), 'quick', CATALOG);
    for (const m of quick.methods) {
      for (const w of quick.workloads) {
        const mine = records.filter((r) => r.method === m.name && r.workload === w.name);
        expect(mine.length).toBeGreaterThan(0);
        for (const r of mine) {
          expect({ method: r.method, workload: r.workload, op: r.operation, status: r.status, verified: r.verified, error: r.error_sample })
            .toEqual({ method: r.method, workload: r.workload, op: r.operation, status: 'ok', verified: true, error: null });
        }
      }
    }
  });

  test('records carry what makes them comparable', () => {
    const upload = records.find((r) => r.method === 's3-api' && r.operation === 'upload' && r.object_size_bytes === 16 * 1024 * 1024)!;
    expect(upload.method_options).toMatchObject({ part_size: '8MiB', concurrency: '10', keep_alive: 'true' });
    expect(upload.method_version).toMatch(/^aws-sdk-js-v3 3\./);
    expect(upload.endpoint).toMatchObject({ kind: 'embedded', server: expect.stringMatching(/^versitygw v1\.8\.0/) });
    expect(upload.host.vcpus).toBeGreaterThan(0);
    const files = resolveMatrix(loadProfile('quick'), 'quick', CATALOG).workloads.find((w) => w.name === 'objects')!.params.files as number;
    expect(upload.ops).toBe(files);
    expect(upload.bytes).toBe(files * 16 * 1024 * 1024);
    expect(upload.throughput_mib_s).toBeGreaterThan(0);
    expect(upload.latency_us!.p99).toBeGreaterThanOrEqual(upload.latency_us!.p50);
    const cli = records.find((r) => r.method === 'aws-cli' && r.operation === 'head')!;
    expect(cli.method_version).toMatch(/^aws-cli 2\./);
    expect(cli.throughput_mib_s).toBeNull();
    // The CLI pays a process start per operation: far slower per head than the SDK.
    const sdkHead = records.find((r) => r.method === 's3-api' && r.operation === 'head' && r.object_size_bytes === cli.object_size_bytes)!;
    expect(cli.latency_us!.mean).toBeGreaterThan(sdkHead.latency_us!.mean * 5);
    const walk = records.find((r) => r.workload === 'dir-walk' && r.method === 's3-api')!;
    expect(walk.ops).toBe(1000);
  });

  test('the embedded server is gone and its data removed after the run', () => {
    expect(serverPid).toBeGreaterThan(0);
    expect(alive(serverPid)).toBe(false);
  });

  test('the Athena SQL files run on DuckDB over the results folder', async () => {
    const db = await openResults(dir, runId);
    try {
      // Every query runs; those about what this run measured return rows (the quick profile lists
      // no file-system workload: the fio, semantics and other such workloads' tables find nothing).
      const measured = ['objects_by_size', 'workload_summary', 'run_health', 'latency_merged'];
      for (const q of namedQueries()) {
        const rows = await query(db.connection, q.sql);
        if (measured.includes(q.name)) expect(rows.length).toBeGreaterThan(0);
      }
      const bySize = await query(db.connection, namedQueries().find((q) => q.name === 'objects_by_size')!.sql);
      const row = bySize.find((r) => r.method === 's3-api' && r.operation === 'download' && Number(r.object_size_bytes) === 1024)!;
      expect(Number(row.repetitions)).toBe(1);
      expect(Number(row.batch_ms_min)).toBeLessThanOrEqual(Number(row.batch_ms_max));
    } finally {
      db.close();
    }
  });

  test('the summary prints every case per method with "vs best", in 100 columns, and the integrity line', async () => {
    const lines: string[] = [];
    const model = await printSummary(dir, undefined, (l) => lines.push(l));
    const text = lines.join('\n');
    expect(model.runId).toBe(runId);
    expect(text).toContain('COMPLETE');
    for (const op of ['upload', 'list', 'head', 'download', 'delete']) {
      // With the mount in the run (skipped where the host cannot mount), each case names its cache
      // state: the object methods rank with the mount's cold figures.
      expect(text).toMatch(new RegExp(`^${op} 16 MiB( \\(cold\\))?\\s+(s3-api|aws-cli)\\s`, 'm'));
    }
    expect(text).toMatch(/^case\s+method\s+time\s+rate\s+p99\s+(sustained\s+)?vs best$/m);
    expect(text).toMatch(/ 1x$/m);
    expect(text).toMatch(/dir-walk/);
    expect(text).toMatch(/integrity: all \d+ measurements verified/);
    expect(lines.filter((l) => [...l].length > 100)).toEqual([]);
  });
});

describe('faults', () => {
  test('the embedded server killed mid-run: the step fails clearly, the run is marked failed, nothing is left running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-test-kill-'));
    let pid = 0;
    // A first step that lasts seconds (two 256 MiB objects), so the kill lands inside it on any machine.
    const matrixFile = join(dir, 'matrix.json');
    writeFileSync(matrixFile, JSON.stringify({ repetitions: 3, methods: ['s3-api'], workloads: { objects: { sizes: ['256MiB'], files: 2 }, 'small-reads': { files: 10, size: '8KiB' } } }));
    const outcome = await runBenchmark({
      matrixFile, resultsDir: join(dir, 'results'), quiet: true,
      onEndpoint: (e) => (pid = e.pid),
      // Kill it once the first step is under way.
      onStep: (index) => { if (index === 1) setTimeout(() => process.kill(pid, 'SIGKILL'), 300); },
    });
    expect(outcome.manifest.status).toBe('failed');
    expect(outcome.manifest.problem).toMatch(/embedded S3 server \(versitygw\) exited mid-run/);
    expect(outcome.manifest.steps_done).toBeLessThan(outcome.manifest.steps_total);
    expect(alive(pid)).toBe(false);
    const records = readRecords(join(dir, 'results'));
    const broken = records.filter((r) => r.flags.includes('step-failed'));
    expect(broken.length).toBeGreaterThan(0);
    expect(broken.some((r) => r.operation === 'step' && r.status === 'failed' && /exited mid-run/.test(r.error_sample ?? ''))).toBe(true);
    // The summary says the run is incomplete.
    const lines: string[] = [];
    await printSummary(join(dir, 'results'), undefined, (l) => lines.push(l));
    expect(lines.join('\n')).toMatch(/FAILED — results\s+incomplete/);
    expect(existsSync(join(dir, 'results', '_runs'))).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
