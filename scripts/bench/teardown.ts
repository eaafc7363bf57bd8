/**
 * The Teardown function's deletion rate, measured on the embedded versitygw (a versioned bucket):
 * writes N versions and delete markers under a run's prefix (each key written twice, then
 * deleted: two versions and a delete marker), runs the handler in rounds as the state machine
 * does — each round with a Lambda context of TASK_TIMEOUT_S.teardown seconds, so it starts work
 * for a third of that (ROUND_SHARE_OF_TIMEOUT) — and prints versions per second, the requests it
 * sent, and what a seed run's versions would take at that rate: seconds and rounds, against the
 * state machine's bound (TEARDOWN_MAX_ROUNDS).
 *
 *   npm run bench:teardown [-- --versions 20000 --seed-versions 840000]
 *
 * A local server is not S3: S3 performs each key of a DeleteObjects as a delete operation, which
 * counts toward its 3,500 writes per second per partitioned prefix, so the figure at that rate is
 * printed too — an assumption about S3, not a measurement.
 */
import { CreateBucketCommand, DeleteObjectCommand, PutBucketVersioningCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { EC2Client } from '@aws-sdk/client-ec2';
import { failScript, scriptOptions } from '../script-cli';
import { UserError } from '../../runner/core/errors';
import { TASK_TIMEOUT_S } from '../../lib/pipeline/tasks';
import { TEARDOWN_MAX_ROUNDS } from '../../lib/pipeline/teardown-flow';
import { cleanupAll } from '../../runner/core/cleanup';
import { startEmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';

// Before the first client: the SDK's notice about Node 20 is not part of the figures.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const BUCKET = 's3ab-data';
const RUN = '20261122T101500Z-abc123';
const S3_DELETES_PER_PREFIX_PER_S = 3500;

const values = scriptOptions('bench:teardown', { versions: { type: 'string', default: '20000' }, 'seed-versions': { type: 'string', default: '840000' } }, ['versions', 'seed-versions']);
const versions = Number(values.versions);
const seedVersions = Number(values['seed-versions']);
if (versions < 3 || seedVersions < 1) failScript('bench:teardown', new UserError(`--versions ${versions} --seed-versions ${seedVersions}: too few`, 'give --versions 3 or more and --seed-versions 1 or more'));

/** `keys` keys, each written twice and then deleted, 32 at a time. */
async function writeVersions(s3: S3Client, keys: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    for (let i = next++; i < keys; i = next++) {
      const Key = `s3ab/${RUN}/i-bench/objects/${String(i).padStart(7, '0')}`;
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: 'v1' }));
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: 'v2' }));
      await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key }));
    }
  }));
}

/** The handler's ListObjectVersions and DeleteObjects requests, and the keys those deleted, counted as they are sent. */
function countRequests(s3: S3Client): { list: number; deleteObjects: number; keys: number } {
  const requests = { list: 0, deleteObjects: 0, keys: 0 };
  s3.middlewareStack.add((next, context) => async (args) => {
    const command = (context as { commandName?: string }).commandName;
    if (command === 'ListObjectVersionsCommand') requests.list++;
    if (command === 'DeleteObjectsCommand') {
      requests.deleteObjects++;
      requests.keys += (args.input as { Delete: { Objects: unknown[] } }).Delete.Objects.length;
    }
    return next(args);
  }, { step: 'initialize', name: 'countRequests' });
  return requests;
}

type TeardownModule = typeof import('../../lambda/teardown');

/** The state machine's loop: the handler called again, each round with the task's timeout, until it says done. */
async function deleteInRounds(handler: TeardownModule['handler'], clients: Parameters<TeardownModule['handler']>[2]): Promise<{ rounds: number[]; deleted: number }> {
  const roundMs = TASK_TIMEOUT_S.teardown * 1000;
  const rounds: number[] = [];
  let deleted = 0;
  for (let done = false; !done;) {
    const start = Date.now();
    const out = await handler({ runId: RUN }, { getRemainingTimeInMillis: () => roundMs - (Date.now() - start) }, clients);
    rounds.push(out.deletedVersions);
    deleted += out.deletedVersions;
    done = out.done;
    if (rounds.length > 1000) throw new Error('no end after 1,000 rounds');
  }
  return { rounds, deleted };
}

function printFigures(teardown: TeardownModule, r: { deleted: number; seconds: number; rounds: number[]; requests: ReturnType<typeof countRequests> }): void {
  const { deleted, seconds, rounds, requests } = r;
  const rate = deleted / seconds;
  // The work a round does: the share of the timeout it starts requests in (lambda/teardown.ts).
  const workS = Math.min(TASK_TIMEOUT_S.teardown * teardown.ROUND_SHARE_OF_TIMEOUT, TASK_TIMEOUT_S.teardown - teardown.STOP_BEFORE_DEADLINE_MS / 1000);
  const roundsFor = (perS: number) => Math.ceil(seedVersions / perS / workS);
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  process.stdout.write([
    `deleted ${n(deleted)} in ${seconds.toFixed(2)} s over ${rounds.length} round${rounds.length > 1 ? 's' : ''} of ${TASK_TIMEOUT_S.teardown} s: ${n(rate)} versions/s`,
    `requests: ${requests.deleteObjects} DeleteObjects (${n(requests.keys / requests.deleteObjects)} keys each on average, at most ${teardown.DELETE_CONCURRENCY} in flight), ${requests.list} ListObjectVersions`,
    `seed scale, ${n(seedVersions)} versions: ${n(seedVersions / rate)} s at this rate = ${roundsFor(rate)} round(s) of ${workS} s of work; `
      + `at S3's ${n(S3_DELETES_PER_PREFIX_PER_S)} deletes/s per prefix (assumed): ${n(seedVersions / S3_DELETES_PER_PREFIX_PER_S)} s = ${roundsFor(S3_DELETES_PER_PREFIX_PER_S)} rounds; `
      + `the state machine allows ${TEARDOWN_MAX_ROUNDS}`,
  ].join('\n') + '\n');
}

async function main(): Promise<void> {
  const server = await startEmbeddedEndpoint();
  const writer = makeS3Client(server.target, { maxSockets: 32 });
  // The handler's own client (lambda/shared/s3.ts), pointed at the local server as the tests do.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: server.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: server.target.credentials!.secretAccessKey,
    AWS_REGION: 'us-east-1', S3AB_S3_ENDPOINT: server.target.endpointUrl,
    STACK_NAME: 'S3AccessBench', DATA_BUCKET: BUCKET, RESULTS_BUCKET: BUCKET, ACCESS_POINT_PREFIX: 'lambda/', POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  const teardown = await import('../../lambda/teardown');
  const { s3Client } = await import('../../lambda/shared/s3');
  try {
    await writer.send(new CreateBucketCommand({ Bucket: BUCKET }));
    await writer.send(new PutBucketVersioningCommand({ Bucket: BUCKET, VersioningConfiguration: { Status: 'Enabled' } }));
    const keys = Math.ceil(versions / 3);
    const t0 = performance.now();
    await writeVersions(writer, keys);
    const created = keys * 3;
    process.stdout.write(`created ${created.toLocaleString('en-US')} versions and delete markers (${keys.toLocaleString('en-US')} keys × 2 versions + 1 delete marker) in ${((performance.now() - t0) / 1000).toFixed(1)} s on ${server.target.server}\n`);

    const s3 = s3Client();
    const requests = countRequests(s3);
    // No runners here: DescribeInstances finds none (EC2 cannot run locally).
    const ec2 = { send: async () => ({ Reservations: [] }) } as unknown as EC2Client;
    const t1 = performance.now();
    const { rounds, deleted } = await deleteInRounds(teardown.handler, { ec2, s3 });
    const seconds = (performance.now() - t1) / 1000;
    if (deleted !== created) throw new Error(`deleted ${deleted} of ${created}`);
    printFigures(teardown, { deleted, seconds, rounds, requests });
    s3.destroy();
  } finally {
    writer.destroy();
    await server.stop();
    await cleanupAll();
  }
}

main().catch((err) => failScript('bench:teardown', err));
