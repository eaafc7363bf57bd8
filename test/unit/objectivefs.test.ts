import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { objectivefsDeploy, objectivefsJob } from '../../lib/objectivefs-deploy';
import type { MountPlanContext } from '../../runner/methods/kit/mount';
import type { StoreTarget } from '../../runner/core/target';
import { objectivefsDescriptor } from '../../runner/methods/objectivefs';
import { filesystemName, licenseSource, missingPieces, objectivefsPlan } from '../../runner/methods/objectivefs.impl';

const LICENSE = 'OFS-LICENSE-0123456789abcdef';
const SECRET_KEY = 'embedded-secret-key-xyz';
const embedded: StoreTarget = {
  kind: 'embedded', endpointUrl: 'http://127.0.0.1:7070', region: 'us-east-1', bucket: 'data',
  credentials: { accessKeyId: 'embedded-access', secretAccessKey: SECRET_KEY }, forcePathStyle: true, server: 'versitygw',
};
const aws: StoreTarget = { kind: 'aws', region: 'us-east-1', bucket: 'bench-data', forcePathStyle: false, server: null };
const ctx = (target: StoreTarget, variant: keyof typeof objectivefsDescriptor.variants): MountPlanContext => ({
  target, options: { ...objectivefsDescriptor.variants[variant] }, mountPoint: '/mnt/step', workDir: '/ram/work', diskDir: '/scratch/disk', volumeName: 's3ab-RUN-s001',
});

describe('objectivefs: the mount command line', () => {
  test('default (as seed 004 ran it): create then mount in the foreground, multithreaded, the vendor\'s memory cache and no disk cache', () => {
    const plan = objectivefsPlan(ctx(aws, 'default'), '/sbin/mount.objectivefs', {});
    expect(plan.prepare).toEqual([expect.objectContaining({ command: '/sbin/mount.objectivefs', args: ['create', 's3://bench-data/s3ab-RUN-s001'] })]);
    expect([plan.command, ...plan.args]).toEqual(['/sbin/mount.objectivefs', 'mount', '-o', 'mt', 's3://bench-data/s3ab-RUN-s001', '/mnt/step']);
    expect(plan.lifecycle).toBe('foreground');
    expect(plan.cacheDirs).toEqual([]);
    // Its settings from the caller's environment never leak in: no disk cache, the vendor's memory cache size.
    expect(plan.env).toMatchObject({ DISKCACHE_SIZE: undefined, DISKCACHE_PATH: undefined, CACHESIZE: undefined, AWS_DEFAULT_REGION: 'us-east-1' });
    // On AWS no keys: the instance's role.
    expect(plan.env).toMatchObject({ AWS_ACCESS_KEY_ID: undefined, AWS_SECRET_ACCESS_KEY: undefined });
    expect(plan.recorded).toMatchObject({ mt: true, mount: 'mount.objectivefs mount -o mt FILESYSTEM MOUNTPOINT', disk_cache: 'none (DISKCACHE_SIZE unset)' });
  });

  test('disk-cache: the vendor\'s disk cache on the step\'s disk, emptied before each cold mount; its settings go to the environment, not -o', () => {
    const plan = objectivefsPlan(ctx(aws, 'disk-cache'), '/sbin/mount.objectivefs', {});
    expect(plan.args).toEqual(['mount', '-o', 'mt', 's3://bench-data/s3ab-RUN-s001', '/mnt/step']);
    expect(plan.env).toMatchObject({ DISKCACHE_SIZE: '10G', DISKCACHE_PATH: '/scratch/disk/cache' });
    expect(plan.cacheDirs).toEqual(['/scratch/disk/cache']);
  });

  test('a named endpoint: its URL in front of bucket and volume', () => {
    expect(filesystemName({ target: embedded, volumeName: 'v' })).toBe('http://127.0.0.1:7070/data/v');
    expect(filesystemName({ target: { ...embedded, endpointUrl: 'https://s3.example.net/' }, volumeName: 'v' })).toBe('https://s3.example.net/data/v');
  });
});

describe('objectivefs: secrets travel in the client\'s environment only', () => {
  test('license, passphrase and keys are never in the arguments or the record', () => {
    const plan = objectivefsPlan(ctx(embedded, 'disk-cache'), '/opt/ofs/mount.objectivefs', { S3AB_OBJECTIVEFS_LICENSE: LICENSE });
    const passphrase = plan.env!.OBJECTIVEFS_PASSPHRASE!;
    expect(passphrase).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(plan.env).toMatchObject({ OBJECTIVEFS_LICENSE: LICENSE, AWS_ACCESS_KEY_ID: 'embedded-access', AWS_SECRET_ACCESS_KEY: SECRET_KEY });
    expect(plan.prepare![0].env).toBe(plan.env);
    const visible = JSON.stringify([plan.args, plan.prepare![0].args, plan.recorded]);
    for (const secret of [LICENSE, passphrase, SECRET_KEY]) expect(visible).not.toContain(secret);
    expect(plan.recorded).toMatchObject({ passphrase: 'random per step (in the client\'s environment only)', license: 'S3AB_OBJECTIVEFS_LICENSE, in the client\'s environment only' });
    // A new passphrase per step: the file system goes with it.
    expect(objectivefsPlan(ctx(embedded, 'default'), '/x', {}).env!.OBJECTIVEFS_PASSPHRASE).not.toBe(passphrase);
  });

  test('without the variable, the license is the vendor\'s environment folder\'s, read by the client itself', () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-ofs-env-'));
    try {
      expect(licenseSource({}, dir)).toBeNull();
      writeFileSync(join(dir, 'OBJECTIVEFS_LICENSE'), LICENSE, { mode: 0o600 });
      expect(licenseSource({}, dir)).toBe('vendor-env');
      expect(licenseSource({ S3AB_OBJECTIVEFS_LICENSE: LICENSE }, dir)).toBe('variable');
      const plan = objectivefsPlan(ctx(aws, 'default'), '/sbin/mount.objectivefs', { S3AB_OBJECTIVEFS_ENV: dir });
      expect(plan.env!.OBJECTIVEFS_LICENSE).toBeUndefined();
      expect(plan.recorded.license).toBe('the vendor\'s /etc/objectivefs.env/OBJECTIVEFS_LICENSE, read by the client');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('objectivefs: `s3ab list` says what is missing', () => {
  test('the client, the license and FUSE, each with its fix', () => {
    expect(missingPieces({ binary: '/sbin/mount.objectivefs', license: true, fuse: null })).toEqual([]);
    const all = missingPieces({ binary: null, license: false, fuse: 'there is no /dev/fuse on this host' });
    expect(all).toEqual([
      expect.stringContaining('install the vendor\'s package from objectivefs.com, or set S3AB_OBJECTIVEFS='),
      expect.stringContaining('set S3AB_OBJECTIVEFS_LICENSE'),
      'there is no /dev/fuse on this host',
    ]);
    expect(all[1]).toContain('-c objectivefsLicenseParameter=NAME');
    expect(missingPieces({ binary: null, license: true, fuse: null, override: '/nope' })).toEqual(['S3AB_OBJECTIVEFS=/nope does not exist: point it at mount.objectivefs, or unset it']);
  });
});

describe('objectivefs on runners: the deploy-time values', () => {
  const sum = 'a'.repeat(64);
  test('neither: not enabled; both: parsed; one without the other, or a malformed one, is refused naming each problem', () => {
    expect(objectivefsDeploy(undefined, undefined)).toBeUndefined();
    expect(objectivefsDeploy('/s3ab/objectivefs-license', `x86_64=${sum}, aarch64=${'b'.repeat(64)}`)).toEqual({
      licenseParameter: '/s3ab/objectivefs-license', sha256: { x86_64: sum, aarch64: 'b'.repeat(64) },
    });
    expect(() => objectivefsDeploy('/s3ab/ofs', undefined)).toThrow(/objectivefsRpmSha256 is missing/);
    expect(() => objectivefsDeploy(undefined, `aarch64=${sum}`)).toThrow(/objectivefsLicenseParameter must name an SSM SecureString parameter/);
    expect(() => objectivefsDeploy('name; reboot', `arm=${sum}`)).toThrow(/2 problems[\s\S]*objectivefsLicenseParameter[\s\S]*"arm=a+" is not ARCH=HEX/);
  });

  test('the setup job: the pinned package checked against the given SHA-256 before it is installed, the license by name into the vendor\'s folder, never printed', () => {
    const url = 'https://objectivefs.com/user/download/an7dzrz65/objectivefs-7.2-1.$UARCH.rpm';
    const lines = objectivefsJob(url, objectivefsDeploy('/s3ab/objectivefs-license', `aarch64=${sum}`));
    const at = (needle: string) => lines.findIndex((l) => l.includes(needle));
    expect(lines).toContain(`case "$UARCH" in x86_64) SUM="";; aarch64) SUM=${sum};; *) SUM="";; esac`);
    expect(at(`curl -fsSL --proto '=https' -o "$RPM" "${url}"`)).toBeGreaterThan(0);
    expect(at('sha256sum -c --status')).toBeGreaterThan(at('curl '));
    expect(at('dnf install -y -q "$RPM"')).toBeGreaterThan(at('sha256sum -c --status'));
    const license = lines[at('aws ssm get-parameter')];
    expect(license).toBe('( umask 077; aws ssm get-parameter --name \'/s3ab/objectivefs-license\' --with-decryption --query Parameter.Value --output text > /etc/objectivefs.env/OBJECTIVEFS_LICENSE )');
    // Without deploy values: nothing is installed, and the log says why.
    expect(objectivefsJob(url, undefined)).toEqual([expect.stringContaining('deployed without an ObjectiveFS license')]);
  });
});
