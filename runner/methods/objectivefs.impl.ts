import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Availability, Options } from '../core/method';
import type { MountPlan, MountPlanContext } from './kit/mount';
import { fuseProblem } from '../core/mounts-table';
import { findBinary, once, versionOutput } from '../core/binaries';
import { objectivefsDescriptor } from './objectivefs';
import { mountMethod } from './kit/mount-session';

/** Where the vendor's package puts its client. */
const VENDOR_BINARY = '/sbin/mount.objectivefs';
/** The vendor's environment folder (`mount.objectivefs config` writes one file per variable there; a runner's setup writes the license there). */
const VENDOR_ENV_DIR = '/etc/objectivefs.env';

/** Where the license comes from here, or null: S3AB_OBJECTIVEFS_LICENSE, else the vendor's environment folder. */
export function licenseSource(env: NodeJS.ProcessEnv = process.env, envDir = env.S3AB_OBJECTIVEFS_ENV ?? VENDOR_ENV_DIR): 'variable' | 'vendor-env' | null {
  if (env.S3AB_OBJECTIVEFS_LICENSE) return 'variable';
  return existsSync(join(envDir, 'OBJECTIVEFS_LICENSE')) ? 'vendor-env' : null;
}

/** What ObjectiveFS lacks here, each with its fix: the client, a license, FUSE (empty when it has everything). */
export function missingPieces(p: { binary: string | null; license: boolean; fuse: string | null; override?: string }): string[] {
  const missing: string[] = [];
  if (!p.binary) {
    missing.push(p.override
      ? `S3AB_OBJECTIVEFS=${p.override} does not exist: point it at mount.objectivefs, or unset it`
      : 'the vendor\'s client, mount.objectivefs (ObjectiveFS is commercial and in no package registry: install the vendor\'s package from objectivefs.com, or set S3AB_OBJECTIVEFS=/path/to/mount.objectivefs)');
  }
  if (!p.license) missing.push(`a license: set S3AB_OBJECTIVEFS_LICENSE, or keep it in ${VENDOR_ENV_DIR}/OBJECTIVEFS_LICENSE (\`mount.objectivefs config\`); on AWS, deploy the stack with -c objectivefsLicenseParameter=NAME`);
  if (p.fuse) missing.push(p.fuse);
  return missing;
}

const probe = once(async (): Promise<Availability> => {
  const binary = findBinary('S3AB_OBJECTIVEFS', [VENDOR_BINARY, 'mount.objectivefs']);
  const missing = missingPieces({ binary, license: licenseSource() !== null, fuse: fuseProblem(), override: process.env.S3AB_OBJECTIVEFS });
  if (missing.length) return { available: false, reason: `ObjectiveFS needs ${missing.join('; and ')}` };
  const text = (await versionOutput(binary!, ['-v'])) ?? '';
  const m = /(\d+\.\d+(?:\.\d+)?)/.exec(text);
  if (!m) return { available: false, reason: `${binary} -v did not answer like mount.objectivefs: ${text.split('\n')[0] || 'no output'}` };
  return { available: true, version: `objectivefs ${m[1]}`, path: binary! };
});

/** An option name that is one of the vendor's environment settings (CACHESIZE, DISKCACHE_SIZE), not a `-o` option. */
const isSetting = (name: string) => /^[A-Z][A-Z0-9_]*$/.test(name);

/** `-o` options as text (true = the flag, false = left out, else name=value). */
function mountOptionText(options: Options): string {
  return Object.entries(options).filter(([k, v]) => !isSetting(k) && v !== false).map(([k, v]) => (v === true ? k : `${k}=${v}`)).join(',');
}

/**
 * The file system's name: the step's volume in the data bucket (`s3://BUCKET/VOLUME`, the bucket as
 * the vendor's file-system pool), or at a named S3-compatible endpoint its URL in front (the
 * vendor's form for other object stores).
 */
export function filesystemName(ctx: Pick<MountPlanContext, 'target' | 'volumeName'>): string {
  const { target, volumeName } = ctx;
  if (!target.endpointUrl) return `s3://${target.bucket}/${volumeName}`;
  return `${target.endpointUrl.replace(/\/+$/, '')}/${target.bucket}/${volumeName}`;
}

/**
 * One step's mount: `mount.objectivefs create` of the step's file system, then `mount.objectivefs
 * mount` in the foreground (the runner owns the process). Every secret travels in the client's
 * environment only, never its arguments or the record: the license (S3AB_OBJECTIVEFS_LICENSE as
 * OBJECTIVEFS_LICENSE, or the vendor's environment folder, which the client reads itself), the
 * passphrase (random per step: the file system goes with the step) and the keys of a named
 * endpoint (without keys, the instance's role).
 */
export function objectivefsPlan(ctx: MountPlanContext, binary: string, env: NodeJS.ProcessEnv = process.env): MountPlan {
  const { target, options } = ctx;
  const fs = filesystemName(ctx);
  const diskCache = options.DISKCACHE_SIZE !== undefined && options.DISKCACHE_SIZE !== false;
  const cacheDir = join(ctx.diskDir, 'cache');
  const clientEnv: Record<string, string | undefined> = {
    OBJECTIVEFS_PASSPHRASE: randomBytes(24).toString('base64url'),
    OBJECTIVEFS_LICENSE: env.S3AB_OBJECTIVEFS_LICENSE || undefined,
    AWS_ACCESS_KEY_ID: target.credentials?.accessKeyId, AWS_SECRET_ACCESS_KEY: target.credentials?.secretAccessKey,
    AWS_DEFAULT_REGION: target.region,
    // Its disk cache is the step's: none unless the variant sets one.
    DISKCACHE_SIZE: undefined, DISKCACHE_PATH: diskCache ? cacheDir : undefined, CACHESIZE: undefined,
  };
  for (const [name, value] of Object.entries(options)) if (isSetting(name) && value !== false) clientEnv[name] = String(value);
  const optionText = mountOptionText(options);
  const mountArgs = ['mount', ...(optionText ? ['-o', optionText] : []), fs, ctx.mountPoint];
  const license = licenseSource(env) === 'variable' ? 'S3AB_OBJECTIVEFS_LICENSE, in the client\'s environment only' : `the vendor's ${VENDOR_ENV_DIR}/OBJECTIVEFS_LICENSE, read by the client`;
  return {
    prepare: [{ what: `mount.objectivefs create (file system ${ctx.volumeName})`, command: binary, args: ['create', fs], env: clientEnv }],
    command: binary,
    args: mountArgs,
    env: clientEnv,
    lifecycle: 'foreground',
    // Its memory cache goes with the process; a disk cache is emptied before each cold mount.
    cacheDirs: diskCache ? [cacheDir] : [],
    // Its files are not objects: there is no object per file to wait for after close().
    uploadsAfterClose: false,
    recorded: {
      ...options,
      create: 'mount.objectivefs create FILESYSTEM',
      mount: `mount.objectivefs mount${optionText ? ` -o ${optionText}` : ''} FILESYSTEM MOUNTPOINT`,
      filesystem: `${target.endpointUrl ? 'ENDPOINT/' : 's3://'}BUCKET/${ctx.volumeName} (a fresh file system per step)`,
      memory_cache: options.CACHESIZE === undefined ? 'the vendor\'s default size (CACHESIZE unset)' : String(options.CACHESIZE),
      disk_cache: diskCache ? 'local disk folder (the step\'s scratch folder), emptied before each cold mount' : 'none (DISKCACHE_SIZE unset)',
      passphrase: 'random per step (in the client\'s environment only)',
      license,
    },
  };
}

async function plan(ctx: MountPlanContext): Promise<MountPlan> {
  return objectivefsPlan(ctx, (await probe()).path!);
}

export const objectivefs = mountMethod(objectivefsDescriptor, { probe, plan });
