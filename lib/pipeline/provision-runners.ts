import { Aws, Duration, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { AL2023_PARAMETER_PREFIX } from '../instance-types';
import type { RunnerFleet } from '../runner-fleet';
import { RUNNER_TAG } from '../runner-tags';
import { CATCH_TO_TEARDOWN, sdkTask, TASK_TIMEOUT_S } from './tasks';

export interface ProvisionRunnersProps {
  /** The fleet whose launch template and role the runners get. */
  readonly fleet: RunnerFleet;
  /** Where runners are launched (the first subnet). */
  readonly runnerSubnets: ec2.SelectedSubnets;
  /** Where a failed launch goes (Teardown finds every runner launched by tag). */
  readonly teardown: sfn.IChainable;
}

/**
 * ProvisionRunners: one RunInstances per runner spec of `$.run.value.runners`, all tagged with the
 * run and execution. Each spec launches the AL2023 image of its own architecture (ValidateInput
 * picks it) over the launch template's, so Graviton and x86 types can be compared in one
 * execution. A spec that fails to launch does not end the Map at once: the other specs'
 * RunInstances calls finish first, so Teardown sees every instance launched. The runners' ids end
 * up in `$.runners.instanceIds` (and `$.instanceIds`, which SendCommand reads).
 */
export class ProvisionRunners extends sfn.StateMachineFragment {
  readonly startState: sfn.State;
  readonly endStates: sfn.INextable[];

  constructor(scope: Construct, id: string, props: ProvisionRunnersProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { fleet } = props;
    const launchTemplateArn = stack.formatArn({ service: 'ec2', resource: 'launch-template', resourceName: fleet.launchTemplate.launchTemplateId });
    const runInstances = sdkTask(this, 'RunInstances', 'ec2', 'runInstances', {
      LaunchTemplate: { LaunchTemplateId: fleet.launchTemplate.launchTemplateId, Version: '$Latest' },
      'InstanceType.$': '$.spec.instanceType',
      'ImageId.$': '$.spec.imageId',
      // Idempotent retries: the same token for every attempt of this spec in this run.
      'ClientToken.$': "States.Format('{}-{}', $.runId, $.index)",
      'MinCount.$': '$.spec.count',
      'MaxCount.$': '$.spec.count',
      SubnetId: props.runnerSubnets.subnetIds[0],
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
      additionalIamStatements: [
        // Every resource RunInstances touches (instance, volume, ENI, subnet, security group, the
        // arm64 and x86_64 AL2023 images) — only when launched from this stack's launch template.
        new iam.PolicyStatement({ actions: ['ec2:RunInstances'], resources: ['*'], conditions: { ArnLike: { 'ec2:LaunchTemplate': launchTemplateArn } } }),
        // `resolve:ssm:` image ids: EC2 reads AWS's public AL2023 parameters as the caller.
        new iam.PolicyStatement({ actions: ['ssm:GetParameters'], resources: [`arn:${Aws.PARTITION}:ssm:${Aws.REGION}::parameter${AL2023_PARAMETER_PREFIX}*`] }),
        new iam.PolicyStatement({ actions: ['iam:PassRole'], resources: [fleet.role.roleArn], conditions: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } } }),
        new iam.PolicyStatement({ actions: ['ec2:CreateTags'], resources: ['*'], conditions: { StringEquals: { 'ec2:CreateAction': 'RunInstances' } } }),
      ],
    });
    const launchFailed = new sfn.Pass(this, 'LaunchFailed', { parameters: { instanceIds: [], launched: false, 'error.$': '$.launchError' } });
    runInstances.addCatch(launchFailed, { errors: ['States.ALL'], resultPath: '$.launchError' });
    const provision = new sfn.Map(this, 'ProvisionRunners', {
      itemsPath: '$.run.value.runners',
      itemSelector: { 'spec.$': '$$.Map.Item.Value', 'index.$': '$$.Map.Item.Index', 'runId.$': '$.run.value.runId', 'executionId.$': '$$.Execution.Id' },
      maxConcurrency: 0,
      resultPath: '$.provisioned',
    });
    provision.itemProcessor(runInstances);
    provision.addCatch(props.teardown, CATCH_TO_TEARDOWN);
    const checkLaunches = new sfn.Pass(this, 'CheckLaunches', {
      parameters: { 'anyFailed.$': 'States.ArrayContains($.provisioned[*].launched, false)' }, resultPath: '$.launches',
    });
    const launchError = new sfn.Pass(this, 'LaunchFailures', {
      parameters: { anyFailed: true, 'errors.$': '$.provisioned[?(@.launched == false)].error' }, resultPath: '$.launches',
    }).next(new sfn.Pass(this, 'FirstLaunchError', { inputPath: '$.launches.errors[0]', resultPath: '$.error' })).next(props.teardown);
    const collect = new sfn.Pass(this, 'CollectRunners', { parameters: { 'instanceIds.$': '$.provisioned[*].instanceIds[*]' }, resultPath: '$.runners' });
    // The SendCommand steps read $.instanceIds (as inside the steps Map).
    const runnerIds = new sfn.Pass(this, 'RunnerIds', { inputPath: '$.runners.instanceIds', resultPath: '$.instanceIds' });
    provision.next(checkLaunches).next(new sfn.Choice(this, 'AllRunnersLaunched?')
      .when(sfn.Condition.booleanEquals('$.launches.anyFailed', true), launchError)
      .otherwise(collect));
    collect.next(runnerIds);
    this.startState = provision;
    this.endStates = [runnerIds];
  }
}
