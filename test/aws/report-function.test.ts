import { AthenaClient, GetQueryExecutionCommand, GetQueryResultsCommand, type GetQueryExecutionCommandInput } from '@aws-sdk/client-athena';
import { CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { buildSync } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReportEvent } from '../../lambda/report';
import { functionBuildOptions } from '../../lib/function-bundles';
import { cleanupAll } from '../../runner/core/cleanup';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { writeHtmlReport, type WrittenReport } from '../../runner/report/html-report';
import { MODEL_QUERIES } from '../../runner/report/model-queries.generated';
import { modelQueries, openResults } from '../../runner/report/results-db';
import { queryForRun } from '../../runner/report/run-query';
import { FIXTURE_ADVICE, writeReportFixture } from '../../scripts/fixtures/report-fixture';
import { athenaResultKey, athenaResultOf, javaDouble, putAthenaResults, type AthenaResult } from '../../scripts/fixtures/athena-results';
import { ROOT, s3ab } from '../helpers/cli';
import { lambdaContext } from '../helpers/lambda-context';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const athena = mockClient(AthenaClient);
const RESULTS = 's3ab-results';

/** The page's sections by id: whether each has data, and its HTML. */
function sectionsOf(html: string): Map<string, { hasData: boolean; html: string }> {
  const out = new Map<string, { hasData: boolean; html: string }>();
  for (const m of html.matchAll(/<section id="([a-z-]+)" data-has-data="(true|false)">([\s\S]*?)<\/section>/g)) out.set(m[1], { hasData: m[2] === 'true', html: m[3] });
  return out;
}

/** The `<h3>` subsections of a section. */
function subsections(html: string): Map<string, string> {
  return new Map([...html.matchAll(/<h3>([^<]+)<\/h3>([\s\S]*?)(?=<h3>|$)/g)].map((m) => [m[1], m[2]]));
}

test('Athena values are written as Athena writes them (Java doubles)', () => {
  expect([100, 0.5, 0.001, 1e-4, 12345678.9, 1e7, 1234567, 0].map(javaDouble)).toEqual(['100.0', '0.5', '0.001', '1.0E-4', '1.23456789E7', '1.0E7', '1234567.0', '0.0']);
});

describe('the Report function: Athena rows of a real results folder in, the same HTML page as `s3ab report --html` out', () => {
  const work = mkdtempSync(join(tmpdir(), 's3ab-report-fn-'));
  const resultsDir = join(work, 'results');
  let server: EmbeddedEndpoint;
  let s3: S3Client;
  let runId: string;
  let local: WrittenReport;
  let report: typeof import('../../lambda/report');
  /** Each query's result, by query execution id (its result file is put into the bucket as Athena writes it). */
  const results = new Map<string, AthenaResult>();
  const queries: ReportEvent['queries'] = [];
  // The matrix asks advice (ValidateInput resolves it, the pipeline passes it): the Advice section has data, as the local run's.
  const execution = { matrix: 'rendering-fixture', steps: 132, startedAt: '2026-01-15T10:15:00.000Z', advice: FIXTURE_ADVICE };

  beforeAll(async () => {
    // With s3files, whose records carry no request counts (as on AWS): its modelled S3 Files metering
    // comes through Athena's rows too.
    ({ runId } = await writeReportFixture(resultsDir, { repetitions: 2, s3files: true, advice: FIXTURE_ADVICE }));
    local = await writeHtmlReport(resultsDir, runId, join(work, 'local.html'));
    // What Aggregate leaves in Athena: each model query, as the state machine wraps it for the run,
    // over the same folder (DuckDB standing in for Athena), its result file in the results bucket.
    const db = await openResults(resultsDir);
    try {
      for (const q of modelQueries()) {
        const result: AthenaResult = await athenaResultOf(db.connection, queryForRun(q.sql, runId));
        const id = `qe-${q.name}`;
        results.set(id, result);
        queries.push({ name: q.name, queryExecutionId: id });
      }
    } finally {
      db.close();
    }
    server = await startEmbeddedEndpoint();
    s3 = makeS3Client(server.target, { maxSockets: 4 });
    await s3.send(new CreateBucketCommand({ Bucket: RESULTS }));
    await putAthenaResults(s3, RESULTS, [...results].map(([queryExecutionId, result]) => ({ queryExecutionId, result })));
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: server.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: server.target.credentials!.secretAccessKey,
      AWS_REGION: 'us-east-1', S3AB_S3_ENDPOINT: server.target.endpointUrl, RESULTS_BUCKET: RESULTS,
      POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'SILENT',
    });
    report = await import('../../lambda/report');
  }, 120_000);

  beforeEach(() => {
    athena.reset();
    athena.on(GetQueryExecutionCommand).callsFake((input: GetQueryExecutionCommandInput) => {
      if (!results.has(input.QueryExecutionId!)) throw Object.assign(new Error(`QueryExecution ${input.QueryExecutionId} was not found`), { name: 'InvalidRequestException' });
      return { QueryExecution: { QueryExecutionId: input.QueryExecutionId, Status: { State: 'SUCCEEDED' }, ResultConfiguration: { OutputLocation: `s3://${RESULTS}/${athenaResultKey(input.QueryExecutionId!)}` } } };
    });
  });

  afterAll(async () => {
    s3?.destroy();
    await server?.stop();
    await cleanupAll();
    rmSync(work, { recursive: true, force: true });
  });

  async function read(key: string): Promise<{ body: string; type: string | undefined }> {
    const res = await s3.send(new GetObjectCommand({ Bucket: RESULTS, Key: key }));
    return { body: await res.Body!.transformToString(), type: res.ContentType };
  }

  test('writes report.html, summary.json and summary.txt under reports/RUNID/ and returns the page\'s location', async () => {
    const out = await report.handler({ runId, queries, execution }, lambdaContext());
    expect(out.reportLocation).toBe(`s3://${RESULTS}/reports/${runId}/report.html`);
    expect(out.files).toEqual(['report.html', 'summary.json', 'summary.txt'].map((f) => `s3://${RESULTS}/reports/${runId}/${f}`));
    expect(out.sectionsWithoutData).toEqual([]);
    // One result file per query, found through GetQueryExecution: no GetQueryResults pages.
    expect(athena.commandCalls(GetQueryExecutionCommand).map((c) => c.args[0].input.QueryExecutionId).sort()).toEqual(MODEL_QUERIES.map((q) => `qe-${q}`).sort());
    expect(athena.commandCalls(GetQueryResultsCommand)).toHaveLength(0);
    // The model's queries, every row of them: interval_series more than one GetQueryResults page would hold.
    expect(out.rows).toBe(MODEL_QUERIES.reduce((n, q) => n + results.get(`qe-${q}`)!.rows.length, 0));
    expect(results.get('qe-interval_series')!.rows.length).toBeGreaterThan(1000);
    const page = await read(`reports/${runId}/report.html`);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.body).toMatch(/^<!DOCTYPE html>/);
    // summary.json: the model's tables, as `s3ab report --format json` writes them.
    const summary = JSON.parse((await read(`reports/${runId}/summary.json`)).body);
    expect(Object.keys(summary)).toEqual(['run', 'cases', 'verdicts', 'findings', 'untrusted', 'advice_needs', 'advice_methods', 'advice_picks', 'tuning', 'tuning_knobs', 'scaling', 'requests', 'seed_claims', 'methods', 'workloads']);
    expect(summary.cases.length).toBe(local.model.cells.length);
  });

  test('summary.txt prints the same tables as the local summary, from the same model, in 100 columns', async () => {
    await report.handler({ runId, queries, execution });
    const remote = (await read(`reports/${runId}/summary.txt`)).body;
    const mine = (await s3ab(['report', '--results', resultsDir, '--run', runId])).stdout;
    // The header differs as the runs' facts do (the pipeline reports a complete run); from the tables on, every line is the same,
    // up to the local summary's last section: the run against the results folder's history, which the function does not read.
    const history = '\nChanges against ';
    const tables = (text: string) => text.slice(text.indexOf('Which method for which workload'), text.includes(history) ? text.indexOf(history) : undefined).trimEnd();
    expect(tables(remote).length).toBeGreaterThan(10_000);
    expect(tables(remote)).toBe(tables(mine));
    expect(remote).toMatch(/^Run \S+ \(rendering-fixture\) — COMPLETE$/m);
    expect(remote.split('\n').filter((l) => [...l].length > 100)).toEqual([]);
    expect(remote).toMatch(/did not finish — [^\n]*\n  mountpoint tar-extract extract: DNF at 10 min/);
  });

  test('the page has the same sections as the local report, identical but for what only the local folder knows', async () => {
    await report.handler({ runId, queries, execution });
    const remote = sectionsOf((await read(`reports/${runId}/report.html`)).body);
    const mine = sectionsOf(local.rendered.html);
    expect([...remote.keys()]).toEqual(local.rendered.sections.map((s) => s.id));
    expect([...remote.keys()]).toEqual(['summary', 'problems', 'advice', 'size', 'ratios', 'over-time', 'percentiles', 'metadata', 'cache', 'semantics', 'workloads', 'requests', 'seed-claims', 'facts']);
    for (const [id, section] of mine) expect({ id, hasData: remote.get(id)!.hasData }).toEqual({ id, hasData: section.hasData });
    // Charts (the time series too), tables, the generated summary: byte for byte.
    for (const id of ['summary', 'advice', 'size', 'ratios', 'over-time', 'percentiles', 'metadata', 'cache', 'semantics', 'workloads', 'requests', 'seed-claims']) {
      expect({ id, html: remote.get(id)!.html }).toEqual({ id, html: mine.get(id)!.html });
    }
    // S3 Files' modelled metering from Athena's text values: s3files rows have it, the others not.
    const requests = remote.get('requests')!.html;
    expect(requests).toContain('<th>S3 Files $ per 1,000 ops — modelled (S3 Files metering)</th>');
    expect(requests).toContain('<td>s3files (cold)</td><td>2,000</td><td>not counted</td><td>–</td><td>not counted</td><td>data read 1 (32 KiB), metadata read 1 (4 KiB)</td>');
    expect(requests).toMatch(/<td>s3-api<\/td><td>20<\/td><td>PUT 1<\/td><td>–<\/td><td>\$0\.0050<\/td><td>–<\/td><td>–<\/td>/);
    // Problems: the fixture's local manifest says the run failed (one step on purpose); the pipeline
    // reports only runs whose steps all succeeded. Everything else in the section is the same.
    const localProblems = mine.get('problems')!.html.replace(/<p class="bad"><strong>Run failed — results incomplete:<\/strong>[^\n]*<\/p>\n?/, '');
    expect(localProblems).not.toBe(mine.get('problems')!.html);
    expect(remote.get('problems')!.html).toBe(localProblems);
    expect(remote.get('problems')!.html).toContain('Measurements that cannot be trusted');
    expect(remote.get('problems')!.html).toContain('Did not finish');
    // Facts: host, methods (versions, options — order-free maps) and workloads the same; the run's own facts from the execution.
    const [rf, lf] = [subsections(remote.get('facts')!.html), subsections(mine.get('facts')!.html)];
    for (const h of ['Host and endpoint', 'Methods: versions and options', 'Workloads: parameters']) expect({ h, html: rf.get(h) }).toEqual({ h, html: lf.get(h) });
    const run = rf.get('Run')!;
    expect(run).toContain('<td>rendering-fixture</td>');
    expect(run).toContain('<td>complete</td>');
    expect(run).toContain('132 of 132 ran, 0 failed');
    expect(run).toContain(`2026-01-15T10:15:00.000Z / `);
    expect(run).toContain(`s3://${RESULTS}/results/ (Athena`);
    expect(run).toContain('not listed (query the results table');
    expect(run).toContain(`${local.model.recordCount.toLocaleString('en-US')} valid records read, 0 unreadable lines`);
  });

  test('the execution\'s advice request is the Advice section\'s question; a matrix that names none leaves the section saying how to ask', async () => {
    const asked = await report.handler({ runId, queries, execution });
    expect(asked.sectionsWithoutData).not.toContain('Advice');
    const advice = sectionsOf((await read(`reports/${runId}/report.html`)).body).get('advice')!;
    expect(advice.hasData).toBe(true);
    expect(advice.html).toContain('rename');
    const summary = JSON.parse((await read(`reports/${runId}/summary.json`)).body);
    expect(summary.advice_picks.length).toBeGreaterThan(0);
    const none = await report.handler({ runId, queries, execution: { ...execution, advice: null } });
    expect(none.sectionsWithoutData).toEqual(['Advice']);
    expect(sectionsOf((await read(`reports/${runId}/report.html`)).body).get('advice')!.html).toContain('names no needs to advise on. Add &quot;advice&quot;');
  });

  test('without the execution\'s facts the page says the run\'s status is unknown', async () => {
    await report.handler({ runId, queries });
    const html = (await read(`reports/${runId}/report.html`)).body;
    expect(html).toContain('status unknown (no run manifest)');
  });

  test('a run with no records: every data section says "No data", and the page is still written', async () => {
    const empty = '20260116T000000Z-000000';
    const db = await openResults(resultsDir);
    try {
      for (const q of modelQueries()) results.set(`qe-empty-${q.name}`, await athenaResultOf(db.connection, queryForRun(q.sql, empty)));
    } finally {
      db.close();
    }
    await putAthenaResults(s3, RESULTS, [...results].filter(([id]) => id.startsWith('qe-empty-')).map(([queryExecutionId, result]) => ({ queryExecutionId, result })));
    const out = await report.handler({ runId: empty, queries: modelQueries().map((q) => ({ name: q.name, queryExecutionId: `qe-empty-${q.name}` })), execution });
    expect(out.rows).toBe(0);
    expect(out.sectionsWithoutData).toEqual(['Which method for which workload', 'Advice', 'Throughput, IOPS and latency against size', 'Tables: A vs B', 'Throughput over time', 'Latency percentiles',
      'Metadata operations', 'Cold vs warm cache', 'POSIX semantics and propagation', 'Workload times (1 client)', 'Requests and request cost', 'Seed claims']);
    expect((await read(`reports/${empty}/report.html`)).body).toContain('No data:');
  });

  test('the deployed bundle (the stack\'s esbuild options, vega-canvas aliased) draws the same page in plain Node', async () => {
    const fixed = new Date('2026-01-15T12:00:00.000Z');
    await report.handler({ runId, queries, execution }, lambdaContext(), { now: () => fixed });
    const inProcess = (await read(`reports/${runId}/report.html`)).body;
    const out = join(work, 'bundle');
    buildSync(functionBuildOptions(['report'], out));
    const eventFile = join(work, 'event.json');
    writeFileSync(eventFile, JSON.stringify({ runId, execution, generatedAt: fixed.toISOString(), queries }));
    await s3.send(new DeleteObjectCommand({ Bucket: RESULTS, Key: `reports/${runId}/report.html` }));
    // The bundle reads the result files and writes the page with its own S3 client, on the same server.
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'fixtures', 'run-report-bundle.cjs'), join(out, 'report', 'index.js'), eventFile], { encoding: 'utf8', env: { ...process.env } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).result.reportLocation).toBe(`s3://${RESULTS}/reports/${runId}/report.html`);
    expect((await read(`reports/${runId}/report.html`)).body).toBe(inProcess);
  });

  test('bad events and Athena errors fail the state with a clear message and write nothing', async () => {
    const failing = '20260117T000000Z-111111';
    await expect(report.handler({ runId: 'nope', queries })).rejects.toMatchObject({ name: 'InvalidEvent', message: expect.stringContaining('runId (a run id) and queries are required') });
    await expect(report.handler({ runId: failing, queries: queries.filter((q) => q.name !== 'run_facts' && q.name !== 'run_health') }))
      .rejects.toMatchObject({ name: 'InvalidEvent', message: expect.stringContaining(`the Aggregate output has no run_facts, run_health — the report needs the named queries ${MODEL_QUERIES.join(', ')} (one per file in assets/queries/model/)`) });
    await expect(report.handler({ runId: failing, queries: [...queries.filter((q) => q.name !== 'run_health'), { name: 'run_health', queryExecutionId: 'qe-gone' }] }))
      .rejects.toMatchObject({ name: 'InvalidRequestException', message: expect.stringContaining('qe-gone') });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: RESULTS, Prefix: `reports/${failing}/` }));
    expect(listed.KeyCount ?? 0).toBe(0);
  });
});
