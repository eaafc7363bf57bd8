import { EC2Client } from '@aws-sdk/client-ec2';
import { DeleteObjectsCommand, ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { DOCS_PREFIX } from '../lib/document-prefixes';
import { logger, NamedError } from './shared/powertools';
import { findInstances, runnerFilters, terminateInstances } from './shared/runners';
import { env, s3Client } from './shared/s3';
import { isRunId, runDataPrefix, runVolumePrefix } from '../runner/core/vocabulary';

const ec2 = new EC2Client({ maxAttempts: 5 });
const s3 = s3Client();

export interface TeardownEvent { runId?: string }
export interface TeardownResult { terminated: string[]; deletedVersions: number; prefixes: string[] }

/**
 * Deletes every version and delete marker under a prefix (the data bucket is versioned): lists a
 * page (at most `pageSize`, DeleteObjects' limit), deletes it, lists again until nothing is left.
 */
export async function deleteAllVersions(client: S3Client, bucket: string, prefix: string, pageSize = 1000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: prefix, MaxKeys: pageSize }));
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
 * every version — under s3ab/RUNID/, docs/RUNID/ and the S3 Files access point's RUNID/. Each
 * part is tried even when another fails; then `TeardownIncomplete` names what is left.
 */
export async function handler(event: TeardownEvent, clients = { ec2, s3 }): Promise<TeardownResult> {
  const runId = event?.runId;
  if (!runId) return { terminated: [], deletedVersions: 0, prefixes: [] };
  if (!isRunId(runId)) throw new NamedError('InvalidEvent', `runId "${runId}" is not a run id`);
  const [stack, bucket] = [env('STACK_NAME'), env('DATA_BUCKET')];
  // The run's objects, its JuiceFS volumes (s3ab-runid-…), its documents and its S3 Files access point folder.
  const prefixes = [runDataPrefix(runId), runVolumePrefix(runId), `${DOCS_PREFIX}${runId}/`, `${env('ACCESS_POINT_PREFIX')}${runId}/`];
  const problems: string[] = [];
  const why = (err: unknown) => `${(err as Error).name}: ${(err as Error).message}`;
  let ids: string[] = [];
  try {
    ids = (await findInstances(clients.ec2, { filters: runnerFilters(stack, runId) })).map((i) => i.InstanceId!);
    await terminateInstances(clients.ec2, ids);
  } catch (err) {
    problems.push(`runners of run ${runId} not terminated (${why(err)}); the janitor terminates them after their maximum lifetime`);
  }
  let deletedVersions = 0;
  for (const p of prefixes) {
    try {
      deletedVersions += await deleteAllVersions(clients.s3, bucket, p);
    } catch (err) {
      problems.push(`s3://${bucket}/${p} not emptied (${why(err)}); delete its versions with \`aws s3api list-object-versions\` / \`delete-objects\``);
    }
  }
  logger.info('teardown', { runId, terminated: ids, deletedVersions, problems });
  if (problems.length) throw new NamedError('TeardownIncomplete', problems.join('; '));
  return { terminated: ids, deletedVersions, prefixes };
}
