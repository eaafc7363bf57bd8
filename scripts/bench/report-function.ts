/**
 * The pipeline's Report function, measured as it is deployed and at the size of a `full` run:
 * builds its bundle with the stack's own esbuild options (lib/function-bundles.ts) and runs it in a
 * fresh Node process on the model queries' result files, read as on AWS — GetQueryExecution names
 * each file, the bundle's own S3 client reads it (one GetObject per query) from the embedded
 * S3-compatible server and writes the page there. Prints the bundle size, the module load time,
 * the first (cold) and a second (warm) handler call and the peak memory against the function's
 * timeout and memory (TASK_TIMEOUT_S.report, REPORT_MEMORY_MB in lib/pipeline/).
 *
 *   npm run bench:report-function
 *
 * Athena hands over aggregated rows, so the report's cells and the interval series drive the
 * work, not the number of records. The cells are the rendering fixture's (every section with
 * data, five repetitions as `full` has). The interval series is sized from the `full` profile:
 * the measured model's time of each of its steps (budget applied), cut into the series' default
 * interval, is the most rows its measurements of 10 s or more can give (a measurement runs inside
 * its step; one shorter than that is cut into at most FINE_INTERVALS finer intervals). The bench
 * adds SERIES_MARGIN times that many rows to the fixture's own series, as measurements that run
 * to a 600-s budget, and DuckDB runs interval_series.sql over them, as Athena would.
 *
 * The function's report has no history part (it reads one execution's query results): on AWS the
 * history is the `history` named query over every execution's records in the results bucket. So
 * the bench also writes HISTORY_EXECUTIONS copies of the fixture's records as executions of their
 * own, a day apart, and measures that query: the bytes Athena scans (the table is JSON, read whole:
 * every record file under results/dt=*\/, against the workgroup's scan cutoff) and its run on DuckDB
 * here; and, for the CLI's path after `s3ab aws pull`, the history's load, comparison and change
 * points of the newest execution.
 */
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { buildSync } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionBuildOptions } from '../../lib/function-bundles';
import { REPORT_MEMORY_MB } from '../../lib/pipeline';
import { TASK_TIMEOUT_S } from '../../lib/pipeline/tasks';
import { DEFAULT_SCAN_CUTOFF_BYTES } from '../../lib/results-catalog';
import { estimateFor } from '../../runner/aws/estimate';
import { matrixFor } from '../../runner/catalog';
import { cleanupAll } from '../../runner/core/cleanup';
import { DEFAULT_INTERVAL_MS, FINE_INTERVALS } from '../../runner/core/intervals';
import { INTERVALS_FOLDER } from '../../runner/core/vocabulary';
import { startEmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { loadRunHistory } from '../../runner/report/history/load';
import { ScannedResults } from '../../runner/report/load';
import { localQuery } from '../../runner/report/named-query';
import { modelQueries, openResults } from '../../runner/report/results-db';
import { queryForRun } from '../../runner/report/run-query';
import { athenaResultOf, putAthenaResults } from '../fixtures/athena-results';
import { writeReportFixture } from '../fixtures/report-fixture';
import { failScript, scriptOptions } from '../script-cli';

const TIMEOUT_S = TASK_TIMEOUT_S.report;
const PROFILE = 'full';
/** Rows synthesized per row the estimate gives: room for measurements under 10 s, cut finer than the interval. */
const SERIES_MARGIN = 2;
const BUCKET = 's3ab-results';
/** The history the report's time limit must hold with (on AWS: the history named query). */
const HISTORY_EXECUTIONS = 50;
/** Athena's price per TB scanned (us-east-1, the pricing page), for the query's cost. */
const ATHENA_USD_PER_TB = 5;

/** The most interval rows a profile's run gives at the default interval: each step's modelled seconds, budget applied. */
function intervalRowEstimate(profile: string): { steps: number; toBudget: number; budgetS: number | null; rows: number } {
  const e = estimateFor({ profile });
  const rows = e.steps.reduce((n, s) => n + Math.ceil((s.seconds * 1000) / DEFAULT_INTERVAL_MS), 0);
  return { steps: e.steps.length, toBudget: e.steps.filter((s) => s.didNotFinish).length, budgetS: matrixFor({ profile }).budgetS, rows };
}

/**
 * Adds `rows` interval records to a results folder's series, as measurements of `length` 1-s
 * intervals: each a copy of one of the fixture's measurements (its cell, step and values, cycled)
 * under a new measurement number, so the rows join the run's steps as interval_series.sql asks.
 */
function addIntervalRows(resultsDir: string, rows: number, length: number): number {
  const root = join(resultsDir, INTERVALS_FOLDER);
  const part = readdirSync(root).find((d) => d.startsWith('dt='))!;
  const files = readdirSync(join(root, part)).filter((f) => f.endsWith('.jsonl'));
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const f of files) {
    for (const line of readFileSync(join(root, part, f), 'utf8').split('\n').filter(Boolean)) {
      const r = JSON.parse(line) as Record<string, unknown>;
      const key = `${r.step}:${r.measurement}`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key)!.push(r);
    }
  }
  const templates = [...groups.values()];
  const lines: string[] = [];
  for (let m = 0; lines.length < rows; m++) {
    const t = templates[m % templates.length];
    const measurement = 1000 * (1 + Math.floor(m / templates.length)) + Number(t[0].measurement);
    for (let i = 0; i < length && lines.length < rows; i++) {
      lines.push(JSON.stringify({ ...t[i % t.length], measurement, interval_index: i, interval_ms: 1000, offset_ms: i * 1000, duration_ms: 1000 }));
    }
  }
  writeFileSync(join(root, part, `${String(templates[0][0].run_id)}--synthetic-full-scale.jsonl`), `${lines.join('\n')}\n`);
  return lines.length;
}

/**
 * `executions` copies of a results folder's run, each a run of its own a day apart (its run id and
 * day replaced in every record and manifest), in a new folder; returns it and its runs' ids.
 */
function historyOf(results: string, runId: string, executions: number, into: string): { dir: string; runs: string[]; recordBytes: number; records: number } {
  const day = readdirSync(results).find((d) => d.startsWith('dt='))!;
  const files = readdirSync(join(results, day)).filter((f) => f.endsWith('.jsonl')).map((f) => [f, readFileSync(join(results, day, f), 'utf8')] as const);
  const manifests = readdirSync(join(results, '_runs')).filter((f) => f.startsWith(runId)).map((f) => [f, readFileSync(join(results, '_runs', f), 'utf8')] as const);
  const start = Date.parse(`${day.slice(3)}T10:15:00Z`);
  const runs: string[] = [];
  let recordBytes = 0;
  let records = 0;
  for (let i = 0; i < executions; i++) {
    const at = new Date(start + i * 86_400_000).toISOString();
    const id = `${at.slice(0, 10).replace(/-/g, '')}T101500Z-${i.toString(16).padStart(6, '0')}`;
    const newDay = `dt=${at.slice(0, 10)}`;
    const swap = (text: string) => text.split(runId).join(id).split(day.slice(3)).join(at.slice(0, 10));
    mkdirSync(join(into, newDay), { recursive: true });
    mkdirSync(join(into, '_runs'), { recursive: true });
    for (const [f, text] of files) {
      const body = swap(text);
      writeFileSync(join(into, newDay, swap(f)), body);
      recordBytes += Buffer.byteLength(body);
      records += body.split('\n').filter(Boolean).length;
    }
    for (const [f, text] of manifests) writeFileSync(join(into, '_runs', swap(f)), swap(text));
    runs.push(id);
  }
  return { dir: into, runs, recordBytes, records };
}

/** The history of HISTORY_EXECUTIONS executions: the named query's scanned bytes and its time here, and the CLI's path. */
async function historyFigures(results: string, runId: string, work: string): Promise<{ lines: string[]; overCutoff: boolean }> {
  const h = historyOf(results, runId, HISTORY_EXECUTIONS, join(work, 'history'));
  const t0 = performance.now();
  const table = await localQuery(h.dir, 'history');
  const queryMs = performance.now() - t0;
  const t1 = performance.now();
  const scan = ScannedResults.open(h.dir);
  let cli: { ms: number; cases: number; points: number; changePoints: string };
  try {
    const history = loadRunHistory(scan, h.runs[h.runs.length - 1]);
    cli = {
      ms: performance.now() - t1, cases: history.series.length, points: history.series.reduce((n, s) => n + s.points.length, 0),
      changePoints: history.changePoints.available ? `${history.changePoints.found} change points (Apache Otava)` : `change points not looked for (${history.changePoints.reason})`,
    };
  } finally {
    scan.dispose();
  }
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
  const share = (100 * h.recordBytes) / DEFAULT_SCAN_CUTOFF_BYTES;
  return {
    overCutoff: h.recordBytes > DEFAULT_SCAN_CUTOFF_BYTES,
    lines: [
      `history of ${HISTORY_EXECUTIONS} executions (the fixture's run each, a day apart): ${h.records.toLocaleString('en-US')} records in ${mib(h.recordBytes)} of record files`,
      `  the Report function has no history part: on AWS the history is the \`history\` named query, which scans every record file (JSON, read whole): about ${mib(h.recordBytes)}, ` +
        `${share.toFixed(1)}% of the workgroup's ${mib(DEFAULT_SCAN_CUTOFF_BYTES)} scan cutoff, $${((h.recordBytes / 1e12) * ATHENA_USD_PER_TB).toFixed(4)} at $${ATHENA_USD_PER_TB}/TB`,
      `  the same query on DuckDB here: ${table.rows.length.toLocaleString('en-US')} rows in ${(queryMs / 1000).toFixed(2)} s`,
      `  the CLI's path (after \`s3ab aws pull\`): the newest execution's history read, compared and its series built in ${(cli.ms / 1000).toFixed(2)} s — ${cli.cases} cases, ${cli.points.toLocaleString('en-US')} points, ${cli.changePoints}`,
    ],
  };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 's3ab-bench-report-fn-'));
  const server = await startEmbeddedEndpoint();
  const s3 = makeS3Client(server.target, { maxSockets: 4 });
  try {
    const results = join(work, 'results');
    const { runId, records } = await writeReportFixture(results, { repetitions: 5, s3files: true });
    const estimate = intervalRowEstimate(PROFILE);
    const added = addIntervalRows(results, SERIES_MARGIN * estimate.rows, 600);

    // What Aggregate leaves: each model query's result file, as Athena writes it, in the results bucket.
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const queries: { name: string; queryExecutionId: string }[] = [];
    const rowsOf: Record<string, number> = {};
    let csvBytes = 0;
    const db = await openResults(results);
    try {
      for (const q of modelQueries()) {
        const result = await athenaResultOf(db.connection, queryForRun(q.sql, runId));
        const queryExecutionId = `qe-${q.name}`;
        csvBytes += await putAthenaResults(s3, BUCKET, [{ queryExecutionId, result }]);
        rowsOf[q.name] = result.rows.length;
        queries.push({ name: q.name, queryExecutionId });
      }
    } finally {
      db.close();
    }
    const eventFile = join(work, 'event.json');
    writeFileSync(eventFile, JSON.stringify({ runId, execution: { matrix: `rendering-fixture, ${PROFILE}-sized series`, steps: estimate.steps, startedAt: new Date().toISOString() }, generatedAt: new Date().toISOString(), queries }));

    const t0 = performance.now();
    buildSync(functionBuildOptions(['report'], join(work, 'bundle')));
    const buildMs = performance.now() - t0;
    const bundle = join(work, 'bundle', 'report', 'index.js');
    const creds = server.target.credentials!;
    const run = spawnSync(process.execPath, [join(__dirname, '..', 'fixtures', 'run-report-bundle.cjs'), bundle, eventFile], {
      encoding: 'utf8', maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, AWS_ACCESS_KEY_ID: creds.accessKeyId, AWS_SECRET_ACCESS_KEY: creds.secretAccessKey, AWS_REGION: 'us-east-1', S3AB_S3_ENDPOINT: server.target.endpointUrl, RESULTS_BUCKET: BUCKET },
    });
    if (run.status !== 0) throw new Error(`the bundle failed: ${run.stderr}`);
    const m = JSON.parse(run.stdout) as { loadMs: number; firstMs: number; warmMs: number; firstMaxRssMiB: number; maxRssMiB: number; result: { rows: number } };
    const mib = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MiB`;
    const n = (x: number) => x.toLocaleString('en-US');
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const out = [
      `${PROFILE}: ${estimate.steps} steps, ${estimate.toBudget} modelled to run to their budget (${estimate.budgetS ?? 'none'} s); their modelled time in ${DEFAULT_INTERVAL_MS / 1000}-s intervals: at most ${n(estimate.rows)} interval rows from measurements of ${FINE_INTERVALS} s or more`,
      `series: ${n(added)} rows added (${SERIES_MARGIN} × that, as measurements of 600 one-second intervals) to the fixture's own; interval_series.sql returns ${n(rowsOf.interval_series)} rows`,
      `cells: ${n(rowsOf.report_cells)} report cells from ${n(records)} fixture records of run ${runId}; ${n(m.result.rows)} rows in all, ${mib(csvBytes)} of result files (one GetObject per query)`,
      `bundle (esbuild, minified): ${mib(statSync(bundle).size)} + source map ${mib(statSync(`${bundle}.map`).size)}; built in ${(buildMs / 1000).toFixed(1)} s`,
      `module load (cold start): ${s(m.loadMs)}`,
      `first call (read result files, build the model, render, write): ${s(m.firstMs)}   warm call: ${s(m.warmMs)}`,
      `peak memory: ${m.firstMaxRssMiB.toFixed(0)} MiB after the first call, ${m.maxRssMiB.toFixed(0)} MiB after both, of the function's ${REPORT_MEMORY_MB} MB`,
      `full-scale report: cold start + first call ${s(m.loadMs + m.firstMs)} of the ${TIMEOUT_S} s timeout (function and task) on one core of this machine`,
    ];
    const history = await historyFigures(results, runId, work);
    out.push(...history.lines);
    process.stdout.write(`${out.join('\n')}\n`);
    if (history.overCutoff) {
      process.stderr.write(`the history query of ${HISTORY_EXECUTIONS} executions would scan more than the workgroup's cutoff: raise bytesScannedCutoffPerQuery (lib/results-catalog.ts) or partition the history query by day\n`);
      process.exitCode = 1;
    }
    if (m.firstMaxRssMiB * 1024 * 1024 > REPORT_MEMORY_MB * 1e6) {
      process.stderr.write(`the full-scale report needs more memory than the function's ${REPORT_MEMORY_MB} MB: raise REPORT_MEMORY_MB (lib/pipeline/index.ts)\n`);
      process.exitCode = 1;
    }
    if (m.loadMs + m.firstMs > TIMEOUT_S * 1000) {
      process.stderr.write(`the full-scale report takes longer than the function's ${TIMEOUT_S} s timeout: size TASK_TIMEOUT_S.report (lib/pipeline/tasks.ts) from this figure, or make the report cheaper\n`);
      process.exitCode = 1;
    }
  } finally {
    s3.destroy();
    await server.stop();
    await cleanupAll();
    rmSync(work, { recursive: true, force: true });
  }
}

// No options: any argument is refused, naming it.
scriptOptions('bench:report-function', {});
main().catch((err) => failScript('bench:report-function', err));
