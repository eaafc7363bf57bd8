import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import type { BenchFunction } from '../bench-function';
import { lambdaTask, TASK_TIMEOUT_S } from './tasks';

export interface TeardownFlowProps {
  /** The teardown function: terminates the run's runners by tag and deletes its data (all versions). */
  readonly teardown: BenchFunction;
}

/**
 * Teardown and the end of every execution: the Teardown task, then success — or, when an earlier
 * state failed (`$.error`), the execution fails with that error and cause. If Teardown itself
 * fails, the execution still fails with the original error and cause (when there was one), the
 * teardown's error added to the cause — never replacing it. Every state that can fail before
 * Teardown catches into `entry`.
 */
export class TeardownFlow extends sfn.StateMachineFragment {
  readonly startState: sfn.State;
  readonly endStates: sfn.INextable[] = [];
  /** The Teardown task: where every failure before it goes. */
  readonly entry: tasks.LambdaInvoke;

  constructor(scope: Construct, id: string, props: TeardownFlowProps) {
    super(scope, id);
    this.entry = lambdaTask(this, 'Teardown', props.teardown, { 'runId.$': '$.run.value.runId' }, Duration.seconds(TASK_TIMEOUT_S.teardown), '$.teardown');
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
    this.entry.addCatch(new sfn.Choice(this, 'TeardownFailedAfterError?')
      .when(sfn.Condition.isPresent('$.error'), addTeardownError)
      .otherwise(teardownErrorAlone), { errors: ['States.ALL'], resultPath: '$.teardownError' });
    const done = new sfn.Succeed(this, 'Done', { comment: 'The report is at $.report.value.reportLocation' });
    this.entry.next(new sfn.Choice(this, 'FailedBeforeTeardown?').when(sfn.Condition.isPresent('$.error'), failed).otherwise(done));
    this.startState = this.entry;
  }
}
