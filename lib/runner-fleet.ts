import { Duration, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './function-bundles';
import { architectureOf, DEFAULT_RUNNER_INSTANCE_TYPE } from './instance-types';
import { acknowledge, nagBucketArn } from './nag';
import { type ObjectivefsDeploy, parameterArnName } from './objectivefs-deploy';
import { RESULTS_LAYOUT } from './results-layout';
import { callbackLines, IMDS } from './runner-document-shell';
import { buildCachePrefixes, setupScript } from './runner-setup-script';
import { RUNNER_TAG } from './runner-tags';
import { DATA_ROOT, RUN_ID_PATTERN, VOLUME_ROOT } from '../runner/core/vocabulary';
import { STEP_LIST_PATTERN } from '../runner/core/shards';

export interface RunnerFleetProps {
  readonly vpc: ec2.IVpc;
  readonly securityGroup: ec2.ISecurityGroup;
  /** Benchmark data bucket (the runner writes under `s3ab/`). */
  readonly dataBucket: s3.IBucket;
  /** Results bucket (records under `results/`, execution inputs under `executions/`, the s3-crt client's build cache under `tool-cache/`). */
  readonly resultsBucket: s3.IBucket;
  /** The S3 Files file system the runners mount at /mnt/s3files. */
  readonly fileSystemId: string;
  readonly fileSystemArn: string;
  /** Default instance type; an execution can ask for others. @default DEFAULT_RUNNER_INSTANCE_TYPE (lib/instance-types.ts: why) */
  readonly instanceType?: string;
  /** A runner shuts itself down (and so terminates) this long after boot, whatever happens. @default Duration.hours(12) */
  readonly maxLifetime?: Duration;
  /** Root volume size. @default 30 GiB */
  readonly rootVolumeGiB?: number;
  /** ObjectiveFS's license parameter and package checksums (lib/objectivefs-deploy.ts). @default not enabled */
  readonly objectivefs?: ObjectivefsDeploy;
}

;

/** The props with their defaults applied. */
interface SettledFleetProps {
  instanceType: string;
  maxLifetime: Duration;
  rootVolumeGiB: number;
}

/**
 * Every conflict among the props, checked together before anything is built (as the pipeline's
 * checkPipelineProps does): one error names them all.
 */
export function checkRunnerFleetProps(props: Pick<RunnerFleetProps, 'instanceType' | 'maxLifetime' | 'rootVolumeGiB'>, bundleBuilt = true): SettledFleetProps {
  const s: SettledFleetProps = {
    instanceType: props.instanceType ?? DEFAULT_RUNNER_INSTANCE_TYPE,
    maxLifetime: props.maxLifetime ?? Duration.hours(12),
    rootVolumeGiB: props.rootVolumeGiB ?? 30,
  };
  const problems: string[] = [];
  if (!architectureOf(s.instanceType)) problems.push(`"${s.instanceType}" is not an EC2 instance type that runs Amazon Linux 2023 (e.g. c7g.large)`);
  const lifetimeMinutes = s.maxLifetime.toMinutes();
  if (lifetimeMinutes < 30 || lifetimeMinutes > 24 * 60) problems.push(`maxLifetime must be 30 minutes to 24 hours, got ${lifetimeMinutes} minutes`);
  if (!(Number.isInteger(s.rootVolumeGiB) && s.rootVolumeGiB >= 8 && s.rootVolumeGiB <= 1000)) problems.push(`rootVolumeGiB must be a whole number 8–1000, got ${s.rootVolumeGiB}`);
  if (!bundleBuilt) problems.push('the runner bundle dist/s3ab.js is missing: run `npm run build` first (`npx cdk synth` does it through cdk.json)');
  if (problems.length) throw new Error(`RunnerFleet: ${problems.length} problem${problems.length > 1 ? 's' : ''} with its props:\n- ${problems.join('\n- ')}`);
  return s;
}

/**
 * The benchmark runner fleet — templates only: the stack launches no instance; runners exist
 * only while an execution runs.
 * - Launch template: Amazon Linux 2023 (arm64 for Graviton types, x86_64 otherwise), IMDSv2
 *   required, encrypted gp3 root volume, `InstanceInitiatedShutdownBehavior: terminate` and a
 *   shutdown scheduled at boot after `maxLifetime` (a runner the pipeline forgot ends itself).
 * - Instance profile: SSM core (Run Command) plus only the data-bucket, results, S3 Files, bundle
 *   and Step Functions callback permissions the runner uses.
 * - SSM documents, each ending its task by callback (the task token is a parameter; the runner
 *   sends heartbeats, then success or failure): `setup` (what the shard's methods and workloads
 *   need — `install`, assets/install.json's component names — in one dnf transaction and parallel
 *   jobs, the runner bundle uploaded as a CDK asset, an S3 Files mount check) and `run-step`
 *   (`s3ab step` for this runner's shard of the execution's matrix, records uploaded per step).
 */
export class RunnerFleet extends Construct {
  readonly role: iam.Role;
  readonly launchTemplate: ec2.LaunchTemplate;
  readonly setupDocument: ssm.CfnDocument;
  readonly runStepDocument: ssm.CfnDocument;
  readonly instanceType: string;
  readonly maxLifetime: Duration;
  readonly bundle: Asset;
  readonly assets: Asset;

  constructor(scope: Construct, id: string, props: RunnerFleetProps) {
    super(scope, id);
    const s = checkRunnerFleetProps(props, existsSync(join(PROJECT_ROOT, 'dist', 's3ab.js')));
    this.instanceType = s.instanceType;
    this.maxLifetime = s.maxLifetime;
    this.bundle = new Asset(this, 'RunnerBundle', { path: join(PROJECT_ROOT, 'dist'), exclude: ['*.map'] });
    this.assets = new Asset(this, 'RunnerAssets', { path: join(PROJECT_ROOT, 'assets') });
    this.role = this.buildRole(props);
    this.launchTemplate = this.buildLaunchTemplate(props, s);
    this.setupDocument = callbackDocument(this, 'SetupDocument', {
      description: 's3-access-bench: install what this runner\'s shard needs and the runner bundle, then mount S3 Files as a check',
      timeoutDefault: '1800',
      parameters: { install: { type: 'String', default: '[]', description: 'assets/install.json components this runner\'s shard needs, as a JSON array', allowedPattern: INSTALL_LIST_PATTERN.source } },
      runCommand: setupScript({ bundleUrl: this.bundle.s3ObjectUrl, assetsUrl: this.assets.s3ObjectUrl, fileSystemId: props.fileSystemId, resultsBucket: props.resultsBucket.bucketName, objectivefs: props.objectivefs }),
    });
    this.runStepDocument = callbackDocument(this, 'RunStepDocument', {
      description: 's3-access-bench: run this runner\'s steps of an execution\'s matrix (prepared once) and upload each step\'s records to the results bucket',
      timeoutDefault: '7200',
      parameters: {
        runId: { type: 'String', description: 'Run id of the execution', allowedPattern: RUN_ID_PATTERN.source },
        steps: { type: 'String', description: 'Step numbers (1-based) of the matrix, comma-separated, in run order', allowedPattern: STEP_LIST_PATTERN.source },
        fleetClient: { type: 'String', default: '0', description: 'This runner\'s client number in a fleet execution (layout "fleet": 1 for the first runner), or 0 for none', allowedPattern: '^[0-9]{1,3}$' },
      },
      runCommand: runStepScript({ resultsBucket: props.resultsBucket.bucketName, dataBucket: props.dataBucket.bucketName, fileSystemId: props.fileSystemId }),
    });
  }

  /** The instance role: SSM core, and only the S3, S3 Files, bundle and callback permissions the runner uses. */
  private buildRole(props: RunnerFleetProps): iam.Role {
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      description: 'Benchmark runner instances: SSM Run Command, benchmark data, results, S3 Files, Step Functions callbacks',
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('AmazonSSMManagedInstanceCore')],
    });
    acknowledge(role, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonSSMManagedInstanceCore]',
      'the SSM agent\'s own permissions (register, Run Command channel); AWS keeps this policy in step with the agent');
    const policy = new iam.Policy(this, 'Permissions', { roles: [role] });
    policy.addStatements(
      // ListBucketVersions: the sync-behaviour workload counts the object versions a chmod writes.
      new iam.PolicyStatement({ sid: 'ListDataBucket', actions: ['s3:ListBucket', 's3:ListBucketVersions'], resources: [props.dataBucket.bucketArn] }),
      // Reads of the whole bucket: mount clients read what the S3 API wrote, and S3 Files reads large files directly from S3.
      new iam.PolicyStatement({ sid: 'ReadData', actions: ['s3:GetObject', 's3:GetObjectVersion'], resources: [props.dataBucket.arnForObjects('*')] }),
      new iam.PolicyStatement({
        sid: 'WriteBenchmarkData',
        // DeleteObjectVersion: rclone deletes the version it wrote (the version id S3 returned) on the
        // versioned data bucket; the rehearsal of the mounts profile denied 520 such deletes without it.
        actions: ['s3:PutObject', 's3:DeleteObject', 's3:DeleteObjectVersion', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        // s3ab/RUNID/… for every method; s3ab-RUNID-…/ for the volumes of clients that name rather than prefix their data (JuiceFS).
        resources: [props.dataBucket.arnForObjects(`${DATA_ROOT}*`), props.dataBucket.arnForObjects(`${VOLUME_ROOT}*`)],
      }),
      // `s3ab step` checks the records' destination with a ListObjectsV2 before any step runs; with
      // ListBucket, a read of a missing key also answers 404 (not 403) and says what is wrong.
      new iam.PolicyStatement({ sid: 'ListResultsBucket', actions: ['s3:ListBucket'], resources: [props.resultsBucket.bucketArn] }),
      new iam.PolicyStatement({ sid: 'ReadExecutionInput', actions: ['s3:GetObject'], resources: [props.resultsBucket.arnForObjects(`${RESULTS_LAYOUT.executions}*`)] }),
      new iam.PolicyStatement({ sid: 'WriteResults', actions: ['s3:PutObject'], resources: [props.resultsBucket.arnForObjects(`${RESULTS_LAYOUT.records}*`)] }),
      // A fleet's start barrier: each runner leaves its ready markers, lists the others' (ListResultsBucket) and removes its own at its end.
      new iam.PolicyStatement({ sid: 'FleetBarrier', actions: ['s3:PutObject', 's3:DeleteObject'], resources: [props.resultsBucket.arnForObjects(`${RESULTS_LAYOUT.fleetBarrier}*`)] }),
      new iam.PolicyStatement({ sid: 'MountS3Files', actions: ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'], resources: [props.fileSystemArn] }),
      // The setup and run-step commands end their tasks by callback. These actions take no resource
      // (Service Authorization Reference: no resource types): the task token names the task.
      // Its commands' task tokens: read once and deleted (task-tokens/RUNID/INSTANCE/DOCUMENT).
      new iam.PolicyStatement({ sid: 'TaskTokens', actions: ['s3:GetObject', 's3:DeleteObject'], resources: [props.resultsBucket.arnForObjects(`${RESULTS_LAYOUT.taskTokens}*`)] }),
      new iam.PolicyStatement({ sid: 'TaskCallbacks', actions: ['states:SendTaskHeartbeat', 'states:SendTaskSuccess', 'states:SendTaskFailure'], resources: ['*'] }),
    );
    this.bundle.grantRead(role);
    this.assets.grantRead(role);
    const dataArn = nagBucketArn(props.dataBucket);
    const resultsArn = nagBucketArn(props.resultsBucket);
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${dataArn}/*]`, 'mount clients (s3fs, Mountpoint, S3 Files direct reads) read fixture objects anywhere in the benchmark data bucket; writes are limited to s3ab/');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${dataArn}/${DATA_ROOT}*]`, 'each run writes under s3ab/RUNID/, a prefix created at run time');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${dataArn}/${VOLUME_ROOT}*]`, 'JuiceFS keeps each step\'s volume under s3ab-RUNID-STEP/ (a name, not a prefix: no slash allowed), created at run time');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.executions}*]`, 'the execution\'s matrix, written by ValidateInput under a run id known only at run time');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.records}*]`, 'result files go to results/dt=DATE/RUNID--… (Hive partitions by date)');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.taskTokens}*]`, 'its commands\' task tokens, task-tokens/RUNID/INSTANCE/DOCUMENT, written by the state machine with a run id and instance known at run time');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.fleetBarrier}*]`, 'a fleet\'s start-barrier markers go to fleet-barrier/RUNID/ROUND/CLIENT, a run id made at run time');
    // The cargo components' build caches (assets/install.json, runner kind cargo): a runner reads
    // the binary built for its architecture and crate hash, or builds it and writes it there.
    // Neither list nor delete: the key is known (ListResultsBucket already lets a missing key answer 404).
    for (const [i, prefix] of buildCachePrefixes().entries()) {
      policy.addStatements(new iam.PolicyStatement({ sid: `ToolCache${i || ''}`, actions: ['s3:GetObject', 's3:PutObject'], resources: [props.resultsBucket.arnForObjects(`${prefix}*`)] }));
      acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${prefix}*]`,
        `a build cache: ${prefix}ARCH/HASH/BIN, one key per runner architecture and crate hash (a crates.io crate's pinned version), the architecture known only on the runner`);
    }
    if (props.objectivefs) policy.addStatements(this.objectivefsLicenseRead(props.objectivefs));
    acknowledge(policy, 'AwsSolutions-IAM5[Resource::*]', 'states:SendTaskHeartbeat, SendTaskSuccess and SendTaskFailure take no resource ARN; the task token the command carries names the task');
    for (const action of ['s3:GetBucket*', 's3:GetObject*', 's3:List*']) {
      acknowledge(role, `AwsSolutions-IAM5[Action::${action}]`, 'read of the CDK asset bucket holding the runner bundle (Asset.grantRead)');
    }
    acknowledge(role, 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
      'the CDK bootstrap asset bucket holds the runner bundle under a content-hash key');
    return role;
  }

  /**
   * ObjectiveFS's license: the setup reads this one SecureString (by name) into the vendor's
   * environment folder. Its default key, aws/ssm, lets the account's principals decrypt through SSM.
   */
  private objectivefsLicenseRead(deploy: ObjectivefsDeploy): iam.PolicyStatement {
    return new iam.PolicyStatement({
      sid: 'ReadObjectivefsLicense', actions: ['ssm:GetParameter'],
      resources: [Stack.of(this).formatArn({ service: 'ssm', resource: 'parameter', resourceName: parameterArnName(deploy.licenseParameter) })],
    });
  }

  /** Amazon Linux 2023 of the default type's architecture, IMDSv2, encrypted gp3, shutdown = terminate, a lifetime at boot. */
  private buildLaunchTemplate(props: RunnerFleetProps, s: SettledFleetProps): ec2.LaunchTemplate {
    const lifetimeMinutes = s.maxLifetime.toMinutes();
    const userData = ec2.UserData.forLinux();
    userData.addCommands(
      // Safety net: whatever the pipeline does, this instance ends itself after its maximum lifetime.
      `shutdown -h +${lifetimeMinutes} "s3ab: maximum runner lifetime (${lifetimeMinutes} min) reached"`,
    );
    const template = new ec2.LaunchTemplate(this, 'LaunchTemplate', {
      machineImage: ec2.MachineImage.latestAmazonLinux2023({
        cpuType: architectureOf(s.instanceType) === 'arm64' ? ec2.AmazonLinuxCpuType.ARM_64 : ec2.AmazonLinuxCpuType.X86_64,
      }),
      instanceType: new ec2.InstanceType(s.instanceType),
      requireImdsv2: true,
      httpPutResponseHopLimit: 1,
      instanceInitiatedShutdownBehavior: ec2.InstanceInitiatedShutdownBehavior.TERMINATE,
      blockDevices: [{
        deviceName: '/dev/xvda',
        volume: ec2.BlockDeviceVolume.ebs(s.rootVolumeGiB, { encrypted: true, volumeType: ec2.EbsDeviceVolumeType.GP3, deleteOnTermination: true }),
      }],
      role: this.role,
      securityGroup: props.securityGroup,
      userData,
    });
    // Instances launched from the template carry the stack tag, so the janitor finds them even if
    // the execution that launched them is gone.
    (template.node.defaultChild as ec2.CfnLaunchTemplate).addPropertyOverride('LaunchTemplateData.TagSpecifications', [
      { ResourceType: 'instance', Tags: [{ Key: RUNNER_TAG.stack, Value: Stack.of(this).stackName }, { Key: 'Name', Value: `${Stack.of(this).stackName}-runner` }] },
      { ResourceType: 'volume', Tags: [{ Key: RUNNER_TAG.stack, Value: Stack.of(this).stackName }] },
    ]);
    return template;
  }
}

/** A `setup` document's `install` parameter: a JSON array of component names (States.JsonToString of the shard's list). */
export const INSTALL_LIST_PATTERN = /^\[("[a-z0-9-]+"(,"[a-z0-9-]+")*)?\]$/;
/** Where a command's task token is, in the results bucket (the documents' `taskTokenKey`): task-tokens/RUNID/INSTANCE/DOCUMENT. */
export const TASK_TOKEN_KEY_PATTERN = new RegExp(`^${RESULTS_LAYOUT.taskTokens}[0-9A-Za-z-]{1,64}/i-[0-9a-f]{1,32}/(setup|run-step)$`);

/** An SSM Command document of the fleet whose command ends its Step Functions task by callback. */
function callbackDocument(scope: Construct, id: string, p: { description: string; timeoutDefault: string; parameters: Record<string, unknown>; runCommand: string[] }): ssm.CfnDocument {
  return new ssm.CfnDocument(scope, id, {
    documentType: 'Command',
    documentFormat: 'JSON',
    updateMethod: 'NewVersion',
    content: {
      schemaVersion: '2.2',
      description: p.description,
      parameters: {
        ...p.parameters,
        executionTimeout: { type: 'String', default: p.timeoutDefault, description: 'Seconds the command may take (its SSM execution timeout)', allowedPattern: '^[0-9]{1,6}$' },
        taskTokenKey: { type: 'String', description: 'Where the Step Functions task token the command ends by callback is in the results bucket (never the token itself: SSM keeps the parameters)', allowedPattern: TASK_TOKEN_KEY_PATTERN.source },
        heartbeatSeconds: { type: 'String', default: '60', description: 'Seconds between the runner\'s heartbeats to Step Functions', allowedPattern: '^[1-9][0-9]{0,3}$' },
      },
      mainSteps: [{ action: 'aws:runShellScript', name: 'run', inputs: { timeoutSeconds: '{{ executionTimeout }}', runCommand: p.runCommand } }],
    },
  });
}

/**
 * Shell lines of the run-step document. The `s3ab step` line is the runner's contract with the
 * state machine (test/aws/step-contract.test.ts runs that line as synthesized): it reads the
 * execution's matrix, prepares once, runs steps {{ steps }} (this runner's shard), uploads each
 * step's records to the results bucket as the step ends, and ends the task by callback — heartbeats
 * while it works, success or failure at its end (then it writes the reported file). If the command
 * dies before the runner reported, its exit trap reports the failure. The `s3files` method mounts
 * the stack's S3 Files file system by the id in S3AB_S3FILES_FS_ID (at its root, as root: the
 * runner role has s3files:ClientRootAccess, so no access point is needed; amazon-efs-utils finds
 * the region and mount target from IMDS).
 */
function runStepScript(p: { resultsBucket: string; dataBucket: string; fileSystemId: string }): string[] {
  const log = '/var/log/s3ab-run-step-{{ runId }}.log';
  const reported = '/opt/s3ab/reported-{{ runId }}';
  const succeeded = '/opt/s3ab/success-{{ runId }}.json';
  return [
    'set -euo pipefail',
    `exec > >(tee -a ${log}) 2>&1`,
    ...IMDS,
    'export S3AB_HOME=/opt/s3ab S3AB_INSTANCE_TYPE="$(md instance-type)" S3AB_REGION="$(md placement/region)" S3AB_AZ="$(md placement/availability-zone)"',
    // Amazon Linux 2023's /tmp is a RAM disk: scratch files and the clients' disk caches go on the
    // EBS volume, so a "warm-disk" result is a disk cache there too.
    'export TMPDIR=/var/tmp/s3ab && mkdir -p "$TMPDIR"',
    'export AWS_REGION="$S3AB_REGION" S3AB_RUNNER_ID="$(md instance-id)"',
    ...callbackLines({ error: 'CommandFailed', what: 'run-step', log, tokenFile: '/opt/s3ab/task-token-{{ runId }}', resultsBucket: p.resultsBucket, reportedFile: reported, successFile: succeeded, heartbeats: false }),
    `export S3AB_S3FILES_FS_ID=${p.fileSystemId}`,
    `aws s3 cp --only-show-errors s3://${p.resultsBucket}/${RESULTS_LAYOUT.executions}{{ runId }}/matrix.json /opt/s3ab/matrix-{{ runId }}.json`,
    `"$(cat /opt/s3ab/node)" /opt/s3ab/dist/s3ab.js step --matrix /opt/s3ab/matrix-{{ runId }}.json --steps {{ steps }} --run-id {{ runId }} --runner-id "$S3AB_RUNNER_ID" --bucket ${p.dataBucket} --region "$S3AB_REGION" --results s3://${p.resultsBucket}/${RESULTS_LAYOUT.records.replace(/\/$/, '')} --fleet-client {{ fleetClient }} --fleet-barrier s3://${p.resultsBucket}/${RESULTS_LAYOUT.fleetBarrier.replace(/\/$/, '')} --task-token-file "$TASK_TOKEN_FILE" --heartbeat-seconds {{ heartbeatSeconds }} --reported-file ${reported} --success-file ${succeeded}`,
  ];
}
