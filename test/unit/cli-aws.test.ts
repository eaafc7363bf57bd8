import { AthenaClient, BatchGetNamedQueryCommand, GetQueryExecutionCommand, GetQueryResultsCommand, ListNamedQueriesCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeExecutionCommand, GetExecutionHistoryCommand, ListExecutionsCommand, SFNClient, StartExecutionCommand, type HistoryEvent } from '@aws-sdk/client-sfn';
import { DescribeInstancesCommand, DescribeInstanceTypeOfferingsCommand, EC2Client, type Instance } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import type { ServiceQuotasApi } from '../../runner/aws/service-quotas';
import { awsQuery, awsRun, awsStatus, ExecutionProgress, type AwsClients } from '../../runner/aws/commands';
import { estimateFor } from '../../runner/aws/estimate';
import { UserError } from '../../runner/core/errors';
import { loadProfile } from '../../runner/core/matrix';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MODEL_QUERIES } from '../../runner/report/model-queries.generated';
import { queryForRun } from '../../runner/report/run-query';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const cfn = mockClient(CloudFormationClient);
const sfn = mockClient(SFNClient);
const athena = mockClient(AthenaClient);
const ec2 = mockClient(EC2Client);
/** The account's Standard vCPU quota as Service Quotas answers it (L-1216C47A), and the calls made. */
const quota = { value: 640, calls: [] as { ServiceCode: string; QuotaCode: string }[] };
const quotas: ServiceQuotasApi = { getServiceQuota: async (input) => { quota.calls.push(input); return { Quota: { Value: quota.value } }; } };
const clients = (): AwsClients => ({
  cfn: new CloudFormationClient({ region: 'us-east-1' }), sfn: new SFNClient({ region: 'us-east-1' }), athena: new AthenaClient({ region: 'us-east-1' }),
  capacity: { ec2: new EC2Client({ region: 'us-east-1' }), quotas },
});
const noSleep = async () => {};
/** The adhoc query files' names, read from their folder. */
const adhocNames = () => readdirSync(join(__dirname, '..', '..', 'assets', 'queries', 'adhoc')).map((f) => f.replace(/\.sql$/, '')).sort();
const ZONES = ['us-east-1a', 'us-east-1b'];
const OUTPUTS = [{ OutputKey: 'StateMachineArn', OutputValue: 'arn:aws:states:us-east-1:1:stateMachine:sm' }, { OutputKey: 'AthenaWorkGroup', OutputValue: 'wg' },
  { OutputKey: 'RunnerAvailabilityZones', OutputValue: ZONES.join(',') }];
/** EC2's answers: the instances running, and every type asked about offered in the zones `offeredIn` gives (default: both). */
function account(running: { InstanceType: string; CpuOptions?: { CoreCount: number; ThreadsPerCore: number }; InstanceLifecycle?: 'spot' }[], offeredIn: (type: string) => string[] = () => ZONES) {
  ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: running as Instance[] }] });
  ec2.on(DescribeInstanceTypeOfferingsCommand).callsFake((input) => {
    const types = input.Filters.find((f: { Name: string }) => f.Name === 'instance-type').Values as string[];
    const zones = input.Filters.find((f: { Name: string }) => f.Name === 'location').Values as string[];
    return { InstanceTypeOfferings: types.flatMap((t) => offeredIn(t).filter((z) => zones.includes(z)).map((Location) => ({ InstanceType: t, LocationType: 'availability-zone', Location }))) };
  });
}

beforeEach(() => { cfn.reset(); sfn.reset(); athena.reset(); ec2.reset(); quota.value = 640; quota.calls = []; account([]); });

test('run: starts an execution with the validated matrix, follows it and prints the summary', async () => {
  cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'S3AccessBench', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: OUTPUTS }] });
  sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn:exec:1', startDate: new Date() });
  const running = { status: 'RUNNING' as const, executionArn: 'arn:exec:1', stateMachineArn: 'sm', startDate: new Date() };
  sfn.on(DescribeExecutionCommand)
    .resolvesOnce(running).resolvesOnce(running).resolvesOnce(running)
    .resolves({ status: 'SUCCEEDED', executionArn: 'arn:exec:1', stateMachineArn: 'sm', startDate: new Date(),
      output: JSON.stringify({
        run: { value: { runId: '20260101T000000Z-abcdef' } },
        aggregate: [...MODEL_QUERIES.map((name) => ({ name, queryExecutionId: `qe-${name}` })), { name: 'objects_by_size', queryExecutionId: 'qe-objects_by_size' }],
        report: { value: { reportLocation: 's3://r/reports/x/report.html' } },
      }) });
  // The history as it grows between polls: provisioning, then the shards Map (3 runners), then the Lambdas.
  let id = 0;
  const ev = (type: string, extra: Partial<HistoryEvent> = {}): HistoryEvent => ({ id: ++id, type: type as HistoryEvent['type'], timestamp: new Date(), ...extra });
  const entered = (name: string, type = 'TaskStateEntered') => ev(type, { stateEnteredEventDetails: { name } });
  const iteration = (type: string, index: number) => ev(type, { [type === 'MapIterationSucceeded' ? 'mapIterationSucceededEventDetails' : 'mapIterationStartedEventDetails']: { name: 'RunBenchmarkShards', index } });
  sfn.on(GetExecutionHistoryCommand)
    .resolvesOnce({ events: [entered('ValidateInput'), entered('ProvisionRunners')] })
    .resolvesOnce({ events: [entered('RunBenchmarkShards', 'MapStateEntered'), ev('MapStateStarted', { mapStateStartedEventDetails: { length: 3 } }),
      iteration('MapIterationStarted', 0), entered('RunShard'), entered('RunShardWait', 'WaitStateEntered'), iteration('MapIterationSucceeded', 0), iteration('MapIterationStarted', 1), entered('RunShard')] })
    .resolvesOnce({ events: [entered('RunShardWait', 'WaitStateEntered'), entered('RunShard')] })
    .resolves({ events: [iteration('MapIterationSucceeded', 1), iteration('MapIterationStarted', 2), iteration('MapIterationSucceeded', 2),
      ev('MapStateExited', { stateExitedEventDetails: { name: 'RunBenchmarkShards' } }), entered('BenchmarkLambdas', 'MapStateEntered')] });
  // Athena's rows of the model's queries, as text: one cell each for two methods; the other queries empty.
  const page = (columns: string[], rows: string[][]) => ({ ResultSet: { ResultSetMetadata: { ColumnInfo: columns.map((Name) => ({ Name, Type: 'varchar' })) },
    Rows: [{ Data: columns.map((c) => ({ VarCharValue: c })) }, ...rows.map((r) => ({ Data: r.map((v) => (v === '' ? {} : { VarCharValue: v })) }))] } });
  const cellColumns = ['run_id', 'workload', 'operation', 'io', 'object_size_bytes', 'method', 'method_variant', 'cache', 'records', 'repetitions', 'distinct_repetitions',
    'mib_s_median', 'ops_s_median', 'duration_ms_min', 'duration_ms_median', 'duration_ms_max', 'p99_us_median'];
  const cellRow = (method: string, mibS: number, ms: number) => ['r', 'objects', 'download', '', '1048576', method, 'default', 'none', '3', '3', '3', String(mibS), String(mibS),
    String(ms * 0.9), String(ms), String(ms * 1.1), '900.0'];
  athena.on(GetQueryResultsCommand).callsFake(({ QueryExecutionId: id }) => (id === 'qe-report_cells' ? page(cellColumns, [cellRow('s3-api', 95, 11), cellRow('aws-cli', 9.5, 110)])
    : id === 'qe-run_health' ? page(['run_id', 'method', 'method_variant', 'workload', 'records', 'failed', 'unverified', 'in_failed_steps'], [['r', 's3-api', 'default', 'objects', '3', '0', '0', '0']])
      : page(['run_id'], [])));
  const lines: string[] = [];
  const code = await awsRun(clients(), { stack: 'S3AccessBench', profile: 'quick', runners: [{ instanceType: 'c7g.large', count: 2 }] }, (l) => lines.push(l), noSleep);
  expect(code).toBe(0);
  const input = JSON.parse(sfn.commandCalls(StartExecutionCommand)[0].args[0].input.input!);
  expect(input.matrix.name).toBe('quick');
  expect(input.runners).toEqual([{ instanceType: 'c7g.large', count: 2 }]);
  const text = lines.join('\n');
  expect(text).toMatch(/started arn:exec:1\n {2}matrix quick, \d+ steps on 2 × c7g\.large: about \d+ min and \$\d+\.\d\d of its own, modelled\n/);
  // Progress: each state once, then how many runners finished inside the benchmark steps; the poll loop's inner states are not repeated.
  const progress = lines.filter((l) => /^\[/.test(l)).map((l) => l.replace(/^\[[^\]]*\] /, ''));
  expect(progress).toEqual([
    'state ProvisionRunners',
    'state RunBenchmarkShards — 1 of 3 runners finished their steps',
    'state BenchmarkLambdas',
  ]);
  expect(text).toMatch(/execution SUCCEEDED/);
  // The closing summary: the report model of the Aggregate queries' rows, printed as the local summary prints it.
  expect(text).toMatch(/^Run 20260101T000000Z-abcdef \(quick\) — COMPLETE$/m);
  expect(text).toMatch(/^objects\s+download 1 MiB\s+s3-api\s+10x faster than aws-cli$/m);
  expect(text).toMatch(/^download 1 MiB\s+s3-api\s+11 ms\s+±10%\s+95 MiB\/s\s+900 µs\s+1x$/m);
  expect(text).toMatch(/^\s+aws-cli\s+110 ms\s+±10%\s+9\.5 MiB\/s\s+900 µs\s+10x$/m);
  expect(text).toMatch(/integrity: all 3 measurements verified/);
  expect(text).toContain('report: s3://r/reports/x/report.html');
  // Only the model's queries are read; the seed-shaped ones stay for `s3ab aws query`.
  expect(athena.commandCalls(GetQueryResultsCommand).map((c) => c.args[0].input.QueryExecutionId).sort()).toEqual(MODEL_QUERIES.map((q) => `qe-${q}`).sort());
  expect(lines.filter((l) => [...l].length > 100)).toEqual([]);
});

test('run: without --runners, the measured model\'s plan is the execution\'s runners (as `aws estimate` prints it)', async () => {
  cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'S', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: OUTPUTS }] });
  sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn:exec:3', startDate: new Date() });
  sfn.on(DescribeExecutionCommand).resolves({ status: 'FAILED', executionArn: 'arn:exec:3', stateMachineArn: 'sm', startDate: new Date(), error: 'E', cause: 'c' });
  await awsRun(clients(), { stack: 'S', profile: 'seed' }, () => {}, noSleep);
  const input = JSON.parse(sfn.commandCalls(StartExecutionCommand)[0].args[0].input.input!);
  expect(input.runners).toEqual(estimateFor({ profile: 'seed' }).runners);
  expect(input.matrix).toEqual(loadProfile('seed'));
});

describe('run: the account\'s capacity is checked before anything is created', () => {
  const stack = () => cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'S', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: OUTPUTS }] });
  const large = (InstanceType: string) => ({ InstanceType, CpuOptions: { CoreCount: 2, ThreadsPerCore: 1 } });

  test('seed on a 32-vCPU quota with 8 running: refused naming the quota, the figures and the fix; no execution started', async () => {
    stack();
    quota.value = 32;
    // 8 Standard vCPUs running (4 × 2), besides a Spot instance and a G instance, which count against other quotas.
    account([large('c7g.large'), large('c7g.large'), large('m7i.large'), large('t4g.large'), { ...large('c7g.large'), InstanceLifecycle: 'spot' }, { InstanceType: 'g5.xlarge', CpuOptions: { CoreCount: 2, ThreadsPerCore: 2 } }]);
    const plan = estimateFor({ profile: 'seed' });
    const needed = plan.runners.reduce((n, r) => n + 2 * r.count, 0);
    expect(needed).toBe(32);
    const err = await awsRun(clients(), { stack: 'S', profile: 'seed' }, () => {}, noSleep).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.problem).toBe(`the account's On-Demand Standard vCPU quota (Service Quotas ec2 L-1216C47A, "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances") is 32 vCPUs and 8 are running: 24 free, and this execution's runners (${plan.runners.map((r) => `${r.count} × ${r.instanceType}`).join(' + ')}) need 32`);
    expect(err.fix).toMatch(/^request an increase to at least 40 vCPUs \(`aws service-quotas request-service-quota-increase --service-code ec2 --quota-code L-1216C47A --desired-value 40`/);
    expect(err.fix).toContain('stop instances to free 8 vCPUs');
    expect(quota.calls).toEqual([{ ServiceCode: 'ec2', QuotaCode: 'L-1216C47A' }]);
    // Only running and pending instances are counted; the offerings asked in the stack's zones.
    expect(ec2.commandCalls(DescribeInstancesCommand)[0].args[0].input.Filters).toEqual([{ Name: 'instance-state-name', Values: ['pending', 'running'] }]);
    expect(ec2.commandCalls(DescribeInstanceTypeOfferingsCommand)[0].args[0].input).toMatchObject({ LocationType: 'availability-zone', Filters: expect.arrayContaining([{ Name: 'location', Values: ZONES }]) });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  test('the same with 8 more vCPUs of quota: it fits exactly, and starts', async () => {
    stack();
    quota.value = 40;
    account([large('c7g.large'), large('c7g.large'), large('m7i.large'), large('t4g.large')]);
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn:exec:4', startDate: new Date() });
    sfn.on(DescribeExecutionCommand).resolves({ status: 'FAILED', executionArn: 'arn:exec:4', stateMachineArn: 'sm', startDate: new Date(), error: 'E', cause: 'c' });
    const lines: string[] = [];
    await awsRun(clients(), { stack: 'S', profile: 'seed' }, (l) => lines.push(l), noSleep);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
    expect(lines).toContain('capacity: the runners take 32 of the 32 On-Demand Standard vCPUs free (quota 40, 8 running)');
  });

  test('c8gn not offered in the stack\'s zones: the plan runs c7gn, its documented equivalent, and says so', async () => {
    stack();
    account([], (t) => (t.startsWith('c8gn.') ? [] : ZONES));
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn:exec:5', startDate: new Date() });
    sfn.on(DescribeExecutionCommand).resolves({ status: 'FAILED', executionArn: 'arn:exec:5', stateMachineArn: 'sm', startDate: new Date(), error: 'E', cause: 'c' });
    const lines: string[] = [];
    await awsRun(clients(), { stack: 'S', profile: 'seed' }, (l) => lines.push(l), noSleep);
    const input = JSON.parse(sfn.commandCalls(StartExecutionCommand)[0].args[0].input.input!);
    const planned = estimateFor({ profile: 'seed' }).runners;
    expect(input.runners).toEqual(estimateFor({ profile: 'seed', runners: planned.map((r) => ({ ...r, instanceType: r.instanceType.replace('c8gn.', 'c7gn.') })) }).runners);
    expect(input.runners.map((r: { instanceType: string }) => r.instanceType)).not.toContain('c8gn.large');
    expect(lines.join('\n')).toMatch(/c8gn\.large is not offered in the stack's runner Availability Zones \(us-east-1a, us-east-1b\): its \d+ runner\(s\) run as c7gn\.large, its documented equivalent/);
  });

  test('a type not offered there and without an equivalent: refused, naming the type, the zones and the fix', async () => {
    stack();
    account([], (t) => (t === 'm7i.large' ? [] : ZONES));
    const err = await awsRun(clients(), { stack: 'S', profile: 'quick', runners: [{ instanceType: 'm7i.large', count: 1 }] }, () => {}, noSleep).catch((e) => e);
    expect(err).toMatchObject({ problem: 'm7i.large is not offered in the stack\'s runner Availability Zones (us-east-1a, us-east-1b), so its runners cannot launch', fix: expect.stringMatching(/^name types offered there with --runners/) });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  test('a stack deployed before the check (no RunnerAvailabilityZones output): refused, naming the fix', async () => {
    cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'S', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: OUTPUTS.slice(0, 2) }] });
    await expect(awsRun(clients(), { stack: 'S', profile: 'quick' }, () => {}, noSleep)).rejects.toMatchObject({ problem: 'stack "S" has no RunnerAvailabilityZones output', fix: expect.stringMatching(/npx cdk deploy/) });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });
});

test('run: a failed execution shows its error and cause and returns 1', async () => {
  cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'S', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: OUTPUTS }] });
  sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn:exec:2', startDate: new Date() });
  sfn.on(DescribeExecutionCommand).resolves({ status: 'FAILED', executionArn: 'arn:exec:2', stateMachineArn: 'sm', startDate: new Date(), error: 'RunnersNotReady', cause: 'not every runner was online' });
  const lines: string[] = [];
  expect(await awsRun(clients(), { stack: 'S' }, (l) => lines.push(l), noSleep)).toBe(1);
  expect(lines.join('\n')).toContain('execution FAILED: RunnersNotReady: not every runner was online');
});

test('run: a missing stack is a user error naming the fix', async () => {
  cfn.on(DescribeStacksCommand).rejects(Object.assign(new Error('Stack with id Nope does not exist'), { name: 'ValidationError' }));
  await expect(awsRun(clients(), { stack: 'Nope' }, () => {}, noSleep)).rejects.toMatchObject({ problem: 'stack "Nope" does not exist in this account and region', fix: expect.stringMatching(/npx cdk deploy/) });
  expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
});

test('run: missing credentials are a user error naming the fix', async () => {
  cfn.on(DescribeStacksCommand).rejects(Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }));
  const err = await awsRun(clients(), { stack: 'S' }, () => {}, noSleep).catch((e) => e);
  expect(err).toBeInstanceOf(UserError);
  expect(err.problem).toBe('no AWS credentials found');
});

test('run: a bad matrix is rejected before anything is started', async () => {
  await expect(awsRun(clients(), { stack: 'S', profile: 'nope' }, () => {}, noSleep)).rejects.toMatchObject({ problem: 'unknown profile "nope"' });
  expect(cfn.commandCalls(DescribeStacksCommand)).toHaveLength(0);
});

describe('query NAME: runs a named query of the stack\'s workgroup and prints the table', () => {
  const stack = () => cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'S', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: OUTPUTS }] });
  /** 60 named queries over two ListNamedQueries pages; BatchGetNamedQuery answers what it is asked (≤ 50 ids). */
  const namedQueries = () => {
    const all = Array.from({ length: 60 }, (_, i) => ({ NamedQueryId: `nq-${i}`, Name: i === 57 ? 'workload_summary' : `query_${String(i).padStart(2, '0')}`, Database: 's3ab', QueryString: `SELECT ${i}` }));
    athena.on(ListNamedQueriesCommand).callsFake((input) => (input.NextToken
      ? { NamedQueryIds: all.slice(50).map((q) => q.NamedQueryId) }
      : { NamedQueryIds: all.slice(0, 50).map((q) => q.NamedQueryId), NextToken: 'page-2' }));
    athena.on(BatchGetNamedQueryCommand).callsFake((input) => {
      if (input.NamedQueryIds.length > 50) throw Object.assign(new Error('too many ids'), { name: 'InvalidRequestException' });
      return { NamedQueries: all.filter((q) => input.NamedQueryIds.includes(q.NamedQueryId)) };
    });
    return all;
  };
  const cell = (v: string) => ({ VarCharValue: v });

  test('prints every row, following the result pages (NextToken), and runs the query\'s SQL in the workgroup', async () => {
    stack();
    namedQueries();
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'qe-1' });
    athena.on(GetQueryExecutionCommand).resolvesOnce({ QueryExecution: { Status: { State: 'RUNNING' } } }).resolves({ QueryExecution: { Status: { State: 'SUCCEEDED' } } });
    const meta = { ColumnInfo: [{ Name: 'method', Type: 'varchar' }, { Name: 'records', Type: 'bigint' }] };
    athena.on(GetQueryResultsCommand)
      .resolvesOnce({ ResultSet: { ResultSetMetadata: meta, Rows: [{ Data: [cell('method'), cell('records')] }, { Data: [cell('s3-api'), cell('42')] }] }, NextToken: 'r2' })
      .resolvesOnce({ ResultSet: { ResultSetMetadata: meta, Rows: [{ Data: [cell('mountpoint'), cell('7')] }] }, NextToken: 'r3' })
      .resolves({ ResultSet: { ResultSetMetadata: meta, Rows: [{ Data: [cell('s3fs'), cell('5')] }] } });
    const lines: string[] = [];
    expect(await awsQuery(clients(), 'S', 'workload_summary', (l) => lines.push(l), noSleep)).toBe(0);
    expect(athena.commandCalls(StartQueryExecutionCommand)[0].args[0].input).toEqual({ QueryString: 'SELECT 57', WorkGroup: 'wg', QueryExecutionContext: { Database: 's3ab' } });
    expect(athena.commandCalls(BatchGetNamedQueryCommand).map((c) => c.args[0].input.NamedQueryIds!.length)).toEqual([50, 10]);
    expect(athena.commandCalls(GetQueryResultsCommand).map((c) => c.args[0].input.NextToken)).toEqual([undefined, 'r2', 'r3']);
    const text = lines.join('\n');
    expect(lines[0]).toBe('workload_summary (3 rows)');
    for (const v of ['method', 'records', 's3-api', '42', 'mountpoint', '7', 's3fs', '5']) expect(text).toContain(v);
    // The column names are printed once, as the header, not as a row.
    expect(text.match(/method/g)).toHaveLength(1);
  });

  test('an unknown name is a user error listing the query files\' names, before any AWS call', async () => {
    stack();
    namedQueries();
    const err = await awsQuery(clients(), 'S', 'nope', () => {}, noSleep).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.problem).toBe('no query named "nope"');
    expect(err.fix).toBe(`name one of the files in assets/queries/: adhoc: ${adhocNames().join(', ')}; model: ${MODEL_QUERIES.join(', ')}`);
    expect(cfn.commandCalls(DescribeStacksCommand)).toHaveLength(0);
    expect(athena.commandCalls(StartQueryExecutionCommand)).toHaveLength(0);
  });

  test('a query the deployed stack lacks (an older deployment) says to redeploy, naming what it has (from every page); nothing is run', async () => {
    stack();
    const all = namedQueries();
    const err = await awsQuery(clients(), 'S', 'web_serving', () => {}, noSleep).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.problem).toBe(`the stack's workgroup wg has no named query "web_serving" (it has: ${all.map((q) => q.Name).sort().join(', ')})`);
    expect(err.problem).toContain('workload_summary'); // on the second page
    expect(err.fix).toContain('redeploy');
    expect(athena.commandCalls(StartQueryExecutionCommand)).toHaveLength(0);
  });

  test('--run restricts the query to one run as the pipeline does; a bad run id is refused first', async () => {
    stack();
    namedQueries();
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'qe-3' });
    athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { Status: { State: 'SUCCEEDED' } } });
    athena.on(GetQueryResultsCommand).resolves({ ResultSet: { ResultSetMetadata: { ColumnInfo: [{ Name: 'n', Type: 'bigint' }] }, Rows: [{ Data: [cell('n')] }] } });
    const runId = '20260115T101500Z-0a1b2c';
    const lines: string[] = [];
    expect(await awsQuery(clients(), 'S', 'workload_summary', (l) => lines.push(l), noSleep, runId)).toBe(0);
    expect(athena.commandCalls(StartQueryExecutionCommand)[0].args[0].input.QueryString).toBe(queryForRun('SELECT 57', runId, { database: 's3ab' }));
    expect(lines[0]).toBe(`workload_summary, run ${runId} (0 rows)`);
    await expect(awsQuery(clients(), 'S', 'workload_summary', () => {}, noSleep, 'latest')).rejects.toMatchObject({ problem: '--run "latest" is not a run id' });
  });

  test('a failed query says why', async () => {
    stack();
    namedQueries();
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'qe-2' });
    athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { Status: { State: 'FAILED', StateChangeReason: 'TABLE_NOT_FOUND: results' } } });
    await expect(awsQuery(clients(), 'S', 'workload_summary', () => {}, noSleep)).rejects.toThrow('query qe-2 FAILED: TABLE_NOT_FOUND: results');
  });
});

describe('status: the stack outputs and its latest executions', () => {
  test('prints each output and the five latest executions', async () => {
    cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'S', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: OUTPUTS }] });
    sfn.on(ListExecutionsCommand).resolves({ executions: [
      { executionArn: 'arn:e2', stateMachineArn: 'sm', name: 'run-2', status: 'RUNNING', startDate: new Date('2026-03-02T10:00:00Z') },
      { executionArn: 'arn:e1', stateMachineArn: 'sm', name: 'run-1', status: 'FAILED', startDate: new Date('2026-03-01T10:00:00Z') },
    ] });
    const lines: string[] = [];
    expect(await awsStatus(clients(), 'S', (l) => lines.push(l))).toBe(0);
    expect(sfn.commandCalls(ListExecutionsCommand)[0].args[0].input).toEqual({ stateMachineArn: 'arn:aws:states:us-east-1:1:stateMachine:sm', maxResults: 5 });
    expect(lines).toEqual([
      // Names padded to the longest.
      `${'AthenaWorkGroup'.padEnd(23)} wg`,
      'RunnerAvailabilityZones us-east-1a,us-east-1b',
      `${'StateMachineArn'.padEnd(23)} arn:aws:states:us-east-1:1:stateMachine:sm`,
      'latest executions:',
      '  2026-03-02T10:00:00.000Z  RUNNING  run-2',
      '  2026-03-01T10:00:00.000Z  FAILED  run-1',
    ]);
  });

  test('no execution yet', async () => {
    cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'S', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: OUTPUTS }] });
    sfn.on(ListExecutionsCommand).resolves({ executions: [] });
    const lines: string[] = [];
    await awsStatus(clients(), 'S', (l) => lines.push(l));
    expect(lines.slice(-2)).toEqual(['latest executions:', '  (none)']);
  });

  test('a missing stack is a user error naming the fix', async () => {
    cfn.on(DescribeStacksCommand).rejects(Object.assign(new Error('Stack with id Nope does not exist'), { name: 'ValidationError' }));
    await expect(awsStatus(clients(), 'Nope', () => {})).rejects.toMatchObject({ problem: 'stack "Nope" does not exist in this account and region' });
  });
});

describe('ExecutionProgress', () => {
  test('a last history page read again on every poll (it has no nextToken) counts its events once', async () => {
    let id = 0;
    const ev = (type: string, extra: Partial<HistoryEvent> = {}): HistoryEvent => ({ id: ++id, type: type as HistoryEvent['type'], timestamp: new Date(), ...extra });
    const page = [
      ev('MapStateEntered', { stateEnteredEventDetails: { name: 'RunBenchmarkShards' } }), ev('MapStateStarted', { mapStateStartedEventDetails: { length: 5 } }),
      ev('MapIterationSucceeded', { mapIterationSucceededEventDetails: { name: 'RunBenchmarkShards', index: 0 } }),
      ev('MapIterationSucceeded', { mapIterationSucceededEventDetails: { name: 'RunBenchmarkShards', index: 1 } }),
    ];
    // The same single page, with no nextToken, on every poll; then one more event appears.
    sfn.on(GetExecutionHistoryCommand).resolvesOnce({ events: page }).resolvesOnce({ events: page })
      .resolves({ events: [...page, ev('MapIterationSucceeded', { mapIterationSucceededEventDetails: { name: 'RunBenchmarkShards', index: 2 } })] });
    const progress = new ExecutionProgress(clients(), 'arn:exec:1');
    expect(await progress.poll()).toBe('state RunBenchmarkShards — 2 of 5 runners finished their steps');
    expect(await progress.poll()).toBeNull(); // nothing new
    expect(await progress.poll()).toBe('state RunBenchmarkShards — 3 of 5 runners finished their steps');
  });
});
