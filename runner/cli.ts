import { Command, InvalidArgumentError, Option } from 'commander';
import Table from 'cli-table3';
import { resolve } from 'node:path';
import { cleanupAll, installSignalHandlers, Interrupted } from './core/cleanup';
import { ExitCode, UserError, errorSummary } from './core/errors';
import { expandSteps, loadProfile, profileNames, resolveMatrix } from './core/matrix';
import { METHODS } from './methods';
import { printSummary } from './report/summary';
import { loadComparison, printComparison, renderCompareHtml } from './report/compare';
import { defaultReportPath, writeHtmlReport, writePage, type WrittenReport } from './report/html-report';
import { runBenchmark } from './run';
import { runOneStep } from './step';
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
    .option('--html <file>', 'where to write the run\'s HTML report (default: RESULTS/_reports/RUNID.html)')
    .option('--no-html', 'do not write the HTML report')
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
      if (o.html !== false) {
        try {
          const file = typeof o.html === 'string' ? o.html : defaultReportPath(outcome.resultsDir, outcome.manifest.run_id);
          const written = await writeHtmlReport(outcome.resultsDir, outcome.manifest.run_id, file);
          out(`report: ${written.path}`);
        } catch (err) {
          out(`(HTML report unavailable: ${errorSummary(err)})`);
        }
      }
      if (outcome.manifest.status === 'interrupted') process.exitCode = ExitCode.interrupted;
      else if (outcome.manifest.status !== 'complete') {
        process.stderr.write(`s3ab: run ${outcome.manifest.status}: ${outcome.manifest.problem}\n`);
        process.exitCode = ExitCode.runFailed;
      }
    });

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
      if (m.status === 'interrupted') process.exitCode = ExitCode.interrupted;
      else if (m.status !== 'complete') {
        process.stderr.write(`s3ab step: step ${o.step} ${m.status}: ${m.problem}\n`);
        process.exitCode = ExitCode.runFailed;
      }
    });

  const aws = program.command('aws').description('run and query benchmarks on AWS (the deployed stack; credentials and region from the standard AWS chain)');
  const stackOpt = () => new Option('--stack <name>', 'CloudFormation stack name').default('S3AccessBench');
  const regionOpt = () => new Option('--region <region>', 'AWS region (default: AWS_REGION / profile)');
  aws.command('run').description('start a state machine execution for a matrix, follow it, print the Athena summary')
    .option('-p, --profile <name>', 'named matrix (default quick)').option('-m, --matrix <file>', 'matrix JSON file')
    .option('--runners <type:count,...>', 'runner specs, e.g. c7g.large:2,m7i.large:1 (default: the stack\'s type, 1 runner)', (v: string) => v.split(',').map((x) => {
      const [instanceType, count] = x.split(':');
      return { instanceType, count: Number(count ?? 1) };
    }))
    .addOption(stackOpt()).addOption(regionOpt())
    .action(async (o) => {
      const { awsRun, defaultClients } = await import('./aws/commands');
      process.exitCode = await awsRun(defaultClients(o.region), { stack: o.stack, profile: o.profile, matrix: o.matrix, runners: o.runners }, (l) => process.stdout.write(`${l}\n`));
    });
  aws.command('query <name>').description('run a named Athena query (assets/queries/NAME.sql) and print the table').addOption(stackOpt()).addOption(regionOpt())
    .action(async (name, o) => {
      const { awsQuery, defaultClients } = await import('./aws/commands');
      process.exitCode = await awsQuery(defaultClients(o.region), o.stack, name, (l) => process.stdout.write(`${l}\n`));
    });
  aws.command('status').description('show the stack outputs and its latest executions').addOption(stackOpt()).addOption(regionOpt())
    .action(async (o) => {
      const { awsStatus, defaultClients } = await import('./aws/commands');
      process.exitCode = await awsStatus(defaultClients(o.region), o.stack, (l) => process.stdout.write(`${l}\n`));
    });

  program
    .command('report')
    .description('report on a run from a results folder: print its tables, write one self-contained HTML page with charts (--html), or compare two runs (--compare)')
    .option('--results <dir>', 'results folder', 'results')
    .option('--run <id>', 'run id (default: the newest run)')
    .option('--html <file>', 'write the report as one self-contained HTML page (charts as SVG, no remote resources) to FILE')
    .option('--compare <runs...>', 'compare two runs, RUN_A RUN_B: run ids in --results, or results folders (their newest run); prints each metric\'s change in %')
    .option('--threshold <pct>', 'with --compare: list changes of at least this many percent', (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number ≥ 0');
      return n;
    }, 5)
    .addHelpText('after', `
Examples:
  s3ab report                                       print the newest run's tables
  s3ab report --html report.html                    the newest run as an HTML page
  s3ab report --run 20260115T101500Z-0a1b2c --html r.html
  s3ab report --compare RUN_A RUN_B                 per-metric change from run A to run B
  s3ab report --compare results-c7g results-m7i --html compare.html   two folders, their newest runs`)
    .action(async (o) => {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      if (o.compare) {
        if (o.compare.length !== 2) throw new UserError(`--compare takes two runs, got ${o.compare.length}`, 'write --compare RUN_A RUN_B (run ids or results folders)');
        const cmp = await loadComparison(o.compare[0], o.compare[1], o.results);
        printComparison(cmp, out, o.threshold);
        if (o.html) {
          const { html } = await renderCompareHtml(cmp, o.threshold);
          out(`comparison: ${writePage(o.html, html)}`);
        }
        return;
      }
      if (o.html) {
        printWrittenReport(await writeHtmlReport(resolve(o.results), o.run, o.html), out);
        return;
      }
      await printSummary(resolve(o.results), o.run, out);
    });

  program
    .command('list')
    .description('list methods (and whether each works on this host), workloads and profiles')
    .option('--require <a,b>', 'exit 2 unless these methods are available here (a host check, as the AWS runner setup does)', list)
    .action(async (o: { require?: string[] }) => {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      const known = METHODS.map((m) => m.name);
      const unknown = (o.require ?? []).filter((name) => !known.includes(name));
      if (unknown.length) throw new UserError(`--require: ${unknown.map((n) => `"${n}"`).join(', ')} ${unknown.length > 1 ? 'are not methods' : 'is not a method'}`, `use one of: ${known.join(', ')}`);
      const methods = new Table({ head: ['method', 'kind', 'available here', 'version / why not', 'variants'], style: { head: [], border: [] }, colWidths: [null, null, null, 60, null] as never, wordWrap: true });
      const missing: string[] = [];
      for (const m of METHODS) {
        const a = await m.probe();
        if (!a.available && o.require?.includes(m.name)) missing.push(`${m.name}: ${a.reason}`);
        methods.push([m.name, m.kind, a.available ? 'yes' : 'no', a.available ? a.version ?? '' : a.reason ?? '', Object.keys(m.variants).join(', ')]);
      }
      out('Methods');
      out(methods.toString());
      if (missing.length) throw new UserError(`required methods are not available on this host: ${missing.join('; ')}`, 'install what each reason names, then check again with `s3ab list --require ...`');
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

function printWrittenReport(w: WrittenReport, out: (line: string) => void): void {
  const empty = w.rendered.sections.filter((s) => !s.hasData).map((s) => s.title);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const t = w.timings;
  out(`report: ${w.path} (run ${w.input.runId}, ${w.rendered.charts} charts, ${(w.rendered.html.length / 1024).toFixed(0)} KiB)`);
  out(`  ${w.input.recordCount.toLocaleString('en-US')} records read in ${s(t.scanMs + t.queryMs + t.renderMs)}: checking lines ${s(t.scanMs)}, DuckDB and SQL ${s(t.queryMs)}, charts and page ${s(t.renderMs)}`);
  if (empty.length) out(`  sections without data: ${empty.join(', ')}`);
  if (w.input.badLineCount) out(`  ${w.input.badLineCount} unreadable lines left out; the page's "Data problems" section lists them`);
  for (const warning of w.rendered.warnings) out(`  chart warning: ${warning}`);
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

if (require.main === module) {
  // `s3ab report | head`: a reader that stops early is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  // Exit once stdout has drained: process.exit drops what a pipe has not taken yet (long reports).
  void main(process.argv).then(() => process.stdout.write('', () => process.exit(process.exitCode ?? 0)));
}
