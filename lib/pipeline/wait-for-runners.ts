import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { SSM_INSTANCE_INFORMATION_PAGE } from '../instance-types';
import { CATCH_TO_TEARDOWN, sdkTask, TASK_TIMEOUT_S, type PollBudget } from './tasks';

export interface WaitForRunnersProps {
  /** Checks `budget.waitSeconds` apart, at most `budget.maxPolls`. */
  readonly budget: PollBudget;
  /** Where it goes when every runner is online. */
  readonly onReady: sfn.IChainable;
  /** Where a failed check or runners never online go (into `$.error`). */
  readonly teardown: sfn.IChainable;
}

/**
 * WaitUntilReady: every runner of `$.runners.instanceIds` online in SSM, in one
 * DescribeInstanceInformation page per check. A fresh instance can take several minutes to
 * register, and waiting costs nothing: the budget is minutes, and a check that times out is
 * retried (it only reads).
 */
export class WaitForRunners extends sfn.StateMachineFragment {
  readonly startState: sfn.State;
  readonly endStates: sfn.INextable[];

  constructor(scope: Construct, id: string, props: WaitForRunnersProps) {
    super(scope, id);
    const { budget } = props;
    const notReady = new sfn.Pass(this, 'RunnersNotReady', {
      result: sfn.Result.fromObject({ Error: 'RunnersNotReady', Cause: `not every runner was online in SSM after ${budget.maxPolls} checks ${budget.waitSeconds} s apart` }),
      resultPath: '$.error',
    }).next(props.teardown);
    const init = new sfn.Pass(this, 'WaitUntilReady', { result: sfn.Result.fromObject({ attempts: 0 }), resultPath: '$.ready' });
    const wait = new sfn.Wait(this, 'ReadyWait', { time: sfn.WaitTime.duration(Duration.seconds(budget.waitSeconds)) });
    const check = sdkTask(this, 'CheckRunnersOnline', 'ssm', 'describeInstanceInformation', {
      Filters: [{ Key: 'InstanceIds', 'Values.$': '$.runners.instanceIds' }, { Key: 'PingStatus', Values: ['Online'] }],
      // One page holds every runner (the default page is 10): MAX_RUNNERS ≤ the page size is checked by the Pipeline.
      MaxResults: SSM_INSTANCE_INFORMATION_PAGE,
    }, ['*'], Duration.seconds(TASK_TIMEOUT_S.checkOnline), { resultSelector: { 'online.$': 'States.ArrayLength($.InstanceInformationList)' }, resultPath: '$.readyCheck', readOnly: true });
    check.addCatch(props.teardown, CATCH_TO_TEARDOWN);
    const count = new sfn.Pass(this, 'CountReadyChecks', {
      parameters: { 'attempts.$': 'States.MathAdd($.ready.attempts, 1)', 'online.$': '$.readyCheck.online', 'expected.$': 'States.ArrayLength($.runners.instanceIds)' },
      resultPath: '$.ready',
    });
    init.next(wait).next(check).next(count).next(new sfn.Choice(this, 'RunnersReady?')
      .when(sfn.Condition.numberEqualsJsonPath('$.ready.online', '$.ready.expected'), props.onReady)
      .when(sfn.Condition.numberGreaterThanEquals('$.ready.attempts', budget.maxPolls), notReady)
      .otherwise(wait));
    this.startState = init;
    this.endStates = sfn.Chain.start(props.onReady).endStates;
  }
}
