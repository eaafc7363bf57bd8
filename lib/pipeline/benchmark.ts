import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { BenchFunction } from '../bench-function';
import type { DocumentFunctions } from '../document-functions';
import type { RunnerFleet } from '../runner-fleet';
import { PollCommand } from './poll-command';
import { CATCH_TO_TEARDOWN, lambdaTask, type PollBudget } from './tasks';

export interface BenchmarkStepsProps {
  readonly fleet: RunnerFleet;
  readonly commandStatus: BenchFunction;
  /** Checks of one step. */
  readonly budget: PollBudget;
  /** SSM execution timeout of one step. */
  readonly stepTimeout: Duration;
  /** Where a failed step goes (into `$.error`). */
  readonly teardown: sfn.IChainable;
}

/**
 * RunBenchmarkSteps: each step of `$.run.value.steps` in turn, on every runner at once (N runners
 * = N clients on the same step), through the run-step document, polled until done.
 */
export class BenchmarkSteps extends sfn.StateMachineFragment {
  readonly startState: sfn.State;
  readonly endStates: sfn.INextable[];

  constructor(scope: Construct, id: string, props: BenchmarkStepsProps) {
    super(scope, id);
    const { budget } = props;
    const timedOut = new sfn.Fail(this, 'StepTimedOut', { error: 'StepTimedOut', cause: `a benchmark step did not finish within ${budget.maxPolls} checks ${budget.waitSeconds} s apart` });
    const runStep = new PollCommand(this, 'RunStepCommand', {
      prefix: 'RunStep', documentName: props.fleet.runStepDocument.ref, budget, commandStatus: props.commandStatus,
      parameters: { 'runId.$': 'States.Array($.runId)', 'step.$': 'States.Array($.step.step)', executionTimeout: [String(props.stepTimeout.toSeconds())] },
      onDone: new sfn.Succeed(this, 'StepDone'), onTimeout: timedOut,
    });
    const steps = new sfn.Map(this, 'RunBenchmarkSteps', {
      itemsPath: '$.run.value.steps',
      itemSelector: { 'step.$': '$$.Map.Item.Value', 'runId.$': '$.run.value.runId', 'instanceIds.$': '$.runners.instanceIds' },
      maxConcurrency: 1,
      resultPath: sfn.JsonPath.DISCARD,
    });
    steps.itemProcessor(runStep);
    steps.addCatch(props.teardown, CATCH_TO_TEARDOWN);
    this.startState = steps;
    this.endStates = [steps];
  }
}

export interface BenchmarkLambdasProps {
  readonly documents: DocumentFunctions;
  /** Where a failed invocation goes (into `$.error`). */
  readonly teardown: sfn.IChainable;
}

/** BenchmarkLambdas: seed 001's before/after, R repetitions, each writing its phase records. */
export class BenchmarkLambdas extends sfn.StateMachineFragment {
  readonly startState: sfn.State;
  readonly endStates: sfn.INextable[];

  constructor(scope: Construct, id: string, props: BenchmarkLambdasProps) {
    super(scope, id);
    const payload = { 'runId.$': '$.runId', 'repetition.$': '$.repetition', 'documents.$': '$.documents' };
    const invokeBefore = lambdaTask(this, 'InvokeBefore', props.documents.before, payload, Duration.minutes(5), '$.before');
    const invokeAfter = lambdaTask(this, 'InvokeAfter', props.documents.after, payload, Duration.minutes(5), '$.after');
    const lambdas = new sfn.Map(this, 'BenchmarkLambdas', {
      itemsPath: '$.run.value.lambdaRepetitions',
      itemSelector: { 'repetition.$': '$$.Map.Item.Value', 'runId.$': '$.run.value.runId', 'documents.$': '$.run.value.documents' },
      maxConcurrency: 1,
      resultPath: '$.lambdas',
    });
    lambdas.itemProcessor(invokeBefore.next(invokeAfter));
    lambdas.addCatch(props.teardown, CATCH_TO_TEARDOWN);
    this.startState = lambdas;
    this.endStates = [lambdas];
  }
}
