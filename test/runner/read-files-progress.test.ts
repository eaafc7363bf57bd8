import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { OpLog, PROGRESS_BYTES } from '../../runner/core/intervals';
import type { ThreadContext } from '../../runner/workloads/kit/thread-job';
import { readFilesThreadJob, type ReadFilesJob } from '../../runner/workloads/kit/read-files.thread';

/**
 * A large file's read keeps its course in the series' log (issue 24): progress entries every
 * PROGRESS_BYTES, then the completion with the rest, the bytes adding up to the file — so a single
 * stream of one large file through a mount can have a series, where one entry per file could not.
 */
const MIB = 1024 * 1024;
const ctx: ThreadContext = { aborted: () => false, progress: () => {}, done: () => {}, count: () => {} };

describe('read-files logs a large file\'s progress', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-read-progress-'));
  const big = Buffer.alloc(18 * MIB + 12345, 7);
  const small = Buffer.alloc(100 * 1024, 3);
  writeFileSync(join(dir, 'big'), big);
  writeFileSync(join(dir, 'small'), small);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const files = [{ path: join(dir, 'big'), size: big.length, crc32: crc32(big) }, { path: join(dir, 'small'), size: small.length, crc32: crc32(small) }];

  test.each(['wall', 'active'] as const)('%s clock: progress entries, the completion with the rest, bytes conserved', (clock) => {
    const job: ReadFilesJob = { kind: 'read-files', files, sequence: [0, 1], chunkBytes: MIB, reportProgress: false, opLog: clock };
    const { result } = readFilesThreadJob.run(readFilesThreadJob.prepare(job, ctx), ctx);
    expect(result.ok).toBe(2);
    const log = OpLog.fromArrays(result.log!);
    const entries = Array.from({ length: log.length }, (_, i) => log.entry(i));
    const progress = entries.filter(([, latency]) => latency === -1);
    const completions = entries.filter(([, latency]) => latency >= 0);
    // 18 MiB and a bit in 1 MiB reads: an entry at 4, 8, 12 and 16 MiB; the small file none.
    expect(progress.length).toBe(Math.floor(big.length / PROGRESS_BYTES));
    expect(progress.every(([, , bytes]) => bytes === PROGRESS_BYTES)).toBe(true);
    expect(completions.map(([, , bytes]) => bytes)).toEqual([big.length - progress.length * PROGRESS_BYTES, small.length]);
    expect(entries.reduce((a, [, , bytes]) => a + bytes, 0)).toBe(result.bytes);
    // One clock, in order; each entry's bytes moved over time that lies inside the reader's span.
    const ats = entries.map(([at]) => at);
    expect(ats).toEqual([...ats].sort((a, b) => a - b));
    const [origin, end] = clock === 'wall' ? [result.startNs, result.endNs] : [0, result.activeNs];
    for (const [at, , , spread] of entries) {
      expect(at).toBeLessThanOrEqual(end);
      expect(at - spread).toBeGreaterThanOrEqual(origin);
    }
  });

  test('series off: no log, nothing logged', () => {
    const job: ReadFilesJob = { kind: 'read-files', files, sequence: [0], chunkBytes: MIB, reportProgress: false, opLog: null };
    const { result } = readFilesThreadJob.run(readFilesThreadJob.prepare(job, ctx), ctx);
    expect(result.log).toBeNull();
    expect(result.bytes).toBe(big.length);
  });
});
