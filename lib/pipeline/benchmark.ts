import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { BenchFunction } from '../bench-function';
import type { DocumentFunctions } from '../document-functions';
import { MAX_RUNNERS } from '../instance-types';
import type { RunnerFleet } from '../runner-fleet';
import { PollCommand } from './poll-command';
import { CATCH_TO_TEARDOWN, lambdaTask, type PollBudget } from './tasks';

export interface BenchmarkStepsProps {
  readonly fleet: RunnerFleet;
  readonly commandStatus: BenchFunction;
  /** Checks of one runner's command. */
  readonly budget: PollBudget;
  /** SSM execution timeout of one runner's command (all its steps). */
  readonly shardTimeout: Duration;
  /** Where a failed runner goes (into `$.error`). */
  readonly teardown: sfn.IChainable;
}

/**
 * RunBenchmarkShards: every runner at once, each with its own share of the steps
 * (`$.run.value.shards`, planned by ValidateInput: runner/core/shards.ts) in ONE run-step command —
 * prepared once, records uploaded as each step ends — polled until done. A poll costs one
 * wait per runner, not per step, and the history grows with the polls, not the steps.
 */
export class BenchmarkSteps extends sfn.StateMachineFragment {
  readonly startState: sfn.State;
  readonly endStates: sfn.INextable[];

  constructor(scope: Construct, id: string, props: BenchmarkStepsProps) {
    super(scope, id);
    const { budget } = props;
    const timedOut = new sfn.Fail(this, 'ShardTimedOut', { error: 'ShardTimedOut', cause: `a runner's steps did not finish within ${budget.maxPolls} checks ${budget.waitSeconds} s apart` });
    const runShard = new PollCommand(this, 'RunShardCommand', {
      prefix: 'RunShard', documentName: props.fleet.runStepDocument.ref, budget, commandStatus: props.commandStatus,
      parameters: { 'runId.$': 'States.Array($.runId)', 'steps.$': 'States.Array($.shard.steps)', executionTimeout: [String(props.shardTimeout.toSeconds())] },
      onDone: new sfn.Succeed(this, 'ShardDone'), onTimeout: timedOut,
    });
    const shards = new sfn.Map(this, 'RunBenchmarkShards', {
      itemsPath: '$.run.value.shards',
      // Shard i runs on the i-th launched instance (the order ValidateInput planned them in).
      itemSelector: { 'shard.$': '$$.Map.Item.Value', 'runId.$': '$.run.value.runId', 'instanceIds.$': 'States.Array(States.ArrayGetItem($.runners.instanceIds, $$.Map.Item.Index))' },
      maxConcurrency: MAX_RUNNERS,
      resultPath: sfn.JsonPath.DISCARD,
    });
    shards.itemProcessor(runShard);
    shards.addCatch(props.teardown, CATCH_TO_TEARDOWN);
    this.startState = shards;
    this.endStates = [shards];
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
