import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { curlProbe, linkLimitFor, measureLinkLimit, sdkProbe, type PathProbe } from '../../runner/endpoint/link-limit';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { which } from '../../runner/core/paths';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/**
 * The link estimate is a probe of the path itself, not one contestant: curl (native, no contestant)
 * reads a known object in parallel ranges into nothing beside the runner's own client, and the
 * estimate names the probe that read fastest.
 */
describe('the link estimate probes the path', () => {
  let server: EmbeddedEndpoint;
  beforeAll(async () => { server = await startEmbeddedEndpoint(); }, 60_000);
  afterAll(async () => server?.stop());
  const haveCurl = which('curl').length > 0;

  (haveCurl ? test : test.skip)('curl reads every byte of each range with SigV4 (credentials through stdin)', async () => {
    const client = makeS3Client(server.target, { maxSockets: 16 });
    const probe = curlProbe(server.target)!;
    expect(probe.name).toMatch(/^curl \d/);
    // measureLinkLimit puts the object, reads it with the probe and removes it; a short read is no rate.
    const limit = await measureLinkLimit(client, server.target.bucket, 'probe/object', 8 * 1024 * 1024, undefined, [probe]);
    expect(limit.mibPerSecond).toBeGreaterThan(0);
    expect(limit.source).toContain(`read by ${probe.name}`);
    client.destroy();
  }, 60_000);

  test('the estimate comes from the fastest probe and names it, with the others\' rates; a probe that fails is named with its problem', async () => {
    const client = makeS3Client(server.target, { maxSockets: 16 });
    const broken: PathProbe = { name: 'a broken reader', read: async () => { throw new Error('no route'); } };
    const limit = await measureLinkLimit(client, server.target.bucket, 'probe/object2', 8 * 1024 * 1024, undefined, [broken, sdkProbe(client, server.target.bucket)]);
    expect(limit.source).toMatch(/read by the runner's AWS SDK for JavaScript client .*; a broken reader: not read \(no route\)/);
    await expect(measureLinkLimit(client, server.target.bucket, 'probe/object3', 1024, undefined, [broken])).rejects.toThrow(/no probe read the path: a broken reader: no route/);
    client.destroy();
  }, 60_000);

  (haveCurl ? test : test.skip)('a local run\'s estimate is probed with curl and the runner\'s client both', async () => {
    const saved = process.env.S3AB_LINK_LIMIT_MIBS;
    delete process.env.S3AB_LINK_LIMIT_MIBS;
    const client = makeS3Client(server.target, { maxSockets: 16 });
    try {
      const limit = await linkLimitFor(client, server.target, 'probe/local', 'local');
      expect(limit.source).toMatch(/curl \d/);
      expect(limit.source).toMatch(/the runner's AWS SDK for JavaScript client/);
    } finally {
      if (saved !== undefined) process.env.S3AB_LINK_LIMIT_MIBS = saved;
      client.destroy();
    }
  }, 60_000);
});
