import { existsSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ThreadContext } from '../../runner/workloads/kit/thread-job';
import { metadataThreadJob, type MetadataJob, type MetadataResult } from '../../runner/workloads/metadata.thread';

/**
 * The metadata thread's interval-series log (`opLog: true`): its timed loop does not log, it keeps
 * each operation's time, bytes and outcome in arrays, and the log is built from them after the
 * loop. The log must be what logging each operation in the loop gave: one entry per operation, in
 * order, at the sum of the operations' times up to and including it. The thread's job is run in
 * this process (prepare, then run), as the measuring thread would run it, on tmpfs where there is one.
 */
const ctx: ThreadContext = { aborted: () => false, progress: () => {}, done: () => {}, count: () => {} };
const OPS = 300;
const SIZE = 4096;
/** Latency the log gives a failed operation (runner/core/intervals.ts). */
const FAILED = -2;

describe('the metadata thread\'s log, built after its timed loop', () => {
  const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 's3ab-meta-oplog-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  const job = (test: 'stat' | 'create', opLog: boolean): MetadataJob =>
    ({ kind: 'metadata', test, dir: join(root, `t-${n++}`), ops: OPS, size: SIZE, syncEvery: 100, seed: 'oplog-test', opLog });
  /** Runs the job; `between` runs after its setup, before its timed loop. */
  const run = (j: MetadataJob, between?: () => void) => {
    const state = metadataThreadJob.prepare(j, ctx);
    between?.();
    return metadataThreadJob.run(state, ctx).result;
  };

  /** What the old loop logged, operation by operation, when every operation succeeded. */
  function expectLogOfAllOk(r: MetadataResult, bytesPerOp: number): void {
    expect(r.ok).toBe(OPS);
    expect(r.failed).toBe(0);
    expect(r.verified).toBe(true);
    const log = r.log!;
    expect(log.at.length).toBe(OPS);
    let active = 0;
    for (let i = 0; i < OPS; i++) {
      active += r.latenciesNs[i];
      expect(log.at[i]).toBe(active);
      if (i > 0) expect(log.at[i]).toBeGreaterThan(log.at[i - 1]);
    }
    expect(active).toBe(r.activeNs);
    expect(Array.from(log.latency)).toEqual(Array.from(r.latenciesNs));
    expect(Array.from(log.bytes)).toEqual(Array(OPS).fill(bytesPerOp));
    // An operation's bytes moved over its own time.
    expect(Array.from(log.spread)).toEqual(Array.from(r.latenciesNs));
  }

  /** The same result but for the log (and the times, which differ from run to run). */
  function expectSameShape(on: MetadataResult, off: MetadataResult): void {
    expect(off.log).toBeNull();
    expect(Object.keys(off).sort()).toEqual(Object.keys(on).sort());
    const { log: _on, latenciesNs: onLat, activeNs: _a, ...onRest } = on;
    const { log: _off, latenciesNs: offLat, activeNs: _b, ...offRest } = off;
    expect(offRest).toEqual(onRest);
    expect(offLat).toBeInstanceOf(Float64Array);
    expect(offLat.length).toBe(onLat.length);
    expect(off.activeNs).toBeGreaterThan(0);
  }

  test('stat: an entry per operation, in order, at the running sum of the latencies; the file size as bytes', () => {
    const on = run(job('stat', true));
    expectLogOfAllOk(on, SIZE);
    expect(on.bytes).toBe(OPS * SIZE);
    expectSameShape(on, run(job('stat', false)));
  });

  test('create: the same, with no bytes', () => {
    const on = run(job('create', true));
    expectLogOfAllOk(on, 0);
    expect(on.bytes).toBe(0);
    expectSameShape(on, run(job('create', false)));
  });

  test('failed operations (stat of files removed after the setup): a failed entry each, in order; the clock counts their time', () => {
    const j = job('stat', true);
    const missing = new Set(Array.from({ length: OPS }, (_, i) => i).filter((i) => i % 7 === 3));
    const r = run(j, () => { for (const i of missing) unlinkSync(join(j.dir, `file_${String(i).padStart(6, '0')}.dat`)); });
    expect(r.failed).toBe(missing.size);
    expect(r.ok).toBe(OPS - missing.size);
    expect(r.errors).toEqual({ ENOENT: missing.size });
    expect(r.latenciesNs.length).toBe(r.ok);
    const log = r.log!;
    expect(log.at.length).toBe(OPS);
    // Times are whole ns, so the running sums are exact: each entry's `at` is the previous one's
    // plus the operation's own time (a successful one's is its latency, in latenciesNs' order).
    let k = 0;
    for (let i = 0; i < OPS; i++) {
      const since = log.at[i] - (i ? log.at[i - 1] : 0);
      expect(since).toBeGreaterThan(0);
      if (missing.has(i)) {
        expect([log.latency[i], log.bytes[i], log.spread[i]]).toEqual([FAILED, 0, 0]);
      } else {
        expect([log.latency[i], log.bytes[i]]).toEqual([r.latenciesNs[k], SIZE]);
        expect(since).toBe(r.latenciesNs[k++]);
      }
    }
    expect(k).toBe(r.ok);
    expect(log.at[OPS - 1]).toBe(r.activeNs);
  });
});
