/**
 * The pipeline's Report function, measured as it is deployed: builds its bundle with the stack's
 * own esbuild options (lib/function-bundles.ts), feeds it the Athena rows of the rendering fixture
 * (the named queries run for the run on DuckDB, shaped as GetQueryResults pages) in a fresh Node
 * process, and prints the bundle size, the module load time, the first (cold) and a second (warm)
 * handler call, and the peak memory — what the function's memory size and timeout are chosen from
 * (lib/pipeline/index.ts: 1,769 MB = one full vCPU, TASK_TIMEOUT_S.report).
 *
 *   npm run bench:report-function
 *
 * Athena hands over aggregated rows, so the number of report cells drives the work, not the
 * number of records: the fixture's 309 cells (5 methods × 11 workloads, every section with data)
 * are several times what a `seed` run gives.
 */
import { buildSync } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionBuildOptions } from '../../lib/function-bundles';
import { TASK_TIMEOUT_S } from '../../lib/pipeline';
import { namedQueries, openResults } from '../../runner/report/results-db';
import { queryForRun } from '../../runner/report/run-query';
import { athenaPages, athenaResultOf } from '../fixtures/athena-results';
import { writeReportFixture } from '../fixtures/report-fixture';
import { failScript, scriptOptions } from '../script-cli';

const TIMEOUT_S = TASK_TIMEOUT_S.report;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 's3ab-bench-report-fn-'));
  try {
    const results = join(work, 'results');
    const { runId, records } = await writeReportFixture(results, { repetitions: 3 });
    const pages: Record<string, unknown[]> = {};
    let cells = 0;
    const db = await openResults(results);
    try {
      for (const q of namedQueries()) {
        const result = await athenaResultOf(db.connection, queryForRun(q.sql, runId));
        if (q.name === 'report_cells') cells = result.rows.length;
        pages[q.name] = athenaPages(result);
      }
    } finally {
      db.close();
    }
    const pagesFile = join(work, 'pages.json');
    writeFileSync(pagesFile, JSON.stringify({ runId, execution: { matrix: 'rendering-fixture', steps: 1, startedAt: new Date().toISOString() }, generatedAt: new Date().toISOString(), pages }));

    const t0 = performance.now();
    buildSync(functionBuildOptions(['report'], join(work, 'bundle')));
    const buildMs = performance.now() - t0;
    const bundle = join(work, 'bundle', 'report', 'index.js');
    const run = spawnSync(process.execPath, [join(__dirname, '..', 'fixtures', 'run-report-bundle.cjs'), bundle, pagesFile, join(work, 'report.html')], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`the bundle failed: ${run.stderr}`);
    const m = JSON.parse(run.stdout) as { loadMs: number; firstMs: number; warmMs: number; maxRssMiB: number };
    const mib = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MiB`;
    const out = [
      `fixture: ${records.toLocaleString('en-US')} records of run ${runId}, ${cells} report cells`,
      `bundle (esbuild, minified): ${mib(statSync(bundle).size)} + source map ${mib(statSync(`${bundle}.map`).size)}; built in ${(buildMs / 1000).toFixed(1)} s`,
      `module load (cold start): ${(m.loadMs / 1000).toFixed(2)} s`,
      `first call (read rows, render, write): ${(m.firstMs / 1000).toFixed(2)} s   warm call: ${(m.warmMs / 1000).toFixed(2)} s`,
      `peak memory: ${m.maxRssMiB.toFixed(0)} MiB`,
      `cold start + first call: ${((m.loadMs + m.firstMs) / 1000).toFixed(2)} s of the ${TIMEOUT_S} s timeout on one core of this machine`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// No options: any argument is refused, naming it.
scriptOptions('bench:report-function', {});
main().catch((err) => failScript('bench:report-function', err));
