import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { Batch, notApplicable, type Measurement } from '../core/batch';
import { errorSummary } from '../core/errors';
import { formatSize, parseSize } from '../core/units';
import { LatencyHistogram } from '../core/stats';
import type { FileSystemAccess } from '../core/method';
import type { RequestWindow, WorkloadContext, WorkloadDefinition } from '../core/workload';
import { isRefusal, notMeasured } from './kit/fs-common';
import { DIRECT_READ_STEP, DIRECT_READ_THRESHOLDS, SMALL_FILE_BYTES, syncBehaviourDescriptor, type SyncBehaviourParams } from './sync-behaviour';

type Ctx = WorkloadContext<SyncBehaviourParams>;

/** Requests of the untimed setup (files staged through the S3 API or the mount before a measurement). */
const SETUP = '(setup)';
/** The mount's requests while the bucket is polled for its exports: late uploads no one size can claim. */
const AFTER_CLOSE = '(after close)';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const msSince = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/** The longest a wait for the bucket may last: the parameter, or the client's own documented sync bound when longer. */
const waitBoundMs = (ctx: Ctx, fs: FileSystemAccess) => Math.max(ctx.params.timeout_s * 1000, fs.bucketLag.exportMs, fs.bucketLag.importMs);

/** A batch every attempt of which the method refused by design (Mountpoint's rename, chmod) is unsupported, not failed. */
function withRefusal(m: Measurement): Measurement {
  const code = /^(E[A-Z]+)\b/.exec(m.errorSample ?? '')?.[1];
  return m.ok === 0 && m.failed > 0 && code && isRefusal(code) ? { ...m, status: 'unsupported', supported: false } : m;
}

/** A batch whose every operation returned success but left the wrong result (rclone's chmod) is unsupported, with what was wrong. */
function succeededBut(m: Measurement): Measurement {
  return m.status === 'failed' && m.failed === 0 && m.ok > 0 ? { ...m, status: 'unsupported', supported: false, errorSample: `succeeded but ${m.errorSample}` } : m;
}

/** A measurement of waits (lags): one latency per item, the longest as the delay. */
function lagMeasurement(operation: string, size: number | null, lagsMs: number[], expected: number, problem: string | null): Measurement {
  const h = new LatencyHistogram();
  for (const ms of lagsMs) h.recordNs(ms * 1e6);
  const ok = lagsMs.length;
  return {
    operation, objectSizeBytes: size, status: ok === expected && !problem ? 'ok' : 'failed', supported: true, verified: ok === expected && !problem,
    ops: expected, ok, failed: expected - ok, bytes: 0, durationMs: lagsMs.length ? Math.max(...lagsMs) : 0,
    ...h.fields(), errorSample: problem, movesPayload: false, delayMs: lagsMs.length ? Math.max(...lagsMs) : null,
  };
}

/**
 * The first listing of a folder the mount has never seen (objects written through the S3 API):
 * S3 Files imports its metadata on that first access. Timed until a listing shows every entry,
 * then `list_repeats` listings of the same folder.
 */
async function listings(ctx: Ctx, fs: FileSystemAccess): Promise<void> {
  const dir = `${ctx.prefix}list/`;
  const names = Array.from({ length: ctx.params.files }, (_, i) => `e-${String(i).padStart(5, '0')}`);
  const body = Buffer.alloc(16);
  for (let i = 0; i < names.length; i += 32) await Promise.all(names.slice(i, i + 32).map((n) => ctx.reference.putBytes(dir + n, body)));
  ctx.recordRequests(SETUP, [ctx.cutRequests()]);
  ctx.progress(`first listing of ${names.length} entries`);
  const first = new Batch('list-first', null, 'sequential', false);
  const deadline = Date.now() + waitBoundMs(ctx, fs);
  let seen = 0;
  // One operation: from the first readdir until one shows every entry (a client may list late what it has not imported).
  await first.op(async () => {
    for (;;) {
      // A folder the client has not seen yet may be missing (ENOENT) until its listing cache expires.
      seen = (await readdir(fs.pathOf(dir)).catch((err: NodeJS.ErrnoException) => { if (err.code === 'ENOENT') return []; throw err; })).length;
      if (seen >= names.length || Date.now() > deadline) return;
      await sleep(20);
    }
  });
  // A client that answers from a listing cache without the new folder: a finding about the method, not a broken measurement.
  first.verify(seen === names.length, `the mount listed ${seen} of ${names.length} objects written through the S3 API ${Math.round(waitBoundMs(ctx, fs) / 1000)} s after the first readdir (its listing cache)`);
  const listed = succeededBut(first.finish());
  ctx.record(listed);
  if (listed.status !== 'ok') {
    ctx.record(notMeasured('list-repeat', null, `the first listing did not show the folder: ${listed.errorSample}`, listed.status === 'unsupported'));
    return;
  }
  const repeat = new Batch('list-repeat', null, 'sequential', false).plan(ctx.params.list_repeats);
  let wrong = 0;
  for (let i = 0; i < ctx.params.list_repeats && !ctx.signal.aborted; i++) {
    const n = await repeat.op(async () => (await readdir(fs.pathOf(dir))).length);
    if (n !== undefined && n !== names.length) wrong = n;
  }
  repeat.verify(!wrong, `a repeated listing showed ${wrong} of ${names.length} entries`);
  ctx.record(repeat.finish());
}

/** Reads of the fixture (written through the S3 API), one measurement per size, each file checked by its CRC-32's digest. */
async function fixtureReads(ctx: Ctx): Promise<void> {
  const fixture = ctx.fixture!;
  const { per_size: per, read_sizes: sizes } = ctx.params;
  for (const [s, given] of sizes.entries()) {
    const size = parseSize(given);
    ctx.progress(`read ${per} × ${formatSize(size)}`);
    const batch = new Batch('read', size).plan(per);
    for (let j = 0; j < per && !ctx.signal.aborted; j++) {
      const i = s * per + j;
      const key = fixture.prefix + fixture.spec.keyOf(i);
      const got = await batch.op(() => ctx.session.get(key), (f) => f.bytes);
      if (!got) continue;
      batch.readOf(key, got.bytes);
      const digest = await got.digest();
      batch.verify(digest === fixture.digestOf(i) && got.bytes === size, `${key}: read ${got.bytes} bytes, not the ${size} written`);
    }
    ctx.record(batch.finish());
  }
}

/** What the files written through the mount are: name, size, content. */
interface Written { name: string; size: number; body: Buffer }

/**
 * Writes `per_size` files of each write size through the mount, then polls the bucket: per size,
 * each file's lag from its close() to its object (right size) in the bucket.
 */
async function exportLags(ctx: Ctx, fs: FileSystemAccess, dir: string): Promise<Written[] | null> {
  const files: Written[] = [];
  const closedAt = new Map<string, bigint>();
  const lag = new Map<string, number>();
  const inBucket = ctx.offers.includes('objects-in-bucket');
  // One look right after close: a client that uploads before close returns shows its lag here,
  // not the time it takes to write the files after it.
  const looked = async (f: Written) => {
    if (inBucket && (await ctx.reference.head(dir + f.name))?.size === f.size) lag.set(f.name, Number(process.hrtime.bigint() - closedAt.get(f.name)!) / 1e6);
  };
  await mkdir(fs.pathOf(dir), { recursive: true });
  ctx.progress('write through the mount, wait for the bucket');
  // Each size's own requests: the stretch of the server's log in which its files were written.
  const writes = new Map<number, RequestWindow>();
  try {
    for (const given of ctx.params.write_sizes) {
      const size = parseSize(given);
      for (let j = 0; j < ctx.params.per_size; j++) {
        const f = { name: `w-${size}-${j}.bin`, size, body: randomBytes(size) };
        await writeFile(fs.pathOf(dir + f.name), f.body);
        closedAt.set(f.name, process.hrtime.bigint());
        files.push(f);
        await looked(f);
      }
      writes.set(size, ctx.cutRequests());
    }
  } catch (err) {
    for (const given of ctx.params.write_sizes) ctx.record(notMeasured('export-lag', parseSize(given), `writing through the mount failed: ${errorSummary(err)}`, false));
    return null;
  }
  // The rest (a client that exports or uploads after close) polled together.
  const deadline = Date.now() + waitBoundMs(ctx, fs);
  while (lag.size < files.length && Date.now() <= deadline && !ctx.signal.aborted) {
    const listed = new Map((await ctx.stored.list(dir)).map((o) => [o.key, o.size]));
    const now = process.hrtime.bigint();
    for (const f of files) if (!lag.has(f.name) && listed.get(f.name) === f.size) lag.set(f.name, Number(now - closedAt.get(f.name)!) / 1e6);
    if (lag.size < files.length) await sleep(50);
  }
  ctx.recordRequests(AFTER_CLOSE, [ctx.cutRequests()]);
  for (const given of ctx.params.write_sizes) {
    const size = parseSize(given);
    const mine = files.filter((f) => f.size === size);
    const lags = mine.flatMap((f) => (lag.has(f.name) ? [lag.get(f.name)!] : []));
    const problem = lags.length < mine.length ? `${mine.length - lags.length} of ${mine.length} files were not in the bucket ${Math.round(waitBoundMs(ctx, fs) / 1000)} s after close` : null;
    ctx.record(lagMeasurement('export-lag', size, lags, mine.length, problem), [writes.get(size)!]);
  }
  return files;
}

/**
 * Reads the files just written and exported (cold: after a fresh mount), one measurement per size;
 * then, per direct-read threshold, whether the fastest read at it takes a step over the one below.
 */
async function exportedReads(ctx: Ctx, fs: FileSystemAccess, dir: string, files: Written[]): Promise<void> {
  if (ctx.cache === 'cold') await fs.remount();
  const fastest = new Map<number, number>();
  for (const given of ctx.params.write_sizes) {
    const size = parseSize(given);
    const batch = new Batch('read-exported', size).plan(ctx.params.per_size);
    for (const f of files.filter((x) => x.size === size)) {
      const got = await batch.op(() => readFile(fs.pathOf(dir + f.name)), (b) => b.length);
      if (got) batch.verify(got.equals(f.body), `${f.name}: read back ${got.length} bytes that differ from the ${f.size} written`);
    }
    const m = batch.finish();
    if (m.latency && m.status === 'ok') fastest.set(size, m.latency.min);
    ctx.record(m);
  }
  for (const t of DIRECT_READ_THRESHOLDS) ctx.record(thresholdVerdict(t, fastest));
}

/**
 * Whether reads at a documented direct-read threshold take another path than those just below it,
 * from the fastest read of each size (µs): the fastest is the one least disturbed by the host's
 * other work, and a read that became an S3 GET cannot be faster than its request's round trip.
 */
function thresholdVerdict(t: (typeof DIRECT_READ_THRESHOLDS)[number], fastest: Map<number, number>): Measurement {
  const sizes = [...fastest.keys()];
  const below = Math.max(...sizes.filter((s) => s < t.bytes));
  const at = Math.min(...sizes.filter((s) => s >= t.bytes));
  if (!Number.isFinite(below) || !Number.isFinite(at)) return notApplicable(t.operation, `no read measured on both sides of ${formatSize(t.bytes)} (write_sizes, or their reads failed)`);
  const ratio = fastest.get(at)! / fastest.get(below)!;
  const holds = ratio >= DIRECT_READ_STEP;
  const line = `fastest read of ${formatSize(at)} ${(fastest.get(at)! / 1000).toFixed(2)} ms vs ${formatSize(below)} ${(fastest.get(below)! / 1000).toFixed(2)} ms: ×${ratio.toFixed(2)}`
    + `, ${holds ? 'a step' : 'no step'} (a threshold holds at ×${DIRECT_READ_STEP} or more; documented in ${t.page})`;
  return {
    operation: t.operation, objectSizeBytes: at, status: holds ? 'ok' : 'unsupported', supported: holds, verified: true,
    ops: 2, ok: 2, failed: 0, bytes: 0, durationMs: 0, latency: null, errorSample: line, movesPayload: false,
  };
}

/** The files the rename and the chmods work on, written through the mount and in the bucket, or why not. */
interface Staged { names: string[]; problem: string | null }

/**
 * Writes `files` small files through the mount into each of `dirs` and waits until the bucket has
 * them all (setup: untimed, its requests a row of their own). One wait for both folders: on S3
 * Files each wait is an export, about a minute.
 */
async function stage(ctx: Ctx, fs: FileSystemAccess, dirs: string[]): Promise<Staged> {
  ctx.progress(`write ${dirs.length} × ${ctx.params.files} files to rename and chmod`);
  const names = Array.from({ length: ctx.params.files }, (_, i) => `s-${String(i).padStart(5, '0')}.bin`);
  const body = randomBytes(SMALL_FILE_BYTES);
  try {
    for (const dir of dirs) {
      await mkdir(fs.pathOf(dir), { recursive: true });
      for (const n of names) await writeFile(fs.pathOf(dir + n), body);
    }
  } catch (err) {
    return { names, problem: `could not write the files to work on: ${errorSummary(err)}` };
  }
  const deadline = Date.now() + waitBoundMs(ctx, fs);
  try {
    for (;;) {
      const lists = await Promise.all(dirs.map((dir) => ctx.stored.list(dir)));
      if (lists.every((l) => { const have = new Set(l.map((o) => o.key)); return names.every((n) => have.has(n)); })) return { names, problem: null };
      if (Date.now() > deadline || ctx.signal.aborted) return { names, problem: `the files to work on were not in the bucket ${Math.round(waitBoundMs(ctx, fs) / 1000)} s after close` };
      await sleep(50);
    }
  } finally {
    ctx.recordRequests(SETUP, [ctx.cutRequests()]);
  }
}

/** A folder of `files` files renamed on the mount (one rename), then the wait until the bucket has them under the new name only. */
async function renameDir(ctx: Ctx, fs: FileSystemAccess, { names, problem }: Staged): Promise<void> {
  ctx.progress(`rename a folder of ${ctx.params.files} files`);
  if (problem) {
    for (const op of ['rename-dir', 'rename-dir-in-bucket']) ctx.record(notMeasured(op, SMALL_FILE_BYTES, problem, false));
    return;
  }
  const batch = new Batch('rename-dir', SMALL_FILE_BYTES, 'sequential', false).plan(1);
  const t0 = process.hrtime.bigint();
  await batch.op(() => rename(fs.pathOf(`${ctx.prefix}ren-src`), fs.pathOf(`${ctx.prefix}ren-dst`)));
  const moved = await readdir(fs.pathOf(`${ctx.prefix}ren-dst`)).catch(() => [] as string[]);
  batch.verify(moved.length === names.length, `the renamed folder holds ${moved.length} of ${names.length} files`);
  const renamed = succeededBut(withRefusal(batch.finish()));
  ctx.record(renamed);
  if (renamed.status !== 'ok') {
    ctx.record(notMeasured('rename-dir-in-bucket', SMALL_FILE_BYTES, `the rename on the mount did not succeed: ${renamed.errorSample}`, renamed.status === 'unsupported'));
    return;
  }
  if (!ctx.offers.includes('objects-in-bucket')) {
    ctx.record(notApplicable('rename-dir-in-bucket', 'its files are not objects in the bucket (it keeps them in its own format): there is no bucket object to check'));
    return;
  }
  const deadline = Date.now() + waitBoundMs(ctx, fs);
  let lagMs: number | null = null;
  let state = '';
  while (!ctx.signal.aborted) {
    const dst = new Set((await ctx.reference.list(`${ctx.prefix}ren-dst/`)).map((o) => o.key));
    const src = (await ctx.reference.list(`${ctx.prefix}ren-src/`)).length;
    if (src === 0 && names.every((n) => dst.has(n))) { lagMs = msSince(t0); break; }
    state = `${dst.size} of ${names.length} objects under the new name, ${src} left under the old`;
    if (Date.now() > deadline) break;
    await sleep(50);
  }
  const wait = lagMs === null ? `${state} ${Math.round(waitBoundMs(ctx, fs) / 1000)} s after the rename` : null;
  ctx.record(lagMeasurement('rename-dir-in-bucket', SMALL_FILE_BYTES, lagMs === null ? [] : [lagMs], 1, wait));
}

/** chmod on `files` files, then the object versions that wrote in the (versioned) bucket. */
async function chmodVersions(ctx: Ctx, fs: FileSystemAccess, { names, problem }: Staged): Promise<void> {
  ctx.progress(`chmod ${ctx.params.files} files`);
  const dir = `${ctx.prefix}chmod/`;
  const inBucket = ctx.offers.includes('objects-in-bucket');
  const before = inBucket && !problem ? await ctx.reference.versions(dir) : null;
  ctx.recordRequests(SETUP, [ctx.cutRequests()]);
  if (problem) {
    for (const op of ['chmod', 'chmod-versions']) ctx.record(notMeasured(op, SMALL_FILE_BYTES, problem, false));
    return;
  }
  const batch = new Batch('chmod', SMALL_FILE_BYTES, 'sequential', false).plan(names.length);
  const t0 = process.hrtime.bigint();
  for (const n of names) await batch.op(() => chmod(fs.pathOf(dir + n), 0o640));
  const modes = await Promise.all(names.map((n) => stat(fs.pathOf(dir + n)).then((st) => st.mode & 0o777, () => -1)));
  const wrong = modes.filter((m) => m !== 0o640).length;
  batch.verify(!wrong, `${wrong} of ${names.length} files do not read mode 640 after chmod`);
  const changed = succeededBut(withRefusal(batch.finish()));
  ctx.record(changed);
  if (!before) {
    ctx.record(notApplicable('chmod-versions', 'its files are not objects in the bucket (it keeps them in its own format): there are no object versions to count'));
    return;
  }
  if (!before.versioned) {
    ctx.record(notApplicable('chmod-versions', 'the bucket does not keep versions (each object is listed once, as version "null"); the AWS data bucket does'));
    return;
  }
  if (changed.status !== 'ok') {
    ctx.record(notMeasured('chmod-versions', SMALL_FILE_BYTES, `chmod did not succeed: ${changed.errorSample}`, changed.status === 'unsupported'));
    return;
  }
  // New versions may land late (S3 Files exports about a minute after the change): poll until
  // every file has one, or the wait's bound.
  const written = (now: Map<string, number>) => names.reduce((a, n) => a + Math.max(0, (now.get(n) ?? 0) - (before.counts.get(n) ?? 0)), 0);
  const filesWithNew = (now: Map<string, number>) => names.filter((n) => (now.get(n) ?? 0) > (before.counts.get(n) ?? 0)).length;
  const deadline = Date.now() + waitBoundMs(ctx, fs);
  let now = before.counts;
  let lastMs: number | null = null;
  while (!ctx.signal.aborted) {
    const next = (await ctx.reference.versions(dir)).counts;
    if (written(next) > written(now)) lastMs = msSince(t0);
    now = next;
    if (filesWithNew(now) === names.length || Date.now() > deadline) break;
    await sleep(100);
  }
  // ops: the object versions the chmods wrote (0: the mode never reached the bucket).
  const versions = written(now);
  ctx.record({
    operation: 'chmod-versions', objectSizeBytes: SMALL_FILE_BYTES, status: 'ok', supported: true, verified: true,
    ops: versions, ok: versions, failed: 0, bytes: 0, durationMs: msSince(t0), latency: null,
    errorSample: null, movesPayload: false, delayMs: lastMs,
  });
}

/**
 * What S3 Files documents about its synchronization, measured on every mount method alike: the
 * first listing of a folder, reads around the import threshold, the export lag per size and reads
 * around both direct-read thresholds, a folder's rename, chmod's object versions.
 */
export const syncBehaviour: WorkloadDefinition<SyncBehaviourParams> = {
  ...syncBehaviourDescriptor,
  async run(ctx) {
    const fs = ctx.fs!;
    await listings(ctx, fs);
    await fixtureReads(ctx);
    const written = `${ctx.prefix}exp/`;
    const files = await exportLags(ctx, fs, written);
    if (files) await exportedReads(ctx, fs, written, files);
    const staged = await stage(ctx, fs, [`${ctx.prefix}ren-src/`, `${ctx.prefix}chmod/`]);
    await renameDir(ctx, fs, staged);
    await chmodVersions(ctx, fs, staged);
  },
};
