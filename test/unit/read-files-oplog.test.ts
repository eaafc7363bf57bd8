import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { OpLog, PROGRESS_BYTES } from '../../runner/core/intervals';
import type { ThreadContext } from '../../runner/workloads/kit/thread-job';
import { readFilesOpLog, readFilesThreadJob, type ReadFilesJob, type ReadFilesResult } from '../../runner/workloads/kit/read-files.thread';

/**
 * The read-files thread's interval-series log (`opLog: 'wall' | 'active'`): its timed loop writes
 * no completion into the log, it keeps each file read's time, end and outcome in arrays (with the
 * series on or off alike; a large file's progress entries alone are logged as it is read), and the
 * log is built from them after the loop. The log must be what logging each completion in the loop
 * gave: per file read, in order, its progress entries (every PROGRESS_BYTES read), then its
 * completion — ok: at the file's close (wall) or at the reader's active time after it (active),
 * its latency, the bytes not yet logged as progress, over its time or the time since its last
 * progress entry; failed: at that moment, no bytes. The thread's job is run in this process
 * (prepare, then run), as a reader thread would run it, on tmpfs where there is one.
 */
const ctx: ThreadContext = { aborted: () => false, progress: () => {}, done: () => {}, count: () => {} };
const MIB = 1024 * 1024;
/** Not a divisor of PROGRESS_BYTES: progress entries then hold more than PROGRESS_BYTES, as they can. */
const CHUNK = 1.5 * MIB;
/** Latencies the log gives a progress entry and a failed operation (runner/core/intervals.ts). */
const PROGRESS = -1;
const FAILED = -2;

/** What reading a file of `size` bytes in CHUNK-sized calls logs as progress (readWhole's rule): the bytes of each entry. */
function progressOf(size: number): number[] {
  const out: number[] = [];
  let got = 0;
  let logged = 0;
  while (got < size) {
    got += Math.min(CHUNK, size - got);
    if (got - logged >= PROGRESS_BYTES) {
      out.push(got - logged);
      logged = got;
    }
  }
  return out;
}

describe('the read-files thread\'s log, built after its timed loop', () => {
  const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 's3ab-read-oplog-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  // Small files of 1 B to 200 KB; large ones just under, at and over PROGRESS_BYTES, one a whole
  // multiple of it (its completion then carries no bytes), one with a wrong CRC (progress entries,
  // then a failed completion); a small one with a wrong CRC and one that does not exist.
  const sizes = [
    ...Array.from({ length: 24 }, (_, i) => 1 + ((i * 7919) % 200_000)),
    PROGRESS_BYTES - 1, PROGRESS_BYTES, 2 * PROGRESS_BYTES, 9 * MIB + 12345, 5 * MIB + 1,
  ];
  const files: ReadFilesJob['files'] = sizes.map((size, i) => {
    const data = Buffer.alloc(size, i + 1);
    const path = join(root, `f${i}`);
    writeFileSync(path, data);
    return { path, size, crc32: crc32(data) };
  });
  // The files from PROGRESS_BYTES − 1 on, by size.
  const [under, at4, at8, over9, over5] = [24, 25, 26, 27, 28];
  const wrongCrc = (i: number) => files.push({ ...files[i], crc32: (files[i].crc32 + 1) >>> 0 }) - 1;
  const badSmall = wrongCrc(3);
  const badLarge = wrongCrc(over5);
  const missing = files.push({ path: join(root, 'missing'), size: 1000, crc32: 0 }) - 1;
  // Small files read again and again (as the 80/20 readers do), the large ones and the bad ones among them.
  const sequence = [
    0, 1, 2, under, 3, at4, 4, badSmall, 5, at8, 0, missing, over9, over9, 6,
    badLarge, 7, over5, 1, missing, 8, 9, ...Array.from({ length: 60 }, (_, i) => i % 24), at8, badSmall,
  ];
  const failedRead = (index: number) => index === badSmall || index === badLarge || index === missing;
  const run = (opLog: ReadFilesJob['opLog']): ReadFilesResult => {
    const job: ReadFilesJob = { kind: 'read-files', files, sequence, chunkBytes: CHUNK, reportProgress: false, opLog };
    return readFilesThreadJob.run(readFilesThreadJob.prepare(job, ctx), ctx).result;
  };

  test.each(['wall', 'active'] as const)('%s clock: per file read, its progress entries, then its completion, as logged in the loop', (clock) => {
    const r = run(clock);
    const failures = sequence.filter(failedRead).length;
    expect([r.ops, r.ok, r.failed, r.mismatches]).toEqual([sequence.length, sequence.length - failures, failures, failures - 2]);
    expect(r.errors).toEqual({ ENOENT: 2 });
    expect(r.latenciesNs.length).toBe(r.ok);
    expect(r.bytes).toBe(sequence.filter((i) => !failedRead(i)).reduce((n, i) => n + files[i].size, 0));
    const log = OpLog.fromArrays(r.log!);
    // The log, entry by entry, against what the sequence, the files' sizes and the ok reads' latencies say it holds.
    let e = 0;
    let k = 0;
    let completedAt = clock === 'wall' ? r.startNs : 0;
    let loggedBytes = 0;
    for (const index of sequence) {
      const file = files[index];
      // The missing file logs no progress; the bad large one does, as it is read; one just under PROGRESS_BYTES none.
      const progress = index === missing ? [] : progressOf(file.size);
      let lastAt = completedAt;
      for (const [n, bytes] of progress.entries()) {
        const [at, latency, moved, over] = log.entry(e++);
        expect([latency, moved]).toEqual([PROGRESS, bytes]);
        expect(at).toBeGreaterThan(lastAt);
        if (n > 0 || clock === 'active') expect(at - over).toBe(lastAt); // over the time since the last entry (active: since this file's start)
        else expect(at - over).toBeGreaterThan(lastAt); // the file's first read started after the previous close
        lastAt = at;
        loggedBytes += moved;
      }
      const [at, latency, moved, spread] = log.entry(e++);
      expect(at).toBeGreaterThanOrEqual(lastAt);
      if (failedRead(index)) {
        expect([latency, moved, spread]).toEqual([FAILED, 0, 0]);
      } else {
        const own = r.latenciesNs[k++];
        const rest = file.size - progress.reduce((a, b) => a + b, 0);
        expect([latency, moved]).toEqual([own, rest]);
        loggedBytes += moved;
        // Over the file's time, or the time since its last progress entry.
        expect(spread).toBe(progress.length ? at - lastAt : own);
        // Active: the reader's time advanced by exactly this read's; wall: the read lay after the previous entry.
        if (clock === 'active') expect(at - completedAt).toBe(own);
        else expect(at - own).toBeGreaterThanOrEqual(completedAt);
      }
      completedAt = at;
    }
    expect(k).toBe(r.ok);
    expect(e).toBe(log.length);
    // Every byte read once (the bad large file's progress too, as it was read), the last entry at the end of the measured time.
    const badProgress = sequence.filter((i) => i === badLarge).reduce((n, i) => n + progressOf(files[i].size).reduce((a, b) => a + b, 0), 0);
    expect(loggedBytes).toBe(r.bytes + badProgress);
    if (clock === 'active') expect(completedAt).toBe(r.activeNs);
    else expect(completedAt).toBeLessThanOrEqual(r.endNs);
  });

  test('series off: the same reads, no log', () => {
    const on = run('wall');
    const off = run(null);
    expect(off.log).toBeNull();
    const { log: _on, latenciesNs: onLat, activeNs: _a, startNs: _s, endNs: _e, ...onRest } = on;
    const { log: _off, latenciesNs: offLat, activeNs: _b, startNs: _t, endNs: _f, ...offRest } = off;
    expect(offRest).toEqual(onRest);
    expect(offLat.length).toBe(onLat.length);
  });

  test('the merge: progress entries go with their own file; a failure at a progress entry\'s time comes after it', () => {
    // Three reads: a large file read whole (2 progress entries), a large file whose read failed right
    // after its progress entry (on the active clock its time stopped there: the failure is at that
    // entry's time), a small file.
    const progress = new OpLog();
    progress.progress(10, PROGRESS_BYTES, 10);
    progress.progress(25, PROGRESS_BYTES, 15);
    progress.progress(42, PROGRESS_BYTES, 12);
    const opNs = Float64Array.from([30, 12, 5]);
    const failed = Uint8Array.from([0, 1, 0]);
    const sizes = [2 * PROGRESS_BYTES + 7, 3 * PROGRESS_BYTES, 100];
    const entries = (log: OpLog) => Array.from({ length: log.length }, (_, i) => log.entry(i));
    expect(entries(readFilesOpLog('active', 3, opNs, new Float64Array(3), failed, sizes, progress))).toEqual([
      [10, PROGRESS, PROGRESS_BYTES, 10],
      [25, PROGRESS, PROGRESS_BYTES, 15],
      [30, 30, 7, 5],
      [42, PROGRESS, PROGRESS_BYTES, 12],
      [42, FAILED, 0, 0],
      [47, 5, 100, 5],
    ]);
    // The wall clock: the completions at the reads' ends.
    expect(entries(readFilesOpLog('wall', 3, opNs, Float64Array.from([31, 43, 50]), failed, sizes, progress))).toEqual([
      [10, PROGRESS, PROGRESS_BYTES, 10],
      [25, PROGRESS, PROGRESS_BYTES, 15],
      [31, 30, 7, 6],
      [42, PROGRESS, PROGRESS_BYTES, 12],
      [43, FAILED, 0, 0],
      [50, 5, 100, 5],
    ]);
    // No progress log (no large file read): a completion per read.
    expect(entries(readFilesOpLog('active', 3, opNs, new Float64Array(3), failed, [5, 6, 7], null))).toEqual([
      [30, 30, 5, 30], [42, FAILED, 0, 0], [47, 5, 7, 5],
    ]);
  });
});
