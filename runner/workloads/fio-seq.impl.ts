import { spawn } from 'node:child_process';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { dirname, join } from 'node:path';
import type { Measurement } from '../core/batch';
import { errorSummary } from '../core/errors';
import { openMeter, type WorkMeter } from '../core/meter';
import { findBinary, once, versionOutput } from '../core/binaries';
import { bucketsOfCounts } from '../core/stats';
import { formatSize, parseSize } from '../core/units';
import type { WorkloadContext, WorkloadDefinition } from '../core/workload';
import { bucketSyncBoundMs, waitForObjects } from './kit/common';
import { fioSeqDescriptor, type FioSeqParams } from './fio-seq';


const MIB = 1024 * 1024;

const fioBinary = once(async () => {
  const path = findBinary('S3AB_FIO', ['fio']);
  if (!path) return { error: 'fio is not installed: `apt-get install fio` or `npm run setup`, or set S3AB_FIO=/path/to/fio' };
  const version = ((await versionOutput(path, ['--version'])) ?? '').trim().split('\n')[0] || 'fio (unknown version)';
  return { path, version };
});

interface FioDirection {
  io_bytes: number;
  bw_bytes: number;
  iops: number;
  runtime: number;
  total_ios: number;
  /** `bins` (json+ output): fio's latency histogram, each bucket's middle (ns) → count, in the records' own layout. */
  lat_ns: { min: number; max: number; mean: number; percentile?: Record<string, number>; bins?: Record<string, number> };
}

/** The parts of fio's JSON output the workload uses: one job, its read or write side. */
export interface FioResult {
  error: number;
  direction: FioDirection;
}

/** Parses fio's `--output-format=json` for the single job it ran. */
export function parseFioJson(text: string, rw: 'read' | 'write'): FioResult {
  // fio may print notes before the JSON document.
  const start = text.indexOf('{');
  if (start < 0) throw new Error('fio wrote no JSON result');
  const doc = JSON.parse(text.slice(start)) as { jobs?: ({ error: number } & Record<string, unknown>)[] };
  const job = doc.jobs?.[0];
  if (!job) throw new Error('fio\'s JSON result has no job');
  return { error: job.error, direction: job[rw] as FioDirection };
}

/**
 * A fio result as a measurement: IOPS, bandwidth, and latency from lat_ns (on FUSE, libaio is
 * synchronous: lat, not clat). fio's histogram uses the records' bucket layout (core/stats.ts), so
 * its bins become latency_histogram as they are (fio puts latencies above ~17 s in its last bin).
 */
export function fioMeasurement(operation: 'read' | 'write', size: number, r: FioResult): Measurement {
  const d = r.direction;
  const pct = (p: string) => (d.lat_ns.percentile?.[p] ?? d.lat_ns.mean) / 1000;
  const ok = r.error === 0;
  const bins = Object.entries(d.lat_ns.bins ?? {}).map(([ns, count]) => [Number(ns), count] as const);
  if (d.total_ios && !bins.length) throw new Error('fio\'s JSON result has no latency bins (run it with --output-format=json+)');
  return {
    operation, objectSizeBytes: size, status: ok ? 'ok' : 'failed', supported: true, verified: ok,
    ops: d.total_ios, ok: ok ? d.total_ios : 0, failed: ok ? 0 : Math.max(1, d.total_ios), bytes: d.io_bytes,
    durationMs: d.runtime, movesPayload: true,
    latency: d.total_ios ? {
      min: d.lat_ns.min / 1000, mean: Math.round(d.lat_ns.mean) / 1000, p50: pct('50.000000'), p95: pct('95.000000'), p99: pct('99.000000'), max: d.lat_ns.max / 1000,
    } : null,
    latencyHistogram: d.total_ios ? bucketsOfCounts(bins) : null,
    errorSample: ok ? null : `fio reported error ${r.error}`,
    rates: { throughputMibS: d.bw_bytes / MIB, opsPerS: d.iops },
  };
}

interface FioJob {
  rw: 'read' | 'write';
  directory: string;
  names: string[];
  size: number;
  blockSize: number;
  direct: boolean;
  ioengine: string;
}

/**
 * fio's arguments for one sequential pass over the files. The same for every method: files are
 * created at open (no preallocation, which Mountpoint refuses) and, when written, fsynced at close
 * so the upload is inside the measured time; writes carry crc32c verification headers that the
 * read pass checks.
 */
function fioArgs(job: FioJob, output: string): string[] {
  return [
    '--name=seq', `--directory=${job.directory}`, `--filename=${job.names.join(':')}`,
    `--filesize=${job.size}`, `--bs=${job.blockSize}`, `--rw=${job.rw}`, `--ioengine=${job.ioengine}`, '--iodepth=1',
    `--direct=${job.direct ? 1 : 0}`, '--file_service_type=sequential', '--create_on_open=1', '--fallocate=none',
    '--verify=crc32c', '--verify_state_save=0', ...(job.rw === 'write' ? ['--do_verify=0', '--fsync_on_close=1'] : []),
    '--lat_percentiles=1', '--percentile_list=50:95:99', '--output-format=json+', `--output=${output}`,
  ];
}

async function runFio(fio: string, job: FioJob, output: string, signal: AbortSignal): Promise<FioResult> {
  const args = fioArgs(job, output);
  const { code, log } = await new Promise<{ code: number | null; log: string }>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    // In the scratch folder: fio may leave state files in its working directory.
    const child = spawn(fio, args, { cwd: dirname(output), stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const keep = (c: Buffer) => { text = (text + c.toString()).slice(-4000); };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const onAbort = () => child.kill('SIGTERM');
    signal.addEventListener('abort', onAbort, { once: true });
    child.once('error', (err) => { signal.removeEventListener('abort', onAbort); reject(err); });
    child.once('close', (c) => { signal.removeEventListener('abort', onAbort); resolve({ code: c, log: text }); });
  });
  if (signal.aborted) throw signal.reason;
  if (code !== 0) {
    const lines = log.split('\n').map((l) => l.trim()).filter(Boolean);
    let line = lines.find((l) => /verify failed|error|err=/i.test(l)) ?? lines.pop();
    if (!line) {
      // fio put the job's error only into its JSON result.
      const errno = await readFile(output, 'utf8').then((t) => parseFioJson(t, job.rw).error, () => 0);
      const name = Object.entries(osConstants.errno).find(([, n]) => n === errno)?.[0];
      line = errno ? `job error ${errno}${name ? ` (${name})` : ''}` : `exit code ${code}`;
    }
    throw new Error(`fio ${job.rw} failed: ${line}`);
  }
  return parseFioJson(await readFile(output, 'utf8'), job.rw);
}

/** A batch that never ran: fio could not start or failed outright. */
function failedMeasurement(operation: 'read' | 'write', size: number, files: number, err: unknown): Measurement {
  return {
    operation, objectSizeBytes: size, status: 'failed', supported: true, verified: false, ops: files, ok: 0, failed: files,
    bytes: 0, durationMs: 0, latency: null, errorSample: errorSummary(err), movesPayload: true,
  };
}

/** One size's files in one I/O mode: where they go and the fio job that writes or reads them. */
interface FioRound {
  ctx: WorkloadContext<FioSeqParams>;
  fs: NonNullable<WorkloadContext<FioSeqParams>['fs']>;
  fio: { path: string; version: string };
  size: number;
  dirKey: string;
  names: string[];
  job(rw: 'read' | 'write'): FioJob;
}

async function oneSize(ctx: WorkloadContext<FioSeqParams>, fio: { path: string; version: string }, mode: 'direct' | 'buffered', size: number): Promise<void> {
  const fs = ctx.fs!;
  const label = formatSize(size).replace(' ', '');
  const blockSize = Math.min(size, parseSize(ctx.params.max_block_size));
  const dirKey = `${ctx.prefix}fio-${mode}-${label}/`;
  const directory = fs.pathOf(dirKey);
  const names = Array.from({ length: ctx.params.files }, (_, i) => `test_${label}_${i + 1}.dat`);
  const job = (rw: 'read' | 'write'): FioJob => ({ rw, directory, names, size, blockSize, direct: mode === 'direct', ioengine: ctx.params.ioengine });
  const params = { io: mode, direct: mode === 'direct' ? '1' : '0', ioengine: ctx.params.ioengine, bs: String(blockSize), fio: fio.version };
  const round: FioRound = { ctx, fs, fio, size, dirKey, names, job };
  await mkdir(directory, { recursive: true });

  ctx.progress(`fio ${mode} ${label}: write`);
  fs.check();
  // fio reports nothing until it exits: a budget that runs out mid-job finds none of it counted.
  const writing = openMeter('write', size, names.length, 'files');
  const write = await writeFiles(round, writing);
  if (ctx.signal.aborted) return;
  writing.end();
  ctx.record({ ...write, params: { ...params, ...write.params } });
  if (write.status !== 'ok' || ctx.signal.aborted) return;

  // A cold read starts from a fresh mount with every cache dropped.
  if (ctx.cache === 'cold') {
    ctx.progress(`fio ${mode} ${label}: remount for a cold read`);
    await fs.remount();
  }
  ctx.progress(`fio ${mode} ${label}: read`);
  const reading = openMeter('read', size, names.length, 'files');
  const read = await readFiles(round, reading);
  if (ctx.signal.aborted) return;
  reading.end();
  ctx.record({ ...read, params });
  // Free the server's memory, through the mount (deleting behind the client's back can leave it
  // believing in folders that are gone).
  await rm(directory, { recursive: true, force: true }).catch(() => {});
}

/**
 * fio's write pass. The write is done when the objects are in the bucket: for a client that
 * uploads after close, the time until they are there counts in it.
 */
async function writeFiles({ ctx, fs, fio, size, dirKey, names, job }: FioRound, meter: WorkMeter): Promise<Measurement> {
  try {
    const result = await runFio(fio.path, job('write'), join(ctx.scratchDir, 'fio-write.json'), ctx.signal);
    meter.add(names.length);
    const exited = Date.now();
    const write = fioMeasurement('write', size, result);
    const arrived = await waitForObjects(ctx.stored, dirKey, names, size, bucketSyncBoundMs(fs, 10_000));
    if (fs.uploadsAfterClose && arrived.ok) {
      write.durationMs += Date.now() - exited;
      const seconds = write.durationMs / 1000;
      write.rates = { throughputMibS: write.bytes / MIB / seconds, opsPerS: write.ok / seconds };
      write.params = { upload_timed: 'until the objects are in the bucket (the client uploads after close)' };
    }
    if (!arrived.ok) {
      write.verified = false;
      write.status = 'failed';
      write.errorSample ??= arrived.problem;
    }
    return write;
  } catch (err) {
    return failedMeasurement('write', size, names.length, err);
  }
}

/** fio's read pass, checking that every byte written came back. */
async function readFiles({ ctx, fio, size, names, job }: FioRound, meter: WorkMeter): Promise<Measurement> {
  try {
    const read = fioMeasurement('read', size, await runFio(fio.path, job('read'), join(ctx.scratchDir, 'fio-read.json'), ctx.signal));
    meter.add(names.length);
    if (read.bytes !== size * names.length) {
      read.status = 'failed';
      read.verified = false;
      read.errorSample = `fio read ${read.bytes} bytes, expected ${size * names.length}`;
    }
    return read;
  } catch (err) {
    return failedMeasurement('read', size, names.length, err);
  }
}

/**
 * Seed 000's fio runs: per size, N files written sequentially, then read back sequentially
 * (bs = file size, at most 1 MiB; libaio at queue depth 1; O_DIRECT and/or buffered). fio's JSON
 * becomes the records (IOPS, MB/s, latency from lat_ns); reads check the crc32c headers the write
 * pass put in every block. On a cold pass the mount is remounted between write and read.
 */
export const fioSeq: WorkloadDefinition<FioSeqParams> = {
  ...fioSeqDescriptor,
  async run(ctx) {
    const fio = await fioBinary();
    if ('error' in fio) throw new Error(fio.error!);
    for (const mode of ctx.params.io) {
      for (const raw of ctx.params.sizes) {
        if (ctx.signal.aborted) return;
        await oneSize(ctx, fio as { path: string; version: string }, mode, parseSize(raw));
      }
    }
  },
};
