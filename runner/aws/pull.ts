import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { RESULTS_LAYOUT } from '../../lib/results-layout';
import { UserError, errorSummary } from '../core/errors';
import { RUN_ID_EXAMPLE, isRunId, runIdOfFile } from '../core/vocabulary';
import { explainAws, stackOutputs, type Out } from './commands';

export interface PullClients { cfn: CloudFormationClient; s3: S3Client }

export function defaultPullClients(region?: string): PullClients {
  // An endpoint override (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, read by the SDK) is a local or
  // private S3: path-style addressing, which such endpoints answer and virtual hosts may not.
  const override = Boolean(process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL);
  return { cfn: new CloudFormationClient({ region, maxAttempts: 5 }), s3: new S3Client({ region, maxAttempts: 5, forcePathStyle: override }) };
}

export interface PullArgs {
  /** The local results folder the records go to (the local layout: DIR/dt=…/, DIR/_runs/, DIR/intervals/dt=…/). */
  results: string;
  /** One run; neither it nor `all`: the newest run in the bucket. */
  run?: string;
  all?: boolean;
  /** The results bucket by name (a retained bucket whose stack is gone); else the stack's ResultsBucketName output. */
  bucket?: string;
  stack: string;
}

/** One object of a run's history in the results bucket, and where it goes in the local folder. */
interface HistoryObject { key: string; size: number; runId: string; local: string }

/**
 * The run files under results/ of the results bucket, each with its run and its local path: the
 * bucket's results/ is the local results folder's layout (runner/run/remote-step.ts uploads the
 * runner's own folder under it), so a key's local path is the key without results/.
 */
async function historyObjects(s3: S3Client, bucket: string, dir: string): Promise<HistoryObject[]> {
  const found: HistoryObject[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: RESULTS_LAYOUT.records, ContinuationToken }));
    for (const o of page.Contents ?? []) {
      const rel = o.Key!.slice(RESULTS_LAYOUT.records.length);
      // Step records and interval series (dt=DAY/, intervals/dt=DAY/), run manifests (_runs/); nothing else.
      if (!/^(intervals\/)?dt=\d{4}-\d{2}-\d{2}\/[^/]+\.jsonl$|^_runs\/[^/]+\.json$/.test(rel)) continue;
      const runId = runIdOfFile(rel.split('/').pop()!);
      if (!runId) continue;
      const local = resolve(dir, ...rel.split('/'));
      // A key that would leave the folder (it cannot, given the pattern) is never written.
      if (relative(resolve(dir), local).startsWith(`..${sep}`)) continue;
      found.push({ key: o.Key!, size: o.Size ?? 0, runId, local });
    }
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return found;
}

/** Runs newest first (a run id begins with its start time). */
const newestFirst = (runs: Iterable<string>) => [...new Set(runs)].sort().reverse();

/**
 * `s3ab aws pull`: copies executions' records (step records, interval series, run manifests) from
 * the results bucket into a local results folder, in the layout `s3ab run` writes, so local and AWS
 * runs are one history for `s3ab report` and `s3ab history`. Idempotent: a file already there
 * with the object's size is kept; others are written whole (a dot-file renamed into place, as the
 * writer does), never half.
 */
export async function awsPull(c: PullClients, a: PullArgs, out: Out): Promise<number> {
  if (a.run !== undefined && a.all) throw new UserError('--run and --all name different things to pull', 'give --run RUNID for one run, or --all for every run');
  if (a.run !== undefined && !isRunId(a.run)) throw new UserError(`--run "${a.run}" is not a run id`, `use the form ${RUN_ID_EXAMPLE}`);
  if (existsSync(a.results) && !statSync(a.results).isDirectory()) throw new UserError(`--results ${a.results} is a file, not a folder`, 'give the results folder to pull into (default results/)');
  let bucket = a.bucket;
  if (!bucket) {
    bucket = (await stackOutputs(c, a.stack)).ResultsBucketName;
    if (!bucket) throw new UserError(`stack "${a.stack}" has no ResultsBucketName output`, 'redeploy it from this version with `npx cdk deploy`, or name the bucket with --bucket NAME');
  }
  let objects: HistoryObject[];
  try {
    objects = await historyObjects(c.s3, bucket, a.results);
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchBucket') throw new UserError(`there is no bucket "${bucket}"`, 'name the results bucket with --bucket NAME (`s3ab aws status` shows ResultsBucketName), or the stack with --stack');
    throw explainAws(err, a.stack);
  }
  const runs = newestFirst(objects.map((o) => o.runId));
  const where = `s3://${bucket}/${RESULTS_LAYOUT.records}`;
  if (!runs.length) throw new UserError(`no runs in ${where}`, 'run one with `s3ab aws run`, or name the bucket that holds them with --bucket NAME');
  if (a.run !== undefined && !runs.includes(a.run)) {
    throw new UserError(`run ${a.run} is not in ${where} (runs there, newest first: ${listed(runs)})`, 'give one of them with --run, or --all to pull every run');
  }
  const wanted = a.all ? runs : [a.run ?? runs[0]];
  for (const runId of wanted) {
    const mine = objects.filter((o) => o.runId === runId);
    let written = 0;
    for (const o of mine) {
      if (existsSync(o.local) && statSync(o.local).size === o.size) continue;
      await download(c.s3, bucket, o);
      written++;
    }
    const manifests = mine.filter((o) => o.key.startsWith(`${RESULTS_LAYOUT.records}_runs/`)).length;
    out(`run ${runId}: ${mine.length} files (${mine.length - manifests} records files, ${manifests} manifest${manifests === 1 ? '' : 's'}) — ${written} pulled, ${mine.length - written} already in ${a.results}`);
    if (!manifests) out(`  run ${runId} has no manifest in ${where}_runs/ yet: its runners had not finished, or one failed before uploading it`);
  }
  out(`${wanted.length} of ${runs.length} run${runs.length === 1 ? '' : 's'} of ${where} in ${a.results}: \`s3ab report --results ${a.results} --run RUNID\` reports one`);
  return 0;
}

/** The run ids, the first few and how many more. */
function listed(runs: string[]): string {
  return runs.length <= 8 ? runs.join(', ') : `${runs.slice(0, 8).join(', ')} and ${runs.length - 8} more`;
}

async function download(s3: S3Client, bucket: string, o: HistoryObject): Promise<void> {
  let body: Uint8Array;
  try {
    body = await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: o.key }))).Body!.transformToByteArray();
  } catch (err) {
    throw new UserError(`s3://${bucket}/${o.key} could not be read: ${errorSummary(err)}`, 'use credentials that may s3:GetObject under results/ of the results bucket, then pull again (files already pulled are kept)');
  }
  mkdirSync(dirname(o.local), { recursive: true });
  const tmp = join(dirname(o.local), `.${o.local.split(sep).pop()}.pull`);
  try {
    writeFileSync(tmp, body);
    renameSync(tmp, o.local);
  } finally {
    rmSync(tmp, { force: true });
  }
}
