import { Aws, Duration, RemovalPolicy, Stack, type CfnElement } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { DATA_ROOT, VOLUME_ROOT } from '../../runner/core/vocabulary';
import { BenchFunction } from '../bench-function';
import { RUN_ID_STATE } from '../execution-run';
import type { DataStorage } from '../data-storage';
import { DOCS_PREFIX } from '../document-prefixes';
import type { DocumentFunctions } from '../document-functions';
import { AL2023_PARAMETER_PREFIX, MAX_RUNNERS, SSM_INSTANCE_INFORMATION_PAGE } from '../instance-types';
import { acknowledge, nagBucketArn } from '../nag';
import type { ResultsCatalog } from '../results-catalog';
import { RESULTS_LAYOUT } from '../results-layout';
import type { RunnerFleet } from '../runner-fleet';
import { RUNNER_TAG } from '../runner-tags';
import { AggregateResults } from './aggregate-results';
import { BenchmarkLambdas, BenchmarkSteps, type Heartbeat } from './benchmark';
import { HISTORY_EVENT_LIMIT, historyEventBound } from './history';
import { ProvisionRunners } from './provision-runners';
import { lambdaTask, TASK_TIMEOUT_S, type PollBudget } from './tasks';
import { TEARDOWN_MAX_ROUNDS, TeardownFlow } from './teardown-flow';
import { WaitForRunners } from './wait-for-runners';

;

/**
 * The non-benchmark part's worst case — every call of every state before and after the runners'
 * (validation, launches in each subnet, the readiness checks, the summary queries, the report, a
 * teardown round) timing out on every attempt, with every retry (test/aws/pipeline.test.ts sums
 * it from the definition): what a shard's timeout must leave of the execution's. The usual case
 * is a few minutes.
 */
export const NON_BENCHMARK_BOUND = Duration.minutes(50);
/** Lambda repetitions ValidateInput accepts at most (input.lambdas.repetitions). */
export const MAX_LAMBDA_REPETITIONS = 20;

export interface PipelineProps {
  readonly storage: DataStorage;
  readonly results: ResultsCatalog;
  readonly fleet: RunnerFleet;
  readonly documents: DocumentFunctions;
  /** Where runners launch: each runner tries them in order (not every AZ offers every type). */
  readonly runnerSubnets: ec2.SelectedSubnets;
  /** Whole execution. @default Duration.hours(12) */
  readonly executionTimeout?: Duration;
  /**
   * Waiting for runners to be online in SSM: a fresh instance can take several minutes to register,
   * and waiting costs nothing. @default { waitSeconds: 30, maxPolls: 20 } (10 minutes)
   */
  readonly ready?: PollBudget;
  /**
   * The setup command's own SSM execution timeout: a fresh 2-vCPU runner installs its shard's
   * clients (compiling s3fs or the s3-crt client is the longest part) and fetches the bundle —
   * minutes — so a slow mirror does not end a run. @default Duration.minutes(30)
   */
  readonly setupTimeout?: Duration;
  /**
   * How often a runner says it is alive, and how long it may be silent before it counts as lost.
   * @default { interval: Duration.minutes(1), timeout: Duration.minutes(10) }
   */
  readonly heartbeat?: Heartbeat;
}

/** The props with their defaults applied, and what follows from them. */
interface Settled {
  ready: PollBudget;
  setupTimeout: Duration;
  heartbeat: Heartbeat;
  executionTimeout: Duration;
  /** The longest command timeout a shard may have: what the execution's timeout leaves after everything else. */
  maxShardSeconds: number;
}

/**
 * Every conflict among the props, checked together before anything is built (as AWS Solutions
 * Constructs' CheckStateMachineProps does): one error names them all.
 */
export function checkPipelineProps(props: Pick<PipelineProps, 'ready' | 'setupTimeout' | 'heartbeat' | 'executionTimeout'> & { subnets?: number; queries?: number }): Settled {
  const ready = props.ready ?? { waitSeconds: 30, maxPolls: 20 };
  const setupTimeout = props.setupTimeout ?? Duration.minutes(30);
  const heartbeat = props.heartbeat ?? { interval: Duration.minutes(1), timeout: Duration.minutes(10) };
  const executionTimeout = props.executionTimeout ?? Duration.hours(12);
  const maxShardSeconds = executionTimeout.toSeconds() - setupTimeout.toSeconds() - 2 * heartbeat.timeout.toSeconds() - NON_BENCHMARK_BOUND.toSeconds();
  const problems: string[] = [];
  if (!(ready.waitSeconds >= 1 && ready.maxPolls >= 1 && Number.isInteger(ready.maxPolls))) problems.push(`the ready poll budget must have waitSeconds ≥ 1 and a whole maxPolls ≥ 1 (got ${JSON.stringify(ready)})`);
  else if (ready.waitSeconds * ready.maxPolls < 180) problems.push(`the ready poll budget (${ready.waitSeconds * ready.maxPolls} s) is shorter than 3 minutes: a fresh instance can take minutes to register with SSM`);
  // WaitUntilReady counts the online runners in one DescribeInstanceInformation page.
  if (MAX_RUNNERS > SSM_INSTANCE_INFORMATION_PAGE) problems.push(`MAX_RUNNERS (${MAX_RUNNERS}) exceeds one DescribeInstanceInformation page (${SSM_INSTANCE_INFORMATION_PAGE})`);
  if (heartbeat.interval.toSeconds() < 10) problems.push(`the heartbeat interval (${heartbeat.interval.toSeconds()} s) is shorter than 10 s`);
  if (heartbeat.timeout.toSeconds() < 3 * heartbeat.interval.toSeconds()) problems.push(`the heartbeat timeout (${heartbeat.timeout.toSeconds()} s) must allow at least 3 missed heartbeats (interval ${heartbeat.interval.toSeconds()} s)`);
  if (maxShardSeconds < 3600) {
    problems.push(`the execution timeout (${executionTimeout.toSeconds()} s) leaves ${maxShardSeconds} s for a shard after the setup timeout, two heartbeats and the ${NON_BENCHMARK_BOUND.toSeconds()} s of the other states; give it at least an hour more`);
  }
  // The history grows with runners and rounds only (callbacks): its bound at the largest shape must fit.
  const events = historyEventBound({ runners: MAX_RUNNERS, subnets: props.subnets ?? 1, readyChecks: ready.maxPolls, lambdaRepetitions: MAX_LAMBDA_REPETITIONS, queries: props.queries ?? 0, teardownRounds: TEARDOWN_MAX_ROUNDS });
  if (events > HISTORY_EVENT_LIMIT) problems.push(`an execution of ${MAX_RUNNERS} runners may write ${events} history events, more than the ${HISTORY_EVENT_LIMIT} one execution may have`);
  if (problems.length) throw new Error(`Pipeline: ${problems.length} problem${problems.length > 1 ? 's' : ''} with its props:\n- ${problems.join('\n- ')}`);
  return { ready, setupTimeout, heartbeat, executionTimeout, maxShardSeconds };
}

/**
 * The Report function's memory (MB): `npm run bench:report-function` peaks at about 1,530 MiB on a
 * `full`-sized report (its interval series held as text, rows and the model at once), too close to
 * one vCPU's 1,769 MB; 3,008 MB (about 1.7 vCPU) leaves room, and costs only while it renders.
 */
export const REPORT_MEMORY_MB = 3008;

/**
 * The benchmark pipeline, one Step Functions execution per matrix (JSONPath, so the synthesized
 * definition runs under aws-local-stepfunctions in tests):
 *
 *   ValidateInput → ProvisionRunners → WaitUntilReady → RunBenchmarkShards (per runner: SetupRunner
 *   → RunShard, each ended by the runner's callback) → BenchmarkLambdas → Aggregate → Report →
 *   Teardown → success
 *
 * Each part is a fragment of its own file in lib/pipeline/ (rendered and asserted alone in
 * test/aws/pipeline-fragments.test.ts). Every state that can fail before Teardown catches
 * States.ALL into `$.error` and goes to Teardown, which terminates the run's runners (by tag) and
 * deletes its data in time-boxed rounds (at most TEARDOWN_MAX_ROUNDS), then fails the execution
 * with the original error and cause. Each task has a timeout and a bounded retry on transient
 * errors; the runners' tasks a heartbeat timeout too; each poll loop has a counter. The history
 * grows with runners and rounds only (history.ts bounds it). Beyond the state machine: runners
 * shut themselves down after their maximum lifetime, and a scheduled janitor terminates any
 * runner of this stack older than that.
 */
export class Pipeline extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly validate: BenchFunction;
  readonly teardown: BenchFunction;
  readonly report: BenchFunction;
  readonly janitor: BenchFunction;
  readonly logGroup: logs.LogGroup;
  /** The state machine's name, fixed (STACK-pipeline) so that a policy can name its executions without depending on it. */
  readonly stateMachineName: string;

  constructor(scope: Construct, id: string, props: PipelineProps) {
    super(scope, id);
    const s = checkPipelineProps({ ...props, subnets: props.runnerSubnets.subnetIds.length, queries: props.results.modelQueries.length });
    const { results, fleet } = props;
    ({ validate: this.validate, teardown: this.teardown, report: this.report, janitor: this.janitor } = this.functions(props, s));

    const teardown = new TeardownFlow(this, 'TeardownFlow', { teardown: this.teardown }).entry;
    const validate = lambdaTask(this, RUN_ID_STATE, this.validate, { 'input.$': '$' }, Duration.seconds(TASK_TIMEOUT_S.validate), '$.run');
    // Nothing exists yet: a bad input fails at once, naming the field (the function receives the input under "input").
    validate.addCatch(new sfn.Fail(this, 'InputRejected', { errorPath: '$.error.Error', causePath: '$.error.Cause' }), { errors: ['States.ALL'], resultPath: '$.error' });
    // The execution tells the report what the rows cannot: the matrix, its steps (all succeeded to get here), the start time, the advice it asks.
    const report = lambdaTask(this, 'Report', this.report, {
      'runId.$': '$.run.value.runId', 'queries.$': '$.aggregate',
      execution: { 'matrix.$': '$.run.value.matrixName', 'steps.$': 'States.ArrayLength($.run.value.steps)', 'startedAt.$': '$$.Execution.StartTime', 'advice.$': '$.run.value.advice' },
    }, Duration.seconds(TASK_TIMEOUT_S.report), '$.report');
    report.addCatch(teardown, { errors: ['States.ALL'], resultPath: '$.error' });
    const runners = new BenchmarkSteps(this, 'Steps', { fleet, setupTimeout: s.setupTimeout, heartbeat: s.heartbeat, resultsBucket: results.bucket, teardown })
      .next(new BenchmarkLambdas(this, 'Lambdas', { documents: props.documents, teardown }))
      .next(new AggregateResults(this, 'Aggregation', { results, teardown })).next(report).next(teardown);
    const definition = validate
      .next(new ProvisionRunners(this, 'Provision', { fleet, runnerSubnets: props.runnerSubnets, teardown }))
      .next(new WaitForRunners(this, 'Ready', { budget: s.ready, onReady: runners, teardown }));
    // Step Functions' guidance: a vended-logs name keeps CloudWatch Logs' resource policy (5,120 characters) from growing per log group.
    this.logGroup = new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `/aws/vendedlogs/states/${Stack.of(this).stackName}-${id}`, retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stateMachineName = `${Stack.of(this).stackName}-pipeline`;
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineName: this.stateMachineName,
      definitionBody: sfn.DefinitionBody.fromChainable(definition), queryLanguage: sfn.QueryLanguage.JSON_PATH, timeout: s.executionTimeout, tracingEnabled: true,
      // Every event, without execution data: a task's parameters carry its task token (a callback's
      // `$$.Task.Token`), and the level cannot differ per state. Inputs, outputs and parameters stay
      // in the execution's history (GetExecutionHistory, the console), which needs rights on the
      // execution itself, not on the log group.
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
      comment: 's3-access-bench: one benchmark matrix on EC2 runners and Lambda, always torn down',
    });
    this.allowStateMachine(props);
  }

  /** The pipeline's functions, each grant beside the environment variable and the acknowledgment that go with it. */
  private functions(props: PipelineProps, s: Settled): Pick<Pipeline, 'validate' | 'teardown' | 'report' | 'janitor'> {
    const { storage, results, fleet } = props;
    const stack = Stack.of(this);
    const instances = `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${Aws.ACCOUNT_ID}:instance/*`;
    const stackTagged = { StringEquals: { [`ec2:ResourceTag/${RUNNER_TAG.stack}`]: stack.stackName } };
    const describeOnly = 'ec2:DescribeInstances accepts no resource ARNs (termination is limited to instances tagged with this stack); also X-Ray';
    const terminateTagged = 'runner instance ids are known only at run time; the ec2:ResourceTag condition limits this to runners of this stack';
    const instanceFinding = 'Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:instance/*';
    const fn = (fid: string, p: ConstructorParameters<typeof BenchFunction>[2]) => new BenchFunction(this, fid, p);

    const validate = fn('ValidateInputFn', {
      entry: 'validate-input', description: 's3-access-bench: validate an execution\'s matrix (the runner\'s validator) and store it for the runners',
      memorySize: 256, timeout: Duration.seconds(TASK_TIMEOUT_S.validate),
      environment: {
        DEFAULT_INSTANCE_TYPE: fleet.instanceType, MAX_SHARD_SECONDS: String(s.maxShardSeconds),
        // Where the runners launch: the capacity check asks which of these zones offer the planned types.
        RUNNER_AVAILABILITY_ZONES: props.runnerSubnets.subnets.map((x) => x.availabilityZone).join(','),
      },
      // The profiles and schemas the runner's matrix validator reads from disk ship next to the bundle.
      includeAssets: true,
    }).allowObjects(results.bucket, ['s3:PutObject'], [RESULTS_LAYOUT.executions], { env: 'RESULTS_BUCKET', reason: 'the execution\'s matrix goes to executions/RUNID/ (run id made at run time)' })
      // The capacity check before anything is created: the Standard vCPU quota, the instances running, the types' offerings.
      .allow(['servicequotas:GetServiceQuota', 'ec2:DescribeInstances', 'ec2:DescribeInstanceTypeOfferings'], ['*'], {
        acknowledge: { 'Resource::*': 'read-only capacity check: ec2:DescribeInstances and ec2:DescribeInstanceTypeOfferings accept no resource ARNs, and servicequotas:GetServiceQuota reads the one Standard vCPU quota (L-1216C47A); also X-Ray' },
      });

    const teardown = fn('TeardownFn', {
      entry: 'teardown', description: 's3-access-bench: terminate a run\'s runners and delete its benchmark data (all versions)',
      memorySize: 256, timeout: Duration.seconds(TASK_TIMEOUT_S.teardown),
      environment: { STACK_NAME: stack.stackName, DATA_BUCKET: storage.bucket.bucketName, ACCESS_POINT_PREFIX: storage.accessPointPrefix },
    }).allow(['ec2:DescribeInstances'], ['*'], { acknowledge: { 'Resource::*': describeOnly } })
      .allow(['ec2:TerminateInstances'], [instances], { conditions: stackTagged, acknowledge: { [instanceFinding]: terminateTagged } })
      .allow(['s3:ListBucketVersions', 's3:ListBucket'], [storage.bucket.bucketArn])
      .allowObjects(storage.bucket, ['s3:DeleteObject', 's3:DeleteObjectVersion'], [DATA_ROOT, VOLUME_ROOT, DOCS_PREFIX, storage.accessPointPrefix],
        { reason: 'teardown deletes the run\'s objects under these prefixes (RUNID named at run time)' })
      // A fleet's start-barrier markers a runner could not remove (it failed first): fleet-barrier/RUNID/.
      .allow(['s3:ListBucket'], [results.bucket.bucketArn])
      .allowObjects(results.bucket, ['s3:DeleteObject'], [RESULTS_LAYOUT.fleetBarrier], { env: 'RESULTS_BUCKET', reason: 'teardown deletes a fleet\'s barrier markers under fleet-barrier/RUNID/ (run id made at run time)' })
      // A callback's token a runner never read (it died first): task-tokens/RUNID/.
      .allowObjects(results.bucket, ['s3:DeleteObject'], [RESULTS_LAYOUT.taskTokens], { reason: 'teardown deletes the task tokens a runner never read under task-tokens/RUNID/ (run id made at run time)' });

    // The HTML report (charts rendered to SVG by Vega), its memory and timeout sized by
    // `npm run bench:report-function` on a `full`-sized run (REPORT_MEMORY_MB, TASK_TIMEOUT_S.report).
    const report = fn('ReportFn', {
      entry: 'report', description: 's3-access-bench: write a run\'s HTML report and query summary into the results bucket',
      memorySize: REPORT_MEMORY_MB, timeout: Duration.seconds(TASK_TIMEOUT_S.report),
    }).allow(['athena:GetQueryExecution'], [stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: results.workGroupName })])
      .allowObjects(results.bucket, ['s3:GetObject'], [RESULTS_LAYOUT.athena], { reason: 'Athena writes query results under athena/ with generated names' })
      .allowObjects(results.bucket, ['s3:PutObject'], [RESULTS_LAYOUT.reports], { env: 'RESULTS_BUCKET', reason: 'reports go to reports/RUNID/ (run id made at run time)' });

    const janitor = fn('JanitorFn', {
      entry: 'janitor', description: 's3-access-bench: terminate runners of this stack older than their maximum lifetime',
      memorySize: 256, timeout: Duration.seconds(60),
      environment: { STACK_NAME: stack.stackName, MAX_LIFETIME_MINUTES: String(fleet.maxLifetime.toMinutes()) },
    }).allow(['ec2:DescribeInstances'], ['*'], { acknowledge: { 'Resource::*': describeOnly } })
      .allow(['ec2:TerminateInstances'], [instances], { conditions: stackTagged, acknowledge: { [instanceFinding]: terminateTagged } });
    new events.Rule(this, 'JanitorSchedule', {
      description: 's3-access-bench: hourly sweep for runners past their maximum lifetime',
      schedule: events.Schedule.rate(Duration.hours(1)),
      targets: [new targets.LambdaFunction(janitor.function, { retryAttempts: 2 })],
    });
    return { validate, teardown, report, janitor };
  }

  /** What the state machine's role needs beyond its tasks' own grants, each with its acknowledgment. */
  private allowStateMachine(props: PipelineProps): void {
    const { results, documents } = props;
    const stack = Stack.of(this);
    const role = this.stateMachine.role;
    const resultsArn = nagBucketArn(results.bucket);
    const allow = (actions: string[], resources: string[], acknowledgments: Record<string, string> = {}) => {
      this.stateMachine.addToRolePolicy(new iam.PolicyStatement({ actions, resources }));
      for (const [finding, reason] of Object.entries(acknowledgments)) acknowledge(role, `AwsSolutions-IAM5[${finding}]`, reason);
    };
    allow(['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:StopQueryExecution'], [stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: results.workGroupName })]);
    allow(['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartitions'],
      [stack.formatArn({ service: 'glue', resource: 'catalog' }), stack.formatArn({ service: 'glue', resource: 'database', resourceName: results.databaseName }), ...results.queriedTableArns]);
    allow(['s3:GetBucketLocation', 's3:ListBucket'], [results.bucket.bucketArn]);
    allow(['s3:GetObject'], [results.bucket.arnForObjects(`${RESULTS_LAYOUT.records}*`)],
      { [`Resource::${resultsArn}/${RESULTS_LAYOUT.records}*`]: 'the summary queries read every result file of the tables (results/dt=…, results/intervals/dt=…)' });
    allow(['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'], [results.bucket.arnForObjects(`${RESULTS_LAYOUT.athena}*`)],
      { [`Resource::${resultsArn}/${RESULTS_LAYOUT.athena}*`]: 'Athena .sync writes query results under athena/ with generated names' });
    // Grants the tasks made themselves (RunInstances, SendCommand, the callback tokens' PutObject, LambdaInvoke), acknowledged here where they meet the role.
    acknowledge(role, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.taskTokens}*]`, 'each callback task writes its token to task-tokens/RUNID/INSTANCE/DOCUMENT, for the runner\'s command to read (run id and instance known at run time)');
    acknowledge(role, 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:instance/*]', 'SendCommand targets the runners the execution launched, whose ids exist only at run time');
    acknowledge(role, 'AwsSolutions-IAM5[Resource::*]', 'ec2:RunInstances touches many resource types (instance, volume, ENI, image) named at run time and is allowed only from this stack\'s launch template (ec2:LaunchTemplate condition); ec2:CreateTags is limited to RunInstances; ssm:DescribeInstanceInformation takes no ARN; X-Ray and log delivery take no ARNs');
    acknowledge(role, `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>::parameter${AL2023_PARAMETER_PREFIX}*]`, 'RunInstances resolves the runner image from AWS\'s public Amazon Linux 2023 parameters (arm64 and x86_64, read-only)');
    for (const fn of [this.validate, this.teardown, this.report, documents.before, documents.after]) {
      acknowledge(role, `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(fn.function.node.defaultChild as CfnElement)}.Arn>:*]`, 'invoking any version of the pipeline\'s own functions (LambdaInvoke grant)');
    }
  }
}
