import { App, Duration, Stack } from 'aws-cdk-lib';
import { BenchFunction } from '../../lib/bench-function';
import { checkPipelineProps } from '../../lib/pipeline';
import { TeardownFlow } from '../../lib/pipeline/teardown-flow';
import { TASK_TIMEOUT_S } from '../../lib/pipeline/tasks';
import { checkRunnerFleetProps } from '../../lib/runner-fleet';
import { renderFragment } from '../helpers/fragment';

/**
 * The pipeline's fragments rendered alone, as the aws-cdk repo tests Step Functions: a fragment in
 * a tiny stack, its states as JSON; and the props checks that run before anything is built. The
 * fragments that need the whole stack (which needs the runner bundle) are tested in
 * test/aws/pipeline-definition.test.ts.
 */

const fn = (stack: Stack, id: string) => new BenchFunction(stack, id, { entry: 'teardown', description: id });
describe('TeardownFlow: the end of every execution', () => {
  const def = renderFragment((stack) => new TeardownFlow(stack, 'T', { teardown: fn(stack, 'Teardown'), maxRounds: 7 }));
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

describe('checkPipelineProps and checkRunnerFleetProps: every conflict at once, before anything is built', () => {
  const message = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return (err as Error).message;
    }
    return '';
  };
  test('defaults pass', () => {
    expect(checkPipelineProps({}).ready).toEqual({ waitSeconds: 30, maxPolls: 20 });
    expect(checkRunnerFleetProps({}).rootVolumeGiB).toBe(30);
  });
  test('the pipeline\'s conflicting props are all reported', () => {
    const m = message(() => checkPipelineProps({ ready: { waitSeconds: 10, maxPolls: 2 }, heartbeat: { interval: Duration.seconds(5), timeout: Duration.seconds(10) }, executionTimeout: Duration.hours(1) }));
    expect(m).toMatch(/^Pipeline: 4 problems with its props:/);
    expect(m).toContain('the ready poll budget (20 s) is shorter than 3 minutes');
    expect(m).toContain('the heartbeat interval (5 s) is shorter than 10 s');
    expect(m).toContain('the heartbeat timeout (10 s) must allow at least 3 missed heartbeats');
    expect(m).toMatch(/the execution timeout \(3600 s\) leaves -?\d+ s for a shard/);
  });
  test('the fleet\'s conflicting props are all reported (issue 25)', () => {
    const m = message(() => checkRunnerFleetProps({ instanceType: 'big', maxLifetime: Duration.minutes(5), rootVolumeGiB: 4 }, false));
    expect(m).toMatch(/^RunnerFleet: 4 problems with its props:/);
    for (const part of ['"big" is not an EC2 instance type', 'maxLifetime must be 30 minutes to 24 hours', 'rootVolumeGiB must be a whole number 8–1000', 'dist/s3ab.js is missing']) {
      expect(m).toContain(part);
    }
  });
});
