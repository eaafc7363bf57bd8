import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, constants, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Measurement } from '../../runner/core/batch';
import { patternBuffer } from '../../runner/core/data';
import { runThreads, type ThreadSpan } from '../../runner/workloads/kit/threads';
import type { FsRunContext } from '../../runner/workloads/kit/fs-common';
import { historyStream, runGitClone, sourceRepo } from '../../runner/workloads/git-clone.impl';
import { METADATA_TESTS } from '../../runner/workloads/metadata';
import { runMetadataSuite } from '../../runner/workloads/metadata.impl';
import { readScalingFiles } from '../../runner/workloads/read-scaling';
import { runReadScaling } from '../../runner/workloads/read-scaling.impl';
import type { ReadFilesJob, ReadFilesResult } from '../../runner/workloads/kit/read-files.thread';
import type { FixtureFile } from '../../runner/core/workload';
import { NO_CACHE_CONTROL, runReaders } from '../../runner/workloads/kit/readers';
import { checkTarInStore, runTarExtract, tarball } from '../../runner/workloads/tar-extract.impl';
import { walkFiles } from '../../runner/methods/kit/posix-io';
import { treeCrcs, writeTree } from '../../runner/workloads/kit/tree';
import { planTree } from '../../runner/core/tree-plan';
import { webServingTree } from '../../runner/workloads/web-serving';
import { accessSequences, runWebServing } from '../../runner/workloads/web-serving.impl';

// Generated inputs (archives, repositories) go to a private folder, removed at the end.
const inputs = mkdtempSync(join(tmpdir(), 's3ab-test-inputs-'));
process.env.S3AB_INPUTS = inputs;
afterAll(() => rmSync(inputs, { recursive: true, force: true }));

/** The file system under test here: a plain directory on the RAM disk where there is one. */
function context(): FsRunContext & { records: Measurement[]; cleanup(): void } {
  const base = (() => {
    try {
      return mkdtempSync('/dev/shm/s3ab-test-fs-');
    } catch {
      return mkdtempSync(join(tmpdir(), 's3ab-test-fs-'));
    }
  })();
  const records: Measurement[] = [];
  mkdirSync(join(base, 'root'));
  mkdirSync(join(base, 'scratch'));
  return {
    root: join(base, 'root'), scratchDir: join(base, 'scratch'), dataSeed: 'test', signal: new AbortController().signal,
    records, record: (m) => records.push(m), progress: () => {}, cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

describe('metadata suite on a local directory', () => {
  test('runs the nine tests of seed 002, each measured, verified and cleaned up', async () => {
    const fs = context();
    try {
      await runMetadataSuite(fs, { ops: 150, size: 4096, syncEvery: 100, tests: [...METADATA_TESTS] });
      expect(fs.records.map((r) => r.operation)).toEqual([...METADATA_TESTS]);
      for (const r of fs.records) {
        expect({ test: r.operation, status: r.status, verified: r.verified, supported: r.supported, ok: r.ok, ops: r.ops, error: r.errorSample })
          .toEqual({ test: r.operation, status: 'ok', verified: true, supported: true, ok: 150, ops: 150, error: null });
        expect(r.latency!.p50).toBeGreaterThan(0);
        expect(r.latency!.p99).toBeGreaterThanOrEqual(r.latency!.p50);
        expect(r.durationMs).toBeGreaterThan(0);
      }
      const bytes = Object.fromEntries(fs.records.map((r) => [r.operation, r.bytes]));
      expect(bytes['sequential-writes']).toBe(150 * 4096);
      expect(bytes['random-reads']).toBe(150 * 4096);
      expect(bytes['empty-files']).toBe(0);
      // Every test removes its directory.
      expect(execFileSync('ls', ['-A', fs.root], { encoding: 'utf8' })).toBe('');
    } finally {
      fs.cleanup();
    }
  });

  test('on a read-only file system every test is recorded as unsupported, success rate 0, without a crash', async () => {
    if (process.getuid?.() !== 0) return; // mounting a tmpfs needs root (CI and the dev machine are root)
    const fs = context();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 's3ab-test-ro', fs.root]);
    try {
      await runMetadataSuite(fs, { ops: 5, size: 4096, syncEvery: 100, tests: [...METADATA_TESTS] });
      expect(fs.records).toHaveLength(METADATA_TESTS.length);
      for (const r of fs.records) {
        expect({ test: r.operation, status: r.status, supported: r.supported, ok: r.ok, verified: r.verified })
          .toEqual({ test: r.operation, status: 'unsupported', supported: false, ok: 0, verified: false });
        expect(r.errorSample).toMatch(/EROFS|read-only/i);
      }
    } finally {
      execFileSync('umount', [fs.root]);
      fs.cleanup();
    }
  });
});

describe('git clone on a local directory', () => {
  test('the source repository is built offline with a real history, the same on every host', async () => {
    const a = historyStream({ files: 40, commits: 12 });
    expect(createHash('sha256').update(a.stream).digest('hex')).toBe(createHash('sha256').update(historyStream({ files: 40, commits: 12 }).stream).digest('hex'));
    const repo = await sourceRepo({ files: 40, commits: 12 }, new AbortController().signal);
    const log = execFileSync('git', ['-C', repo.path, 'log', '--format=%H', 'main'], { encoding: 'utf8' }).trim().split('\n');
    expect(log).toHaveLength(12);
    expect(log[0]).toBe(repo.head);
    expect(execFileSync('git', ['-C', repo.path, 'ls-tree', '-r', '--name-only', 'main'], { encoding: 'utf8' }).trim().split('\n')).toHaveLength(40);
    // Later commits edit earlier files: the history has deltas, not only additions.
    const edited = execFileSync('git', ['-C', repo.path, 'log', '--diff-filter=M', '--format=%H', 'main'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    expect(edited.length).toBeGreaterThan(5);
  });

  test('a clone is timed and its checkout verified; a clone that goes wrong is caught', async () => {
    const fs = context();
    try {
      const repo = await sourceRepo({ files: 40, commits: 12 }, fs.signal);
      await runGitClone(fs, repo);
      expect(fs.records).toHaveLength(1);
      expect(fs.records[0]).toMatchObject({ operation: 'clone', status: 'ok', verified: true, ok: 1, ops: 1, bytes: repo.bytes });
      expect(fs.records[0].durationMs).toBeGreaterThan(0);

      // The same check on a clone whose checkout was changed afterwards.
      const { verifyClone } = await import('../../runner/workloads/git-clone.impl');
      const dest = join(fs.scratchDir, 'clone');
      execFileSync('git', ['clone', '--quiet', `file://${repo.path}`, dest]);
      const first = execFileSync('git', ['-C', dest, 'ls-files'], { encoding: 'utf8' }).split('\n')[0];
      expect(await verifyClone(dest, repo, process.env, fs.signal)).toBeNull();
      appendFileSync(join(dest, first), 'changed\n');
      expect(await verifyClone(dest, repo, process.env, fs.signal)).toMatch(/differ from their committed content/);
    } finally {
      fs.cleanup();
    }
  });
});

describe('tar extraction on a local directory', () => {
  test('the archive is reproducible and shaped like a source tree', async () => {
    const params = { files: 300, dirs: 20, totalSize: '4MB', maxSize: '2MB' };
    const a = await tarball(params);
    const digest = createHash('sha256').update(readFileSync(a.path)).digest('hex');
    rmSync(a.path);
    const b = await tarball(params);
    expect(createHash('sha256').update(readFileSync(b.path)).digest('hex')).toBe(digest);
    expect(a.plan.files).toHaveLength(300);
    expect(a.plan.totalBytes).toBeGreaterThan(3.9e6);
    expect(a.plan.totalBytes).toBeLessThan(4.1e6);
    expect(Math.max(...a.plan.files.map((f) => f.size))).toBeLessThan(2e6);
    expect(new Set(a.plan.files.map((f) => f.mode))).toEqual(new Set([0o644, 0o755]));
    const listing = execFileSync('tar', ['-tvf', b.path], { encoding: 'utf8' }).trim().split('\n');
    expect(listing.filter((l) => l.startsWith('-'))).toHaveLength(300);
  });

  test('extraction is timed, every file checked; modes, times and owners kept on a POSIX file system', async () => {
    const fs = context();
    try {
      await runTarExtract(fs, await tarball({ files: 300, dirs: 20, totalSize: '4MB', maxSize: '2MB' }));
      const byOp = Object.fromEntries(fs.records.map((r) => [r.operation, r]));
      expect(byOp.extract).toMatchObject({ status: 'ok', verified: true, ok: 300, ops: 300 });
      expect(byOp.extract.bytes).toBeGreaterThan(3.9e6);
      const kinds = process.getuid?.() === 0 ? ['permissions', 'timestamps', 'ownership'] : ['permissions', 'timestamps'];
      for (const op of kinds) expect(byOp[op]).toMatchObject({ status: 'ok', supported: true, ok: 300, failed: 0 });
    } finally {
      fs.cleanup();
    }
  });
});

describe('tar extraction checked in the store as well as through the file system', () => {
  /**
   * The "store" of a local directory (a bucket's objects as files): what the reference client
   * would list and read. `hide` leaves objects out, as a client whose cache serves files it never
   * uploaded would.
   */
  const storeOf = (root: string, hide: (key: string) => boolean = () => false) => ({
    list: async (prefix: string) => (await walkFiles(join(root, prefix))).map((f) => ({ key: f.path, size: f.size })).filter((o) => !hide(o.key)),
    getBytes: async (key: string) => (hide(key.split('/').slice(2).join('/')) ? null : readFileSync(join(root, key))),
  });
  const params = { files: 60, dirs: 6, totalSize: '600KB', maxSize: '2MB' };

  test('verified when every file is in the store with its size and content', async () => {
    const fs = context();
    try {
      const archive = await tarball(params);
      await runTarExtract(fs, archive, (subdir, a) => checkTarInStore(storeOf(fs.root), subdir, a, 0));
      expect(fs.records.find((r) => r.operation === 'extract')).toMatchObject({ status: 'ok', verified: true, ok: 60 });
    } finally {
      fs.cleanup();
    }
  });

  test('a file the mount reads back but the store lacks fails the extraction, naming it', async () => {
    const fs = context();
    try {
      const archive = await tarball(params);
      const lost = archive.plan.files[7].path;
      const started = Date.now();
      await runTarExtract(fs, archive, (subdir, a) => checkTarInStore(storeOf(fs.root, (k) => k === lost), subdir, a, 300));
      const extract = fs.records.find((r) => r.operation === 'extract')!;
      expect(extract).toMatchObject({ status: 'failed', verified: false });
      expect(extract.errorSample).toContain(`in the store: 1 of 60 files were not in the bucket with their sizes 0 s after close (e.g. ${lost}: absent`);
      // The bounded wait for a client that uploads after close was given, and no more.
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    } finally {
      fs.cleanup();
    }
  });
});

/** Files of the read-scaling set written to a local directory, with their CRC-32. */
function writeFiles(dir: string, files: { name: string; size: number }[]): FixtureFile[] {
  return files.map((f) => {
    const data = patternBuffer(f.name, f.size);
    const path = join(dir, f.name);
    writeFileSync(path, data);
    return { path, size: f.size, crc32: crc32(data) };
  });
}

describe('parallel readers', () => {
  test('web-serving reads with the 80/20 pattern, every file checked', async () => {
    const fs = context();
    try {
      const p = { files: 200, meanSize: 13445, maxSize: '2MB', reads: 1600, readers: 16, hotFraction: 0.2, hotShare: 0.8, chunk: '256KiB' };
      const plan = planTree(webServingTree(p));
      await writeTree(plan, join(fs.root, 'web'));
      const crcs = treeCrcs(plan);
      const files = plan.files.map((f, i) => ({ path: join(fs.root, 'web', f.path), size: f.size, crc32: crcs[i] }));
      await runWebServing(fs, files, p, NO_CACHE_CONTROL);
      expect(fs.records).toHaveLength(1);
      expect(fs.records[0]).toMatchObject({ operation: 'read', cache: 'none', status: 'ok', verified: true, ok: 1600, ops: 1600 });
      expect(fs.records[0].latency!.p95).toBeGreaterThan(0);

      // A file whose bytes changed is caught.
      writeFileSync(files[0].path, Buffer.alloc(files[0].size, 1));
      const c = await runReaders(fs, files, [[0, 1, 2]], 65536, 'wall');
      expect(c).toMatchObject({ ops: 3, ok: 2, failed: 1, mismatches: 1 });
      expect(c.firstError).toMatch(/CRC-32/);
    } finally {
      fs.cleanup();
    }
  });

  test('the access pattern sends ~80% of reads to 20% of the files, the same for every method', () => {
    const p = { reads: 20000, readers: 16, hotFraction: 0.2, hotShare: 0.8 };
    const sequences = accessSequences(1000, p, 'fixture');
    expect(sequences).toHaveLength(16);
    expect(sequences.flat()).toHaveLength(20000);
    expect(accessSequences(1000, p, 'fixture')).toEqual(sequences);
    const counts = new Map<number, number>();
    for (const i of sequences.flat()) counts.set(i, (counts.get(i) ?? 0) + 1);
    const top = [...counts.values()].sort((a, b) => b - a).slice(0, 200).reduce((a, b) => a + b, 0);
    expect(top / 20000).toBeGreaterThan(0.77);
    expect(top / 20000).toBeLessThan(0.85);
  });

  test('readers run in their own threads, all prepared before any is released', async () => {
    const fs = context();
    try {
      const files = writeFiles(fs.root, Array.from({ length: 4 }, (_, i) => ({ name: `f${i}`, size: 4 * 1024 * 1024 })));
      let spans: ThreadSpan[] = [];
      const results = await runThreads<ReadFilesResult>(
        files.map((_, i) => ({ kind: 'read-files', files, sequence: [i, i], chunkBytes: 1 << 20, reportProgress: false })),
        { signal: fs.signal, onSpans: (s) => (spans = s) },
      );
      expect(new Set(results.map((r) => r.ok))).toEqual(new Set([2]));
      expect(spans).toHaveLength(4);
      // The barrier: no reader starts before every reader is ready, so none runs ahead of the others.
      expect(Math.max(...spans.map((s) => s.readyNs))).toBeLessThanOrEqual(Math.min(...spans.map((s) => s.startedNs)));
      for (const [i, r] of results.entries()) {
        expect(r.startNs).toBeGreaterThanOrEqual(spans[i].startedNs);
        expect(r.endNs).toBeLessThanOrEqual(spans[i].endedNs);
      }
    } finally {
      fs.cleanup();
    }
  });

  test('an abort stops waiting for a thread blocked in a system call (a hung mount)', async () => {
    const fs = context();
    const fifo = join(fs.root, 'blocked');
    execFileSync('mkfifo', [fifo]);
    try {
      const abort = new AbortController();
      // Opening a FIFO for reading blocks until a writer comes: like a read on a hung FUSE mount.
      const job: ReadFilesJob = { kind: 'read-files', files: [{ path: fifo, size: 1, crc32: 0 }], sequence: [0], chunkBytes: 4096, reportProgress: false };
      const run = runThreads([job], { signal: abort.signal });
      setTimeout(() => abort.abort(new Error('the mount died')), 300);
      const started = Date.now();
      await expect(run).rejects.toThrow('the mount died');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      // Unblock the thread so that it ends (a writer's open completes the reader's).
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader left: the thread already ended
      }
      fs.cleanup();
    }
  });

  test('read-scaling measures single streams per size and concurrent readers', async () => {
    const fs = context();
    try {
      const p = { sizes: ['1MB', '4MB'], filesPerSize: 1, concurrentSize: '2MB', readers: [1, 4], chunk: '1MiB' };
      await runReadScaling(fs, writeFiles(fs.root, readScalingFiles(p)), p, NO_CACHE_CONTROL);
      expect(fs.records.map((r) => [r.operation, r.objectSizeBytes, r.ops, r.status, r.verified])).toEqual([
        ['single-stream', 1e6, 1, 'ok', true], ['single-stream', 4e6, 1, 'ok', true],
        ['concurrent-1', 2e6, 1, 'ok', true], ['concurrent-4', 2e6, 4, 'ok', true],
      ]);
      expect(fs.records[3].bytes).toBe(8e6);
    } finally {
      fs.cleanup();
    }
  });
});

describe('git-clone: a path git itself created and then lost is a refusal of the file system', () => {
  test('ENOENT under the clone is ELOST (a refusal); ENOENT elsewhere is not', async () => {
    const { lostOwnPath } = await import('../../runner/workloads/git-clone.impl');
    const { isRefusal } = await import('../../runner/workloads/kit/fs-common');
    const dest = '/mnt/m/s3ab/run/steps/005/cold/git-clone';
    const code = lostOwnPath(`fatal: could not open '${dest}/.git/': No such file or directory\n`, dest);
    expect(code).toBe('ELOST');
    expect(isRefusal(code!)).toBe(true);
    expect(lostOwnPath("fatal: '/srv/repo.git' does not appear to be a git repository: No such file or directory", dest)).toBeNull();
    expect(lostOwnPath(`fatal: ${dest}/.git/config: Permission denied`, dest)).toBeNull();
  });
});
