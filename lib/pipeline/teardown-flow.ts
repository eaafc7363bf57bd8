import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { BenchFunction } from '../bench-function';
import { lambdaTask, TASK_TIMEOUT_S } from './tasks';

/**
 * Teardown rounds at most: each round deletes for about 30 s (a third of the function's 90-s
 * timeout), so 20 rounds delete 2 million versions at S3's 3,500 deletes per second per prefix —
 * many times what a seed execution writes (`npm run bench:teardown` prints the local rate and
 * the rounds it implies; `npm run cost:aws` the seed execution's versions).
 */
export const TEARDOWN_MAX_ROUNDS = 20;

export interface TeardownFlowProps {
  /** The teardown function: terminates the run's runners by tag and deletes its data (all versions), one time-boxed round a call. */
  readonly teardown: BenchFunction;
  /** @default TEARDOWN_MAX_ROUNDS */
  readonly maxRounds?: number;
}

/**
 * Teardown and the end of every execution: StartTeardown → Teardown (one round) → CountTeardownRound
 * → TeardownDone? — again while the function reports `done: false`, at most `maxRounds` times —
 * then success or, when an earlier state failed (`$.error`), the execution fails with that error
 * and cause. If Teardown itself fails, or runs out of rounds, the execution still fails with the
 * original error and cause (when there was one), the teardown's error added to the cause — never
 * replacing it. Every state that can fail before Teardown catches into `entry`.
 *
 * The history stays small: each round overwrites `$.teardown` (the function's small result) and
 * `$.teardownProgress` (rounds and versions deleted so far); nothing is appended per round.
 */
export class TeardownFlow extends sfn.StateMachineFragment {
  readonly startState: sfn.State;
  readonly endStates: sfn.INextable[] = [];
  /** The first state of teardown: where every failure before it goes. */
  readonly entry: sfn.Pass;

  constructor(scope: Construct, id: string, props: TeardownFlowProps) {
    super(scope, id);
    const maxRounds = props.maxRounds ?? TEARDOWN_MAX_ROUNDS;
    if (!(Number.isInteger(maxRounds) && maxRounds >= 1)) throw new Error(`TeardownFlow: maxRounds must be a whole number ≥ 1, got ${maxRounds}`);
    this.entry = new sfn.Pass(this, 'StartTeardown', { result: sfn.Result.fromObject({ rounds: 0, deletedVersions: 0 }), resultPath: '$.teardownProgress' });
    const teardown = lambdaTask(this, 'Teardown', props.teardown, { 'runId.$': '$.run.value.runId' }, Duration.seconds(TASK_TIMEOUT_S.teardown), '$.teardown');
    const failed = new sfn.Fail(this, 'ExecutionFailed', { errorPath: '$.error.Error', causePath: '$.error.Cause' });
    const leftover = 'the janitor and the runner lifetime limit will terminate what is left';
    const addTeardownError = new sfn.Pass(this, 'AddTeardownError', {
      parameters: {
        'Error.$': '$.error.Error',
        'Cause.$': `States.Format('{} [and Teardown failed: {}: {}; ${leftover}]', $.error.Cause, $.teardownError.Error, $.teardownError.Cause)`,
      },
      resultPath: '$.error',
    }).next(failed);
    const teardownErrorAlone = new sfn.Pass(this, 'TeardownErrorAlone', {
      parameters: {
        Error: 'TeardownFailed',
        'Cause.$': `States.Format('Teardown did not finish: {}: {}; ${leftover}', $.teardownError.Error, $.teardownError.Cause)`,
      },
      resultPath: '$.error',
    }).next(failed);
    const teardownFailed = new sfn.Choice(this, 'TeardownFailedAfterError?')
      .when(sfn.Condition.isPresent('$.error'), addTeardownError)
      .otherwise(teardownErrorAlone);
    teardown.addCatch(teardownFailed, { errors: ['States.ALL'], resultPath: '$.teardownError' });
    // The lifecycle rule removes noncurrent versions and delete markers, not current objects: say both.
    const outOfRounds = new sfn.Pass(this, 'TeardownOutOfRounds', {
      parameters: {
        Error: 'TeardownIncomplete',
        'Cause.$': 'States.Format(\'{} rounds deleted {} versions and delete markers but versions are left under {}. '
          + 'The data bucket lifecycle rule expire-noncurrent-versions removes the noncurrent versions and delete markers left there; '
          + `current objects stay until deleted: invoke the function ${props.teardown.function.functionName} again with this runId, it continues where it stopped', `
          + '$.teardownProgress.rounds, $.teardownProgress.deletedVersions, $.teardown.value.left)',
      },
      resultPath: '$.teardownError',
    }).next(teardownFailed);
    const count = new sfn.Pass(this, 'CountTeardownRound', {
      parameters: {
        'rounds.$': 'States.MathAdd($.teardownProgress.rounds, 1)',
        'deletedVersions.$': 'States.MathAdd($.teardownProgress.deletedVersions, $.teardown.value.deletedVersions)',
      },
      resultPath: '$.teardownProgress',
    });
    const done = new sfn.Succeed(this, 'Done', { comment: 'The report is at $.report.value.reportLocation' });
    const finished = new sfn.Choice(this, 'FailedBeforeTeardown?').when(sfn.Condition.isPresent('$.error'), failed).otherwise(done);
    // `done` is checked for presence first: a Choice on a missing field is a runtime error no Catch
    // sees, which would lose the original error. The function always sets it.
    const notDone = sfn.Condition.and(sfn.Condition.isPresent('$.teardown.value.done'), sfn.Condition.booleanEquals('$.teardown.value.done', false));
    this.entry.next(teardown).next(count).next(new sfn.Choice(this, 'TeardownDone?')
      .when(sfn.Condition.and(notDone, sfn.Condition.numberGreaterThanEquals('$.teardownProgress.rounds', maxRounds)), outOfRounds)
      .when(notDone, teardown)
      .otherwise(finished));
    this.startState = this.entry;
  }
}
