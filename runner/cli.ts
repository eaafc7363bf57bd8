import { Command, InvalidArgumentError, Option } from 'commander';
import Table from 'cli-table3';
import { resolve } from 'node:path';
import { cleanupAll, installSignalHandlers, Interrupted } from './core/cleanup';
import { ExitCode, UserError, errorSummary } from './core/errors';
import { expandSteps, loadProfile, profileNames, resolveMatrix } from './core/matrix';
import { METHODS } from './methods';
import { printSummary } from './report/summary';
import { runBenchmark } from './run';
import { WORKLOADS } from './workloads';

const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);
const positiveInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
};

// The SDK warns on Node 20 about its releases from 2027 on; the lockfile pins this one.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export function buildCli(): Command {
  const program = new Command('s3ab')
    .description('s3-access-bench: benchmark the ways programs reach S3 (S3 API, AWS CLI, FUSE mounts, ...) with verified data')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (str, write) => write(str) });

  program
    .command('run')
    .description('run a benchmark matrix against the embedded S3 server (default) or a named endpoint, then print the summary')
    .option('-p, --profile <name>', `named matrix in assets/profiles (${profileNames().join(', ')}); default quick`)
    .option('-m, --matrix <file>', 'matrix JSON file (format: assets/schema/matrix.schema.json)')
    .option('--methods <a,b>', 'only these methods (name or name:variant), e.g. s3-api,aws-cli', list)
    .option('--workloads <x,y>', 'only these workloads, e.g. objects,dir-walk', list)
    .option('-r, --repetitions <n>', 'repetitions of every step (default: the matrix\'s)', positiveInt)
    .option('--cache <states>', 'cache states on mount methods: cold, warm or cold,warm (default: the matrix\'s)', list)
    .option('--results <dir>', 'results folder (Hive layout, Athena-readable)', 'results')
    .option('--endpoint <url>', 'benchmark this S3-compatible endpoint instead of the embedded one (standard AWS credential chain)')
    .option('--bucket <name>', 'existing bucket at --endpoint; the run writes under s3ab/RUNID/ and removes it after')
    .option('--region <region>', 'region for --endpoint (default: AWS_REGION or us-east-1)')
    .addOption(new Option('--quiet', 'no progress output').hideHelp())
    .addHelpText('after', `
Examples:
  s3ab run                                   quick profile, embedded versitygw, both S3 API methods
  s3ab run --profile seed --methods s3-api   the seeds' sizes, SDK only
  s3ab run --endpoint http://127.0.0.1:9000 --bucket bench --region us-east-1
Exit codes: 0 complete, 1 a step failed (results marked incomplete), 2 bad input (nothing created), 130 interrupted.`)
    .action(async (o) => {
      const abort = new AbortController();
      installSignalHandlers(abort);
      const outcome = await runBenchmark({
        profile: o.profile, matrixFile: o.matrix, methods: o.methods, workloads: o.workloads, repetitions: o.repetitions, cache: o.cache,
        resultsDir: o.results, endpoint: o.endpoint, bucket: o.bucket, region: o.region, quiet: o.quiet, signal: abort.signal,
      });
      const out = (line: string) => process.stdout.write(`${line}\n`);
      out('');
      try {
        await printSummary(outcome.resultsDir, outcome.manifest.run_id, out);
      } catch (err) {
        out(`(summary unavailable: ${errorSummary(err)})`);
      }
      out('');
      out(`results: ${outcome.files.length} files under ${outcome.resultsDir} (run ${outcome.manifest.run_id}); \`s3ab report --results ${o.results}\` prints this again`);
      if (outcome.manifest.status === 'interrupted') process.exitCode = ExitCode.interrupted;
      else if (outcome.manifest.status !== 'complete') {
        process.stderr.write(`s3ab: run ${outcome.manifest.status}: ${outcome.manifest.problem}\n`);
        process.exitCode = ExitCode.runFailed;
      }
    });

  program
    .command('report')
    .description('print the summary of a run from a results folder (DuckDB over the Athena SQL in assets/queries)')
    .option('--results <dir>', 'results folder', 'results')
    .option('--run <id>', 'run id (default: the newest run)')
    .action(async (o) => {
      await printSummary(resolve(o.results), o.run, (line) => process.stdout.write(`${line}\n`));
    });

  program
    .command('list')
    .description('list methods (and whether each works on this host), workloads and profiles')
    .action(async () => {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      const methods = new Table({ head: ['method', 'kind', 'available here', 'version / why not', 'variants'], style: { head: [], border: [] }, colWidths: [null, null, null, 60, null] as never, wordWrap: true });
      for (const m of METHODS) {
        const a = await m.probe();
        methods.push([m.name, m.kind, a.available ? 'yes' : 'no', a.available ? a.version ?? '' : a.reason ?? '', Object.keys(m.variants).join(', ')]);
      }
      out('Methods');
      out(methods.toString());
      const workloads = new Table({ head: ['workload', 'what it measures', 'parameters (defaults)'], style: { head: [], border: [] }, colWidths: [null, 50, 50] as never, wordWrap: true });
      for (const w of WORKLOADS) {
        const props = (w.paramsSchema as { properties: Record<string, { default?: unknown }> }).properties;
        workloads.push([w.name, w.summary, Object.entries(props).map(([k, v]) => `${k}=${JSON.stringify(v.default)}`).join('\n')]);
      }
      out('Workloads');
      out(workloads.toString());
      const profiles = new Table({ head: ['profile', 'steps', 'description'], style: { head: [], border: [] }, colWidths: [null, null, 80] as never, wordWrap: true });
      for (const name of profileNames()) {
        const raw = loadProfile(name) as { description?: string };
        profiles.push([name, String(expandSteps(resolveMatrix(raw, `profile ${name}`)).length), raw.description ?? '']);
      }
      out('Profiles (s3ab run --profile NAME)');
      out(profiles.toString());
    });

  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (err) {
    if (err instanceof UserError) {
      process.stderr.write(`s3ab: ${err.problem}\n  fix: ${err.fix}\n`);
      process.exitCode = ExitCode.badInput;
    } else if (err instanceof Interrupted) {
      process.exitCode = ExitCode.interrupted;
    } else {
      process.stderr.write(`s3ab: unexpected error: ${(err as Error)?.stack ?? err}\n`);
      process.exitCode = ExitCode.runFailed;
    }
  } finally {
    await cleanupAll();
  }
}

if (require.main === module) void main(process.argv).then(() => process.exit(process.exitCode ?? 0));
