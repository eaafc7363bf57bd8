import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { BenchFunction } from './bench-function';
import { STATUS_CHANGE, UNCAUGHT_ENDINGS } from './execution-run';

export interface TeardownOnFailureProps {
  /** The pipeline whose executions are watched. */
  readonly stateMachine: sfn.IStateMachine;
  /**
   * Its name as a plain string (not the state machine's attribute: the teardown function's policy
   * naming it would make the function depend on the state machine, which invokes the function).
   */
  readonly stateMachineName: string;
  /** The teardown function: it accepts the status-change event and finds the run in the execution's history. */
  readonly teardown: BenchFunction;
}

/**
 * Teardown on every ending: an execution timeout, StopExecution, States.DataLimitExceeded and
 * States.Runtime end an execution without its Catch (States.ALL does not catch them), so the
 * pipeline's own Teardown never runs. An EventBridge rule on the state machine's FAILED,
 * TIMED_OUT and ABORTED status changes invokes the same teardown function with the event; it
 * reads the run id from the execution's history (lib/execution-run.ts) and terminates the run's
 * runners and deletes its data, idempotently — a FAILED execution that went through Teardown
 * already finds nothing left. The function may read only this state machine's executions'
 * histories.
 */
export class TeardownOnFailure extends Construct {
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: TeardownOnFailureProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Executions of this state machine only: execution:NAME:EXECUTION.
    const executions = stack.formatArn({ service: 'states', resource: 'execution', resourceName: `${props.stateMachineName}:*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    props.teardown.allow(['states:GetExecutionHistory'], [executions], {
      acknowledge: { [`Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:${props.stateMachineName}:*`]: 'the history of any execution of this stack\'s own state machine (execution names are made at run time): teardown reads the run id there' },
    });
    this.rule = new events.Rule(this, 'ExecutionEnded', {
      description: 's3-access-bench: tear down the run of an execution that failed, timed out or was stopped (endings its own Catch cannot see)',
      eventPattern: {
        source: ['aws.states'],
        detailType: [STATUS_CHANGE],
        detail: { stateMachineArn: [props.stateMachine.stateMachineArn], status: [...UNCAUGHT_ENDINGS] },
      },
      // Delivery is retried for a day; the function's own asynchronous retries continue a teardown that ran out of time.
      targets: [new targets.LambdaFunction(props.teardown.function, { retryAttempts: 8, maxEventAge: Duration.hours(24) })],
    });
  }
}
