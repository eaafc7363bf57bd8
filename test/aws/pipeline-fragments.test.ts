import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { BenchFunction } from '../../lib/bench-function';
import { checkPipelineProps } from '../../lib/pipeline';
import { PollCommand } from '../../lib/pipeline/poll-command';
import { TeardownFlow } from '../../lib/pipeline/teardown-flow';
import { TASK_TIMEOUT_S } from '../../lib/pipeline/tasks';
import { synthesize, resourcesOf } from '../helpers/stack';

/**
 * The pipeline's fragments rendered alone, as the aws-cdk repo tests Step Functions: a fragment in
 * a tiny stack, its states as JSON; and the IAM the pipeline generates for its functions.
 */
function render(build: (stack: Stack) => sfn.IChainable): { States: Record<string, any>; StartAt: string } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'FragmentTest');
  const sm = new sfn.StateMachine(stack, 'SM', { definitionBody: sfn.DefinitionBody.fromChainable(build(stack)) });
  const resolved = stack.resolve((sm.node.defaultChild as sfn.CfnStateMachine).definitionString);
  const text = typeof resolved === 'string' ? resolved : resolved['Fn::Join'][1].map((p: unknown) => (typeof p === 'string' ? p : 'X')).join('');
  return JSON.parse(text);
}

const fn = (stack: Stack, id: string) => new BenchFunction(stack, id, { entry: 'command-status', description: id });

describe('PollCommand: SendCommand, then checks until done or out of checks', () => {
  const def = render((stack) => new PollCommand(stack, 'Poll', {
    prefix: 'Job', documentName: 'doc', parameters: { a: ['1'] }, budget: { waitSeconds: 7, maxPolls: 3 }, commandStatus: fn(stack, 'Status'),
    onDone: new sfn.Succeed(stack, 'Finished'), onTimeout: new sfn.Fail(stack, 'Late', { error: 'Late' }),
  }));
  test('the loop: Job → JobWait → JobCheck → JobCount → JobDone?', () => {
    expect(def.StartAt).toBe('Job');
    expect(def.States.Job).toMatchObject({ Type: 'Task', Next: 'JobWait', ResultPath: '$.command', Parameters: { DocumentName: 'doc', 'InstanceIds.$': '$.instanceIds', Parameters: { a: ['1'] } } });
    // The version the deployment wrote, not whichever is the default (documents update with NewVersion).
    expect(def.States.Job.Parameters.DocumentVersion).toBe('$LATEST');
    expect(def.States.JobWait).toEqual({ Type: 'Wait', Seconds: 7, Next: 'JobCheck' });
    expect(def.States.JobCheck).toMatchObject({ Type: 'Task', Next: 'JobCount', TimeoutSeconds: 15, ResultPath: '$.commandStatus' });
    expect(def.States.JobCount).toMatchObject({ Type: 'Pass', Next: 'JobDone?', Parameters: { 'attempts.$': 'States.MathAdd($.command.attempts, 1)' } });
  });
  test('done → onDone, after maxPolls → onTimeout, else wait again', () => {
    expect(def.States['JobDone?']).toEqual({
      Type: 'Choice',
      Choices: [
        { Variable: '$.commandStatus.value.done', BooleanEquals: true, Next: 'Finished' },
        { Variable: '$.command.attempts', NumericGreaterThanEquals: 3, Next: 'Late' },
      ],
      Default: 'JobWait',
    });
  });
  test('transient SSM errors are retried; a timed-out call is not', () => {
    const retry = def.States.Job.Retry[0];
    expect(retry.ErrorEquals).toEqual(['Ssm.ThrottlingException', 'Ssm.InternalServerErrorException']);
    expect(retry).toMatchObject({ MaxAttempts: 3, IntervalSeconds: 1, BackoffRate: 2 });
    expect(JSON.stringify(def.States.Job.Retry)).not.toContain('States.Timeout');
  });
  test('a budget that cannot poll is refused', () => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Bad');
    expect(() => new PollCommand(stack, 'P', {
      prefix: 'X', documentName: 'd', parameters: {}, budget: { waitSeconds: 0, maxPolls: 2 }, commandStatus: fn(stack, 'S'), onDone: new sfn.Succeed(stack, 'D'), onTimeout: new sfn.Succeed(stack, 'T'),
    })).toThrow(/waitSeconds ≥ 1/);
  });
});

describe('TeardownFlow: the end of every execution', () => {
  const def = render((stack) => new TeardownFlow(stack, 'T', { teardown: fn(stack, 'Teardown'), maxRounds: 7 }));
  test('rounds: StartTeardown → Teardown → CountTeardownRound → TeardownDone? — again while not done, out of rounds after maxRounds, else the end', () => {
    expect(def.StartAt).toBe('StartTeardown');
    expect(def.States.StartTeardown).toEqual({ Type: 'Pass', Result: { rounds: 0, deletedVersions: 0 }, ResultPath: '$.teardownProgress', Next: 'Teardown' });
    // Each round replaces the last one's small result: the state does not grow with the rounds.
    expect(def.States.Teardown).toMatchObject({ Type: 'Task', TimeoutSeconds: TASK_TIMEOUT_S.teardown, ResultPath: '$.teardown', ResultSelector: { 'value.$': '$.Payload' }, Next: 'CountTeardownRound' });
    expect(def.States.CountTeardownRound).toMatchObject({ Type: 'Pass', ResultPath: '$.teardownProgress', Next: 'TeardownDone?' });
    const notDone = [{ Variable: '$.teardown.value.done', IsPresent: true }, { Variable: '$.teardown.value.done', BooleanEquals: false }];
    expect(def.States['TeardownDone?']).toEqual({
      Type: 'Choice',
      Choices: [
        { And: [{ And: notDone }, { Variable: '$.teardownProgress.rounds', NumericGreaterThanEquals: 7 }], Next: 'TeardownOutOfRounds' },
        { And: notDone, Next: 'Teardown' },
      ],
      Default: 'FailedBeforeTeardown?',
    });
    expect(def.States.TeardownOutOfRounds).toMatchObject({ Type: 'Pass', ResultPath: '$.teardownError', Next: 'TeardownFailedAfterError?', Parameters: { Error: 'TeardownIncomplete' } });
    expect(def.States.TeardownOutOfRounds.Parameters['Cause.$']).toMatch(/lifecycle rule expire-noncurrent-versions/);
  });
  test('then success, or the original error', () => {
    expect(def.States['FailedBeforeTeardown?']).toEqual({ Type: 'Choice', Choices: [{ Variable: '$.error', IsPresent: true, Next: 'ExecutionFailed' }], Default: 'Done' });
    expect(def.States.ExecutionFailed).toEqual({ Type: 'Fail', ErrorPath: '$.error.Error', CausePath: '$.error.Cause' });
  });
  test('a failing Teardown keeps the original error and adds its own to the cause', () => {
    expect(def.States.Teardown.Catch).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.teardownError', Next: 'TeardownFailedAfterError?' }]);
    expect(def.States.AddTeardownError.Parameters['Error.$']).toBe('$.error.Error');
    expect(def.States.AddTeardownError.Parameters['Cause.$']).toMatch(/^States\.Format\('\{\} \[and Teardown failed: \{\}: \{\};/);
    expect(def.States.TeardownErrorAlone.Parameters.Error).toBe('TeardownFailed');
  });
  test('a bound that allows no round is refused', () => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Bad');
    expect(() => new TeardownFlow(stack, 'T', { teardown: fn(stack, 'Teardown'), maxRounds: 0 })).toThrow(/maxRounds must be a whole number ≥ 1/);
  });
});

describe('checkPipelineProps: every conflict at once, before anything is built', () => {
  test('defaults pass', () => {
    expect(checkPipelineProps({}).shard).toEqual({ waitSeconds: 30, maxPolls: 250 });
  });
  test('two conflicting props are both reported', () => {
    let message = '';
    try {
      checkPipelineProps({ ready: { waitSeconds: 0, maxPolls: 1 }, shard: { waitSeconds: 30, maxPolls: 10 }, shardTimeout: Duration.hours(1) });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^Pipeline: 2 problems with its props:/);
    expect(message).toContain('the ready poll budget must have waitSeconds ≥ 1');
    expect(message).toContain('the shard poll budget (300 s) is shorter than shardTimeout (3600 s)');
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
  test('report: Athena results of its workgroup, reads of athena/, writes of reports/ only', () => {
    const st = policyOf('ReportFn');
    expect(st.find((x) => x.Action === 'athena:GetQueryResults')).toBeDefined();
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
});
