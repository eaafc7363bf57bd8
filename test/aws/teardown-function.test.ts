import { TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import {
  CreateBucketCommand, DeleteObjectCommand, ListObjectVersionsCommand, PutBucketVersioningCommand, PutObjectCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { cleanupAll } from '../../runner/core/cleanup';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { RUNNER_TAG } from '../../lib/runner-tags';
import { fakeEc2, terminatedIds, type FakeInstance } from '../helpers/ec2';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const DATA = 's3ab-data';
const RUN = '20261122T101500Z-abc123';
const OTHER = '20261122T090000Z-def456';

/** Every version and delete marker in the bucket as "key@version" (sorted), under a prefix. */
async function versions(s3: S3Client, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  let KeyMarker: string | undefined;
  let VersionIdMarker: string | undefined;
  for (;;) {
    const page = await s3.send(new ListObjectVersionsCommand({ Bucket: DATA, Prefix: prefix, KeyMarker, VersionIdMarker }));
    out.push(...(page.Versions ?? []).map((v) => `${v.Key}@${v.VersionId}`), ...(page.DeleteMarkers ?? []).map((m) => `${m.Key}@${m.VersionId} (delete marker)`));
    if (!page.IsTruncated) return out.sort();
    KeyMarker = page.NextKeyMarker;
    VersionIdMarker = page.NextVersionIdMarker;
  }
}

describe('Teardown: the run\'s runners terminated, every version of its data deleted, nothing else touched', () => {
  let server: EmbeddedEndpoint;
  let s3: S3Client;
  let teardown: typeof import('../../lambda/teardown');

  beforeAll(async () => {
    server = await startEmbeddedEndpoint();
    s3 = makeS3Client(server.target, { maxSockets: 4 });
    await s3.send(new CreateBucketCommand({ Bucket: DATA }));
    // The data bucket is versioned (S3 Files requires it), as versitygw's versioning directory allows.
    await s3.send(new PutBucketVersioningCommand({ Bucket: DATA, VersioningConfiguration: { Status: 'Enabled' } }));
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: server.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: server.target.credentials!.secretAccessKey,
      AWS_REGION: 'us-east-1', S3AB_S3_ENDPOINT: server.target.endpointUrl,
      STACK_NAME: 'S3AccessBench', DATA_BUCKET: DATA, ACCESS_POINT_PREFIX: 'lambda/', POWERTOOLS_LOG_LEVEL: 'SILENT',
    });
    teardown = await import('../../lambda/teardown');
  }, 60_000);

  afterAll(async () => {
    s3?.destroy();
    await server?.stop();
    await cleanupAll();
  });

  const put = (Key: string, body: string) => s3.send(new PutObjectCommand({ Bucket: DATA, Key, Body: body }));

  /** A run's data as the runners and functions leave it: overwritten objects (old versions), deleted ones (delete markers). */
  async function writeRunData(run: string): Promise<void> {
    for (const key of [`s3ab/${run}/i-aaa/objects/1KiB-0000`, `docs/${run}/before/r001/doc-0001.txt`, `lambda/${run}/after/r001/doc-0001.txt`]) {
      await put(key, 'v1');
      await put(key, 'v2');
    }
    await put(`s3ab/${run}/fixture/dir-walk/0001`, 'gone');
    await s3.send(new DeleteObjectCommand({ Bucket: DATA, Key: `s3ab/${run}/fixture/dir-walk/0001` }));
    for (let i = 0; i < 7; i++) await put(`s3ab/${run}/fixture/small/${i}`, String(i));
    // A JuiceFS step volume: a name, not a prefix (lower case, no slash).
    await put(`s3ab-${run.toLowerCase()}-4/chunks/0/0/1_0_4096`, 'chunk');
  }

  const instance = (id: string, run: string, state: FakeInstance['state'] = 'running', stack = 'S3AccessBench'): FakeInstance => ({
    id, state, launchTime: new Date(), tags: { [RUNNER_TAG.stack]: stack, [RUNNER_TAG.runId]: run },
  });

  test('runners of this run and stack go; its data under s3ab/, docs/ and the access point\'s prefix goes, all versions', async () => {
    await writeRunData(RUN);
    await writeRunData(OTHER);
    await put(`s3ab/${RUN}.txt`, 'a key that only starts like the run\'s prefix');
    await put('keep/me', 'v1');
    await put('keep/me', 'v2');
    const isOurs = (v: string) => v.includes(`/${RUN}/`) || v.startsWith(`s3ab-${RUN.toLowerCase()}-`);
    const ours = (await versions(s3)).filter(isOurs);
    expect(ours.length).toBe(3 * 2 + 2 + 7 + 1); // two versions each, a version and its delete marker, seven objects, a volume's chunk
    expect(ours.filter((v) => v.endsWith('(delete marker)'))).toHaveLength(1);
    const others = (await versions(s3)).filter((v) => !isOurs(v));

    const instances = [
      instance('i-run-1', RUN), instance('i-run-2', RUN, 'pending'), instance('i-run-3', RUN, 'stopped'), instance('i-run-gone', RUN, 'terminated'),
      instance('i-other-run', OTHER), instance('i-other-stack', RUN, 'running', 'AnotherStack'),
    ];
    const ec2 = fakeEc2(instances, { pageSize: 2 });
    const out = await teardown.handler({ runId: RUN });
    expect(out.terminated.sort()).toEqual(['i-run-1', 'i-run-2', 'i-run-3']);
    expect(terminatedIds(ec2).sort()).toEqual(['i-run-1', 'i-run-2', 'i-run-3']);
    expect(instances.map((i) => `${i.id} ${i.state}`)).toEqual([
      'i-run-1 shutting-down', 'i-run-2 shutting-down', 'i-run-3 shutting-down', 'i-run-gone terminated', 'i-other-run running', 'i-other-stack running',
    ]);
    expect(out.prefixes).toEqual([`s3ab/${RUN}/`, `s3ab-${RUN.toLowerCase()}-`, `docs/${RUN}/`, `lambda/${RUN}/`]);
    expect(out.deletedVersions).toBe(ours.length);
    expect(out.done).toBe(true);
    for (const p of out.prefixes) expect(await versions(s3, p)).toEqual([]);
    // Everything else keeps every version it had.
    expect(await versions(s3)).toEqual(others);
    expect(others.filter((v) => v.startsWith('keep/me@'))).toHaveLength(2);
    expect(others.filter((v) => v.includes(`/${OTHER}/`) || v.startsWith(`s3ab-${OTHER.toLowerCase()}-`))).toHaveLength(ours.length);
  });

  test('deleteAllVersions lists page after page (key and version markers), deletes each version once, then lists from the start to confirm nothing is left', async () => {
    await writeRunData(RUN);
    const before = await versions(s3, `s3ab/${RUN}/`);
    expect(before.length).toBe(2 + 2 + 7);
    const lists: (string | undefined)[] = [];
    const deleted: string[][] = [];
    const counting = { send: (c: { constructor: { name: string }; input: any }, o: unknown) => {
      if (c.constructor.name === 'ListObjectVersionsCommand') lists.push(c.input.KeyMarker);
      if (c.constructor.name === 'DeleteObjectsCommand') deleted.push(c.input.Delete.Objects.map((x: any) => `${x.Key}@${x.VersionId}`));
      return s3.send(c as never, o as never);
    } } as unknown as S3Client;
    expect(await teardown.deleteAllVersions(counting, DATA, `s3ab/${RUN}/`, { pageSize: 3 })).toEqual({ deleted: before.length, empty: true });
    // 11 versions, 3 a page: each request at most a page; every version deleted exactly once (versitygw
    // repeats a page's marker entry, which is skipped); the first list of a pass has no marker, the next
    // ones do, and the last pass is a list from the start that finds nothing.
    expect(deleted.every((d) => d.length >= 1 && d.length <= 3)).toBe(true);
    expect(deleted.flat().sort()).toEqual(before.map((v) => v.replace(' (delete marker)', '')).sort());
    expect(lists[0]).toBeUndefined();
    expect(lists[1]).toBeDefined();
    expect(lists[lists.length - 1]).toBeUndefined();
    expect(await versions(s3, `s3ab/${RUN}/`)).toEqual([]);
    expect((await versions(s3, `docs/${RUN}/`)).length).toBe(2);
    await teardown.deleteAllVersions(s3, DATA, `docs/${RUN}/`);
    await teardown.deleteAllVersions(s3, DATA, `lambda/${RUN}/`);
  });

  test('EC2 refusing to terminate does not stop the data deletion; the error names what is left', async () => {
    await writeRunData(RUN);
    const ec2 = fakeEc2([instance('i-run-1', RUN)]);
    ec2.on(TerminateInstancesCommand).rejects(Object.assign(new Error('You are not authorized to perform this operation.'), { name: 'UnauthorizedOperation' }));
    const err = await teardown.handler({ runId: RUN }).catch((e) => e);
    expect(err.name).toBe('TeardownIncomplete');
    expect(err.message).toBe(`runners of run ${RUN} not terminated (UnauthorizedOperation: You are not authorized to perform this operation.); the janitor terminates them after their maximum lifetime`);
    for (const p of [`s3ab/${RUN}/`, `docs/${RUN}/`, `lambda/${RUN}/`]) expect(await versions(s3, p)).toEqual([]);
  });

  test('no run id (ValidateInput failed): nothing to do; a malformed one is refused before anything is touched', async () => {
    const ec2 = fakeEc2([instance('i-run-1', RUN)]);
    expect(await teardown.handler({})).toEqual({ done: true, terminated: [], deletedVersions: 0, prefixes: [], left: '' });
    await expect(teardown.handler({ runId: 's3ab/' })).rejects.toMatchObject({ name: 'InvalidEvent', message: 'runId "s3ab/" is not a run id' });
    expect(ec2.calls()).toHaveLength(0);
    expect((await versions(s3, 'keep/')).length).toBe(2);
  });
});
