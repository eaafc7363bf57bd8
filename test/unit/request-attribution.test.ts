import { AthenaClient, BatchGetNamedQueryCommand, GetQueryExecutionCommand, GetQueryResultsCommand, ListNamedQueriesCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { SFNClient } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awsQueryRequests, type AwsClients } from '../../runner/aws/commands';
import { capacityClients } from '../../runner/aws/capacity';
import { attachAccessLogs, attachIntervals, accessLogQueries, namedQueries, openRecords, query, type OpenedResults } from '../../runner/report/results-db';
import { writeReportFixture } from '../../scripts/fixtures/report-fixture';
import { readFileSync, readdirSync } from 'node:fs';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const RUN = '20261124T100000Z-abc123';
const RUNNER = 'i-0abc';
const SDK_UA = '"aws-sdk-js/3.0 ua/2.1 os/linux"';

/** One line of an S3 server access log in AWS's documented format (quoted request URI and user agent). */
function logLine(at: string, operation: string, key: string, sent: number | '-', size: number | '-', ua = SDK_UA): string {
  const verb = operation.split('.')[1];
  return `79a59df900b949e5 data-bucket [24/Nov/2026:${at} +0000] 192.0.2.3 arn:aws:sts::123456789012:assumed-role/runner/i-0abc 3E57427F3EXAMPLE ${operation} ${key} ` +
    `"${verb} /data-bucket/${key} HTTP/1.1" 200 - ${sent} ${size} 7 6 "-" ${ua} - s9lzHYrFp76ZVxRcpX9+5cjAnEH2ROuNkd2BHfIa6UkFVdtjf5mKR3/eTPFvsiP/XV/VLi31234= SigV4 ` +
    'ECDHE-RSA-AES128-GCM-SHA256 AuthHeader data-bucket.s3.us-east-1.amazonaws.com TLSv1.3 - -';
}

/**
 * Issue 15 on AWS: the data bucket's server access logs attributed to runs, runners and steps by
 * the named query request_attribution — run here on DuckDB over a log file in AWS's format and
 * result records, through `s3ab aws query requests` with Athena answered by DuckDB.
 */
describe('request attribution from S3 server access logs', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-attribution-'));
  let db: OpenedResults;
  const athena = mockClient(AthenaClient);
  const cfn = mockClient(CloudFormationClient);
  const clients = (): AwsClients => ({ cfn: new CloudFormationClient({ region: 'us-east-1' }), sfn: new SFNClient({ region: 'us-east-1' }), athena: new AthenaClient({ region: 'us-east-1' }), capacity: capacityClients('us-east-1') });

  beforeAll(async () => {
    // Result records of run RUN on runner RUNNER: step 1 measured 10:00:10–10:00:20, step 2 10:00:30–10:00:40.
    await writeReportFixture(join(dir, 'fixture'), { repetitions: 1, runId: '20260115T101500Z-901d3e' });
    const part = readdirSync(join(dir, 'fixture')).find((d) => d.startsWith('dt='))!;
    const template = JSON.parse(readFileSync(join(dir, 'fixture', part, readdirSync(join(dir, 'fixture', part))[0]), 'utf8').split('\n')[0]);
    const record = (step: number, from: string, to: string) => JSON.stringify({
      ...template, run_id: RUN, step, host: { ...template.host, runner_id: RUNNER }, started_at: `2026-11-24T${from}Z`, recorded_at: `2026-11-24T${to}Z`,
    });
    mkdirSync(join(dir, 'results', 'dt=2026-11-24'), { recursive: true });
    writeFileSync(join(dir, 'results', 'dt=2026-11-24', `${RUN}--s001.jsonl`), `${record(1, '10:00:10', '10:00:15')}\n${record(1, '10:00:16', '10:00:20')}\n${record(2, '10:00:30', '10:00:40')}\n`);
    const p = `s3ab/${RUN}/${RUNNER}`;
    writeFileSync(join(dir, 'access.log'), [
      logLine('10:00:12', 'REST.PUT.OBJECT', `${p}/steps/001/x`, '-', 4096),
      logLine('10:00:15', 'REST.GET.OBJECT', `${p}/fixtures/f/0`, 100, 100),
      logLine('10:00:33', 'REST.HEAD.OBJECT', `${p}/steps/002/y`, '-', 100),
      logLine('10:00:35', 'REST.GET.OBJECT', `${p}/fixtures/f/1`, 50, 100),
      // The runner's own check: left out.
      logLine('10:00:16', 'REST.GET.BUCKET', '-', 500, '-', '"aws-sdk-js/3.0 s3ab-runner"'),
      logLine('10:00:17', 'REST.GET.BUCKET', `${p}/steps/001/`, 500, '-', '"aws-sdk-js/3.0 s3ab-runner"'),
      // A fixture read outside every measurement: the run's, but no step's.
      logLine('10:05:00', 'REST.GET.OBJECT', `${p}/fixtures/f/2`, 100, 100),
      // Another run.
      logLine('10:00:12', 'REST.PUT.OBJECT', `s3ab/20261124T090000Z-ffffff/${RUNNER}/steps/001/x`, '-', 10),
    ].join('\n') + '\n');
    db = await openRecords(join(dir, 'results', 'dt=*', '*.jsonl'), { hivePartitioning: true, materialize: true });
    // Athena's database has the intervals table beside the records (the run filter reads both): empty here.
    await attachIntervals(db.connection, []);
    await attachAccessLogs(db.connection, [join(dir, 'access.log')]);

    // Athena, answered by DuckDB: the stack's named queries, run on the same SQL.
    const named = [...namedQueries(), ...accessLogQueries()].map((q, i) => ({ NamedQueryId: `nq-${i}`, Name: q.name, Database: 's3ab', QueryString: q.sql }));
    cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'S', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE',
      Outputs: [{ OutputKey: 'StateMachineArn', OutputValue: 'arn:sm' }, { OutputKey: 'AthenaWorkGroup', OutputValue: 'wg' }] }] });
    athena.on(ListNamedQueriesCommand).resolves({ NamedQueryIds: named.map((q) => q.NamedQueryId) });
    athena.on(BatchGetNamedQueryCommand).callsFake((input) => ({ NamedQueries: named.filter((q) => input.NamedQueryIds.includes(q.NamedQueryId)) }));
    const results = new Map<string, Record<string, unknown>[]>();
    athena.on(StartQueryExecutionCommand).callsFake(async (input) => {
      const id = `qe-${results.size}`;
      // The named queries' database is Athena's (s3ab); DuckDB's is main.
      results.set(id, await query(db.connection, input.QueryString!.replaceAll('s3ab.', 'main.')));
      return { QueryExecutionId: id };
    });
    athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { Status: { State: 'SUCCEEDED' } } });
    athena.on(GetQueryResultsCommand).callsFake((input) => {
      const rows = results.get(input.QueryExecutionId)!;
      const cols = Object.keys(rows[0] ?? {});
      const cell = (v: unknown) => (v === null || v === undefined ? {} : { VarCharValue: String(v) });
      return { ResultSet: { ResultSetMetadata: { ColumnInfo: cols.map((Name) => ({ Name, Type: 'varchar' })) },
        Rows: [{ Data: cols.map((c) => ({ VarCharValue: c })) }, ...rows.map((r) => ({ Data: cols.map((c) => cell(r[c])) }))] } };
    });
  });
  afterAll(() => { db?.close(); rmSync(dir, { recursive: true, force: true }); athena.restore(); cfn.restore(); });

  test('the named query attributes by key prefix and by measurement window, leaving the runner\'s own requests out', async () => {
    const sql = accessLogQueries().find((q) => q.name === 'request_attribution')!.sql;
    const rows = (await query(db.connection, sql)).filter((r) => r.run_id === RUN)
      .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
    const byStep = Object.fromEntries(rows.map((r) => [String(r.step), r]));
    expect(Object.keys(byStep).sort()).toEqual(['1', '2', 'null']);
    expect(byStep['1']).toMatchObject({ runner: RUNNER, logged: 2, put: 1, get: 1, get_ranged: 0, head: 0, list: 0 });
    expect(byStep['2']).toMatchObject({ logged: 2, head: 1, get_ranged: 1, get: 0, get_bytes: 50 });
    // The fixture read outside every measurement window: the run's, no step's.
    expect(byStep.null).toMatchObject({ logged: 1, get: 1 });
  });

  test('`s3ab aws query requests --run ID` prints the counts and says they are not final while logs may still arrive', async () => {
    const lines: string[] = [];
    const runStart = Date.UTC(2026, 10, 24, 10, 0, 0);
    expect(await awsQueryRequests(clients(), 'S', RUN, (l) => lines.push(l), async () => {}, () => runStart + 3600_000)).toBe(0);
    const text = lines.join('\n');
    expect(text).toMatch(/requests per step, from S3 server access logs \(3 rows\)/);
    expect(text).toMatch(/run 20261124T100000Z-abc123: 2 of 2 steps have access-log entries so far; NOT FINAL/);
    expect(text).not.toContain('20261124T090000Z-ffffff');
    const later: string[] = [];
    await awsQueryRequests(clients(), 'S', RUN, (l) => later.push(l), async () => {}, () => runStart + 40 * 3600_000);
    expect(later.join('\n')).toMatch(/2 of 2 steps have access-log entries so far; final/);
    await expect(awsQueryRequests(clients(), 'S', 'nope', () => {}, async () => {})).rejects.toThrow(/not a run id/);
  });
});
