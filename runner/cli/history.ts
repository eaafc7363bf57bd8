import type { Command } from 'commander';
import { resolve } from 'node:path';
import { CATALOG } from '../catalog';
import { UserError } from '../core/errors';
import { loadHistory } from '../report/history/load';
import { otavaChangePoints } from '../report/history/change-points';
import { historyLines } from '../report/history/text';
import { DEFAULT_RULES } from '../report/history/stats';
import { out } from './args';

const collect = (v: string, prev: string[]) => [...prev, v];

/** `s3ab history`: each case's series over every run of the results folder (and --history folders), with its verdict against the runs before it. */
export function registerHistory(program: Command): void {
  program
    .command('history')
    .description('print each case\'s results history: per run its date, run id, client version, median and verdict against the comparable runs before it (flags, behaviour changes, version and option changes)')
    .option('--results <dir>', 'results folder: every run in it is history', 'results')
    .option('--history <dir>', 'another results folder whose runs are history too (repeat for more)', collect, [] as string[])
    .option('--method <name>', 'only this method\'s cases (e.g. s3fs)')
    .option('--workload <name>', 'only this workload\'s cases (e.g. objects)')
    .addHelpText('after', `
Comparable runs are those with the same comparability key (method, variant, workload parameters,
cache state, fleet size, host class, endpoint); a case whose client version or options changed is
still compared, and labelled. A median is flagged only when its robust score against the last
${DEFAULT_RULES.window} comparable runs exceeds ${DEFAULT_RULES.scoreThreshold}, it changed by more than ${DEFAULT_RULES.minChangePct}% and twice the case's own
variation, and it passes a false-discovery control (Benjamini-Hochberg at ${DEFAULT_RULES.fdr}) across the run's
cases; with fewer than ${DEFAULT_RULES.minRuns} comparable runs it says "insufficient history". Requests per operation,
GET bytes per byte read, probe outcomes and verification are compared exactly: any change is a
behaviour change. A change point, where a sustained shift of a case's medians began, is found by
Apache Otava (E-Divisive, then a t-test), where installed: \`npm run setup -- otava\`. Fleet steps
(more than one client) are not in the history.

Examples:
  s3ab history --workload objects                 every objects case of ./results
  s3ab history --method s3fs --results results    one method's cases
  s3ab history --history ../older-results         two folders as one history`)
    .action((o: { results: string; history: string[]; method?: string; workload?: string }) => {
      const methods = CATALOG.methods.map((m) => m.name);
      const workloads = CATALOG.workloads.map((w) => w.name);
      if (o.method && !methods.includes(o.method)) throw new UserError(`--method: "${o.method}" is not a method`, `use one of: ${methods.join(', ')}`);
      if (o.workload && !workloads.includes(o.workload)) throw new UserError(`--workload: "${o.workload}" is not a workload`, `use one of: ${workloads.join(', ')}`);
      const loaded = loadHistory([resolve(o.results), ...o.history.map((d) => resolve(d))]);
      const lines = historyLines(loaded.points, { method: o.method, workload: o.workload }, otavaChangePoints, Math.max(100, process.stdout.columns ?? 100));
      const folders = loaded.folders.map((f) => `${f.dir} (${f.runs} runs${f.badLines ? `, ${f.badLines} unreadable lines left out` : ''})`).join('; ');
      out(`History of ${loaded.runs.length} runs: ${folders}`);
      if (!lines.length) {
        const which = [o.method && `method ${o.method}`, o.workload && `workload ${o.workload}`].filter(Boolean).join(' and ');
        out(`  no case${which ? ` of ${which}` : ''} in these runs${which ? ' (leave out --method/--workload to see every case)' : ''}`);
        return;
      }
      for (const line of lines) out(line);
    });
}
