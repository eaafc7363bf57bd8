import { TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { GetExecutionHistoryCommand, SFNClient } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import {
  CreateBucketCommand, DeleteObjectCommand, ListObjectsV2Command, ListObjectVersionsCommand, PutBucketVersioningCommand, PutObjectCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { readFileSync, statSync } from 'node:fs';
import { cleanupAll } from '../../runner/core/cleanup';
import { parseAccessLogLine } from '../../runner/endpoint/access-log';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { RUNNER_TAG } from '../../lib/runner-tags';
import { fakeEc2, terminatedIds, type FakeInstance } from '../helpers/ec2';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const DATA = 's3ab-data';
const RESULTS = 's3ab-results';
const RUN = '20261122T101500Z-abc123';
const OTHER = '20261122T090000Z-def456';

/** Every version and delete marker in the bucket as "key@version" (sorted, each once), under a prefix. */
async function versions(s3: S3Client, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  let KeyMarker: string | undefined;
  let VersionIdMarker: string | undefined;
  for (;;) {
    const page = await s3.send(new ListObjectVersionsCommand({ Bucket: DATA, Prefix: prefix, KeyMarker, VersionIdMarker }));
    out.push(...(page.Versions ?? []).map((v) => `${v.Key}@${v.VersionId}`), ...(page.DeleteMarkers ?? []).map((m) => `${m.Key}@${m.VersionId} (delete marker)`));
    // versitygw repeats a page's marker entry at the start of the next page: each version once.
    if (!page.IsTruncated) return [...new Set(out)].sort();
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
    await s3.send(new CreateBucketCommand({ Bucket: RESULTS }));
    // The data bucket is versioned (S3 Files requires it), as versitygw's versioning directory allows.
    await s3.send(new PutBucketVersioningCommand({ Bucket: DATA, VersioningConfiguration: { Status: 'Enabled' } }));
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: server.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: server.target.credentials!.secretAccessKey,
      AWS_REGION: 'us-east-1', S3AB_S3_ENDPOINT: server.target.endpointUrl,
      STACK_NAME: 'S3AccessBench', DATA_BUCKET: DATA, RESULTS_BUCKET: RESULTS, ACCESS_POINT_PREFIX: 'lambda/', POWERTOOLS_LOG_LEVEL: 'SILENT',
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
    // A fleet's barrier markers its failed runners left in the results bucket (not versioned), and another run's.
    const marker = (run: string, round: string, client: number) => s3.send(new PutObjectCommand({ Bucket: RESULTS, Key: `fleet-barrier/${run}/${round}/${client}`, Body: '', ContentLength: 0 }));
    for (const run of [RUN, OTHER]) for (const client of [1, 2, 3]) await marker(run, 'step4-cold', client);
    await s3.send(new PutObjectCommand({ Bucket: RESULTS, Key: `results/dt=2026-11-22/${RUN}--i-aaa--0001.jsonl`, Body: '{}' }));
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
    // Called as Lambda calls it: the event and the invocation's context (25 s left, the function's timeout).
    const out = await teardown.handler({ runId: RUN }, { getRemainingTimeInMillis: () => 25_000 });
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
    // Of the results bucket, only this run's barrier markers went.
    const results = (await s3.send(new ListObjectsV2Command({ Bucket: RESULTS }))).Contents!.map((o) => o.Key).sort();
    expect(results).toEqual([`fleet-barrier/${OTHER}/step4-cold/1`, `fleet-barrier/${OTHER}/step4-cold/2`, `fleet-barrier/${OTHER}/step4-cold/3`, `results/dt=2026-11-22/${RUN}--i-aaa--0001.jsonl`]);
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

  /** `keys` objects under `prefix`, each written twice and then deleted: two versions and a delete marker each. */
  async function writeManyVersions(prefix: string, keys: number): Promise<number> {
    const writer = makeS3Client(server.target, { maxSockets: 16 });
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      for (let i = next++; i < keys; i = next++) {
        const Key = `${prefix}many/${String(i).padStart(5, '0')}`;
        await writer.send(new PutObjectCommand({ Bucket: DATA, Key, Body: 'v1' }));
        await writer.send(new PutObjectCommand({ Bucket: DATA, Key, Body: 'v2' }));
        await writer.send(new DeleteObjectCommand({ Bucket: DATA, Key }));
      }
    }));
    writer.destroy();
    return keys * 3;
  }

  /**
   * A client of the same server that records each DeleteObjects' key count, how many were in flight
   * at once, and how many were in flight when each listing started; `deleteDelayMs` holds every
   * DeleteObjects that long on the way to the server (a slower server), aborted by the request's
   * abort signal as a real request is.
   */
  /**
   * A client that counts DeleteObjects in flight. `deleteDelayMs` slows each delete; `holdUntilInFlight`
   * holds each delete until that many are in flight (or 5 s passed), so a test of concurrency does not
   * depend on how fast this machine lists.
   */
  function instrumentedClient(deleteDelayMs = 0, holdUntilInFlight = 0) {
    const held: (() => void)[] = [];
    const client = makeS3Client(server.target, { maxSockets: 16 });
    const stats = { deleteKeys: [] as number[], keyErrors: [] as string[], inFlight: 0, maxInFlight: 0, inFlightAtList: [] as number[] };
    client.middlewareStack.add((next, context) => async (args) => {
      const command = (context as { commandName?: string }).commandName;
      if (command === 'ListObjectVersionsCommand') stats.inFlightAtList.push(stats.inFlight);
      if (command !== 'DeleteObjectsCommand') return next(args);
      stats.deleteKeys.push((args.input as { Delete: { Objects: unknown[] } }).Delete.Objects.length);
      stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
      if (holdUntilInFlight) {
        if (stats.inFlight >= holdUntilInFlight) held.splice(0).forEach((release) => release());
        else await new Promise<void>((resolve) => { held.push(resolve); setTimeout(resolve, 5000).unref(); });
      }
      try {
        const res = await next(args);
        stats.keyErrors.push(...((res.output as { Errors?: { Code?: string }[] }).Errors ?? []).map((e) => e.Code ?? '?'));
        return res;
      } finally {
        stats.inFlight--;
      }
    }, { step: 'initialize', name: 'countDeleteObjects' });
    const http = client.config.requestHandler as { handle: (req: { method: string; query?: Record<string, unknown> }, o?: { abortSignal?: AbortSignal }) => Promise<unknown> };
    const handle = http.handle.bind(http);
    http.handle = async (req, o) => {
      if (deleteDelayMs && req.method === 'POST' && req.query && 'delete' in req.query) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, deleteDelayMs);
          o?.abortSignal?.addEventListener('abort', () => { clearTimeout(timer); reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' })); });
        });
      }
      return handle(req, o);
    };
    return { client, stats };
  }

  /** The server's own count of each S3 operation it answered since `from` (a byte offset of its access log). */
  function serverOperationsSince(from: number): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const line of readFileSync(server.accessLog).subarray(from).toString('utf8').split('\n')) {
      const e = parseAccessLogLine(line);
      if (e) counts[e.operation] = (counts[e.operation] ?? 0) + 1;
    }
    return counts;
  }

  test('thousands of versions and delete markers, out of time in every round: each round deletes a page and says what is left; the rounds end with nothing left', async () => {
    await writeManyVersions(`s3ab/${RUN}/`, 1500);
    await writeRunData(RUN);
    const prefixes = [`s3ab/${RUN}/`, `s3ab-${RUN.toLowerCase()}-`, `docs/${RUN}/`, `lambda/${RUN}/`];
    const [data, ...smaller] = await Promise.all(prefixes.map(async (p) => (await versions(s3, p)).length));
    expect(data).toBeGreaterThan(4500);
    expect(smaller.every((n) => n > 0 && n < 1000)).toBe(true);
    const ec2 = fakeEc2([instance('i-run-1', RUN)]);
    const { client, stats } = instrumentedClient();
    const logFrom = statSync(server.accessLog).size;
    // A Lambda context with no time left to start work: each round gets only the progress every invocation makes.
    const context = { getRemainingTimeInMillis: () => teardown.STOP_BEFORE_DEADLINE_MS };
    const rounds: Awaited<ReturnType<typeof teardown.handler>>[] = [];
    for (let i = 0; i < 20 && !rounds.at(-1)?.done; i++) rounds.push(await teardown.handler({ runId: RUN }, context, { s3: client }));

    expect(rounds[0]).toMatchObject({ done: false, terminated: ['i-run-1'], deletedVersions: 1000, left: prefixes.map((p) => `s3://${DATA}/${p}`).join(' ') });
    // A full page a round (1,000 keys, one DeleteObjects), the rest of s3ab/, then each smaller prefix, then a round that finds nothing.
    const pages = [1000, 1000, 1000, 1000, data - 4000, ...smaller];
    expect(rounds.map((r) => r.deletedVersions)).toEqual([...pages, 0]);
    expect(rounds.map((r) => r.done)).toEqual([...pages.map(() => false), true]);
    expect(rounds.at(-1)).toEqual({ done: true, terminated: [], deletedVersions: 0, prefixes, left: '' });
    // Runners are looked up in every round (idempotent): only the first finds a live one.
    expect(terminatedIds(ec2)).toEqual(['i-run-1']);
    for (const p of prefixes) expect(await versions(s3, p)).toEqual([]);
    // Batched: one DeleteObjects per listed page, never a DeleteObject per key — as the client sent them and as the server answered them.
    expect(stats.deleteKeys).toEqual(pages);
    const answered = serverOperationsSince(logFrom);
    expect(answered.s3_DeleteObjects).toBe(pages.length);
    expect(answered.s3_DeleteObject).toBeUndefined();
    client.destroy();
  });

  test('with time to spare: 8 DeleteObjects in flight at once while the listing goes on, everything deleted in one invocation', async () => {
    const many = await writeManyVersions(`s3ab/${RUN}/`, 1200);
    fakeEc2([]);
    // Deletes held until 8 are in flight: the listing must run ahead of the deletions, as on S3 where a 1,000-key request takes far longer than a list.
    const { client, stats } = instrumentedClient(0, teardown.DELETE_CONCURRENCY);
    // Pages of 99 entries hold whole keys (3 versions each): versitygw loses or revives versions when
    // one key's versions are deleted by two requests at once (S3 does not), which made this test flaky.
    const out = await teardown.handler({ runId: RUN }, undefined, { s3: client, pageSize: 99 });
    expect(out).toMatchObject({ done: true, deletedVersions: many, left: '' });
    expect(stats.maxInFlight).toBe(teardown.DELETE_CONCURRENCY);
    expect(stats.inFlightAtList.some((n) => n > 0)).toBe(true);
    expect(stats.deleteKeys.every((n) => n <= 99)).toBe(true);
    expect(stats.deleteKeys.reduce((a, b) => a + b, 0)).toBe(many);
    expect(await versions(s3, `s3ab/${RUN}/`)).toEqual([]);
    client.destroy();
  });

  test('a request still in flight near the deadline is aborted: the round returns done:false (no timeout, no failure); the next round finishes', async () => {
    const many = await writeManyVersions(`s3ab/${RUN}/`, 400);
    fakeEc2([]);
    const slow = instrumentedClient(2000);
    // 300 ms before the abort point: the first page's DeleteObjects (held 2 s) cannot finish in time.
    const context = { getRemainingTimeInMillis: () => teardown.ABORT_BEFORE_DEADLINE_MS + 300 };
    const started = Date.now();
    const first = await teardown.handler({ runId: RUN }, context, { s3: slow.client });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(first).toMatchObject({ done: false, deletedVersions: 0 });
    expect(first.left).toContain(`s3://${DATA}/s3ab/${RUN}/`);
    expect((await versions(s3, `s3ab/${RUN}/`)).length).toBe(many);
    const second = await teardown.handler({ runId: RUN }, undefined, { budgetMs: 10_000 });
    expect(second).toMatchObject({ done: true, deletedVersions: many });
    slow.client.destroy();
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

  describe('after an execution ended FAILED, TIMED_OUT or ABORTED (the EventBridge rule): the run found in the execution\'s history', () => {
    const EXECUTION = 'arn:aws:states:us-east-1:123456789012:execution:S3AccessBench-pipeline:run-1';
    const ended = (status: string) => ({ 'detail-type': 'Step Functions Execution Status Change', detail: { executionArn: EXECUTION, status } });
    const exited = (name: string, output: unknown) => ({ type: 'TaskStateExited', stateExitedEventDetails: { name, output: JSON.stringify(output) } });

    test('ABORTED mid-run: the run id from ValidateInput\'s exit (second page), its runners terminated and every version deleted in one invocation', async () => {
      await writeRunData(RUN);
      const ec2 = fakeEc2([instance('i-run-1', RUN)]);
      const sfn = mockClient(SFNClient);
      sfn.on(GetExecutionHistoryCommand, { executionArn: EXECUTION, nextToken: undefined }).resolves({ events: [{ type: 'ExecutionStarted' }, { type: 'TaskStateEntered' }] as never, nextToken: 'p2' });
      sfn.on(GetExecutionHistoryCommand, { executionArn: EXECUTION, nextToken: 'p2' }).resolves({ events: [exited('ValidateInput', { run: { value: { runId: RUN } } })] as never });
      const out = await teardown.handler(ended('ABORTED') as never, { getRemainingTimeInMillis: () => 90_000 }, { sfn: new SFNClient({}) });
      expect(out).toMatchObject({ done: true, terminated: ['i-run-1'] });
      expect(terminatedIds(ec2)).toEqual(['i-run-1']);
      for (const p of out.prefixes) expect(await versions(s3, p)).toEqual([]);
      // Every history call asked for the execution data (the state's output carries the run id).
      expect(sfn.commandCalls(GetExecutionHistoryCommand).map((c) => c.args[0].input.includeExecutionData)).toEqual([true, true]);
      // Idempotent: a second delivery finds nothing left.
      expect(await teardown.handler(ended('ABORTED') as never, { getRemainingTimeInMillis: () => 90_000 }, { sfn: new SFNClient({}) })).toMatchObject({ done: true, terminated: [], deletedVersions: 0 });
      sfn.restore();
    });

    test('an execution that ended before ValidateInput made a run (or was rejected by it): nothing to do; an event of another kind is refused', async () => {
      const ec2 = fakeEc2([instance('i-run-1', RUN)]);
      const sfn = mockClient(SFNClient);
      sfn.on(GetExecutionHistoryCommand).resolves({ events: [{ type: 'ExecutionStarted' }, exited('ValidateInput', { error: { Error: 'InvalidInput' } })] as never });
      expect(await teardown.handler(ended('FAILED') as never, undefined, { sfn: new SFNClient({}) })).toEqual({ done: true, terminated: [], deletedVersions: 0, prefixes: [], left: '' });
      expect(ec2.calls()).toHaveLength(0);
      await expect(teardown.handler({ 'detail-type': 'Scheduled Event', detail: {} } as never, undefined, { sfn: new SFNClient({}) })).rejects.toMatchObject({ name: 'InvalidEvent' });
      sfn.restore();
    });
  });
});
