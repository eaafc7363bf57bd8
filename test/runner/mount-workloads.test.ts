import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRequestsOnly } from '../../runner/core/vocabulary';
import { recordErrors } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';
import { printSummary } from '../../runner/report/summary';
import { runBenchmark } from '../../runner/run';
import { METADATA_TESTS } from '../../runner/workloads/metadata';
import { latencyHistogramProblems } from '../helpers/latency';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/**
 * Issue 4's workloads on real FUSE mounts (s3fs, Mountpoint) of the embedded versitygw, with quick
 * parameters, cold and warm passes; plus an object method, for which each is not applicable.
 */
const MATRIX = {
  name: 'fs-workloads-test',
  repetitions: 1,
  cache: ['cold', 'warm'],
  methods: ['s3fs', 'mountpoint', 's3-api'],
  workloads: {
    metadata: { ops: 12 },
    'git-clone': { files: 40, commits: 6 },
    'tar-extract': { files: 120, dirs: 10, totalSize: '1MB' },
    'web-serving': { files: 120, reads: 480, readers: 16 },
    'read-scaling': { sizes: ['1MB', '8MB'], concurrentSize: '4MB', readers: [1, 4, 16] },
  },
};

describe('file-system workloads on s3fs and Mountpoint against the embedded endpoint', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-fsw-'));
  const inputs = mkdtempSync(join(tmpdir(), 's3ab-test-fsw-inputs-'));
  let records: ResultRecord[] = [];
  let summary = '';
  // The measurements: the rows of requests only ('(outside measurements)', …) are counted in test/runner/request-windows.test.ts.
  const mine = (method: string, workload: string) => records.filter((r) => r.method === method && r.workload === workload && !isRequestsOnly(r.operation));
  const find = (method: string, workload: string, operation: string, cache: string) => {
    const r = records.find((x) => x.method === method && x.workload === workload && x.operation === operation && x.cache === cache);
    if (!r) throw new Error(`no ${method} ${workload} ${operation} ${cache} record`);
    return r;
  };

  beforeAll(async () => {
    process.env.S3AB_INPUTS = inputs;
    const matrixFile = join(dir, 'matrix.json');
    writeFileSync(matrixFile, JSON.stringify(MATRIX));
    const outcome = await runBenchmark({ matrixFile, resultsDir: join(dir, 'results'), quiet: true });
    for (const part of readdirSync(outcome.resultsDir).filter((d) => d.startsWith('dt='))) {
      for (const f of readdirSync(join(outcome.resultsDir, part))) {
        for (const line of readFileSync(join(outcome.resultsDir, part, f), 'utf8').trim().split('\n')) records.push(JSON.parse(line));
      }
    }
    await printSummary(outcome.resultsDir, outcome.manifest.run_id, (l) => (summary += `${l}\n`));
  }, 600_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(inputs, { recursive: true, force: true });
    delete process.env.S3AB_INPUTS;
  });

  test('every record matches the result schema and no step broke', () => {
    expect(records.length).toBeGreaterThan(40);
    for (const r of records) expect(recordErrors(r)).toEqual([]);
    expect(latencyHistogramProblems(records)).toEqual([]);
    expect(records.filter((r) => r.flags.includes('step-failed')).map((r) => `${r.method} ${r.workload}: ${r.error_sample}`)).toEqual([]);
  });

  test('an object method records each file-system workload once, as not applicable', () => {
    for (const w of Object.keys(MATRIX.workloads)) {
      expect(mine('s3-api', w).map((r) => [r.status, r.supported])).toEqual([['not-applicable', false]]);
    }
  });

  test('s3fs: every metadata test succeeds and is verified (once per step: it writes its own files)', () => {
    expect(new Set(mine('s3fs', 'metadata').map((r) => r.cache))).toEqual(new Set(['cold']));
    for (const cache of ['cold']) {
      for (const t of METADATA_TESTS) {
        const r = find('s3fs', 'metadata', t, cache);
        expect({ t, cache, status: r.status, verified: r.verified, ok: r.ok, ops: r.ops, error: r.error_sample })
          .toEqual({ t, cache, status: 'ok', verified: true, ok: 12, ops: 12, error: null });
        expect(r.latency_us!.mean).toBeGreaterThan(0);
      }
    }
  });

  test('Mountpoint: refused operations are recorded as unsupported with success rate 0, the rest measured', () => {
    for (const cache of ['cold']) {
      for (const t of ['data-modifications', 'single-file-append', 'file-moves']) {
        const r = find('mountpoint', 'metadata', t, cache);
        expect({ t, status: r.status, supported: r.supported, ok: r.ok }).toEqual({ t, status: 'unsupported', supported: false, ok: 0 });
        expect(r.error_sample).toMatch(/EPERM|EBADF|ENOSYS/);
      }
      // (Sequential writes and traversal are measured too, but Mountpoint at times forgets the
      // local directories they need mid-test: their outcome varies from run to run.)
      for (const t of ['empty-directories', 'random-reads', 'deletion']) {
        const r = find('mountpoint', 'metadata', t, cache);
        expect({ t, status: r.status, verified: r.verified, ok: r.ok }).toEqual({ t, status: 'ok', verified: true, ok: 12 });
      }
    }
  });

  test('git clone: verified on s3fs, unsupported on Mountpoint (seed 002: "Failed")', () => {
    for (const cache of ['cold']) {
      expect(find('s3fs', 'git-clone', 'clone', cache)).toMatchObject({ status: 'ok', verified: true, ok: 1 });
      const mp = find('mountpoint', 'git-clone', 'clone', cache);
      expect(mp).toMatchObject({ status: 'unsupported', supported: false, ok: 0 });
      expect(mp.error_sample).toMatch(/git clone exited/);
    }
  });

  test('tar -xf: contents verified on both; Mountpoint refuses modes, times and owners', () => {
    for (const method of ['s3fs', 'mountpoint']) {
      const r = find(method, 'tar-extract', 'extract', 'cold');
      expect({ method, status: r.status, verified: r.verified, ok: r.ok, ops: r.ops }).toEqual({ method, status: 'ok', verified: true, ok: 120, ops: 120 });
      expect(r.ops_per_s).toBeGreaterThan(0);
    }
    for (const op of ['permissions', 'timestamps', 'ownership']) {
      const r = find('mountpoint', 'tar-extract', op, 'cold');
      expect({ op, status: r.status, supported: r.supported, ok: r.ok }).toEqual({ op, status: 'unsupported', supported: false, ok: 0 });
      expect(r.error_sample).toMatch(/refused: tar: .*Operation not permitted/);
    }
    // s3fs accepts every change; whatever it keeps is counted file by file.
    for (const op of ['permissions', 'timestamps']) {
      const r = find('s3fs', 'tar-extract', op, 'cold');
      expect(r.ops).toBe(120);
      expect(r.ok + r.failed).toBe(120);
    }
  });

  test('web-serving: cold and warm-memory measured apart, every read verified', () => {
    for (const method of ['s3fs', 'mountpoint']) {
      const caches = mine(method, 'web-serving').map((r) => r.cache).sort();
      expect(caches).toEqual(['cold', 'warm-memory']);
      for (const r of mine(method, 'web-serving')) {
        expect({ method, cache: r.cache, status: r.status, verified: r.verified, ok: r.ok }).toEqual({ method, cache: r.cache, status: 'ok', verified: true, ok: 480 });
        expect(r.latency_us!.p95).toBeGreaterThan(0);
        expect(r.throughput_mib_s).toBeGreaterThan(0);
      }
    }
  });

  test('read-scaling: single streams per size and 1/4/16 concurrent readers, verified', () => {
    for (const method of ['s3fs', 'mountpoint']) {
      const ops = mine(method, 'read-scaling').filter((r) => r.cache === 'cold').map((r) => [r.operation, r.object_size_bytes, r.ok, r.status, r.verified]);
      expect(ops).toEqual([
        ['single-stream', 1e6, 1, 'ok', true], ['single-stream', 8e6, 1, 'ok', true],
        ['concurrent-1', 4e6, 1, 'ok', true], ['concurrent-4', 4e6, 4, 'ok', true], ['concurrent-16', 4e6, 16, 'ok', true],
      ]);
      expect(mine(method, 'read-scaling').filter((r) => r.cache === 'warm')).toHaveLength(5);
    }
  });

  test('the summary prints each workload, one row per method and case, in 100 columns', () => {
    expect(summary).toContain('metadata (seed 002)');
    // Mountpoint refuses data modifications by design: said so in its row, not as a figure.
    expect(summary).toMatch(/^data-modifications\s+s3fs\s+[\d,.]+\s[^\n]*100%/m);
    expect(summary).toMatch(/^\s+mountpoint\s+not supported: /m);
    expect(summary).toContain('git-clone (seed 002)');
    expect(summary).toMatch(/^clone \(cold\)\s+s3fs\s+[\d.]+ (ms|s)\s/m);
    expect(summary).toContain('tar-extract (seeds 002, 004)');
    expect(summary).toContain('web-serving (seed 004)');
    // Its reads have no one object size (files of several sizes): the case is the operation and cache state.
    expect(summary).toMatch(/^read \(cold\)\s+s3fs\s[^\n]*\n\s+mountpoint\s/m);
    expect(summary).toMatch(/^read \(warm-memory\)\s+s3fs\s[^\n]*\n\s+mountpoint\s/m);
    expect(summary).toContain('read-scaling (seed 003)');
    // Sizes as the matrix gave them: 4MB stays decimal.
    expect(summary).toMatch(/^concurrent-4 4 MB \(cold\)\s+s3fs\s/m);
    expect(summary).toMatch(/not applicable on s3-api \(needs a mounted file system \(plain POSIX paths\)\): [^\n]*metadata/);
    expect(summary.split('\n').filter((l) => [...l].length > 100)).toEqual([]);
  });
});

/**
 * Seed 004's three cache states on clients with a data cache: Mountpoint `cached` keeps its cache
 * on the local disk, so a remount that keeps it is measured as `warm-disk`; s3fs `seed-000` keeps
 * its use_cache folder on a RAM disk (as seed 000 did), which is not a disk cache: no `warm-disk`.
 */
describe('web-serving cache states on clients with a data cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-fsw-cache-'));
  let records: ResultRecord[] = [];

  beforeAll(async () => {
    const matrixFile = join(dir, 'matrix.json');
    writeFileSync(matrixFile, JSON.stringify({
      name: 'web-serving-cache-test', repetitions: 1, cache: ['cold', 'warm'],
      methods: [{ name: 'mountpoint', variant: 'cached' }, { name: 's3fs', variant: 'seed-000' }],
      workloads: { 'web-serving': { files: 80, reads: 320, readers: 16 } },
    }));
    const outcome = await runBenchmark({ matrixFile, resultsDir: join(dir, 'results'), quiet: true });
    for (const part of readdirSync(outcome.resultsDir).filter((d) => d.startsWith('dt='))) {
      for (const f of readdirSync(join(outcome.resultsDir, part))) {
        for (const line of readFileSync(join(outcome.resultsDir, part, f), 'utf8').trim().split('\n')) records.push(JSON.parse(line));
      }
    }
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('mountpoint:cached records cold, warm-disk and warm-memory apart, each verified', () => {
    const mp = records.filter((r) => r.method === 'mountpoint' && r.method_variant === 'cached' && !isRequestsOnly(r.operation));
    expect(mp.map((r) => r.cache).sort()).toEqual(['cold', 'warm-disk', 'warm-memory']);
    for (const r of mp) {
      expect({ cache: r.cache, status: r.status, verified: r.verified, ok: r.ok }).toEqual({ cache: r.cache, status: 'ok', verified: true, ok: 320 });
      expect(recordErrors(r)).toEqual([]);
    }
    expect(String(mp[0].method_options.cache)).toMatch(/local disk folder/);
  });

  test('s3fs:seed-000 (cache on a RAM disk) records no warm-disk state', () => {
    const s3fs = records.filter((r) => r.method === 's3fs' && r.method_variant === 'seed-000' && !isRequestsOnly(r.operation));
    expect(s3fs.map((r) => r.cache).sort()).toEqual(['cold', 'warm-memory']);
    for (const r of s3fs) expect({ cache: r.cache, status: r.status, verified: r.verified }).toEqual({ cache: r.cache, status: 'ok', verified: true });
  });
});
