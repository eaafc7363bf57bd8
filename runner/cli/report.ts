import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { UserError } from '../core/errors';
import { loadComparison, printComparison, renderCompareHtml } from '../report/compare';
import { writeHtmlReport, writePage, type WrittenReport } from '../report/html-report';
import { printSummary } from '../report/summary';
import { localQuery, printQueryTable } from '../report/named-query';
import { nonNegativeNumber, out } from './args';

/** `s3ab report`: a run's tables again, its HTML page, or the comparison of two runs. */
export function registerReport(program: Command): void {
  program
    .command('report')
    .description('report on a run from a results folder: print its tables, write one self-contained HTML page with charts (--html), or compare two runs (--compare)')
    .option('--results <dir>', 'results folder', 'results')
    .option('--run <id>', 'run id (default: the newest run)')
    .option('--html <file>', 'write the report as one self-contained HTML page (charts as SVG, no remote resources) to FILE')
    .option('--compare <runs...>', 'compare two runs, RUN_A RUN_B: run ids in --results, or results folders (their newest run); prints each metric\'s change in %')
    .option('--threshold <pct>', 'with --compare: list changes of at least this many percent', nonNegativeNumber, 5)
    .option('--history <dir>', 'another results folder whose runs are history too: the summary ends with the run against the comparable runs before it, the page has their series (repeat for more)', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--wide', 'the summary with methods side by side (one column per method), for wide terminals; the default long format fits 100 columns')
    .option('--query <name>', 'run one named query (assets/queries/adhoc/NAME.sql, or a model query in assets/queries/model/) and print its table: on DuckDB over --results, or on Athena with --stack; every run, or the one --run names')
    .option('--stack <name>', 'with --query: run it on Athena in this deployed stack (credentials and region from the standard AWS chain) instead of over --results')
    .option('--region <region>', 'with --stack: AWS region (default: AWS_REGION / profile)')
    .addOption(new Option('--format <format>', 'text (the summary), or the report model\'s tables for scripts: json (one document) or csv (one block per table)').choices(['text', 'json', 'csv']).default('text'))
    .addHelpText('after', `
Examples:
  s3ab report                                       print the newest run's tables
  s3ab report --html report.html                    the newest run as an HTML page
  s3ab report --run 20260115T101500Z-0a1b2c --html r.html
  s3ab report --wide                                methods side by side
  s3ab report --format csv > run.csv                the model's tables (cases, verdicts, findings, requests, ...)
  s3ab report --compare RUN_A RUN_B                 per-metric change from run A to run B
  s3ab report --compare results-c7g results-m7i --html compare.html   two folders, their newest runs
  s3ab report --query web_serving                   one named query over every run of the folder
  s3ab report --query web_serving --stack S3AccessBench   the same query on Athena in the deployed stack`)
    .action(async (o) => {
      if (o.query) return namedQuery(o.query, o);
      if (o.stack || o.region) throw new UserError('--stack and --region go with --query', 'add --query NAME, or drop them (the report of a run reads --results)');
      if (o.compare) return compare(o.compare, o.results, o.threshold, o.html);
      if (o.html) return printWrittenReport(await writeHtmlReport(resolve(o.results), o.run, o.html, o.history));
      await printSummary(resolve(o.results), o.run, out, { wide: o.wide, format: o.format, historyDirs: o.history });
    });
}

/** `--query NAME`: one named query, on DuckDB over the results folder or, with --stack, on Athena. */
async function namedQuery(name: string, o: { results: string; run?: string; stack?: string; region?: string }): Promise<void> {
  if (o.stack) {
    // Loaded lazily: the AWS SDK clients are only needed here.
    const { awsQuery, defaultClients } = await import('../aws/commands');
    process.exitCode = await awsQuery(defaultClients(o.region), o.stack, name, out, undefined, o.run);
    return;
  }
  printQueryTable(o.run ? `${name}, run ${o.run}` : name, await localQuery(resolve(o.results), name, o.run), out);
}

async function compare(runs: string[], resultsDir: string, threshold: number, html: string | undefined): Promise<void> {
  if (runs.length !== 2) throw new UserError(`--compare takes two runs, got ${runs.length}`, 'write --compare RUN_A RUN_B (run ids or results folders)');
  const cmp = await loadComparison(runs[0], runs[1], resultsDir);
  printComparison(cmp, out, threshold);
  if (html) out(`comparison: ${writePage(html, (await renderCompareHtml(cmp, threshold)).html)}`);
}

function printWrittenReport(w: WrittenReport): void {
  const empty = w.rendered.sections.filter((s) => !s.hasData).map((s) => s.title);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const t = w.timings;
  out(`report: ${w.path} (run ${w.model.runId}, ${w.rendered.charts} charts, ${(w.rendered.html.length / 1024).toFixed(0)} KiB)`);
  out(`  ${w.model.recordCount.toLocaleString('en-US')} records read in ${s(t.scanMs + t.queryMs + t.renderMs)}: checking lines ${s(t.scanMs)}, DuckDB and SQL ${s(t.queryMs)}, charts and page ${s(t.renderMs)}`);
  if (empty.length) out(`  sections without data: ${empty.join(', ')}`);
  if (w.model.badLineCount) out(`  ${w.model.badLineCount} unreadable lines left out; the page's "Data problems" section lists them`);
  for (const warning of w.rendered.warnings) out(`  chart warning: ${warning}`);
}
