import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { BenchFunction } from './bench-function';
import type { DataStorage } from './data-storage';
import { DOCS_PREFIX } from './document-prefixes';
import type { DocumentFunctions } from './document-functions';
import { AL2023_PARAMETER_PREFIX, MAX_RUNNERS, SSM_INSTANCE_INFORMATION_PAGE } from './instance-types';
import { acknowledge } from './nag';
import type { ResultsCatalog } from './results-catalog';
import { RESULTS_LAYOUT } from './results-layout';
import type { RunnerFleet } from './runner-fleet';
import { RUNNER_TAG } from './runner-tags';
import { orderByOf, runQueryIntrinsic } from '../runner/report/run-query';

/** Poll loops of the pipeline: how long to wait between checks and how many checks at most. */
export interface PollBudget { waitSeconds: number; maxPolls: number }

export interface PipelineProps {
  readonly storage: DataStorage;
  readonly results: ResultsCatalog;
  readonly fleet: RunnerFleet;
  readonly documents: DocumentFunctions;
  readonly runnerSubnets: ec2.SelectedSubnets;
  /** Whole execution. @default Duration.hours(12) */
  readonly executionTimeout?: Duration;
  /** Waiting for runners to be online in SSM. @default { waitSeconds: 24, maxPolls: 5 } */
  readonly ready?: PollBudget;
  /** Waiting for the setup command. @default { waitSeconds: 60, maxPolls: 4 } */
  readonly setup?: PollBudget;
  /** Waiting for one benchmark step (the step command's own timeout is `stepTimeout`). @default { waitSeconds: 30, maxPolls: 250 } */
  readonly step?: PollBudget;
  /** SSM execution timeout of one step. @default Duration.hours(2) */
  readonly stepTimeout?: Duration;
}

/**
 * One attempt of each non-benchmark task, in seconds (a function's timeout equals its task's).
 * With 3 retries on each and the poll budgets, they bound the non-benchmark part of an execution
 * to ≤ 15 min (test/aws/pipeline.test.ts sums them from the definition). Each is several times
 * the call's usual duration: SSM/EC2/Athena control calls take under a second, the report renders
 * in about one (`npm run bench:report-function`), teardown deletes 1,000 versions per request.
 */
export const TASK_TIMEOUT_S = { validate: 8, runInstances: 8, checkOnline: 2, sendCommand: 5, commandStatus: 3, getNamedQuery: 3, summaryQuery: 20, report: 12, teardown: 25 };

/**
 * Errors worth a retry, per service: throttling and transient service faults, as Step Functions
 * names them (service prefix + the API's error name with an "Exception" suffix). EC2's API errors
 * reach the aws-sdk integration as `Ec2.Ec2Exception` (RequestLimitExceeded shows up so), so that
 * name is retried too; RunInstances carries a ClientToken, which makes its retries idempotent.
 * States.Timeout is not retried: a call that timed out may still have taken effect.
 */
export const TRANSIENT_ERRORS: Record<'lambda' | 'ec2' | 'ssm' | 'athena', string[]> = {
  lambda: ['Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException', 'Lambda.TooManyRequestsException'],
  ec2: ['Ec2.RequestLimitExceededException', 'Ec2.Ec2Exception', 'Ec2.InternalErrorException'],
  ssm: ['Ssm.ThrottlingException', 'Ssm.InternalServerErrorException'],
  athena: ['Athena.TooManyRequestsException', 'Athena.InternalServerException'],
};
/** Backoff of every retry: 1 s, 2 s, 4 s (3 retries). */
const RETRY = { maxAttempts: 3, interval: Duration.seconds(1), backoffRate: 2 };

/**
 * The benchmark pipeline, one Step Functions execution per matrix (JSONPath, so the synthesized
 * definition runs under aws-local-stepfunctions in tests):
 *
 *   ValidateInput → ProvisionRunners → WaitUntilReady → SetupRunners → RunBenchmarkSteps →
 *   BenchmarkLambdas → Aggregate → Report → Teardown → success
 *
 * Every state that can fail before Teardown catches States.ALL into `$.error` and goes to
 * Teardown, which terminates the run's runners (found by tag) and deletes its data, then fails
 * the execution with the original error and cause. Each task has a timeout and a bounded retry
 * on transient errors; each poll loop has a counter; the non-benchmark part is bounded to
 * ≤ 15 minutes by those numbers (test/aws/pipeline.test.ts adds them up from the definition).
 * Beyond the state machine: runners shut themselves down after their maximum lifetime, and a
 * scheduled janitor terminates any runner of this stack older than that.
 */
export class Pipeline extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly validate: BenchFunction;
  readonly commandStatus: BenchFunction;
  readonly teardown: BenchFunction;
  readonly report: BenchFunction;
  readonly janitor: BenchFunction;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: PipelineProps) {
    super(scope, id);
    const ready = props.ready ?? { waitSeconds: 24, maxPolls: 5 };
    const setup = props.setup ?? { waitSeconds: 60, maxPolls: 4 };
    const stepPoll = props.step ?? { waitSeconds: 30, maxPolls: 250 };
    const stepTimeout = props.stepTimeout ?? Duration.hours(2);
    for (const [name, b] of Object.entries({ ready, setup, step: stepPoll })) {
      if (!(b.waitSeconds >= 1 && b.maxPolls >= 1 && Number.isInteger(b.maxPolls))) throw new Error(`Pipeline: ${name} poll budget must have waitSeconds ≥ 1 and a whole maxPolls ≥ 1`);
    }
    // WaitUntilReady counts the online runners in one DescribeInstanceInformation page.
    if (MAX_RUNNERS > SSM_INSTANCE_INFORMATION_PAGE) throw new Error(`Pipeline: MAX_RUNNERS (${MAX_RUNNERS}) exceeds one DescribeInstanceInformation page (${SSM_INSTANCE_INFORMATION_PAGE})`);
    if (stepPoll.waitSeconds * stepPoll.maxPolls < stepTimeout.toSeconds()) {
      throw new Error(`Pipeline: the step poll budget (${stepPoll.waitSeconds * stepPoll.maxPolls} s) is shorter than stepTimeout (${stepTimeout.toSeconds()} s)`);
    }
    const stack = Stack.of(this);
    const { storage, results, fleet, documents } = props;

    // --- Functions -------------------------------------------------------------------------------
    this.validate = new BenchFunction(this, 'ValidateInputFn', {
      entry: 'validate-input',
      description: 's3-access-bench: validate an execution\'s matrix (the runner\'s validator) and store it for the runners',
      memorySize: 256, timeout: Duration.seconds(TASK_TIMEOUT_S.validate),
      environment: { RESULTS_BUCKET: results.bucket.bucketName, DEFAULT_INSTANCE_TYPE: fleet.instanceType },
      // The profiles and schemas the runner's matrix validator reads from disk ship next to the bundle.
      includeAssets: true,
    });
    this.validate.role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [results.bucket.arnForObjects(`${RESULTS_LAYOUT.executions}*`)] }));

    this.commandStatus = new BenchFunction(this, 'CommandStatusFn', {
      entry: 'command-status', description: 's3-access-bench: one poll of an SSM command on the runners (fails fast on a lost runner)',
      memorySize: 256, timeout: Duration.seconds(TASK_TIMEOUT_S.commandStatus),
    });
    this.commandStatus.role.addToPolicy(new iam.PolicyStatement({ actions: ['ssm:ListCommandInvocations', 'ssm:DescribeInstanceInformation', 'ec2:DescribeInstances'], resources: ['*'] }));

    this.teardown = new BenchFunction(this, 'TeardownFn', {
      entry: 'teardown', description: 's3-access-bench: terminate a run\'s runners and delete its benchmark data (all versions)',
      memorySize: 256, timeout: Duration.seconds(TASK_TIMEOUT_S.teardown),
      environment: { STACK_NAME: stack.stackName, DATA_BUCKET: storage.bucket.bucketName, ACCESS_POINT_PREFIX: storage.accessPointPrefix },
    });
    const stackTagged = { StringEquals: { [`ec2:ResourceTag/${RUNNER_TAG.stack}`]: stack.stackName } };
    const instances = `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${Aws.ACCOUNT_ID}:instance/*`;
    this.teardown.role.addToPolicy(new iam.PolicyStatement({ actions: ['ec2:DescribeInstances'], resources: ['*'] }));
    this.teardown.role.addToPolicy(new iam.PolicyStatement({ actions: ['ec2:TerminateInstances'], resources: [instances], conditions: stackTagged }));
    this.teardown.role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:ListBucketVersions', 's3:ListBucket'], resources: [storage.bucket.bucketArn] }));
    this.teardown.role.addToPolicy(new iam.PolicyStatement({
      actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
      resources: ['s3ab/*', `${DOCS_PREFIX}*`, `${storage.accessPointPrefix}*`].map((p) => storage.bucket.arnForObjects(p)),
    }));

    // The HTML report (charts rendered to SVG by Vega): one full vCPU (1,769 MB) renders a seed run's
    // page in about a second; `npm run bench:report-function` measures the bundle and the render.
    this.report = new BenchFunction(this, 'ReportFn', {
      entry: 'report', description: 's3-access-bench: write a run\'s HTML report and query summary into the results bucket',
      memorySize: 1769, timeout: Duration.seconds(TASK_TIMEOUT_S.report), environment: { RESULTS_BUCKET: results.bucket.bucketName },
    });
    this.report.role.addToPolicy(new iam.PolicyStatement({
      actions: ['athena:GetQueryResults'], resources: [stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: results.workGroupName })],
    }));
    this.report.role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [results.bucket.arnForObjects(`${RESULTS_LAYOUT.athena}*`)] }));
    this.report.role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [results.bucket.arnForObjects(`${RESULTS_LAYOUT.reports}*`)] }));

    this.janitor = new BenchFunction(this, 'JanitorFn', {
      entry: 'janitor', description: 's3-access-bench: terminate runners of this stack older than their maximum lifetime',
      memorySize: 256, timeout: Duration.seconds(60),
      environment: { STACK_NAME: stack.stackName, MAX_LIFETIME_MINUTES: String(fleet.maxLifetime.toMinutes()) },
    });
    this.janitor.role.addToPolicy(new iam.PolicyStatement({ actions: ['ec2:DescribeInstances'], resources: ['*'] }));
    this.janitor.role.addToPolicy(new iam.PolicyStatement({ actions: ['ec2:TerminateInstances'], resources: [instances], conditions: stackTagged }));
    new events.Rule(this, 'JanitorSchedule', {
      description: 's3-access-bench: hourly sweep for runners past their maximum lifetime',
      schedule: events.Schedule.rate(Duration.hours(1)),
      targets: [new targets.LambdaFunction(this.janitor.function, { retryAttempts: 2 })],
    });

    // --- States --------------------------------------------------------------------------------
    const catchToTeardown: sfn.CatchProps = { errors: ['States.ALL'], resultPath: '$.error' };
    const lambdaTask = (id: string, fn: BenchFunction, payload: Record<string, unknown>, timeout: Duration, resultPath: string | null) => {
      const t = new tasks.LambdaInvoke(this, id, {
        lambdaFunction: fn.function,
        payload: sfn.TaskInput.fromObject(payload),
        resultSelector: { 'value.$': '$.Payload' },
        resultPath: resultPath === null ? sfn.JsonPath.DISCARD : resultPath,
        retryOnServiceExceptions: false,
        taskTimeout: sfn.Timeout.duration(timeout),
      });
      t.addRetry({ errors: TRANSIENT_ERRORS.lambda, ...RETRY });
      return t;
    };
    const sdkTask = (id: string, service: 'ec2' | 'ssm' | 'athena', action: string, parameters: Record<string, unknown>, iamResources: string[], timeout: Duration, extra: Partial<tasks.CallAwsServiceProps> = {}) => {
      const t = new tasks.CallAwsService(this, id, { service, action, parameters, iamResources, taskTimeout: sfn.Timeout.duration(timeout), ...extra });
      t.addRetry({ errors: TRANSIENT_ERRORS[service], ...RETRY });
      return t;
    };

    const teardown = lambdaTask('Teardown', this.teardown, { 'runId.$': '$.run.value.runId' }, Duration.seconds(TASK_TIMEOUT_S.teardown), '$.teardown');
    const failed = new sfn.Fail(this, 'ExecutionFailed', { errorPath: '$.error.Error', causePath: '$.error.Cause' });
    // Teardown itself failed: the execution still fails with the original error and cause (when
    // there was one), the teardown's error added to the cause — never replacing it.
    const leftover = 'the janitor and the runner lifetime limit will terminate what is left';
    const addTeardownError = new sfn.Pass(this, 'AddTeardownError', {
      parameters: {
        'Error.$': '$.error.Error',
        'Cause.$': `States.Format('{} [and Teardown failed: {}: {}; ${leftover}]', $.error.Cause, $.teardownError.Error, $.teardownError.Cause)`,
      },
      resultPath: '$.error',
    }).next(failed);
    const teardownErrorAlone = new sfn.Pass(this, 'TeardownErrorAlone', {
      parameters: {
        Error: 'TeardownFailed',
        'Cause.$': `States.Format('Teardown did not finish: {}: {}; ${leftover}', $.teardownError.Error, $.teardownError.Cause)`,
      },
      resultPath: '$.error',
    }).next(failed);
    teardown.addCatch(new sfn.Choice(this, 'TeardownFailedAfterError?')
      .when(sfn.Condition.isPresent('$.error'), addTeardownError)
      .otherwise(teardownErrorAlone), { errors: ['States.ALL'], resultPath: '$.teardownError' });
    const done = new sfn.Succeed(this, 'Done', { comment: 'The report is at $.report.value.reportLocation' });
    teardown.next(new sfn.Choice(this, 'FailedBeforeTeardown?').when(sfn.Condition.isPresent('$.error'), failed).otherwise(done));

    // ValidateInput: nothing exists yet, so a bad input fails at once.
    const inputRejected = new sfn.Fail(this, 'InputRejected', { errorPath: '$.error.Error', causePath: '$.error.Cause' });
    const validate = lambdaTask('ValidateInput', this.validate, { 'input.$': '$' }, Duration.seconds(TASK_TIMEOUT_S.validate), '$.run');
    // The function receives the execution input under "input".
    validate.addCatch(inputRejected, { errors: ['States.ALL'], resultPath: '$.error' });

    // ProvisionRunners: one RunInstances per runner spec, all tagged with the run and execution.
    // Each spec launches the AL2023 image of its own architecture (ValidateInput picks it), over
    // the launch template's, so Graviton and x86 types can be compared in one execution.
    const launchTemplateArn = stack.formatArn({ service: 'ec2', resource: 'launch-template', resourceName: fleet.launchTemplate.launchTemplateId });
    const runInstances = sdkTask('RunInstances', 'ec2', 'runInstances', {
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
    // A spec that fails to launch does not end the Map at once: the other specs' RunInstances calls
    // finish first, so Teardown (which finds runners by tag) sees every instance launched.
    const launchFailed = new sfn.Pass(this, 'LaunchFailed', { parameters: { instanceIds: [], launched: false, 'error.$': '$.launchError' } });
    runInstances.addCatch(launchFailed, { errors: ['States.ALL'], resultPath: '$.launchError' });
    const provision = new sfn.Map(this, 'ProvisionRunners', {
      itemsPath: '$.run.value.runners',
      itemSelector: { 'spec.$': '$$.Map.Item.Value', 'index.$': '$$.Map.Item.Index', 'runId.$': '$.run.value.runId', 'executionId.$': '$$.Execution.Id' },
      maxConcurrency: 0,
      resultPath: '$.provisioned',
    });
    provision.itemProcessor(runInstances);
    provision.addCatch(teardown, catchToTeardown);
    const checkLaunches = new sfn.Pass(this, 'CheckLaunches', {
      parameters: { 'anyFailed.$': 'States.ArrayContains($.provisioned[*].launched, false)' }, resultPath: '$.launches',
    });
    const launchError = new sfn.Pass(this, 'LaunchFailures', {
      parameters: { anyFailed: true, 'errors.$': '$.provisioned[?(@.launched == false)].error' }, resultPath: '$.launches',
    }).next(new sfn.Pass(this, 'FirstLaunchError', { inputPath: '$.launches.errors[0]', resultPath: '$.error' })).next(teardown);
    const collect = new sfn.Pass(this, 'CollectRunners', { parameters: { 'instanceIds.$': '$.provisioned[*].instanceIds[*]' }, resultPath: '$.runners' });

    // WaitUntilReady: every runner online in SSM, at most ready.maxPolls checks.
    const notReady = new sfn.Pass(this, 'RunnersNotReady', {
      result: sfn.Result.fromObject({ Error: 'RunnersNotReady', Cause: `not every runner was online in SSM after ${ready.maxPolls} checks ${ready.waitSeconds} s apart` }),
      resultPath: '$.error',
    }).next(teardown);
    const initReady = new sfn.Pass(this, 'WaitUntilReady', { result: sfn.Result.fromObject({ attempts: 0 }), resultPath: '$.ready' });
    const readyWait = new sfn.Wait(this, 'ReadyWait', { time: sfn.WaitTime.duration(Duration.seconds(ready.waitSeconds)) });
    const checkReady = sdkTask('CheckRunnersOnline', 'ssm', 'describeInstanceInformation', {
      Filters: [{ Key: 'InstanceIds', 'Values.$': '$.runners.instanceIds' }, { Key: 'PingStatus', Values: ['Online'] }],
      // One page holds every runner (the default page is 10): MAX_RUNNERS ≤ 50 is checked above.
      MaxResults: SSM_INSTANCE_INFORMATION_PAGE,
    }, ['*'], Duration.seconds(TASK_TIMEOUT_S.checkOnline), { resultSelector: { 'online.$': 'States.ArrayLength($.InstanceInformationList)' }, resultPath: '$.readyCheck' });
    checkReady.addCatch(teardown, catchToTeardown);
    const countReady = new sfn.Pass(this, 'CountReadyChecks', {
      parameters: { 'attempts.$': 'States.MathAdd($.ready.attempts, 1)', 'online.$': '$.readyCheck.online', 'expected.$': 'States.ArrayLength($.runners.instanceIds)' },
      resultPath: '$.ready',
    });

    // SetupRunners and each benchmark step: SendCommand, then poll the command until done.
    const runnerInstances = `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${Aws.ACCOUNT_ID}:instance/*`;
    const sendAndWait = (prefix: string, documentName: string, parameters: Record<string, unknown>, budget: PollBudget, onTimeout: sfn.IChainable, onDone: sfn.IChainable, catchTo?: sfn.IChainable) => {
      const documentArn = stack.formatArn({ service: 'ssm', resource: 'document', resourceName: documentName });
      const send = sdkTask(`${prefix}`, 'ssm', 'sendCommand', {
        DocumentName: documentName,
        'InstanceIds.$': '$.instanceIds',
        Parameters: parameters,
        TimeoutSeconds: 60,
        Comment: `s3-access-bench ${prefix}`,
      }, [documentArn, runnerInstances], Duration.seconds(TASK_TIMEOUT_S.sendCommand), { resultSelector: { 'commandId.$': '$.Command.CommandId', attempts: 0 }, resultPath: '$.command' });
      const wait = new sfn.Wait(this, `${prefix}Wait`, { time: sfn.WaitTime.duration(Duration.seconds(budget.waitSeconds)) });
      const check = lambdaTask(`${prefix}Check`, this.commandStatus, { 'commandId.$': '$.command.commandId', 'instanceIds.$': '$.instanceIds' }, Duration.seconds(TASK_TIMEOUT_S.commandStatus), '$.commandStatus');
      const count = new sfn.Pass(this, `${prefix}Count`, {
        parameters: { 'commandId.$': '$.command.commandId', 'attempts.$': 'States.MathAdd($.command.attempts, 1)' }, resultPath: '$.command',
      });
      if (catchTo) {
        send.addCatch(catchTo, catchToTeardown);
        check.addCatch(catchTo, catchToTeardown);
      }
      return send.next(wait).next(check).next(count).next(new sfn.Choice(this, `${prefix}Done?`)
        .when(sfn.Condition.booleanEquals('$.commandStatus.value.done', true), onDone)
        .when(sfn.Condition.numberGreaterThanEquals('$.command.attempts', budget.maxPolls), onTimeout)
        .otherwise(wait));
    };

    // In the main flow the runners' ids sit in $.runners.instanceIds; the send step reads $.instanceIds.
    const setupTimedOut = new sfn.Pass(this, 'SetupTimedOut', {
      result: sfn.Result.fromObject({ Error: 'SetupTimedOut', Cause: `runner setup did not finish within ${setup.maxPolls} checks ${setup.waitSeconds} s apart` }),
      resultPath: '$.error',
    }).next(teardown);

    // RunBenchmarkSteps: each step on every runner at once (N runners = N clients on the same step).
    const stepTimedOut = new sfn.Fail(this, 'StepTimedOut', { error: 'StepTimedOut', cause: `a benchmark step did not finish within ${stepPoll.maxPolls} checks ${stepPoll.waitSeconds} s apart` });
    const stepDone = new sfn.Succeed(this, 'StepDone');
    const runStep = sendAndWait('RunStep', fleet.runStepDocument.ref, {
      'runId.$': 'States.Array($.runId)', 'step.$': 'States.Array($.step.step)', executionTimeout: [String(stepTimeout.toSeconds())],
    }, stepPoll, stepTimedOut, stepDone);
    const steps = new sfn.Map(this, 'RunBenchmarkSteps', {
      itemsPath: '$.run.value.steps',
      itemSelector: { 'step.$': '$$.Map.Item.Value', 'runId.$': '$.run.value.runId', 'instanceIds.$': '$.runners.instanceIds' },
      maxConcurrency: 1,
      resultPath: sfn.JsonPath.DISCARD,
    });
    steps.itemProcessor(runStep);
    steps.addCatch(teardown, catchToTeardown);

    // BenchmarkLambdas: seed 001's before/after, R repetitions, each writing its phase records.
    const invokeBefore = lambdaTask('InvokeBefore', documents.before, { 'runId.$': '$.runId', 'repetition.$': '$.repetition', 'documents.$': '$.documents' }, Duration.minutes(5), '$.before');
    const invokeAfter = lambdaTask('InvokeAfter', documents.after, { 'runId.$': '$.runId', 'repetition.$': '$.repetition', 'documents.$': '$.documents' }, Duration.minutes(5), '$.after');
    const lambdas = new sfn.Map(this, 'BenchmarkLambdas', {
      itemsPath: '$.run.value.lambdaRepetitions',
      itemSelector: { 'repetition.$': '$$.Map.Item.Value', 'runId.$': '$.run.value.runId', 'documents.$': '$.run.value.documents' },
      maxConcurrency: 1,
      resultPath: '$.lambdas',
    });
    lambdas.itemProcessor(invokeBefore.next(invokeAfter));
    lambdas.addCatch(teardown, catchToTeardown);

    // Aggregate: every named summary query, restricted to this run, through Athena .sync.
    const queryList = new sfn.Pass(this, 'ListSummaryQueries', {
      result: sfn.Result.fromArray(results.namedQueries.map((q) => ({ name: q.name, id: q.query.attrNamedQueryId, orderBy: orderByOf(q.sql, `${q.name}.sql`) }))),
      resultPath: '$.queries',
    });
    const getQuery = sdkTask('GetNamedQuery', 'athena', 'getNamedQuery', { 'NamedQueryId.$': '$.query.id' },
      [stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: results.workGroupName })], Duration.seconds(TASK_TIMEOUT_S.getNamedQuery),
      { resultSelector: { 'sql.$': '$.NamedQuery.QueryString' }, resultPath: '$.named' });
    // Athena .sync as a raw Task state: CDK's AthenaStartQueryExecution grants s3:CreateBucket and
    // reads on "*" when the workgroup holds the output location; the grants below are scoped instead.
    const runQuery = new sfn.CustomState(this, 'RunSummaryQuery', {
      stateJson: {
        Type: 'Task',
        Resource: `arn:${Aws.PARTITION}:states:::athena:startQueryExecution.sync`,
        Parameters: {
          // The file's SQL restricted to the run, its ORDER BY repeated outside (runner/report/run-query.ts).
          'QueryString.$': runQueryIntrinsic('$.named.sql', '$.runId', '$.query.orderBy'),
          QueryExecutionContext: { Database: results.databaseName },
          WorkGroup: results.workGroupName,
        },
        ResultSelector: { 'queryExecutionId.$': '$.QueryExecution.QueryExecutionId' },
        ResultPath: '$.execution',
        TimeoutSeconds: TASK_TIMEOUT_S.summaryQuery,
      },
    });
    runQuery.addRetry({ errors: TRANSIENT_ERRORS.athena, ...RETRY });
    const aggregate = new sfn.Map(this, 'Aggregate', {
      itemsPath: '$.queries',
      itemSelector: { 'query.$': '$$.Map.Item.Value', 'runId.$': '$.run.value.runId' },
      maxConcurrency: 0,
      resultPath: '$.aggregate',
    });
    aggregate.itemProcessor(getQuery.next(runQuery).next(new sfn.Pass(this, 'SummaryQueryDone', {
      parameters: { 'name.$': '$.query.name', 'queryExecutionId.$': '$.execution.queryExecutionId' },
    })));
    aggregate.addCatch(teardown, catchToTeardown);

    // The execution tells the report what the rows cannot: the matrix, its steps (all succeeded to get here), the start time.
    const report = lambdaTask('Report', this.report, {
      'runId.$': '$.run.value.runId',
      'queries.$': '$.aggregate',
      execution: { 'matrix.$': '$.run.value.matrixName', 'steps.$': 'States.ArrayLength($.run.value.steps)', 'startedAt.$': '$$.Execution.StartTime' },
    }, Duration.seconds(TASK_TIMEOUT_S.report), '$.report');
    report.addCatch(teardown, catchToTeardown);

    // --- Wiring --------------------------------------------------------------------------------
    const setupChain = sendAndWait('SetupRunners', fleet.setupDocument.ref, { executionTimeout: [String(setup.waitSeconds * setup.maxPolls)] }, setup, setupTimedOut,
      steps.next(lambdas).next(queryList).next(aggregate).next(report).next(teardown), teardown);
    const afterLaunch = collect
      // The SendCommand steps read $.instanceIds (as inside the steps Map).
      .next(new sfn.Pass(this, 'RunnerIds', { inputPath: '$.runners.instanceIds', resultPath: '$.instanceIds' }))
      .next(initReady)
      .next(readyWait)
      .next(checkReady)
      .next(countReady)
      .next(new sfn.Choice(this, 'RunnersReady?')
        .when(sfn.Condition.numberEqualsJsonPath('$.ready.online', '$.ready.expected'), setupChain)
        .when(sfn.Condition.numberGreaterThanEquals('$.ready.attempts', ready.maxPolls), notReady)
        .otherwise(readyWait));
    const definition = validate
      .next(provision)
      .next(checkLaunches)
      .next(new sfn.Choice(this, 'AllRunnersLaunched?').when(sfn.Condition.booleanEquals('$.launches.anyFailed', true), launchError).otherwise(afterLaunch));

    this.logGroup = new logs.LogGroup(this, 'ExecutionLogs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      queryLanguage: sfn.QueryLanguage.JSON_PATH,
      timeout: props.executionTimeout ?? Duration.hours(12),
      tracingEnabled: true,
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: true },
      comment: 's3-access-bench: one benchmark matrix on EC2 runners and Lambda, always torn down',
    });

    // --- Acknowledgments next to what they excuse ------------------------------------------------
    acknowledge(this.commandStatus.role, 'AwsSolutions-IAM5[Resource::*]', 'ssm:ListCommandInvocations, ssm:DescribeInstanceInformation and ec2:DescribeInstances accept no resource ARNs; also X-Ray');
    acknowledge(this.teardown.role, 'AwsSolutions-IAM5[Resource::*]', 'ec2:DescribeInstances accepts no resource ARNs (termination is limited to instances tagged with this stack); also X-Ray');
    acknowledge(this.janitor.role, 'AwsSolutions-IAM5[Resource::*]', 'ec2:DescribeInstances accepts no resource ARNs (termination is limited to instances tagged with this stack); also X-Ray');
    for (const fn of [this.teardown, this.janitor]) {
      acknowledge(fn.role, 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:instance/*]', 'runner instance ids are known only at run time; the ec2:ResourceTag condition limits this to runners of this stack');
    }
    const dataArn = `<${stack.getLogicalId(storage.bucket.node.defaultChild as never)}.Arn>`;
    const resultsArn = `<${stack.getLogicalId(results.bucket.node.defaultChild as never)}.Arn>`;
    for (const p of ['s3ab/*', `${DOCS_PREFIX}*`, `${storage.accessPointPrefix}*`]) {
      acknowledge(this.teardown.role, `AwsSolutions-IAM5[Resource::${dataArn}/${p}]`, 'teardown deletes the run\'s objects under these prefixes (RUNID named at run time)');
    }
    acknowledge(this.validate.role, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.executions}*]`, 'the execution\'s matrix goes to executions/RUNID/ (run id made at run time)');
    acknowledge(this.report.role, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.reports}*]`, 'reports go to reports/RUNID/ (run id made at run time)');
    acknowledge(this.report.role, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.athena}*]`, 'Athena writes query results under athena/ with generated names');
    const smRole = this.stateMachine.role;
    const workGroupArn = stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: results.workGroupName });
    this.stateMachine.addToRolePolicy(new iam.PolicyStatement({ actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:StopQueryExecution'], resources: [workGroupArn] }));
    this.stateMachine.addToRolePolicy(new iam.PolicyStatement({
      actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartitions'],
      resources: [stack.formatArn({ service: 'glue', resource: 'catalog' }), stack.formatArn({ service: 'glue', resource: 'database', resourceName: results.databaseName }), results.tableArn],
    }));
    this.stateMachine.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetBucketLocation', 's3:ListBucket'], resources: [results.bucket.bucketArn] }));
    this.stateMachine.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [results.bucket.arnForObjects(`${RESULTS_LAYOUT.records}*`)] }));
    this.stateMachine.addToRolePolicy(new iam.PolicyStatement({
      actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'], resources: [results.bucket.arnForObjects(`${RESULTS_LAYOUT.athena}*`)],
    }));
    acknowledge(smRole, 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:instance/*]', 'SendCommand targets the runners the execution launched, whose ids exist only at run time');
    acknowledge(smRole, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.athena}*]`, 'Athena .sync writes query results under athena/ with generated names');
    acknowledge(smRole, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.records}*]`, 'the summary queries read every result file of the table (results/dt=…)');
    acknowledge(smRole, 'AwsSolutions-IAM5[Resource::*]', 'ec2:RunInstances touches many resource types (instance, volume, ENI, image) named at run time and is allowed only from this stack\'s launch template (ec2:LaunchTemplate condition); ec2:CreateTags is limited to RunInstances; ssm:DescribeInstanceInformation takes no ARN; X-Ray and log delivery take no ARNs');
    acknowledge(smRole, `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>::parameter${AL2023_PARAMETER_PREFIX}*]`, 'RunInstances resolves the runner image from AWS\'s public Amazon Linux 2023 parameters (arm64 and x86_64, read-only)');
    for (const fn of [this.validate, this.commandStatus, this.teardown, this.report, documents.before, documents.after]) {
      acknowledge(smRole, `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(fn.function.node.defaultChild as never)}.Arn>:*]`, 'invoking any version of the pipeline\'s own functions (LambdaInvoke grant)');
    }
  }
}
