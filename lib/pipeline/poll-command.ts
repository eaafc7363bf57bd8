import { Aws, Duration, Stack } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { BenchFunction } from '../bench-function';
import { CATCH_TO_TEARDOWN, lambdaTask, sdkTask, TASK_TIMEOUT_S, type PollBudget } from './tasks';

export interface PollCommandProps {
  /** Names the states: PREFIX (SendCommand), PREFIXWait, PREFIXCheck, PREFIXCount, PREFIXDone?. */
  readonly prefix: string;
  /** The SSM document to run on the runners in `$.instanceIds`. */
  readonly documentName: string;
  /** The document's parameters (JSONPath allowed). */
  readonly parameters: Record<string, unknown>;
  /** Checks `budget.waitSeconds` apart, at most `budget.maxPolls`. */
  readonly budget: PollBudget;
  /** The command-status function: one poll of the command on every runner. */
  readonly commandStatus: BenchFunction;
  /** Where the loop goes when the command succeeded on every runner. */
  readonly onDone: sfn.IChainable;
  /** Where it goes after `budget.maxPolls` checks without an answer. */
  readonly onTimeout: sfn.IChainable;
  /** Where the send and the check go on failure (into `$.error`). @default failures propagate (a Map's catch handles them) */
  readonly catchTo?: sfn.IChainable;
}

/**
 * An SSM command on the runners, polled until done: SendCommand → Wait → Check (the
 * command-status function) → Count → Done? — done on every runner, out of checks, or wait again.
 */
export class PollCommand extends sfn.StateMachineFragment {
  readonly startState: sfn.State;
  readonly endStates: sfn.INextable[];

  constructor(scope: Construct, id: string, props: PollCommandProps) {
    super(scope, id);
    const { prefix, budget } = props;
    if (!(budget.waitSeconds >= 1 && budget.maxPolls >= 1 && Number.isInteger(budget.maxPolls))) throw new Error(`PollCommand ${prefix}: the poll budget must have waitSeconds ≥ 1 and a whole maxPolls ≥ 1`);
    const stack = Stack.of(this);
    const documentArn = stack.formatArn({ service: 'ssm', resource: 'document', resourceName: props.documentName });
    const runners = `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${Aws.ACCOUNT_ID}:instance/*`;
    const send = sdkTask(this, prefix, 'ssm', 'sendCommand', {
      DocumentName: props.documentName,
      // The version this deployment wrote: the documents update with NewVersion, which need not
      // make it the default (cloudformation-coverage-roadmap#2539), and SendCommand runs $DEFAULT.
      DocumentVersion: '$LATEST',
      'InstanceIds.$': '$.instanceIds',
      Parameters: props.parameters,
      TimeoutSeconds: 60,
      Comment: `s3-access-bench ${prefix}`,
    }, [documentArn, runners], Duration.seconds(TASK_TIMEOUT_S.sendCommand), { resultSelector: { 'commandId.$': '$.Command.CommandId', attempts: 0 }, resultPath: '$.command' });
    const wait = new sfn.Wait(this, `${prefix}Wait`, { time: sfn.WaitTime.duration(Duration.seconds(budget.waitSeconds)) });
    // Read-only (GetCommandInvocation): a timed-out check is retried, never the end of the run.
    const check = lambdaTask(this, `${prefix}Check`, props.commandStatus, { 'commandId.$': '$.command.commandId', 'instanceIds.$': '$.instanceIds' },
      Duration.seconds(TASK_TIMEOUT_S.commandStatus), '$.commandStatus', { readOnly: true });
    const count = new sfn.Pass(this, `${prefix}Count`, {
      parameters: { 'commandId.$': '$.command.commandId', 'attempts.$': 'States.MathAdd($.command.attempts, 1)' }, resultPath: '$.command',
    });
    if (props.catchTo) {
      send.addCatch(props.catchTo, CATCH_TO_TEARDOWN);
      check.addCatch(props.catchTo, CATCH_TO_TEARDOWN);
    }
    send.next(wait).next(check).next(count).next(new sfn.Choice(this, `${prefix}Done?`)
      .when(sfn.Condition.booleanEquals('$.commandStatus.value.done', true), props.onDone)
      .when(sfn.Condition.numberGreaterThanEquals('$.command.attempts', budget.maxPolls), props.onTimeout)
      .otherwise(wait));
    this.startState = send;
    this.endStates = sfn.Chain.start(props.onDone).endStates;
  }
}
