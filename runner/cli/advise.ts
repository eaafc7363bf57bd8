import { InvalidArgumentError, Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { UserError } from '../core/errors';
import { DEFAULT_ADVICE_PRIORITY } from '../core/matrix';
import { LATENCY_HELP, parseLatencyUs } from '../core/units';
import { advise, isAdvisable, PRIORITIES, type Priority } from '../report/advice';
import { DEFAULT_MAX_DELAY_MS, isNeed, NEED_NAMES, NEEDS, type Need } from '../report/advice-needs';
import { adviceLines } from '../report/advice-text';
import { loadReportModel } from '../report/summary';
import { WORKLOAD_DESCRIPTORS } from '../workloads/catalog';
import { list, nonNegativeNumber, out } from './args';

/** A latency such as 800us, 20ms or 1.5s (a bare number is ms), in µs: the matrix's `advice` reads the same. */
const latencyUs = (v: string) => {
  const us = parseLatencyUs(v);
  if (us === null) throw new InvalidArgumentError(`must be ${LATENCY_HELP}`);
  return us;
};

const needsHelp = NEED_NAMES.map((n) => `  ${n.padEnd(17)} ${NEEDS[n].what} (probes: ${NEEDS[n].probes.map((p) => p.probe).join(', ')})`).join('\n');

/** `s3ab advise`: which method for a workload, from a run's measured figures and the semantics the application needs. */
export function registerAdvise(program: Command): void {
  program
    .command('advise')
    .description('which method (with which settings) for a workload: rules out methods whose measured semantics probes fail your needs, then gives the Pareto set over throughput, p99 and request cost, and a pick for your priority')
    .option('--results <dir>', 'results folder', 'results')
    .option('--run <id>', 'run id (default: the newest run); the workload and the semantics probes are read from this run')
    .requiredOption('--workload <name>', 'the workload to advise on, as the run measured it (e.g. tar-extract, large-read)')
    .option('--needs <a,b>', 'what your application needs of the method (see below); a method whose probes were not measured is never assumed to meet a need', list)
    .option('--max-cost-per-million <usd>', 'leave out methods whose request cost per million operations is above this (USD; S3 requests at S3 Standard prices, plus S3 Files\' modelled metering)', nonNegativeNumber)
    .option('--p99-under <time>', 'leave out methods whose p99 latency is not below this (e.g. 50ms, 800us, 1.5s)', latencyUs)
    .addOption(new Option('--max-delay <time>', 'the propagation probes\' threshold for read-after-write and sees-s3-writes (e.g. 500ms, 5s)').argParser(latencyUs).default(DEFAULT_MAX_DELAY_MS * 1000, `${DEFAULT_MAX_DELAY_MS / 1000}s`))
    .option('--host-class <type>', 'the host class you will run on (an instance type such as c7g.large, or local:NvCPU:MGiB): figures from another class carry a warning')
    .addOption(new Option('--priority <what>', 'what the pick optimizes among the Pareto set').choices([...PRIORITIES]).default(DEFAULT_ADVICE_PRIORITY))
    .addOption(new Option('--format <format>', 'text, or json (the advice as one document)').choices(['text', 'json']).default('text'))
    .addHelpText('after', `
Needs:
${needsHelp}

Only measured figures count: medians over repetitions of one run, per case of the workload
(operation, size, cache state). "No clear winner" where the best method's range overlaps another's.

Examples:
  s3ab advise --workload tar-extract --needs rename,append
  s3ab advise --workload large-read --priority cost --max-cost-per-million 5
  s3ab advise --workload small-reads --p99-under 20ms --host-class c7g.large --format json`)
    .action(async (o) => {
      const needs = checkedNeeds(o.needs ?? []);
      const workload = checkedWorkload(o.workload);
      const model = await loadReportModel(resolve(o.results), o.run);
      const measured = [...new Set(model.cells.map((c) => c.workload))];
      if (!measured.includes(workload)) {
        throw new UserError(`run ${model.runId} has no measurements of ${workload}`, measured.length ? `advise on one it measured (${measured.join(', ')}), or name another run with --run` : 'name a run with measurements with --run');
      }
      const advice = advise(model, {
        workload, needs, priority: o.priority as Priority, maxDelayMs: o.maxDelay / 1000,
        maxCostPerMillion: o.maxCostPerMillion ?? null, p99UnderUs: o.p99Under ?? null, hostClass: o.hostClass ?? null,
      });
      if (o.format === 'json') out(JSON.stringify(advice, null, 2));
      else for (const line of adviceLines(advice)) out(line);
    });
}

function checkedNeeds(given: string[]): Need[] {
  const unknown = given.filter((n) => !isNeed(n));
  if (unknown.length) throw new UserError(`--needs: ${unknown.map((n) => `"${n}"`).join(', ')} ${unknown.length > 1 ? 'are not needs' : 'is not a need'}`, `use any of: ${NEED_NAMES.join(', ')}`);
  return [...new Set(given)] as Need[];
}

function checkedWorkload(name: string): string {
  const known = WORKLOAD_DESCRIPTORS.map((w) => w.name as string);
  if (!known.includes(name)) throw new UserError(`--workload: "${name}" is not a workload`, `use one of: ${known.join(', ')}`);
  // Its probes are what --needs reads: they decide which methods qualify, not which is fastest.
  if (!isAdvisable(name)) throw new UserError(`--workload: ${name} is what --needs reads, not a workload to advise on`, `name the workload your application runs, with --needs for the semantics it needs (see --help)`);
  return name;
}
