import { PutObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { s3ab } from '../helpers/cli';

/** `s3ab clean --run ID` removes what a run left at a named endpoint, and nothing else. */
describe('s3ab clean', () => {
  let server: EmbeddedEndpoint;
  beforeAll(async () => { server = await startEmbeddedEndpoint(); });
  afterAll(async () => { await server.stop(); });

  test('removes the run\'s prefix only', async () => {
    const client = makeS3Client(server.target, { maxSockets: 4 });
    const bucket = server.target.bucket;
    const keys = ['s3ab/20261122T101500Z-ab12cd/steps/001/a', 's3ab/20261122T101500Z-ab12cd/fixtures/x/b', 's3ab/20261122T101500Z-ffffff/keep', 'other/keep',
      // A JuiceFS step volume of the run, and one of another run.
      's3ab-20261122t101500z-ab12cd-3/chunks/0/0/1_0_4096', 's3ab-20261122t101500z-ffffff-3/juicefs_uuid'];
    for (const Key of keys) await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: 'x' }));
    const env = { AWS_ACCESS_KEY_ID: server.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: server.target.credentials!.secretAccessKey };
    const r = await s3ab(['clean', '--run', '20261122T101500Z-ab12cd', '--endpoint', server.target.endpointUrl!, '--bucket', bucket], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/removed 2 objects under s3ab\/20261122T101500Z-ab12cd\//);
    expect(r.stdout).toMatch(/removed 1 object under s3ab-20261122t101500z-ab12cd-/);
    const left = (await client.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents!.map((o) => o.Key).sort();
    expect(left).toEqual(['other/keep', 's3ab-20261122t101500z-ffffff-3/juicefs_uuid', 's3ab/20261122T101500Z-ffffff/keep']);
    const bad = await s3ab(['clean', '--run', 'nope', '--bucket', bucket], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--run "nope" is not a run id/);
    client.destroy();
  });
});
