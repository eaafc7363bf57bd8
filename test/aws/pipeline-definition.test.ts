import { Match, Template } from 'aws-cdk-lib/assertions';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { checkPipelineProps } from '../../lib/pipeline';
import { TASK_TIMEOUT_S } from '../../lib/pipeline/tasks';
import { WaitForRunners } from '../../lib/pipeline/wait-for-runners';
import { synthesizedDefinition } from '../helpers/definition';
import { synthesize } from '../../scripts/rehearsal/synthesize';
import { resourcesOf } from '../helpers/stack';
import { renderFragment } from '../helpers/fragment';

/**
 * The pipeline's states that need the whole stack (the synthesized definition, which needs the
 * runner bundle dist/s3ab.js), and the IAM the pipeline generates for its functions. The
 * fragments rendered alone are in test/unit/pipeline-fragments.test.ts.
 */

const definition = synthesizedDefinition();
const inner = (map: string) => definition.States[map].ItemProcessor.States;

describe('RunBenchmarkShards: per runner, setup then its steps, each SSM command ending its task by callback', () => {
  const shards = definition.States.RunBenchmarkShards;
  const { SendSetupCommand: sendSetup, SetupRunner: setup, SendShardCommand: sendShard, RunShard: run } = inner('RunBenchmarkShards');
  test('issue 21 (8): each command is sent, then its task waits for the runner\'s callback — no polls — with the token put in the results bucket, never in the command\'s parameters', () => {
    for (const [send, st, document] of [[sendSetup, setup, 'setup'], [sendShard, run, 'run-step']] as const) {
      expect(send.Resource).toBe('arn:aws:states:::aws-sdk:ssm:sendCommand');
      expect(send.ResultPath).toBeNull();
      expect(send.Parameters.Parameters.heartbeatSeconds).toEqual(['60']);
      expect(send.Parameters.DocumentVersion).toBe('$LATEST');
      const key = `States.Format('task-tokens/{}/{}/${document}', $.runId, States.ArrayGetItem($.instanceIds, 0))`;
      expect(send.Parameters.Parameters['taskTokenKey.$']).toBe(`States.Array(${key})`);
      expect(JSON.stringify(send)).not.toContain('Task.Token');
      expect(send.Next).toBe(document === 'setup' ? 'SetupRunner' : 'RunShard');
      expect(st.Resource).toBe('arn:aws:states:::aws-sdk:s3:putObject.waitForTaskToken');
      expect(st.Parameters).toEqual({ Bucket: expect.any(String), 'Key.$': key, 'Body.$': '$$.Task.Token' });
      // A runner that stops sending heartbeats (it died) fails its task long before the command would time out.
      expect(st.HeartbeatSeconds).toBe(600);
    }
    expect(JSON.stringify(definition)).not.toMatch(/RunShardWait|SetupRunnersWait|CommandStatus/);
    expect(shards.ItemProcessor.StartAt).toBe('SendSetupCommand');
    expect(setup.Next).toBe('SendShardCommand');
  });
  test('issue 21 (2): the shard\'s timeout follows from the plan — its command gets the shard\'s timeoutSeconds, the task that and a heartbeat', () => {
    expect(sendShard.Parameters.Parameters['executionTimeout.$']).toBe("States.Array(States.Format('{}', $.shard.timeoutSeconds))");
    expect(run.TimeoutSecondsPath).toBe('$.taskTimeoutSeconds');
    expect(run.TimeoutSeconds).toBeUndefined();
    expect(shards.ItemSelector['taskTimeoutSeconds.$']).toBe('States.MathAdd($$.Map.Item.Value.timeoutSeconds, 600)');
    expect(setup.TimeoutSeconds).toBe(1800 + 600);
    // The setup installs the shard's own list.
    expect(sendSetup.Parameters.Parameters['install.$']).toBe('States.Array(States.JsonToString($.shard.install))');
  });
  test('a silent runner fails as RunnerLost, a late one as ShardTimedOut / SetupTimedOut, naming the runner; other errors (the runner\'s own report) pass through', () => {
    expect(run.Catch).toEqual([
      { ErrorEquals: ['States.HeartbeatTimeout'], ResultPath: '$.failure', Next: 'ShardRunnerLost' },
      { ErrorEquals: ['States.Timeout'], ResultPath: '$.failure', Next: 'ShardTimedOut' },
    ]);
    expect(inner('RunBenchmarkShards').ShardRunnerLost.Parameters).toEqual({ Error: 'RunnerLost', 'Cause.$': "States.Format('runner {} sent no heartbeat for 600 s during its steps: it stopped, hangs or lost its network', States.ArrayGetItem($.instanceIds, 0))" });
    expect(inner('RunBenchmarkShards').ShardRunnerLostFail).toEqual({ Type: 'Fail', ErrorPath: '$.Error', CausePath: '$.Cause' });
    expect(setup.Catch.map((c: any) => c.Next)).toEqual(['SetupRunnerLost', 'SetupTimedOut']);
    expect(shards.Catch).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'StartTeardown' }]);
  });
});

describe('ProvisionRunners: one launch per shard, its own type, falling back across the runner subnets', () => {
  const states = inner('ProvisionRunners');
  test('issue 21 (4): a launch that fails in the first subnet (Unsupported, InsufficientInstanceCapacity, …) is tried in the next; a timed-out one is not', () => {
    expect(Object.keys(states).filter((s) => s.startsWith('RunInstancesInSubnet'))).toEqual(['RunInstancesInSubnet1', 'RunInstancesInSubnet2']);
    expect(states.RunInstancesInSubnet1.Catch).toEqual([
      { ErrorEquals: ['States.Timeout'], ResultPath: '$.launchError', Next: 'LaunchFailed' },
      { ErrorEquals: ['States.ALL'], ResultPath: '$.launchError', Next: 'RunInstancesInSubnet2' },
    ]);
    expect(states.RunInstancesInSubnet2.Catch.map((c: any) => c.Next)).toEqual(['LaunchFailed', 'LaunchFailed']);
    expect(states.RunInstancesInSubnet1.Parameters.SubnetId).not.toBe(states.RunInstancesInSubnet2.Parameters.SubnetId);
    // Each subnet its own idempotency token: a retry in one subnet never launches twice.
    expect(states.RunInstancesInSubnet1.Parameters['ClientToken.$']).toBe("States.Format('{}-{}-1', $.runId, $.index)");
    expect(states.RunInstancesInSubnet2.Parameters['ClientToken.$']).toBe("States.Format('{}-{}-2', $.runId, $.index)");
  });
  test('issue 21 (2): each shard\'s runner launches with the shard\'s instance type and image, one instance per shard', () => {
    expect(definition.States.ProvisionRunners.ItemsPath).toBe('$.run.value.shards');
    expect(states.RunInstancesInSubnet1.Parameters).toMatchObject({ 'InstanceType.$': '$.shard.instanceType', 'ImageId.$': '$.shard.imageId', MinCount: 1, MaxCount: 1 });
  });
});

describe('WaitUntilReady and the read-only calls', () => {
  test('issue 21 (3): runners get minutes to register with SSM (waiting costs nothing), bounded', () => {
    const polls = definition.States['RunnersReady?'].Choices.find((c: any) => c.Variable === '$.ready.attempts').NumericGreaterThanEquals;
    const budget = polls * definition.States.ReadyWait.Seconds;
    expect(budget).toBeGreaterThanOrEqual(5 * 60);
    expect(budget).toBeLessThanOrEqual(15 * 60);
  });
  test('issue 21 (6): the online check has room and a timed-out check is retried; so are the Athena calls (issue 21 (5))', () => {
    expect(definition.States.CheckRunnersOnline.TimeoutSeconds).toBeGreaterThanOrEqual(10);
    for (const st of [definition.States.CheckRunnersOnline, inner('Aggregate').GetNamedQuery, inner('Aggregate').RunSummaryQuery]) {
      expect(st.Retry[0].ErrorEquals).toContain('States.Timeout');
    }
  });
  test('the budget is the fragment\'s', () => {
    const def = renderFragment((stack) => new WaitForRunners(stack, 'W', { budget: { waitSeconds: 7, maxPolls: 3 }, onReady: new sfn.Succeed(stack, 'Ok'), teardown: new sfn.Fail(stack, 'T') }));
    expect(def.States.ReadyWait).toEqual({ Type: 'Wait', Seconds: 7, Next: 'CheckRunnersOnline' });
    expect(def.States['RunnersReady?'].Choices[1]).toEqual({ Variable: '$.ready.attempts', NumericGreaterThanEquals: 3, Next: 'RunnersNotReady' });
  });
});

describe('Aggregate (issue 21 (5)): a timeout that allows queueing, the run\'s day partition', () => {
  const run = inner('Aggregate').RunSummaryQuery;
  test('the query reads the run\'s day (dt) only, and has minutes in Athena\'s queue', () => {
    expect(run.Parameters['QueryString.$']).toMatch(/^States\.Format\('WITH results AS \(SELECT \* FROM s3ab_s3accessbench\.results WHERE dt = \\'\{\}\\'\)/);
    expect(run.Parameters['QueryString.$']).toMatch(/, \$\.day, \$\.named\.sql, \$\.runId, \$\.query\.orderBy\)$/);
    expect(definition.States.Aggregate.ItemSelector['day.$']).toBe('$.run.value.day');
    expect(run.TimeoutSeconds).toBe(TASK_TIMEOUT_S.summaryQuery);
    expect(run.TimeoutSeconds).toBeGreaterThanOrEqual(120);
  });
  test('the queries run at once: fewer than Athena\'s default quota of active DML queries (20); a throttled start is retried', () => {
    expect(definition.States.Aggregate.MaxConcurrency ?? 0).toBe(0);
    expect(definition.States.ListSummaryQueries.Result.length).toBeLessThan(20);
    expect(run.Retry[0].ErrorEquals).toContain('Athena.TooManyRequestsException');
  });
});

describe('Report: what the execution knows about the run, beside the Aggregate queries', () => {
  test('the matrix\'s name, its step count, the start time and the advice ValidateInput resolved (null where the matrix names none)', () => {
    const report = definition.States.Report;
    const payload = report.Parameters.Payload;
    expect(payload['runId.$']).toBe('$.run.value.runId');
    expect(payload.execution).toEqual({
      'matrix.$': '$.run.value.matrixName', 'steps.$': 'States.ArrayLength($.run.value.steps)', 'startedAt.$': '$$.Execution.StartTime', 'advice.$': '$.run.value.advice',
    });
  });
});

describe('the IAM the pipeline generates', () => {
  const s = synthesize();
  const policyOf = (fnId: string) => {
    const role = resourcesOf(s, 'AWS::IAM::Role').find(([id]) => id.startsWith(`Pipeline${fnId}Role`));
    expect(role).toBeDefined();
    const policy = resourcesOf(s, 'AWS::IAM::Policy').find(([, p]) => JSON.stringify(p.Roles).includes(role![0]));
    expect(policy).toBeDefined();
    return policy![1].PolicyDocument.Statement as any[];
  };
  test('report: its workgroup\'s query executions (where each result file is), reads of athena/, writes of reports/ only', () => {
    const st = policyOf('ReportFn');
    expect(JSON.stringify(st.find((x) => x.Action === 'athena:GetQueryExecution')!.Resource)).toContain('workgroup/');
    // The result file is read with GetObject, not paged through GetQueryResults.
    expect(st.some((x) => JSON.stringify(x.Action).includes('athena:GetQueryResults'))).toBe(false);
    expect(JSON.stringify(st.find((x) => x.Action === 's3:GetObject')!.Resource)).toContain('/athena/*');
    expect(JSON.stringify(st.find((x) => x.Action === 's3:PutObject')!.Resource)).toContain('/reports/*');
    expect(st.some((x) => JSON.stringify(x.Action).includes('s3:Delete'))).toBe(false);
  });
  test('teardown: terminates only this stack\'s tagged runners, deletes only the run prefixes', () => {
    const st = policyOf('TeardownFn');
    expect(st.find((x) => x.Action === 'ec2:TerminateInstances')!.Condition).toEqual({ StringEquals: { 'ec2:ResourceTag/s3ab:stack': 'S3AccessBench' } });
    const deletes = st.find((x) => JSON.stringify(x.Action).includes('s3:DeleteObjectVersion'))!;
    expect(JSON.stringify(deletes.Resource)).toMatch(/\/s3ab\/\*.*\/s3ab-\*.*\/docs\//);
    Template.fromStack(s.stack).hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('terminate a run'), Environment: { Variables: Match.objectLike({ DATA_BUCKET: Match.anyValue(), STACK_NAME: 'S3AccessBench' }) },
    });
  });
  test('issue 21 (1): the runner may list the results bucket (s3ab step lists it before any step) and read only executions/, write only results/', () => {
    const [, props] = resourcesOf(s, 'AWS::IAM::Policy').find(([id]) => id.startsWith('RunnersPermissions'))!;
    const bySid = Object.fromEntries((props.PolicyDocument.Statement as any[]).map((st) => [st.Sid, st]));
    const results = resourcesOf(s, 'AWS::S3::Bucket').find(([id]) => id.startsWith('ResultsBucket'))![0];
    expect(bySid.ListResultsBucket).toEqual({ Sid: 'ListResultsBucket', Effect: 'Allow', Action: 's3:ListBucket', Resource: { 'Fn::GetAtt': [results, 'Arn'] } });
    expect(JSON.stringify(bySid.ReadExecutionInput.Resource)).toContain('/executions/*');
  });
  test('issue 21 (8): the runner ends its tasks by callback — states:SendTask* on "*" (the actions take no resource type), nothing else of Step Functions', () => {
    const [, props] = resourcesOf(s, 'AWS::IAM::Policy').find(([id]) => id.startsWith('RunnersPermissions'))!;
    const states = (props.PolicyDocument.Statement as any[]).filter((st) => JSON.stringify(st.Action).includes('states:'));
    expect(states).toEqual([{ Sid: 'TaskCallbacks', Effect: 'Allow', Action: ['states:SendTaskHeartbeat', 'states:SendTaskSuccess', 'states:SendTaskFailure'], Resource: '*' }]);
  });
  test('issue 21 (7): the state machine logs to /aws/vendedlogs/states/…', () => {
    Template.fromStack(s.stack).hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/aws/vendedlogs/states/S3AccessBench-Pipeline' });
    const [, sm] = resourcesOf(s, 'AWS::StepFunctions::StateMachine')[0];
    const group = resourcesOf(s, 'AWS::Logs::LogGroup').find(([, g]) => g.LogGroupName === '/aws/vendedlogs/states/S3AccessBench-Pipeline')![0];
    expect(JSON.stringify(sm.LoggingConfiguration)).toContain(group);
  });
  test('ValidateInput knows the longest shard timeout the execution leaves room for', () => {
    Template.fromStack(s.stack).hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('validate an execution'), Environment: { Variables: Match.objectLike({ MAX_SHARD_SECONDS: String(checkPipelineProps({}).maxShardSeconds) }) },
    });
  });
});
