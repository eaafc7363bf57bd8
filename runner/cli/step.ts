import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { installSignalHandlers } from '../core/cleanup';
import { UserError } from '../core/errors';
import { parseStepList } from '../core/shards';
import { runShard, runShardWithCallback } from '../run/remote-step';
import { exitCodeFor } from '../run/policy';
import { duration } from './args';

const stepList = (v: string) => {
  const steps = parseStepList(v.replace(/\s+/g, ''));
  if (!steps) throw new InvalidArgumentError('must be step numbers separated by commas, e.g. 3 or 1,2,7');
  return steps;
};
const seconds = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of seconds ≥ 1');
  return n;
};

const clientNumber = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number ≥ 0 (0: not a fleet\'s client)');
  return n;
};
const missingBarrier = (): never => {
  throw new UserError('--fleet-client was given without --fleet-barrier', 'add --fleet-barrier s3://BUCKET/PREFIX (where the fleet\'s start-barrier markers go; the run-step document passes it)');
};

/** The task token in `file` (the run-step document writes it there): trimmed, refused when empty or missing. */
async function taskToken(file: string): Promise<string> {
  let token: string;
  try {
    token = (await readFile(file, 'utf8')).trim();
  } catch (err) {
    throw new UserError(`--task-token-file ${file} cannot be read: ${(err as Error).message}`, 'give the file the run-step document writes the task token to');
  }
  if (!token) throw new UserError(`--task-token-file ${file} is empty`, 'the file must hold the Step Functions task token of the command\'s task');
  return token;
}

/** `s3ab step`: this runner's steps of an execution's matrix, records uploaded (what SSM runs on AWS). */
export function registerStep(program: Command): void {
  program
    .command('step')
    .description('run steps of a matrix, prepared once, and upload each step\'s records to s3://BUCKET/PREFIX as it ends (what the AWS pipeline runs on each runner through SSM)')
    .requiredOption('-m, --matrix <file>', 'matrix JSON file of the execution')
    .requiredOption('--steps <list>', 'step numbers, 1-based, in run order, e.g. 1,2,7 (see `s3ab list`)', stepList)
    .requiredOption('--run-id <id>', 'run id shared by every runner of the execution')
    .requiredOption('--results <s3url>', 'where the records go: s3://BUCKET/PREFIX (PREFIX/dt=DAY/*.jsonl)')
    .requiredOption('--bucket <name>', 'bucket the benchmark reads and writes (under s3ab/RUNID/RUNNER/)')
    .option('--runner-id <id>', 'this runner\'s name in prefixes and file names (default: S3AB_RUNNER_ID)')
    .option('--endpoint <url>', 'S3-compatible endpoint (default: AWS S3 in --region)')
    .option('--region <region>', 'region (default: AWS_REGION)')
    .option('--step-budget <time>', 'time budget of every step, e.g. 10m (default: the matrix\'s budget_s): a step still running then stops cleanly, recorded as did-not-finish', duration)
    .option('--fleet-client <n>', 'this runner\'s client number in a fleet execution (1-based; 0: not a fleet\'s client): fleet steps start at the barrier with the others, fixtures are shared', clientNumber, 0)
    .option('--fleet-barrier <s3url>', 'with --fleet-client: where the fleet\'s start-barrier markers go, s3://BUCKET/PREFIX (RUNID/ROUND/CLIENT under it)')
    .option('--task-token-file <file>', 'a file holding a Step Functions task token (never on the command line, where `ps` shows it): send heartbeats while the steps run, then SendTaskSuccess or SendTaskFailure (the pipeline\'s callback)')
    .option('--heartbeat-seconds <n>', 'seconds between heartbeats with --task-token-file', seconds, 60)
    .option('--reported-file <file>', 'with --task-token-file: a file written once the task was ended, for the command\'s exit trap')
    .option('--success-file <file>', 'with --task-token-file: the success\'s output, written before it is sent, for the command\'s exit trap to send if the runner could not')
    .addOption(new Option('--quiet', 'no progress output').hideHelp())
    .action(async (o) => {
      const abort = new AbortController();
      installSignalHandlers(abort);
      const opts = {
        matrixFile: o.matrix, steps: o.steps, runId: o.runId, runnerId: o.runnerId ?? process.env.S3AB_RUNNER_ID, results: o.results,
        bucket: o.bucket, endpoint: o.endpoint, region: o.region, quiet: o.quiet, signal: abort.signal, stepBudgetS: o.stepBudget,
        fleet: o.fleetClient ? { client: o.fleetClient, barrier: o.fleetBarrier ?? missingBarrier() } : undefined,
      };
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const outcome = o.taskTokenFile
        ? await runShardWithCallback(opts, { token: await taskToken(o.taskTokenFile), heartbeatSeconds: o.heartbeatSeconds, reportedFile: o.reportedFile, successFile: o.successFile }, log)
        : await runShard(opts);
      const m = outcome.run.manifest;
      const what = `step${o.steps.length > 1 ? 's' : ''} ${o.steps.join(',')}`;
      for (const s of m.skipped ?? []) if (s.steps) process.stdout.write(`s3ab step: ${s.steps} step(s) skipped: ${s.method} is optional in the matrix and not available here: ${s.reason}\n`);
      process.stdout.write(`s3ab step: run ${m.run_id} ${what} ${m.status} (${m.steps_done} of ${m.steps_total} done, ${m.steps_failed} failed): ${outcome.records} records uploaded\n${outcome.uploaded.map((u) => `  ${u}`).join('\n')}\n`);
      if (m.status !== 'complete' && m.status !== 'interrupted') process.stderr.write(`s3ab step: ${what} ${m.status}: ${m.problem}\n`);
      process.exitCode = exitCodeFor(m.status);
    });
}
