import { DescribeInstancesCommand, EC2Client, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { DeleteObjectsCommand, ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { RUNNER_TAG } from '../lib/runner-tags';
import { DOCS_PREFIX } from '../lib/document-prefixes';
import { logger, NamedError } from './shared/powertools';
import { env, s3Client } from './shared/s3';

const ec2 = new EC2Client({ maxAttempts: 5 });
const s3 = s3Client();

export interface TeardownEvent { runId?: string }
export interface TeardownResult { terminated: string[]; deletedVersions: number; prefixes: string[] }

/** Deletes every version and delete marker under a prefix (the data bucket is versioned). */
export async function deleteAllVersions(client: S3Client, bucket: string, prefix: string): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: prefix }));
    const objects = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].map((v) => ({ Key: v.Key!, VersionId: v.VersionId }));
    if (!objects.length) return deleted;
    const res = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
    if (res.Errors?.length) throw new Error(`could not delete ${res.Errors[0].Key}: ${res.Errors[0].Message}`);
    deleted += objects.length;
  }
}

/**
 * Teardown: terminates every runner tagged with this run (found by tag, so runners whose ids
 * were lost with a failed state are found too) and deletes the benchmark data the run wrote —
 * every version — under s3ab/RUNID/, docs/RUNID/ and the S3 Files access point's RUNID/.
 */
export async function handler(event: TeardownEvent, clients = { ec2, s3 }): Promise<TeardownResult> {
  const runId = event?.runId;
  if (!runId) return { terminated: [], deletedVersions: 0, prefixes: [] };
  if (!/^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}$/.test(runId)) throw new NamedError('InvalidEvent', `runId "${runId}" is not a run id`);
  const found = await clients.ec2.send(new DescribeInstancesCommand({
    Filters: [
      { Name: `tag:${RUNNER_TAG.runId}`, Values: [runId] },
      { Name: `tag:${RUNNER_TAG.stack}`, Values: [env('STACK_NAME')] },
      { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped'] },
    ],
  }));
  const ids = (found.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId!);
  if (ids.length) await clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: ids }));
  const prefixes = [`s3ab/${runId}/`, `${DOCS_PREFIX}${runId}/`, `${env('ACCESS_POINT_PREFIX')}${runId}/`];
  let deletedVersions = 0;
  for (const p of prefixes) deletedVersions += await deleteAllVersions(clients.s3, env('DATA_BUCKET'), p);
  logger.info('teardown', { runId, terminated: ids, deletedVersions });
  return { terminated: ids, deletedVersions, prefixes };
}
