import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findBinary, toolsBin } from '../../runner/core/binaries';
import type { MountPlanContext } from '../../runner/methods/kit/mount';
import { stepVolumeName } from '../../runner/core/vocabulary';
import { countRequests, parseAccessLogLine, RUNNER_USER_AGENT, type AccessLogEntry } from '../../runner/endpoint/access-log';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { ReferenceStore } from '../../runner/endpoint/reference';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { methodOfUserAgent } from '../../runner/methods/catalog';
import { ServerProcess } from '../../runner/methods/kit/mount-server';
import { zerofsDescriptor } from '../../runner/methods/zerofs';
import { zerofsServer } from '../../runner/methods/zerofs.impl';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const run = promisify(execFile);
const binary = findBinary('S3AB_ZEROFS', [toolsBin('zerofs'), 'zerofs']);
const nfsCp = findBinary('S3AB_NFS_CP', ['nfs-cp']);
const skipped = !binary
  ? 'zerofs is not installed (`npm run setup -- zerofs`)'
  : !nfsCp ? 'libnfs-utils is not installed (`npm run setup -- libnfs-utils`)' : null;

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * ZeroFS's server driven at the protocol level over loopback, on a host whose kernel has no NFS
 * client: libnfs-utils' user-space client writes and reads through its NFSv3 server, started
 * from the method's own configuration against the embedded versitygw.
 */
(skipped ? describe.skip : describe)(`ZeroFS's NFS server over loopback${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-zerofs-'));
  const volumeName = stepVolumeName('20261128T031500Z-0fa0fa', null, 1);
  let endpoint: EmbeddedEndpoint;
  let client: S3Client;
  let ctx: MountPlanContext;
  let plan: Awaited<ReturnType<typeof zerofsServer>>;
  let logFrom = 0;
  const servers: ServerProcess[] = [];
  const exits: string[] = [];

  const nfsUrl = (path: string) => `nfs://127.0.0.1//${path}?version=3&nfsport=${plan.port}&mountport=${plan.port}`;
  const keys = async () => ((await client.send(new ListObjectsV2Command({ Bucket: endpoint.target.bucket }))).Contents ?? []).map((o) => o.Key!);
  const start = async () => {
    const server = await ServerProcess.start(plan.server, (why) => exits.push(why));
    servers.push(server);
    return server;
  };
  const logEntries = (): AccessLogEntry[] => {
    const text = readFileSync(endpoint.accessLog).subarray(logFrom).toString('utf8');
    return text.split('\n').map(parseAccessLogLine).filter((e): e is AccessLogEntry => !!e);
  };

  beforeAll(async () => {
    endpoint = await startEmbeddedEndpoint();
    client = makeS3Client(endpoint.target, { maxSockets: 2, userAgent: RUNNER_USER_AGENT });
    const workDir = mkdtempSync(join(dir, 'work-'));
    const diskDir = mkdtempSync(join(dir, 'disk-'));
    ctx = { target: endpoint.target, options: { ...zerofsDescriptor.variants.default }, mountPoint: join(dir, 'unused-mount-point'), workDir, diskDir, volumeName };
    plan = await zerofsServer(ctx, binary!);
    mkdirSync(plan.cacheDir, { recursive: true });
    logFrom = statSync(endpoint.accessLog).size;
  }, 60_000);
  afterAll(async () => {
    for (const s of servers) await s.stop();
    client?.destroy();
    await endpoint?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  test('its configuration holds no secret, and its command line none either', () => {
    const config = readFileSync(plan.configPath, 'utf8');
    expect(config).toContain(`url = "s3://${endpoint.target.bucket}/${volumeName}"`);
    expect(config).toContain('encryption_password = "${ZEROFS_PASSWORD}"');
    expect(config).toContain(`dir = "${join(ctx.diskDir, 'cache')}"`);
    const secrets = [plan.server.env!.ZEROFS_PASSWORD!, endpoint.target.credentials!.secretAccessKey];
    for (const secret of secrets) {
      expect(config).not.toContain(secret);
      expect(plan.server.args.join(' ')).not.toContain(secret);
    }
    expect(plan.server.args).toEqual(['run', '--config', plan.configPath]);
  });

  test('a file written over NFS reads back byte-exact after a server restart on the same bucket', async () => {
    const source = join(dir, 'source.bin');
    writeFileSync(source, randomBytes(3 * 1024 * 1024 + 17));
    const first = await start();
    await run(nfsCp!, [source, nfsUrl('written.bin')], { timeout: 60_000 });
    // SIGTERM: ZeroFS flushes and closes its database before it exits.
    await first.stop();
    const stored = await keys();
    expect(stored.length).toBeGreaterThan(0);
    // Its objects are its LSM tree under the step's volume name, not the file.
    for (const key of stored) expect(key.startsWith(`${volumeName}/`)).toBe(true);
    expect(stored).not.toContain(`${volumeName}/written.bin`);

    // A cold start, as the mount session makes one: the server's cache emptied.
    rmSync(join(ctx.diskDir, 'cache'), { recursive: true, force: true });
    mkdirSync(join(ctx.diskDir, 'cache'));
    const second = await start();
    const back = join(dir, 'back.bin');
    await run(nfsCp!, [nfsUrl('written.bin'), back], { timeout: 60_000 });
    expect(statSync(back).size).toBe(statSync(source).size);
    expect(sha256(back)).toBe(sha256(source));
    await second.stop();
    expect(exits).toEqual([]);
  }, 240_000);

  test('its requests are counted like every method\'s: by the server\'s access log, attributed to zerofs by its User-Agent', () => {
    const entries = logEntries().filter((e) => !e.userAgent.includes(RUNNER_USER_AGENT));
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) expect([e.userAgent, methodOfUserAgent(e.userAgent)?.name]).toEqual([e.userAgent, 'zerofs']);
    const counts = countRequests(entries);
    expect(counts.put + counts.mpu_part).toBeGreaterThan(0);
    expect(counts.get + counts.get_ranged).toBeGreaterThan(0);
  });

  test('cleanup as a step does it removes everything it wrote: nothing is left in the bucket', async () => {
    const reference = new ReferenceStore(client, endpoint.target.bucket);
    expect(await reference.deletePrefix(`${volumeName}/`)).toBeGreaterThan(0);
    expect(await keys()).toEqual([]);
  }, 60_000);
});
