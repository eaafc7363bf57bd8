import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze, makeDocuments, processInbox } from '../../lambda/shared/documents';
import type { DocumentResult } from '../../lambda/shared/document-benchmark';
import { FsDocumentStore } from '../../lambda/shared/fs-document-store';
import { S3DocumentStore } from '../../lambda/shared/s3-document-store';
import { cleanupAll } from '../../runner/core/cleanup';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { recordErrors } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';
import { mountS3fs, type S3fsMount } from '../helpers/s3fs';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const RESULTS = 's3ab-results';
const RUN = '20261122T101500Z-abc123';

describe('seed 001 document-processing functions, run as handlers', () => {
  let server: EmbeddedEndpoint;
  let client: S3Client;
  let s3fs: S3fsMount;
  const localRoot = mkdtempSync(join(tmpdir(), 's3ab-docs-local-'));
  const tmp = mkdtempSync(join(tmpdir(), 's3ab-docs-tmp-'));
  let before: typeof import('../../lambda/before');
  let after: typeof import('../../lambda/after');

  beforeAll(async () => {
    server = await startEmbeddedEndpoint();
    client = makeS3Client(server.target, { maxSockets: 8 });
    await client.send(new CreateBucketCommand({ Bucket: RESULTS }));
    s3fs = await mountS3fs(server.target);
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: server.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: server.target.credentials!.secretAccessKey,
      AWS_REGION: 'us-east-1', S3AB_S3_ENDPOINT: server.target.endpointUrl,
      DATA_BUCKET: server.target.bucket, DOCS_PREFIX: 'docs/', RESULTS_BUCKET: RESULTS, S3AB_TMP_DIR: tmp,
      POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
    before = await import('../../lambda/before');
    after = await import('../../lambda/after');
  }, 60_000);

  afterAll(async () => {
    await s3fs?.unmount();
    client?.destroy();
    await server?.stop();
    await cleanupAll();
    rmSync(localRoot, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  });

  async function recordsAt(key: string): Promise<ResultRecord[]> {
    const body = await (await client.send(new GetObjectCommand({ Bucket: RESULTS, Key: key }))).Body!.transformToString();
    return body.trim().split('\n').map((l) => JSON.parse(l));
  }

  async function runAfter(mountPath: string, method: string, repetition: number): Promise<DocumentResult> {
    process.env.MOUNT_PATH = mountPath;
    process.env.MOUNT_METHOD = method;
    return after.handler({ runId: RUN, repetition, documents: 12 });
  }

  let results: Record<string, DocumentResult> = {};

  test('before (S3 API) processes every document and writes one record per phase', async () => {
    const r = await before.handler({ runId: RUN, repetition: 1, documents: 12 });
    results.before = r;
    expect(r).toMatchObject({ method: 's3-api', files: 12, verified: true });
    expect(Object.keys(r.phasesMs)).toEqual(['list', 'read', 'process', 'write', 'move', 'total']);
    expect(r.resultsKey).toBe(`results/dt=2026-11-22/${RUN}--l001--s3-api--document-processing.jsonl`);
    const records = await recordsAt(r.resultsKey);
    expect(records.map((x) => x.operation)).toEqual(['list', 'read', 'process', 'write', 'move', 'total']);
    for (const rec of records) {
      expect(recordErrors(rec)).toEqual([]);
      expect(rec).toMatchObject({ status: 'ok', verified: true, workload: 'document-processing', method: 's3-api', method_variant: 'lambda', run_id: RUN });
    }
    const read = records.find((x) => x.operation === 'read')!;
    expect(read.ops).toBe(12);
    expect(read.bytes).toBeGreaterThan(12 * 500 * 4);
    expect(read.throughput_mib_s).toBeGreaterThan(0);
    // The documents are gone from the data bucket and from /tmp afterwards.
    expect((await client.send(new ListObjectsV2Command({ Bucket: server.target.bucket, Prefix: 'docs/' }))).KeyCount ?? 0).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  });

  test('after on a local directory', async () => {
    const r = await runAfter(localRoot, 'local-fs', 2);
    results.local = r;
    expect(r).toMatchObject({ method: 'local-fs', files: 12, verified: true });
    expect(readdirSync(localRoot)).toEqual([RUN]); // the run's folder is emptied...
    expect(readdirSync(join(localRoot, RUN, 'after'))).toEqual([]);
  });

  test('after on an s3fs mount of the same bucket', async () => {
    const r = await runAfter(s3fs.dir, 's3fs', 3);
    results.s3fs = r;
    expect(r).toMatchObject({ method: 's3fs', files: 12, verified: true });
    const records = await recordsAt(r.resultsKey);
    expect(records.find((x) => x.operation === 'move')).toMatchObject({ ops: 12, ok: 12, status: 'ok', cache: 'warm' });
  });

  test('the same documents give the same outputs on every store: before\'s S3 API store, after\'s on a directory and on s3fs', async () => {
    // Same seed → same documents; processing each gives the same metadata and moved documents everywhere.
    const docs = makeDocuments('same', 5);
    const outputs: Record<string, string[]> = {};
    const moved: Record<string, string[]> = {};
    const { readFile } = await import('node:fs/promises');
    for (const [name, root] of [['local', join(localRoot, 'same')], ['s3fs', join(s3fs.dir, 'same')]] as const) {
      const store = new FsDocumentStore(name, root);
      await store.seed(docs);
      const outcome = await processInbox(store, docs);
      expect(outcome.measurements.every((m) => m.verified)).toBe(true);
      outputs[name] = await Promise.all(docs.map((d) => readFile(join(root, 'processed', `${d.name}.meta.json`), 'utf8')));
      moved[name] = (await store.listProcessed()).sort();
      await store.cleanup();
    }
    const s3Store = new S3DocumentStore(client, server.target.bucket, 'same-s3/', tmp);
    await s3Store.seed(docs);
    const s3Outcome = await processInbox(s3Store, docs);
    expect(s3Outcome.measurements.every((m) => m.verified)).toBe(true);
    const object = async (key: string) => (await client.send(new GetObjectCommand({ Bucket: server.target.bucket, Key: key }))).Body!.transformToString();
    outputs.s3 = await Promise.all(docs.map((d) => object(`same-s3/processed/${d.name}.meta.json`)));
    moved.s3 = (await s3Store.listProcessed()).sort();
    expect(await s3Store.list()).toEqual([]); // the inbox is empty: every document moved
    await s3Store.cleanup();
    expect(outputs.s3fs).toEqual(outputs.local);
    expect(outputs.s3).toEqual(outputs.local);
    expect(moved.s3).toEqual(moved.local);
    expect(moved.s3fs).toEqual(moved.local);
    expect(moved.local).toHaveLength(2 * docs.length); // each document and its metadata
    expect(JSON.parse(outputs.local[0])).toEqual(analyze(docs[0].body));
    // And the three handler runs above processed the same number of documents, all verified.
    expect([results.before, results.local, results.s3fs].map((r) => [r.files, r.verified])).toEqual([[12, true], [12, true], [12, true]]);
  });

  test('a document changed behind the function\'s back makes the batch fail, and the records say so', async () => {
    const docs = makeDocuments('tamper', 3);
    const root = join(localRoot, 'tamper');
    const store = new FsDocumentStore('local-fs', root);
    await store.seed(docs);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(root, 'inbox', docs[1].name), 'not what was seeded');
    const outcome = await processInbox(store, docs);
    const read = outcome.measurements.find((m) => m.operation === 'read')!;
    expect(read).toMatchObject({ status: 'failed', verified: false });
    expect(read.errorSample).toMatch(/does not match what was seeded/);
    expect(outcome.measurements.find((m) => m.operation === 'total')!.status).toBe('failed');
    await store.cleanup();
  });

  test('a bad event is rejected with the field named', async () => {
    await expect(before.handler({ runId: 'nope', repetition: 1 })).rejects.toMatchObject({ name: 'InvalidEvent', message: expect.stringMatching(/runId/) });
    await expect(before.handler({ runId: RUN, repetition: 1, documents: 0 })).rejects.toMatchObject({ name: 'InvalidEvent', message: expect.stringMatching(/documents must be 1–1000/) });
  });
});
