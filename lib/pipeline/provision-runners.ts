import { Aws, Duration, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { AL2023_PARAMETER_PREFIX } from '../instance-types';
import type { RunnerFleet } from '../runner-fleet';
import { RUNNER_TAG } from '../runner-tags';
import { CATCH_TO_TEARDOWN, sdkTask, TASK_TIMEOUT_S } from './tasks';

export interface ProvisionRunnersProps {
  /** The fleet whose launch template and role the runners get. */
  readonly fleet: RunnerFleet;
  /** Where runners may launch: each runner tries them in order (one per AZ). */
  readonly runnerSubnets: ec2.SelectedSubnets;
  /** Where a failed launch goes (Teardown finds every runner launched by tag). */
  readonly teardown: sfn.IChainable;
}

/** The state that launches a runner in the runner subnet `i` (0-based). */
const launchStateName = (i: number) => `RunInstancesInSubnet${i + 1}`;

/**
 * ProvisionRunners: one RunInstances per shard of `$.run.value.shards` (its runner's instance type
 * and the AL2023 image of that type's architecture, over the launch template's), tagged with the
 * run and execution.
 *
 * Not every AZ offers every instance type (use1-az3 has no Graviton), and an AZ can be out of
 * capacity: a launch that fails in one runner subnet is tried in the next (Unsupported,
 * InsufficientInstanceCapacity and any other EC2 error), each subnet with its own ClientToken;
 * a launch that timed out is not tried elsewhere (it may have launched). A shard that fails in
 * every subnet does not end the Map at once: the other shards' launches finish first, so Teardown
 * sees every instance launched. The runners' ids end up in `$.runners.instanceIds`, in shard order
 * (and `$.instanceIds`).
 */
export class ProvisionRunners extends sfn.StateMachineFragment {
  readonly startState: sfn.State;
  readonly endStates: sfn.INextable[];

  constructor(scope: Construct, id: string, props: ProvisionRunnersProps) {
    super(scope, id);
    const subnets = props.runnerSubnets.subnetIds;
    if (!subnets.length) throw new Error('ProvisionRunners: runnerSubnets selects no subnet');
    const launchFailed = new sfn.Pass(this, 'LaunchFailed', { parameters: { instanceIds: [], launched: false, 'error.$': '$.launchError' } });
    const attempts = subnets.map((subnet, i) => this.launchIn(subnet, i, props.fleet));
    attempts.forEach((attempt, i) => {
      // A timed-out launch may have launched: no second runner elsewhere (Teardown terminates it by tag).
      attempt.addCatch(launchFailed, { errors: ['States.Timeout'], resultPath: '$.launchError' });
      attempt.addCatch(attempts[i + 1] ?? launchFailed, { errors: ['States.ALL'], resultPath: '$.launchError' });
    });
    const provision = new sfn.Map(this, 'ProvisionRunners', {
      itemsPath: '$.run.value.shards',
      itemSelector: { 'shard.$': '$$.Map.Item.Value', 'index.$': '$$.Map.Item.Index', 'runId.$': '$.run.value.runId', 'executionId.$': '$$.Execution.Id' },
      maxConcurrency: 0,
      resultPath: '$.provisioned',
    });
    provision.itemProcessor(attempts[0]);
    provision.addCatch(props.teardown, CATCH_TO_TEARDOWN);
    const checkLaunches = new sfn.Pass(this, 'CheckLaunches', {
      parameters: { 'anyFailed.$': 'States.ArrayContains($.provisioned[*].launched, false)' }, resultPath: '$.launches',
    });
    const launchError = new sfn.Pass(this, 'LaunchFailures', {
      parameters: { anyFailed: true, 'errors.$': '$.provisioned[?(@.launched == false)].error' }, resultPath: '$.launches',
    }).next(new sfn.Pass(this, 'FirstLaunchError', { inputPath: '$.launches.errors[0]', resultPath: '$.error' })).next(props.teardown);
    const collect = new sfn.Pass(this, 'CollectRunners', { parameters: { 'instanceIds.$': '$.provisioned[*].instanceIds[*]' }, resultPath: '$.runners' });
    const runnerIds = new sfn.Pass(this, 'RunnerIds', { inputPath: '$.runners.instanceIds', resultPath: '$.instanceIds' });
    provision.next(checkLaunches).next(new sfn.Choice(this, 'AllRunnersLaunched?')
      .when(sfn.Condition.booleanEquals('$.launches.anyFailed', true), launchError)
      .otherwise(collect));
    collect.next(runnerIds);
    this.startState = provision;
    this.endStates = [runnerIds];
  }

  /** RunInstances of one shard's runner in one subnet. */
  private launchIn(subnetId: string, i: number, fleet: RunnerFleet): tasks.CallAwsService {
    const stack = Stack.of(this);
    const launchTemplateArn = stack.formatArn({ service: 'ec2', resource: 'launch-template', resourceName: fleet.launchTemplate.launchTemplateId });
    return sdkTask(this, launchStateName(i), 'ec2', 'runInstances', {
      LaunchTemplate: { LaunchTemplateId: fleet.launchTemplate.launchTemplateId, Version: '$Latest' },
      'InstanceType.$': '$.shard.instanceType',
      'ImageId.$': '$.shard.imageId',
      // Idempotent retries: the same token for every attempt of this shard in this subnet and run.
      'ClientToken.$': `States.Format('{}-{}-${i + 1}', $.runId, $.index)`,
      MinCount: 1,
      MaxCount: 1,
      SubnetId: subnetId,
      TagSpecifications: [{
        ResourceType: 'instance',
        Tags: [
          { Key: RUNNER_TAG.stack, Value: stack.stackName },
          { Key: RUNNER_TAG.runId, 'Value.$': '$.runId' },
          { Key: RUNNER_TAG.execution, 'Value.$': '$.executionId' },
          { Key: 'Name', Value: `${stack.stackName}-runner` },
        ],
      }],
    }, [launchTemplateArn], Duration.seconds(TASK_TIMEOUT_S.runInstances), {
      resultSelector: { 'instanceIds.$': '$.Instances[*].InstanceId', launched: true },
      additionalIamStatements: i > 0 ? [] : [
        // Every resource RunInstances touches (instance, volume, ENI, subnet, security group, the
        // arm64 and x86_64 AL2023 images) — only when launched from this stack's launch template.
        new iam.PolicyStatement({ actions: ['ec2:RunInstances'], resources: ['*'], conditions: { ArnLike: { 'ec2:LaunchTemplate': launchTemplateArn } } }),
        // `resolve:ssm:` image ids: EC2 reads AWS's public AL2023 parameters as the caller.
        new iam.PolicyStatement({ actions: ['ssm:GetParameters'], resources: [`arn:${Aws.PARTITION}:ssm:${Aws.REGION}::parameter${AL2023_PARAMETER_PREFIX}*`] }),
        new iam.PolicyStatement({ actions: ['iam:PassRole'], resources: [fleet.role.roleArn], conditions: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } } }),
        new iam.PolicyStatement({ actions: ['ec2:CreateTags'], resources: ['*'], conditions: { StringEquals: { 'ec2:CreateAction': 'RunInstances' } } }),
      ],
    });
  }
}
