import { AthenaClient, GetQueryResultsCommand } from '@aws-sdk/client-athena';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeExecutionCommand, GetExecutionHistoryCommand, SFNClient, StartExecutionCommand, type HistoryEvent } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { awsRun, type AwsClients } from '../../runner/aws/commands';
import { UserError } from '../../runner/core/errors';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const cfn = mockClient(CloudFormationClient);
const sfn = mockClient(SFNClient);
const athena = mockClient(AthenaClient);
const clients = (): AwsClients => ({ cfn: new CloudFormationClient({ region: 'us-east-1' }), sfn: new SFNClient({ region: 'us-east-1' }), athena: new AthenaClient({ region: 'us-east-1' }) });
const noSleep = async () => {};
const OUTPUTS = [{ OutputKey: 'StateMachineArn', OutputValue: 'arn:aws:states:us-east-1:1:stateMachine:sm' }, { OutputKey: 'AthenaWorkGroup', OutputValue: 'wg' }];

beforeEach(() => { cfn.reset(); sfn.reset(); athena.reset(); });

test('run: starts an execution with the validated matrix, follows it and prints the summary', async () => {
  cfn.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'S3AccessBench', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: OUTPUTS }] });
  sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn:exec:1', startDate: new Date() });
  const running = { status: 'RUNNING' as const, executionArn: 'arn:exec:1', stateMachineArn: 'sm', startDate: new Date() };
  sfn.on(DescribeExecutionCommand)
    .resolvesOnce(running).resolvesOnce(running).resolvesOnce(running)
    .resolves({ status: 'SUCCEEDED', executionArn: 'arn:exec:1', stateMachineArn: 'sm', startDate: new Date(),
      output: JSON.stringify({ aggregate: [{ name: 'run_health', queryExecutionId: 'q1' }, { name: 'report_cells', queryExecutionId: 'q2' }], report: { value: { reportLocation: 's3://r/reports/x/report.html' } } }) });
  // The history as it grows between polls: provisioning, then the steps Map (3 steps), then the Lambdas.
  let id = 0;
  const ev = (type: string, extra: Partial<HistoryEvent> = {}): HistoryEvent => ({ id: ++id, type: type as HistoryEvent['type'], timestamp: new Date(), ...extra });
  const entered = (name: string, type = 'TaskStateEntered') => ev(type, { stateEnteredEventDetails: { name } });
  const iteration = (type: string, index: number) => ev(type, { [type === 'MapIterationSucceeded' ? 'mapIterationSucceededEventDetails' : 'mapIterationStartedEventDetails']: { name: 'RunBenchmarkSteps', index } });
  sfn.on(GetExecutionHistoryCommand)
    .resolvesOnce({ events: [entered('ValidateInput'), entered('ProvisionRunners')] })
    .resolvesOnce({ events: [entered('RunBenchmarkSteps', 'MapStateEntered'), ev('MapStateStarted', { mapStateStartedEventDetails: { length: 3 } }),
      iteration('MapIterationStarted', 0), entered('RunStep'), entered('RunStepWait', 'WaitStateEntered'), iteration('MapIterationSucceeded', 0), iteration('MapIterationStarted', 1), entered('RunStep')] })
    .resolvesOnce({ events: [entered('RunStepWait', 'WaitStateEntered'), entered('RunStep')] })
    .resolves({ events: [iteration('MapIterationSucceeded', 1), iteration('MapIterationStarted', 2), iteration('MapIterationSucceeded', 2),
      ev('MapStateExited', { stateExitedEventDetails: { name: 'RunBenchmarkSteps' } }), entered('BenchmarkLambdas', 'MapStateEntered')] });
  athena.on(GetQueryResultsCommand).resolves({ ResultSet: { ResultSetMetadata: { ColumnInfo: [{ Name: 'method', Type: 'varchar' }, { Name: 'records', Type: 'bigint' }] },
    Rows: [{ Data: [{ VarCharValue: 'method' }, { VarCharValue: 'records' }] }, { Data: [{ VarCharValue: 's3-api' }, { VarCharValue: '42' }] }] } });
  const lines: string[] = [];
  const code = await awsRun(clients(), { stack: 'S3AccessBench', profile: 'quick', runners: [{ instanceType: 'c7g.large', count: 2 }] }, (l) => lines.push(l), noSleep);
  expect(code).toBe(0);
  const input = JSON.parse(sfn.commandCalls(StartExecutionCommand)[0].args[0].input.input!);
  expect(input.matrix.name).toBe('quick');
  expect(input.runners).toEqual([{ instanceType: 'c7g.large', count: 2 }]);
  const text = lines.join('\n');
  expect(text).toMatch(/started arn:exec:1 \(matrix quick, \d+ steps\)/);
  // Progress: each state once, then step n of m inside the benchmark steps; the poll loop's inner states are not repeated.
  const progress = lines.filter((l) => /^\[/.test(l)).map((l) => l.replace(/^\[[^\]]*\] /, ''));
  expect(progress).toEqual([
    'state ProvisionRunners',
    'state RunBenchmarkSteps — benchmark step 2 of 3 (1 done)',
    'state BenchmarkLambdas',
  ]);
  expect(text).toMatch(/execution SUCCEEDED/);
  expect(text).toMatch(/run_health \(1 rows\)/);
  expect(text).toContain('s3-api');
  expect(text).toContain('report: s3://r/reports/x/report.html');
  // The report's own cell rows stay in the page: only the summary tables are printed.
  expect(athena.commandCalls(GetQueryResultsCommand).map((c) => c.args[0].input.QueryExecutionId)).toEqual(['q1']);
  expect(text).not.toMatch(/report_cells/);
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
