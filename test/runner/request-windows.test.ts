import { closeSync, mkdtempSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRequestsOnly, OUTSIDE_MEASUREMENTS } from '../../runner/core/vocabulary';
import { countRequests, parseAccessLogLine, totalRequests, type AccessLogEntry } from '../../runner/endpoint/access-log';
import { REQUEST_TYPES, type RequestCounts } from '../../runner/core/request-types';
import { findMethod } from '../../runner/methods';
import { printSummary } from '../../runner/report/summary';
import type { ResultRecord } from '../../runner/core/record.generated';
import { runBenchmark } from '../../runner/run';
import type { WorkloadDescriptor } from '../../runner/core/workload';
import { WORKLOAD_DESCRIPTORS } from '../../runner/workloads/catalog';
import { AFTER_PROBES, PROBE_SETUP, PROBES } from '../../runner/workloads/semantics';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** Every workload, small, on every method that runs here: one repetition, cold and warm. */
const MATRIX = {
  name: 'request-windows-test', repetitions: 1, cache: ['cold', 'warm'],
  methods: ['s3-api', 's3-crt', 'aws-cli', 's3fs', 'mountpoint', 'rclone', 'juicefs'],
  workloads: {
    objects: { sizes: ['1KiB', '9MiB'], files: 2 },
    'dir-walk': { objects: 40, size: '1KiB' },
    'large-read': { files: 1, size: '16MiB' },
    'small-reads': { files: 5, size: '8KiB' },
    'fio-seq': { sizes: ['4KiB', '2MiB'], files: 2, io: ['direct'] },
    semantics: { propagation_timeout_s: 5 },
    metadata: { ops: 10 },
    'git-clone': { files: 20, commits: 3 },
    'tar-extract': { files: 40, dirs: 5, totalSize: '300KB' },
    'web-serving': { files: 40, reads: 120, readers: 4 },
    'read-scaling': { sizes: ['1MB'], concurrentSize: '1MB', readers: [1, 4] },
    'sync-behaviour': { per_size: 1, read_sizes: ['64KiB', '128KiB'], write_sizes: ['120KiB', '128KiB', '1020KiB', '1MiB'], files: 3, list_repeats: 2, timeout_s: 3 },
  },
};

function readRecords(file: string): ResultRecord[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ResultRecord);
}

/** The lines the server logged between two offsets of its access log. */
function logBetween(path: string, from: number, to: number): AccessLogEntry[] {
  const buf = Buffer.alloc(Math.max(0, to - from));
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, buf.length, from);
  } finally {
    closeSync(fd);
  }
  return buf.toString('utf8').split('\n').map(parseAccessLogLine).filter((e): e is AccessLogEntry => !!e);
}

function sum(records: ResultRecord[]): RequestCounts {
  const out = countRequests([]);
  for (const r of records) for (const k of Object.keys(out) as (keyof RequestCounts)[]) out[k] += r.requests?.[k] ?? 0;
  return out;
}

interface Step { index: number; label: string; records: ResultRecord[]; server: RequestCounts; entries: AccessLogEntry[] }

/**
 * Every request a step's client made is some record's, and each measurement's are its
 * own. Per step, the server's count (its access log from the step's start to its record file,
 * read here independently of the runner's windows, the runner's own requests left out) equals the
 * sum of the step's records; and no operation that changed the bucket or read from it shows none.
 */
describe('each step\'s requests: the records add up to the server\'s count', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-windows-'));
  const steps: Step[] = [];
  let summary = '';
  let problem: string | null = 'did not run';

  beforeAll(async () => {
    const matrixFile = join(dir, 'matrix.json');
    writeFileSync(matrixFile, JSON.stringify(MATRIX));
    let log = '';
    let current: { index: number; label: string; from: number } | null = null;
    const outcome = await runBenchmark({
      matrixFile, resultsDir: join(dir, 'results'), quiet: true,
      onEndpoint: (e) => { log = e.accessLog; },
      onStep: (index, label) => { current = { index, label, from: statSync(log).size }; },
      onStepFile: async (file) => {
        const entries = logBetween(log, current!.from, statSync(log).size);
        steps.push({ index: current!.index, label: current!.label, records: readRecords(file), server: countRequests(entries), entries });
      },
    });
    problem = outcome.manifest.problem;
    await printSummary(outcome.resultsDir, outcome.manifest.run_id, (l) => (summary += `${l}\n`));
  }, 1_200_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the run completes, and every workload ran on a mount and on an object method', () => {
    expect(problem).toBeNull();
    const ran = (kind: 'mount' | 'object') => new Set(steps.filter((s) => findMethod(s.records[0].method)!.kind === kind && s.records.some((r) => r.status !== 'not-applicable')).map((s) => s.records[0].workload));
    expect([...ran('mount')].sort()).toEqual(WORKLOAD_DESCRIPTORS.map((w) => w.name).sort());
    expect([...ran('object')].sort()).toEqual(['dir-walk', 'large-read', 'objects', 'small-reads']);
  });

  test('per step, the records\' requests sum to the server\'s count of the client\'s requests', () => {
    const wrong = steps.filter((s) => JSON.stringify(sum(s.records)) !== JSON.stringify(s.server))
      .map((s) => ({ step: s.label, records: sum(s.records), server: s.server }));
    expect(wrong).toEqual([]);
    // Not a sum of nothing: the steps that ran made requests, and records counted them.
    expect(steps.filter((s) => totalRequests(s.server) > 0).length).toBeGreaterThan(40);
  });

  test('no operation that changed the bucket or read from it shows zero requests', () => {
    const zero: string[] = [];
    for (const s of steps) {
      for (const r of s.records) {
        const w = WORKLOAD_DESCRIPTORS.find((d) => d.name === r.workload)! as Pick<WorkloadDescriptor<unknown>, 'reachesBucket' | 'payloadReads'>;
        const inBucket = findMethod(r.method)!.offers.includes('objects-in-bucket');
        if (r.status !== 'ok' || !inBucket || !r.requests) continue;
        const reaches = w.reachesBucket?.includes(r.operation)
          || (w.payloadReads?.includes(r.operation) && (r.cache === 'cold' || r.cache === 'none') && !r.flags.includes('served-from-cache'));
        if (reaches && totalRequests(r.requests) === 0) zero.push(`${s.label} ${r.cache} ${r.operation} ${r.object_size_bytes ?? ''}`);
      }
    }
    expect(zero).toEqual([]);
  });

  test('sync-behaviour: the files written through a mount whose files are objects reach the bucket, over its export-lag rows and the polling row', () => {
    const steps_ = steps.filter((s) => s.records[0].workload === 'sync-behaviour' && findMethod(s.records[0].method)!.offers.includes('objects-in-bucket'));
    expect(steps_.length).toBeGreaterThan(0);
    for (const s of steps_) {
      const rows = s.records.filter((r) => r.operation === 'export-lag' || r.operation === '(after close)');
      const uploads = rows.reduce((n, r) => n + (r.requests?.put ?? 0) + (r.requests?.mpu_complete ?? 0), 0);
      const files = s.records.filter((r) => r.operation === 'export-lag' && r.status === 'ok').reduce((n, r) => n + r.ops, 0);
      expect({ step: s.label, uploadsAtLeastFiles: uploads >= files }).toEqual({ step: s.label, uploadsAtLeastFiles: true });
    }
  });

  test('semantics: every probe of every mount has its own count (none on the first probe only), its setup and what came after apart', () => {
    for (const s of steps.filter((x) => x.records[0].workload === 'semantics' && findMethod(x.records[0].method)!.kind === 'mount')) {
      const byOp = new Map(s.records.map((r) => [r.operation, r]));
      for (const probe of PROBES) expect({ step: s.label, probe, counted: byOp.get(probe)?.requests !== null && byOp.has(probe) }).toEqual({ step: s.label, probe, counted: true });
      // The files the probes work on are written before each probe: on a method whose files are objects, uploads in the setup row.
      const setup = byOp.get(PROBE_SETUP)?.requests;
      if (findMethod(s.records[0].method)!.offers.includes('objects-in-bucket')) expect({ step: s.label, uploads: (setup?.put ?? 0) + (setup?.mpu_complete ?? 0) > 0 }).toEqual({ step: s.label, uploads: true });
      // A probe after the first made requests of its own: truncate rewrites the object wherever it is supported.
      const truncate = byOp.get('truncate')!;
      if (truncate.status === 'ok' && findMethod(truncate.method)!.offers.includes('objects-in-bucket')) expect(totalRequests(truncate.requests!)).toBeGreaterThan(0);
    }
    // The requests table: case, method, ops, requests per operation (or in all, for a row of requests only).
    expect(summary).toMatch(/^semantics truncate\s+s3fs \(cold\)\s+1\s+[A-Z]/m);
    // "(after probes)" wraps in its column: "semantics (after" with "probes)" under it.
    expect(AFTER_PROBES).toBe('(after probes)');
    expect(summary).toMatch(/^semantics \(after(?: probes\))?\s+s3fs \(cold\)\s+–\s+in all: /m);
  });

  test('a semantics probe\'s window holds no request on a later probe\'s file, nor a late one on an earlier probe\'s (uploads that land later)', () => {
    // The probes' files, in probe order: a request on one is the probe's own, its setup's, or a check after the probes (remount).
    const FILES: [string, RegExp][] = [
      ['create', /sem\/create\.bin$/], ['overwrite', /sem\/overwrite\.bin$/], ['append', /sem\/append\.bin$/], ['random-write', /sem\/random\.bin$/],
      ['truncate', /sem\/truncate\.bin$/], ['rename-file', /sem\/rename-(src|dst)\.bin$/], ['rename-dir', /sem\/dir-(src|dst)\//], ['delete', /sem\/delete\.bin$/],
    ];
    for (const s of steps.filter((x) => x.records[0].workload === 'semantics' && findMethod(x.records[0].method)!.offers.includes('objects-in-bucket'))) {
      const own = s.entries.filter((e) => !e.userAgent.includes('s3ab-runner'));
      // Up to the next probe (mkdir-rmdir): later ones list the folder, and a listing client looks up every file in it.
      const next = own.findIndex((e) => /sem\/(newdir|usedir)/.test(e.key));
      const order = own.slice(0, next < 0 ? own.length : next).map((e) => FILES.findIndex(([, re]) => re.test(e.key))).filter((i) => i >= 0);
      // Up to the last of these probes, the files are touched in probe order: nothing from an earlier probe lands in a later one's window.
      const out = order.findIndex((i, n) => n > 0 && i < order[n - 1]);
      expect({ step: s.label, outOfOrder: out < 0 ? null : order.slice(Math.max(0, out - 3), out + 3).map((i) => FILES[i][0]) }).toEqual({ step: s.label, outOfOrder: null });
    }
  });

  test('an object method sends nothing outside its measurements; a mount\'s own requests outside them are one row', () => {
    for (const s of steps) {
      const method = findMethod(s.records[0].method)!;
      const outside = s.records.filter((r) => r.operation === OUTSIDE_MEASUREMENTS);
      if (method.kind === 'object') expect({ step: s.label, outside: outside.length }).toEqual({ step: s.label, outside: 0 });
      else expect(outside.length).toBeLessThanOrEqual(1);
      // Rows of requests only hold requests, never a zero row.
      for (const r of s.records.filter((x) => isRequestsOnly(x.operation))) {
        expect(r.ops).toBe(0);
        expect(REQUEST_TYPES.some((t) => r.requests![t] > 0)).toBe(true);
      }
    }
  });
});

afterAll(() => {
  // Nothing of ours may be left in the temp folder.
  expect(readdirSync(tmpdir()).filter((f) => f.startsWith('s3ab-test-windows-'))).toEqual([]);
});
