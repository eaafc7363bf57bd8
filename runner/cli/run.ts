import { Option, type Command } from 'commander';
import { installSignalHandlers } from '../core/cleanup';
import { errorSummary } from '../core/errors';
import { MAX_CLIENTS, profileNames } from '../core/matrix';
import { defaultReportPath, writeHtmlReport } from '../report/html-report';
import { printSummary } from '../report/summary';
import { addMethodLine } from '../install/setup.mjs';
import { projectRoot } from '../core/paths';
import { dryRunLines, runBenchmark } from '../run';
import type { RunOutcome } from '../run/options';
import { exitCodeFor, parseClientsOption } from '../run/policy';
import { duration, nonEmptyList, nonNegativeNumber, out, positiveInt } from './args';

/** `s3ab run`: a matrix against the embedded server or a named endpoint, then the summary and the HTML report. */
export function registerRun(program: Command): void {
  program
    .command('run')
    .description('run a benchmark matrix against the embedded S3 server (default) or a named endpoint, then print the summary')
    .option('-p, --profile <name>', `named matrix in assets/profiles (${profileNames().join(', ')}); default quick`)
    .option('-m, --matrix <file>', 'matrix JSON file (format: assets/schema/matrix.schema.json)')
    .option('--methods <a,b>', 'only these methods (name or name:variant), e.g. s3-api,aws-cli', nonEmptyList('method'))
    .option('--workloads <x,y>', 'only these workloads, e.g. objects,dir-walk', nonEmptyList('workload'))
    .option('-r, --repetitions <n>', 'repetitions of every step (default: the matrix\'s)', positiveInt)
    .option('--cache <states>', 'cache states on mount methods: cold, warm or cold,warm (default: the matrix\'s)', nonEmptyList('cache state'))
    .option('--step-budget <time>', 'time budget of every step, e.g. 10m: a step still running then stops cleanly, recorded as did-not-finish with its progress and an extrapolated total (default: the matrix\'s budget_s, else none)', duration)
    .option('--results <dir>', 'results folder (Hive layout, Athena-readable)', 'results')
    .option('--endpoint <url>', 'benchmark this S3-compatible endpoint instead of the embedded one (standard AWS credential chain)')
    .option('--bucket <name>', 'existing bucket at --endpoint; the run writes under s3ab/RUNID/ and removes it after')
    .option('--region <region>', 'region for --endpoint (default: AWS_REGION or us-east-1)')
    .option('--html <file>', 'where to write the run\'s HTML report (default: RESULTS/_reports/RUNID.html)')
    .option('--no-html', 'do not write the HTML report')
    .option('--series-interval <seconds>', 'interval of the time series (bytes, operations, errors, latency per interval) of measurements of 10 intervals or more; shorter ones (0.5 s or more) are cut into up to 10 finer intervals; 0 keeps none', nonNegativeNumber, 1)
    .option('--clients <n,...>', `fleet sizes: every step also runs with that many client processes at once on this host, each with its own mount or SDK client, started together by a barrier (1 to ${MAX_CLIENTS}); a single N means 1,N, since scaling is read against the one-client baseline. On one machine this measures the mechanism and the host's contention, not a fleet (default: the matrix's clients, else 1)`)
    .option('--wait', 'when another run on this host is mounting, wait for it instead of refusing (one mount benchmark per host)')
    .option('--dry-run', 'print what the run would do (its steps, methods, option grids) and exit: nothing probed or created')
    .addOption(new Option('--quiet', 'no progress output').hideHelp())
    .addHelpText('after', `
Examples:
  s3ab run                                   quick profile, embedded versitygw, both S3 API methods
  s3ab run --profile seed --methods s3-api   the seeds' sizes, SDK only
  s3ab run --endpoint http://127.0.0.1:9000 --bucket bench --region us-east-1
  s3ab run --clients 3 --methods s3-crt,mountpoint --workloads large-read   1 and 3 clients at once
Exit codes: 0 complete (steps that ran out of their budget included: did-not-finish is a result), 1 a step failed or
hung (results marked incomplete), 2 bad input (nothing created), 130 interrupted.`)
    .action(async (o) => {
      if (o.dryRun) {
        const clients = o.clients === undefined ? undefined : parseClientsOption(o.clients);
        for (const line of dryRunLines({ profile: o.profile, matrixFile: o.matrix, methods: o.methods, workloads: o.workloads, repetitions: o.repetitions, cache: o.cache, stepBudgetS: o.stepBudget, clients })) out(line);
        return;
      }
      const abort = new AbortController();
      installSignalHandlers(abort);
      const outcome = await runBenchmark({
        profile: o.profile, matrixFile: o.matrix, methods: o.methods, workloads: o.workloads, repetitions: o.repetitions, cache: o.cache, stepBudgetS: o.stepBudget,
        clients: o.clients === undefined ? undefined : parseClientsOption(o.clients),
        resultsDir: o.results, endpoint: o.endpoint, bucket: o.bucket, region: o.region, quiet: o.quiet, signal: abort.signal, waitForLock: o.wait,
        seriesIntervalMs: o.seriesInterval * 1000,
      });
      await printOutcome(outcome, o.results, o.html);
      const { status, problem } = outcome.manifest;
      if (status !== 'complete' && status !== 'interrupted') process.stderr.write(`s3ab: run ${status}: ${problem}\n`);
      process.exitCode = exitCodeFor(status);
    });
}

/** After a run: its summary, where its results are, and its HTML report unless `--no-html`. */
async function printOutcome(outcome: RunOutcome, results: string, html: string | boolean | undefined): Promise<void> {
  out('');
  try {
    await printSummary(outcome.resultsDir, outcome.manifest.run_id, out);
  } catch (err) {
    out(`(summary unavailable: ${errorSummary(err)})`);
  }
  out('');
  // Two lines: a long results path must not push the closing line past 100 columns.
  out(`results: ${outcome.files.length} files under ${outcome.resultsDir} (run ${outcome.manifest.run_id})`);
  out(`  \`s3ab report --results ${results}\` prints this again`);
  if (html !== false) {
    try {
      const file = typeof html === 'string' ? html : defaultReportPath(outcome.resultsDir, outcome.manifest.run_id);
      out(`report: ${(await writeHtmlReport(outcome.resultsDir, outcome.manifest.run_id, file)).path}`);
    } catch (err) {
      out(`(HTML report unavailable: ${errorSummary(err)})`);
    }
  }
  // Last, what would make the next run whole: each skipped method that an install adds (s3-crt
  // before its cargo build), with the one command and its time.
  for (const method of new Set((outcome.manifest.skipped ?? []).map((s) => s.method))) {
    const line = addMethodLine(projectRoot(), method);
    if (line) out(line);
  }
}
