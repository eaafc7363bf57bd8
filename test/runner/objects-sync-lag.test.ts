import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Measurement } from '../../runner/core/batch';
import type { FileSystemAccess, StorageSession } from '../../runner/core/method';
import { readFileHashed } from '../../runner/methods/kit/posix-io';
import type { ReferenceView, WorkloadContext } from '../../runner/core/workload';
import { objects } from '../../runner/workloads/objects.impl';
import type { ObjectsParams } from '../../runner/workloads/objects';

/**
 * The objects workload on a file system that syncs with its bucket in the background, as S3 Files
 * does (about a minute after close, AWS only: no NFS client here). The "mount" is a local folder;
 * the bucket as the runner's reference client sees it lags it by LAG_MS — a file shows there
 * LAG_MS after it was written, and stays LAG_MS after it was deleted. Only that lag is stood in
 * for; the workload, its timing and its checks are the real ones.
 */
const LAG_MS = 1200;

function laggingFileSystem(exportMs: number) {
  const base = mkdtempSync(join(tmpdir(), 's3ab-test-lag-'));
  const root = join(base, 'mnt');
  mkdirSync(root);
  const deletedAt = new Map<string, number>();
  const pathOf = (key: string) => join(root, key);
  const fs: FileSystemAccess = {
    mountPoint: root, pathOf, uploadsAfterClose: false, bucketLag: { exportMs, importMs: 0 },
    remount: async () => {}, diskCache: false, check: () => {}, clientPid: null,
  };
  const listDir = (prefix: string) => {
    const dir = pathOf(prefix);
    try {
      return readdirSync(dir).map((name) => ({ key: name, size: statSync(join(dir, name)).size, mtimeMs: statSync(join(dir, name)).mtimeMs }));
    } catch {
      return [];
    }
  };
  const session: StorageSession = {
    version: 'local folder', options: {}, fs,
    put: async (key, file) => { mkdirSync(dirname(pathOf(key)), { recursive: true }); copyFileSync(file.path, pathOf(key)); },
    get: async (key) => { const { bytes, digest } = await readFileHashed(pathOf(key)); return { bytes, digest: async () => digest, discard: async () => {} }; },
    list: async (prefix) => listDir(prefix).map(({ key, size }) => ({ key, size })),
    head: async (key) => ({ size: statSync(pathOf(key)).size }),
    delete: async (key) => { unlinkSync(pathOf(key)); deletedAt.set(key, Date.now()); },
    close: async () => {},
  };
  // The bucket: what the folder held LAG_MS ago.
  const stored: Pick<ReferenceView, 'list'> = {
    list: async (prefix) => {
      const now = Date.now();
      const present = listDir(prefix).filter((o) => now - o.mtimeMs >= LAG_MS).map(({ key, size }) => ({ key, size }));
      const gone = [...deletedAt].filter(([k, t]) => k.startsWith(prefix) && now - t < LAG_MS).map(([k]) => ({ key: k.slice(prefix.length), size: 0 }));
      return [...present, ...gone];
    },
  };
  return { fs, session, stored, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

async function runObjects(exportMs: number): Promise<Measurement[]> {
  const t = laggingFileSystem(exportMs);
  const scratch = mkdtempSync(join(tmpdir(), 's3ab-test-lag-scratch-'));
  const records: Measurement[] = [];
  try {
    const ctx = {
      params: { sizes: ['4KiB'], files: 3 }, session: t.session, fs: t.fs, cache: 'cold', prefix: 'step/', fixture: null,
      scratchDir: scratch, dataSeed: 'lag', signal: new AbortController().signal, record: (m: Measurement) => records.push(m), progress: () => {},
      reference: t.stored as ReferenceView, stored: t.stored, offers: ['file-system', 'objects-in-bucket'],
    } as unknown as WorkloadContext<ObjectsParams>;
    await objects.run(ctx);
    return records;
  } finally {
    t.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
}

describe('objects on a file system that syncs with the bucket in the background (S3 Files)', () => {
  test('uploads and deletes are checked once the sync had its bound, untimed: every measurement verified, none slowed by the wait', async () => {
    const records = await runObjects(10_000);
    expect(records.map((r) => [r.operation, r.status, r.verified, r.errorSample])).toEqual(
      ['upload', 'list', 'head', 'download', 'delete'].map((op) => [op, 'ok', true, null]),
    );
    for (const r of records) expect(r.durationMs).toBeLessThan(LAG_MS);
  });

  test('without the bound the same check fails: it does look at the bucket', async () => {
    const records = await runObjects(0);
    const upload = records.find((r) => r.operation === 'upload')!;
    expect(upload.verified).toBe(false);
    expect(upload.errorSample).toMatch(/after upload the bucket lacks 3 of 3 objects/);
  });
});
