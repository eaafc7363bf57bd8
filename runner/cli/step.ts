import { Option, type Command } from 'commander';
import { installSignalHandlers } from '../core/cleanup';
import { runOneStep } from '../run/remote-step';
import { exitCodeFor } from '../run/policy';
import { positiveInt } from './args';

/** `s3ab step`: one step of an execution's matrix on this runner, records uploaded (what SSM runs on AWS). */
export function registerStep(program: Command): void {
  program
    .command('step')
    .description('run one step of a matrix and upload its records to s3://BUCKET/PREFIX (what the AWS pipeline runs on each runner through SSM)')
    .requiredOption('-m, --matrix <file>', 'matrix JSON file of the execution')
    .requiredOption('--step <n>', 'step number, 1-based, in run order (see `s3ab list`)', positiveInt)
    .requiredOption('--run-id <id>', 'run id shared by every runner of the execution')
    .requiredOption('--results <s3url>', 'where the records go: s3://BUCKET/PREFIX (PREFIX/dt=DAY/*.jsonl)')
    .requiredOption('--bucket <name>', 'bucket the benchmark reads and writes (under s3ab/RUNID/RUNNER/)')
    .option('--runner-id <id>', 'this runner\'s name in prefixes and file names (default: S3AB_RUNNER_ID)')
    .option('--endpoint <url>', 'S3-compatible endpoint (default: AWS S3 in --region)')
    .option('--region <region>', 'region (default: AWS_REGION)')
    .addOption(new Option('--quiet', 'no progress output').hideHelp())
    .action(async (o) => {
      const abort = new AbortController();
      installSignalHandlers(abort);
      const outcome = await runOneStep({
        matrixFile: o.matrix, step: o.step, runId: o.runId, runnerId: o.runnerId ?? process.env.S3AB_RUNNER_ID, results: o.results,
        bucket: o.bucket, endpoint: o.endpoint, region: o.region, quiet: o.quiet, signal: abort.signal,
      });
      const m = outcome.run.manifest;
      for (const s of m.skipped ?? []) if (s.steps) process.stdout.write(`s3ab step: step ${o.step} skipped: ${s.method} is optional in the matrix and not available here: ${s.reason}\n`);
      process.stdout.write(`s3ab step: run ${m.run_id} step ${o.step} ${m.status}: ${outcome.records} records uploaded\n${outcome.uploaded.map((u) => `  ${u}`).join('\n')}\n`);
      if (m.status !== 'complete' && m.status !== 'interrupted') process.stderr.write(`s3ab step: step ${o.step} ${m.status}: ${m.problem}\n`);
      process.exitCode = exitCodeFor(m.status);
    });
}
