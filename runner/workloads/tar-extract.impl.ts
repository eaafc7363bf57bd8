import { execFileSync } from 'node:child_process';
import type { Stats } from 'node:fs';
import { open, rm, mkdir, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Measurement } from '../core/batch';
import { errorSummary } from '../core/errors';
import { openMeter, type WorkMeter } from '../core/meter';
import { which } from '../core/paths';
import { formatSize } from '../core/units';
import { bucketSyncBoundMs, waitForObjectSizes } from './kit/common';
import type { ReferenceView, WorkloadDefinition } from '../core/workload';
import { fsMeasurement, fsRunContextOf, isRefusalText, notMeasured, type FsRunContext } from './kit/fs-common';
import { cachedInput, firstLine, runTool, type ToolResult } from './kit/inputs';
import { treeCrcs, writeTarball } from './kit/tree';
import { TREE_OWNER, planTree, type TreePlan } from '../core/tree-plan';
import { tarExtractDescriptor, tarTree, type TarExtractParams } from './tar-extract';


const TOP = 'source';

export interface Tarball {
  path: string;
  plan: TreePlan;
  crcs: number[];
}

/** Builds (once per parameters, cached) the archive: an uncompressed tar of the planned tree. */
export async function tarball(p: TarExtractParams): Promise<Tarball> {
  const plan = planTree(tarTree(p));
  // The name changes with the archive's format (owner, layout), so an older cached one is not reused.
  const path = await cachedInput(`tar-v2-${p.files}f-${p.dirs}d-${plan.totalBytes}b.tar`, async (partial) => {
    await writeTarball(plan, partial, TOP);
  });
  return { path, plan, crcs: treeCrcs(plan) };
}

let tarVersionCache: string | null = null;
function tarVersion(): string {
  try {
    tarVersionCache ??= firstLine(execFileSync('tar', ['--version'], { encoding: 'utf8' }));
  } catch {
    tarVersionCache = 'not installed';
  }
  return tarVersionCache;
}

/**
 * Seeds 002 and 004's `tar -xf`: GNU tar extracts the archive (from local disk) into a directory
 * on the file system under test, keeping permissions and modification times (`-p`, tar's default
 * for times), timed from spawn to exit; `-v` lists each member to the runner as it starts it
 * (line-buffered through coreutils' stdbuf where there is one), which counts the files done should
 * the step's budget run out. Then, untimed, every file is read back and checked
 * (size and CRC-32), and its mode, time and (as root) owner compared with the archive's. Records:
 * `extract` (files/s, MB/s; ok when every file's content is right), then `permissions`,
 * `timestamps` and `ownership` (how many files kept theirs; unsupported when the file system
 * refused the change or kept none). With `inStore` (a mount of a bucket), the extraction is only
 * verified when the store holds the files too: reads through the mount may come from the client's
 * cache.
 */
export async function runTarExtract(fs: FsRunContext, archive: Tarball, inStore?: TarStoreCheck): Promise<void> {
  const dest = join(fs.root, 'tar-extract');
  await rm(dest, { recursive: true, force: true }).catch(() => {});
  try {
    await mkdir(dest, { recursive: true });
  } catch (err) {
    fs.record(notMeasured('extract', null, `could not create the target directory: ${errorSummary(err)}`, isRefusalText(errorSummary(err))));
    return;
  }
  const { plan } = archive;
  fs.progress(`tar -xf (${plan.files.length} files, ${formatSize(plan.totalBytes)})`);
  const meter = openMeter('extract', null, plan.files.length, 'files');
  let tar: ToolResult;
  try {
    tar = await extractCounting(archive, dest, fs.signal, meter);
  } catch (err) {
    if (fs.signal.aborted) throw err;
    meter.end();
    return fs.record(notMeasured('extract', null, `could not run tar: ${errorSummary(err)}`, false));
  }
  if (fs.signal.aborted) return;
  const complaint = tar.code === 0 ? null : `tar exited ${tar.code ?? tar.signal}: ${firstLine(tar.stderr)}`;
  fs.progress('tar-extract: checking the extracted files');
  const check = await checkExtraction(join(dest, TOP), archive, fs.signal);
  const extract = extractMeasurement(check, plan.files.length, tar.elapsedNs, complaint);
  if (inStore && extract.status === 'ok') {
    // The mount's reads may come from the client's own cache: the store must hold the files too.
    fs.progress('tar-extract: checking the extracted files in the bucket');
    const problem = await inStore(`tar-extract/${TOP}/`, archive).catch((err) => `could not check the bucket: ${errorSummary(err)}`);
    if (problem) {
      extract.status = 'failed';
      extract.verified = false;
      extract.errorSample = `extracted files read back through the mount, but in the store: ${problem}`;
    }
  }
  if (fs.signal.aborted) return; // stopped during the checks: the step records it as did-not-finish
  meter.end();
  fs.record(extract);
  for (const record of metadataRecords(check, archive, tar.stderr, complaint)) fs.record(record);
  fs.progress('tar-extract: removing the extracted tree');
  await rm(dest, { recursive: true, force: true }).catch(() => {});
}

/** The `extract` record: timed from tar's spawn to its exit, ok when every file's content came out right. */
function extractMeasurement(check: ExtractionCheck, files: number, elapsedNs: number, complaint: string | null): Measurement {
  const errors: Record<string, number> = {};
  if (check.contentBad) errors[check.firstCode ?? 'EIO'] = check.contentBad;
  const extract = fsMeasurement(
    {
      ops: files, ok: files - check.contentBad, failed: check.contentBad, bytes: check.bytes, latenciesNs: [], durationNs: elapsedNs, errors,
      firstError: check.contentBad ? `${check.contentBad} of ${files} files missing or wrong after extraction; first: ${check.firstContentProblem}${complaint ? ` (${complaint})` : ''}` : null,
    },
    { operation: 'extract', objectSizeBytes: null, verified: check.contentBad === 0, verifyProblem: null, movesPayload: true },
  );
  if (extract.status === 'ok' && complaint) extract.errorSample = complaint;
  return extract;
}

/**
 * The `permissions`, `timestamps` and (as root) `ownership` records. Each kind of metadata is
 * unsupported when the file system refused it (tar says "Cannot change mode/utime/ownership:
 * Operation not permitted" — some files may still show the expected value by coincidence, as a
 * default mode), or accepted every call and kept none (s3fs 1.90 loses a time set on an open file
 * when it uploads at close); a failure when only some files lost it.
 */
function metadataRecords(check: ExtractionCheck, archive: Tarball, tarStderr: string, complaint: string | null): Measurement[] {
  const files = archive.plan.files.length;
  const present = files - check.missing;
  const aspects = [
    { operation: 'permissions', what: 'mode', bad: check.modeBad, first: check.firstModeProblem, complaint: /Cannot change mode/ },
    { operation: 'timestamps', what: 'modification time', bad: check.timeBad, first: check.firstTimeProblem, complaint: /Cannot utime|Cannot set time/ },
    ...(check.ownerChecked ? [{ operation: 'ownership', what: 'owner', bad: check.ownerBad, first: check.firstOwnerProblem, complaint: /Cannot change ownership/ }] : []),
  ];
  return aspects.map((a): Measurement => {
    const refusedLine = tarStderr.split('\n').find((l) => a.complaint.test(l) && isRefusalText(l)) ?? null;
    const noneKept = present > 0 && a.bad === present;
    // One mode for every file where the archive has several: the file system imposes its own, and
    // the files that "kept" theirs only had that mode already (rclone: 0644 for all).
    const imposed = a.operation === 'permissions' && check.modesSeen.size === 1 && new Set(archive.plan.files.map((f) => f.mode)).size > 1;
    const unsupported = present > 0 && (refusedLine !== null || noneKept || imposed);
    const how = refusedLine ? `refused: ${refusedLine.trim()}`
      : imposed ? `every file reads mode ${[...check.modesSeen][0].toString(8)}: the file system ignores the mode`
        : noneKept ? 'every call succeeded but no value stuck' : complaint;
    const kept = unsupported ? 0 : present - a.bad;
    return {
      operation: a.operation, objectSizeBytes: null, status: unsupported ? 'unsupported' : a.bad ? 'failed' : 'ok', supported: !unsupported,
      verified: !unsupported && a.bad === 0 && present === files, ops: present, ok: kept, failed: present - kept, bytes: 0, durationMs: 0, latency: null,
      errorSample: unsupported || a.bad ? `${unsupported ? present : a.bad} of ${present} files did not keep their ${a.what}${how ? ` (${how})` : ''}${a.first ? `; first: ${a.first}` : ''}` : null,
      movesPayload: false,
    };
  });
}

/**
 * Runs `tar -x` of the archive into `dest`, counting into `meter` the files extracted so far (for
 * the step's budget): tar -v names each member as it starts it — the top folder and the
 * directories first, then the files (kit/tree.ts writes them in that order). Into a pipe tar buffers
 * that listing by the block: coreutils' stdbuf, where there is one, makes it say each member at once.
 */
async function extractCounting(archive: Tarball, dest: string, signal: AbortSignal, meter: WorkMeter): Promise<ToolResult> {
  const files = archive.plan.files.length;
  const ahead = 1 + archive.plan.dirs.length + 1;
  let listed = 0;
  const count = (chunk: Buffer) => {
    for (const byte of chunk) if (byte === 10) listed++;
    meter.add(Math.max(0, Math.min(files, listed - ahead + 1)) - meter.done);
  };
  // --numeric-owner: the archive's owner ids as they are, whatever this host's user names.
  const args = ['-x', '-v', '-p', '--numeric-owner', '-f', archive.path, '-C', dest];
  const stdbuf = which('stdbuf')[0];
  const command = stdbuf ? [stdbuf, '-oL', 'tar', ...args] : ['tar', ...args];
  const tar = await runTool(command[0], command.slice(1), { signal, env: { ...process.env, LC_ALL: 'C' }, onStdout: count });
  meter.add(files - meter.done);
  return tar;
}

/**
 * Independent check of an extraction through the store (a mount of a bucket): null when every file
 * of the archive is an object under the step's `subdir` with its size (and a sample with its
 * content), else the problem.
 */
export type TarStoreCheck = (subdir: string, archive: Tarball) => Promise<string | null>;

/** Files whose content the store check reads back through the reference client (spread over the archive). */
const STORE_CONTENT_SAMPLE = 8;

/**
 * The store check through the runner's reference S3 client: every file's object and size, waiting
 * up to `timeoutMs` for a client that uploads after close; then the content (CRC-32) of a few
 * files spread over the archive.
 */
export async function checkTarInStore(
  reference: Pick<ReferenceView, 'list' | 'getBytes'>, prefix: string, archive: Tarball, timeoutMs: number,
): Promise<string | null> {
  const files = archive.plan.files;
  const sizes = await waitForObjectSizes(reference, prefix, files.map((f) => ({ key: f.path, size: f.size })), timeoutMs);
  if (sizes.problem) return sizes.problem;
  const step = Math.max(1, Math.floor(files.length / STORE_CONTENT_SAMPLE));
  for (let i = 0; i < files.length; i += step) {
    const body = await reference.getBytes(prefix + files[i].path);
    if (!body) return `${files[i].path} vanished from the bucket`;
    if (crc32(body) !== archive.crcs[i]) return `${files[i].path} has the right size but not the archive's content`;
  }
  return null;
}

interface ExtractionCheck {
  bytes: number;
  missing: number;
  contentBad: number;
  modeBad: number;
  timeBad: number;
  /** Distinct modes the extracted files show. */
  modesSeen: Set<number>;
  /** Owners are checked when running as root (only root's tar restores the archive's owners). */
  ownerChecked: boolean;
  ownerBad: number;
  firstOwnerProblem: string | null;
  firstCode: string | null;
  firstContentProblem: string | null;
  firstModeProblem: string | null;
  firstTimeProblem: string | null;
}

async function checkExtraction(root: string, archive: Tarball, signal: AbortSignal): Promise<ExtractionCheck> {
  const c: ExtractionCheck = {
    bytes: 0, missing: 0, contentBad: 0, modeBad: 0, timeBad: 0, firstCode: null, firstContentProblem: null, firstModeProblem: null, firstTimeProblem: null,
    modesSeen: new Set(), ownerChecked: process.getuid?.() === 0, ownerBad: 0, firstOwnerProblem: null,
  };
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  for (let i = 0; i < archive.plan.files.length && !signal.aborted; i++) {
    const f = archive.plan.files[i];
    const path = join(root, f.path);
    let handle;
    try {
      handle = await open(path, 'r');
      const st = await handle.stat();
      const { crc, got } = await crcOf(handle, buffer);
      if (got !== f.size || crc !== archive.crcs[i]) {
        c.contentBad++;
        c.firstContentProblem ??= `${f.path}: ${got} bytes, expected ${f.size}${got === f.size ? ' (content differs)' : ''}`;
      } else {
        c.bytes += got;
      }
      compareMetadata(c, f, st);
    } catch (err) {
      c.missing++;
      c.contentBad++;
      c.firstCode ??= (err as NodeJS.ErrnoException).code ?? null;
      c.firstContentProblem ??= `${f.path}: ${errorSummary(err)}`;
    } finally {
      await handle?.close().catch(() => {});
    }
  }
  return c;
}

/** Reads the open file to its end: its CRC-32 and length. */
async function crcOf(handle: FileHandle, buffer: Buffer): Promise<{ crc: number; got: number }> {
  let crc = 0;
  let got = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (!bytesRead) return { crc, got };
    crc = crc32(buffer.subarray(0, bytesRead), crc);
    got += bytesRead;
  }
}

/** Counts into `c` whether the extracted file kept the archive's mode, owner (as root) and modification time. */
function compareMetadata(c: ExtractionCheck, f: TreePlan['files'][number], st: Stats): void {
  c.modesSeen.add(st.mode & 0o7777);
  if ((st.mode & 0o7777) !== f.mode) {
    c.modeBad++;
    c.firstModeProblem ??= `${f.path} has mode ${(st.mode & 0o7777).toString(8)}, expected ${f.mode.toString(8)}`;
  }
  if (c.ownerChecked && (st.uid !== TREE_OWNER.uid || st.gid !== TREE_OWNER.gid)) {
    c.ownerBad++;
    c.firstOwnerProblem ??= `${f.path} is owned by ${st.uid}:${st.gid}, expected ${TREE_OWNER.uid}:${TREE_OWNER.gid}`;
  }
  if (Math.floor(st.mtimeMs / 1000) !== f.mtimeSec) {
    c.timeBad++;
    c.firstTimeProblem ??= `${f.path} has mtime ${new Date(st.mtimeMs).toISOString()}, expected ${new Date(f.mtimeSec * 1000).toISOString()}`;
  }
}

function describeTarExtractParams(p: TarExtractParams): Record<string, string> {
  return { ...tarExtractDescriptor.describe(p), tar: tarVersion() };
}

/**
 * Seeds 002 and 004's `tar -xf` onto the mounted bucket, of a generated source-tree archive
 * (built offline, cached). Needs a file system.
 */
export const tarExtract: WorkloadDefinition<TarExtractParams> = {
  ...tarExtractDescriptor,
  describe: describeTarExtractParams,
  async run(ctx) {
    const fs = await fsRunContextOf(ctx);
    ctx.progress(`building the archive (${ctx.params.files} files; cached)`);
    // A write-back client gets two minutes to upload, a background sync (S3 Files) its export bound,
    // as for the metadata suite's writes.
    const timeoutMs = bucketSyncBoundMs(fs.mount);
    // Files that are objects are checked in the bucket; others (JuiceFS) are read back after a
    // cold remount, so the check does not read what the extraction left in the client's cache.
    const inStore: TarStoreCheck = ctx.offers.includes('objects-in-bucket')
      ? (subdir, archive) => checkTarInStore(ctx.reference, `${ctx.prefix}${subdir}`, archive, timeoutMs)
      : async (subdir, archive) => {
        await fs.mount.remount();
        const again = await checkExtraction(fs.mount.pathOf(`${ctx.prefix}${subdir}`.replace(/\/$/, '')), archive, ctx.signal);
        return again.contentBad ? `after a cold remount ${again.contentBad} of ${archive.plan.files.length} files are missing or wrong; first: ${again.firstContentProblem}` : null;
      };
    await runTarExtract(fs, await tarball(ctx.params), inStore);
  },
};
