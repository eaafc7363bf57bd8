import { Option, type Command } from 'commander';
import { runnerSpecs } from './args';

/** A command of the deployed stack whose AWS errors a user can fix (credentials, region, network, stack) end as UserErrors. */
async function explained<T>(stack: string, command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (err) {
    const { explainAws } = await import('../aws/commands');
    throw explainAws(err, stack);
  }
}

/** `s3ab aws run|estimate|query|pull|status`: the deployed stack (loaded lazily: the AWS SDK clients are only needed here). */
export function registerAws(program: Command): void {
  const aws = program.command('aws').description('run and query benchmarks on AWS (the deployed stack; credentials and region from the standard AWS chain)');
  const stackOpt = () => new Option('--stack <name>', 'CloudFormation stack name').default('S3AccessBench');
  const regionOpt = () => new Option('--region <region>', 'AWS region (default: AWS_REGION / profile)');
  const print = (l: string) => process.stdout.write(`${l}\n`);
  aws.command('run').description('start a state machine execution for a matrix, follow it, print the Athena summary')
    .option('-p, --profile <name>', 'named matrix (default quick)').option('-m, --matrix <file>', 'matrix JSON file')
    .option('--runners <type:count,...>', 'runner specs, e.g. c7g.large:2,m7i.large:1 (default: the measured model\'s plan, as `aws estimate` prints it)', runnerSpecs)
    .addOption(stackOpt()).addOption(regionOpt())
    .action(async (o) => {
      const { awsRun, defaultClients } = await import('../aws/commands');
      process.exitCode = await explained(o.stack, () => awsRun(defaultClients(o.region), { stack: o.stack, profile: o.profile, matrix: o.matrix, runners: o.runners }, print));
    });
  aws.command('estimate [profile]').description('the modelled execution of a profile or matrix on AWS, from measured figures (runner/plan/): runners and shards, wall time, the execution\'s own cost, the measured clients\' own requests per method, the steps expected to hit their budget')
    .option('-m, --matrix <file>', 'matrix JSON file instead of a profile')
    .option('--runners <type:count,...>', 'runner specs, e.g. c8gn.large:4,c7g.large:12 (default: the model\'s plan: the cheapest within 45 min, else the fastest)', runnerSpecs)
    .option('--cold-build-cache', 'model a cold build cache: every runner that installs a cargo-built client (the s3-crt client, ZeroFS) builds it (the first execution after its crate or pinned version changes, per architecture); default: warm, it downloads it')
    .action(async (profile: string | undefined, o) => {
      const { estimateFor, printEstimate } = await import('../aws/estimate');
      printEstimate(estimateFor({ profile: o.matrix ? undefined : profile ?? 'quick', matrixFile: o.matrix, runners: o.runners, buildCache: o.coldBuildCache ? 'cold' : 'warm' }), print);
    });
  aws.command('query <name>').description('run a named query on Athena (the same as `s3ab report --query NAME --stack STACK`: assets/queries/{adhoc,model}/NAME.sql) and print the table; `requests` prints each step\'s S3 requests from the data bucket\'s server access logs')
    .option('--run <id>', 'one run only').addOption(stackOpt()).addOption(regionOpt())
    .action(async (name, o) => {
      const { awsQuery, awsQueryRequests, defaultClients } = await import('../aws/commands');
      process.exitCode = await explained(o.stack, () => (name === 'requests'
        ? awsQueryRequests(defaultClients(o.region), o.stack, o.run, print)
        : awsQuery(defaultClients(o.region), o.stack, name, print, undefined, o.run)));
    });
  aws.command('pull').description('copy executions\' records (step records, interval series, run manifests) from the results bucket into a local results folder, so local and AWS runs are one history for `s3ab report` and `s3ab history`; files already there are kept')
    .option('--run <id>', 'one run (default: the newest run in the bucket)').option('--all', 'every run in the bucket')
    .option('--results <dir>', 'local results folder', 'results')
    .option('--bucket <name>', 'the results bucket by name, e.g. one retained after `cdk destroy` (default: the stack\'s ResultsBucketName output)')
    .addOption(stackOpt()).addOption(regionOpt())
    .action(async (o) => {
      const { awsPull, defaultPullClients } = await import('../aws/pull');
      process.exitCode = await explained(o.stack, () => awsPull(defaultPullClients(o.region), { results: o.results, run: o.run, all: o.all, bucket: o.bucket, stack: o.stack }, print));
    });
  aws.command('status').description('show the stack outputs and its latest executions').addOption(stackOpt()).addOption(regionOpt())
    .action(async (o) => {
      const { awsStatus, defaultClients } = await import('../aws/commands');
      process.exitCode = await explained(o.stack, () => awsStatus(defaultClients(o.region), o.stack, print));
    });
}
