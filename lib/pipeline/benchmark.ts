import { Aws, Duration, Stack } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { DocumentFunctions } from '../document-functions';
import { MAX_RUNNERS } from '../instance-types';
import type { RunnerFleet } from '../runner-fleet';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { RESULTS_LAYOUT } from '../results-layout';
import { callbackCommandTasks, CATCH_TO_TEARDOWN, lambdaTask } from './tasks';

/** How long a runner may be silent, and how often it says it is alive. */
export interface Heartbeat {
  /** The callback tasks' HeartbeatSeconds: a runner silent this long is lost. */
  readonly timeout: Duration;
  /** How often the runner sends SendTaskHeartbeat (the documents' `heartbeatSeconds`). */
  readonly interval: Duration;
}

export interface BenchmarkStepsProps {
  readonly fleet: RunnerFleet;
  /** SSM execution timeout of a runner's setup command. */
  readonly setupTimeout: Duration;
  readonly heartbeat: Heartbeat;
  /** Where the callback tasks' tokens go (task-tokens/), for the runners' commands to read. */
  readonly resultsBucket: s3.IBucket;
  /** Where a failed runner goes (into `$.error`). */
  readonly teardown: sfn.IChainable;
}

/** A callback task's token key: task-tokens/RUNID/INSTANCE/DOCUMENT (an intrinsic over the iteration's input). */
const tokenKey = (document: 'setup' | 'run-step') => `States.Format('${RESULTS_LAYOUT.taskTokens}{}/{}/${document}', $.runId, States.ArrayGetItem($.instanceIds, 0))`;

/**
 * RunBenchmarkShards: every runner at once, each with its own share of the steps
 * (`$.run.value.shards`, planned by ValidateInput: runner/core/shards.ts). Per runner, two SSM
 * commands that end their task by callback (SendSetupCommand then SetupRunner, SendShardCommand
 * then RunShard: the token goes through the results bucket, tasks.ts callbackCommandTasks): SetupRunner installs what the
 * shard's methods and workloads need (`shard.install`), then RunShard runs its steps in ONE
 * `s3ab step` command — prepared once, records uploaded as each step ends — with the shard's own
 * command timeout (`shard.timeoutSeconds`). The runner sends heartbeats while it works and the
 * result at its end, so the history grows with the runners, not with how long they run. A runner
 * that goes silent for `heartbeat.timeout` (it died, hangs, or lost its network) fails as
 * RunnerLost, one that outlives its command's timeout as ShardTimedOut; either goes to Teardown.
 */
export class BenchmarkSteps extends sfn.StateMachineFragment {
  readonly startState: sfn.State;
  readonly endStates: sfn.INextable[];

  constructor(scope: Construct, id: string, props: BenchmarkStepsProps) {
    super(scope, id);
    const { fleet, heartbeat } = props;
    const stack = Stack.of(this);
    const runners = `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${Aws.ACCOUNT_ID}:instance/*`;
    const documentArn = (name: string) => stack.formatArn({ service: 'ssm', resource: 'document', resourceName: name });
    const command = (documentName: string, comment: string, parameters: Record<string, unknown>) => ({
      DocumentName: documentName,
      // The version this deployment wrote: the documents update with NewVersion, which need not
      // make it the default (cloudformation-coverage-roadmap#2539), and SendCommand runs $DEFAULT.
      DocumentVersion: '$LATEST',
      'InstanceIds.$': '$.instanceIds',
      Parameters: { ...parameters, heartbeatSeconds: [String(heartbeat.interval.toSeconds())] },
      // SSM's delivery timeout: how long the command may wait for the runner's agent.
      TimeoutSeconds: 60,
      Comment: `s3-access-bench ${comment}`,
    });
    const tokens = (document: 'setup' | 'run-step') => ({ bucket: props.resultsBucket, keyPath: tokenKey(document) });
    const { send: sendSetup, wait: setup } = callbackCommandTasks(this, 'SetupRunner', {
      sendId: 'SendSetupCommand',
      parameters: command(fleet.setupDocument.ref, 'setup', {
        executionTimeout: [String(props.setupTimeout.toSeconds())],
        // The shard's components as one JSON string (SSM parameters are strings; no join intrinsic exists).
        'install.$': 'States.Array(States.JsonToString($.shard.install))',
        'taskTokenKey.$': `States.Array(${tokenKey('setup')})`,
      }),
      iamResources: [documentArn(fleet.setupDocument.ref), runners],
      bounds: { timeout: sfn.Timeout.duration(props.setupTimeout.plus(heartbeat.timeout)), heartbeat: heartbeat.timeout },
      tokens: tokens('setup'), resultPath: '$.setup',
    });
    const { send: sendShard, wait: runShard } = callbackCommandTasks(this, 'RunShard', {
      sendId: 'SendShardCommand',
      parameters: command(fleet.runStepDocument.ref, 'run-step', {
        'runId.$': 'States.Array($.runId)',
        'steps.$': 'States.Array($.shard.steps)',
        // The runner's place in a fleet (0: none): its start barrier and shared fixtures.
        'fleetClient.$': "States.Array(States.Format('{}', $.shard.fleetClient))",
        'executionTimeout.$': "States.Array(States.Format('{}', $.shard.timeoutSeconds))",
        'taskTokenKey.$': `States.Array(${tokenKey('run-step')})`,
      }),
      iamResources: [documentArn(fleet.runStepDocument.ref), runners],
      bounds: { timeout: sfn.Timeout.at('$.taskTimeoutSeconds'), heartbeat: heartbeat.timeout },
      tokens: tokens('run-step'), resultPath: '$.result',
    });
    // `what` goes into an intrinsic string literal: no quotes, no braces.
    const lost = (id: string, error: string, what: string) => new sfn.Pass(this, id, {
      parameters: { Error: error, 'Cause.$': `States.Format('runner {} ${what}', States.ArrayGetItem($.instanceIds, 0))` },
    }).next(new sfn.Fail(this, `${id}Fail`, { errorPath: '$.Error', causePath: '$.Cause' }));
    const silent = `sent no heartbeat for ${heartbeat.timeout.toSeconds()} s`;
    setup.addCatch(lost('SetupRunnerLost', 'RunnerLost', `${silent} during its setup: it stopped, hangs or lost its network`), { errors: ['States.HeartbeatTimeout'], resultPath: '$.failure' });
    setup.addCatch(lost('SetupTimedOut', 'SetupTimedOut', `did not finish its setup within ${props.setupTimeout.toSeconds()} s (the timeout of its command) and a heartbeat`), { errors: ['States.Timeout'], resultPath: '$.failure' });
    runShard.addCatch(lost('ShardRunnerLost', 'RunnerLost', `${silent} during its steps: it stopped, hangs or lost its network`), { errors: ['States.HeartbeatTimeout'], resultPath: '$.failure' });
    runShard.addCatch(lost('ShardTimedOut', 'ShardTimedOut', 'did not finish its steps within the timeout of its command and a heartbeat'), { errors: ['States.Timeout'], resultPath: '$.failure' });
    const shards = new sfn.Map(this, 'RunBenchmarkShards', {
      itemsPath: '$.run.value.shards',
      // Shard i runs on the i-th launched instance (ProvisionRunners launched them in shard order).
      itemSelector: {
        'shard.$': '$$.Map.Item.Value', 'runId.$': '$.run.value.runId',
        'instanceIds.$': 'States.Array(States.ArrayGetItem($.runners.instanceIds, $$.Map.Item.Index))',
        // The task outlasts the command's own timeout by a heartbeat: the runner reports a timeout it sees.
        'taskTimeoutSeconds.$': `States.MathAdd($$.Map.Item.Value.timeoutSeconds, ${heartbeat.timeout.toSeconds()})`,
      },
      maxConcurrency: MAX_RUNNERS,
      resultPath: sfn.JsonPath.DISCARD,
    });
    shards.itemProcessor(sendSetup.next(setup).next(sendShard).next(runShard).next(new sfn.Succeed(this, 'ShardDone')));
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
