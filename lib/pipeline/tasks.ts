import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { BenchFunction } from '../bench-function';
import { RESULTS_LAYOUT } from '../results-layout';

/** Poll loops of the pipeline: how long to wait between checks and how many checks at most. */
export interface PollBudget { waitSeconds: number; maxPolls: number }

/**
 * One attempt of each non-benchmark task, in seconds (a function's timeout equals its task's).
 * With 3 retries on each and the poll budgets, they bound the non-benchmark part of an execution
 * (test/aws/pipeline.test.ts sums them from the definition). Each is several times the call's
 * usual duration: SSM/EC2 control calls take under a second; the report is sized from its bound
 * at `full` scale (below); teardown is one round of a loop (teardown-flow.ts): it stops
 * starting work 5 s before this timeout and reports whether anything is left. A summary query
 * gets minutes: Athena may queue it, and queued time counts against the timeout.
 */
// report: `npm run bench:report-function` draws a `full`-sized report (twice the interval rows the
// profile's modelled step times give) in about 21 s on one shared core; 60 s leaves about three
// times that, since Report is not retried and a lost report is a lost execution.
export const TASK_TIMEOUT_S = { validate: 8, runInstances: 8, checkOnline: 10, sendCommand: 5, getNamedQuery: 10, summaryQuery: 120, report: 60, teardown: 90 };

/**
 * Errors worth a retry, per service: throttling and transient service faults, as Step Functions
 * names them (service prefix + the API's error name with an "Exception" suffix). EC2's API errors
 * reach the aws-sdk integration as `Ec2.Ec2Exception` (RequestLimitExceeded shows up so), so that
 * name is retried too; RunInstances carries a ClientToken, which makes its retries idempotent.
 * States.Timeout is retried only on read-only calls (`readOnly`): a call that changes something
 * and timed out may still have taken effect.
 */
export const TRANSIENT_ERRORS: Record<'lambda' | 'ec2' | 'ssm' | 'athena' | 's3', string[]> = {
  lambda: ['Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException', 'Lambda.TooManyRequestsException'],
  ec2: ['Ec2.RequestLimitExceededException', 'Ec2.Ec2Exception', 'Ec2.InternalErrorException'],
  ssm: ['Ssm.ThrottlingException', 'Ssm.InternalServerErrorException'],
  athena: ['Athena.TooManyRequestsException', 'Athena.InternalServerException'],
  // S3's throttling (SlowDown) and internal errors reach the aws-sdk integration as S3.S3Exception.
  s3: ['S3.S3Exception', 'S3.SdkClientException'],
};

/** Backoff of every retry: 1 s, 2 s, 4 s (3 retries). */
export const RETRY = { maxAttempts: 3, interval: Duration.seconds(1), backoffRate: 2 };

/** The errors a task retries: its service's transient ones, and a timeout when the call only reads. */
export function retriedErrors(service: keyof typeof TRANSIENT_ERRORS, readOnly = false): string[] {
  return readOnly ? [...TRANSIENT_ERRORS[service], 'States.Timeout'] : TRANSIENT_ERRORS[service];
}

/** Every state that can fail before Teardown catches States.ALL into `$.error` and goes there. */
export const CATCH_TO_TEARDOWN: sfn.CatchProps = { errors: ['States.ALL'], resultPath: '$.error' };

/**
 * A Lambda task of the pipeline: its payload's result under `resultPath.value`, a timeout, retries
 * on transient Lambda errors — and, for a read-only call (`readOnly`), on a timeout too.
 */
export function lambdaTask(scope: Construct, id: string, fn: BenchFunction, payload: Record<string, unknown>, timeout: Duration, resultPath: string | null,
  opts: { readOnly?: boolean } = {}): tasks.LambdaInvoke {
  const t = new tasks.LambdaInvoke(scope, id, {
    lambdaFunction: fn.function,
    payload: sfn.TaskInput.fromObject(payload),
    resultSelector: { 'value.$': '$.Payload' },
    resultPath: resultPath === null ? sfn.JsonPath.DISCARD : resultPath,
    retryOnServiceExceptions: false,
    taskTimeout: sfn.Timeout.duration(timeout),
  });
  t.addRetry({ errors: retriedErrors('lambda', opts.readOnly), ...RETRY });
  return t;
}

/**
 * An AWS SDK task of the pipeline (EC2, SSM, Athena): a timeout and retries on that service's
 * transient errors (and on a timeout when `readOnly`: the call only reads, so a retry is safe).
 */
export function sdkTask(scope: Construct, id: string, service: 'ec2' | 'ssm' | 'athena', action: string, parameters: Record<string, unknown>, iamResources: string[],
  timeout: Duration, extra: Partial<tasks.CallAwsServiceProps> & { readOnly?: boolean } = {}): tasks.CallAwsService {
  const { readOnly, ...props } = extra;
  const t = new tasks.CallAwsService(scope, id, { service, action, parameters, iamResources, taskTimeout: sfn.Timeout.duration(timeout), ...props });
  t.addRetry({ errors: retriedErrors(service, readOnly), ...RETRY });
  return t;
}

/** How a runner's callback task is bounded: its whole time, and the longest silence between heartbeats. */
export interface CallbackBounds {
  /** The task's timeout (a fixed duration, or a JSONPath to a number of seconds in the state's input). */
  readonly timeout: sfn.Timeout;
  /** Without a heartbeat for this long the task fails with States.HeartbeatTimeout (a runner that died). */
  readonly heartbeat: Duration;
}

/**
 * An SSM command whose runner ends the task itself, in two states, so that the task token is in no
 * SSM command's parameters (which SSM keeps in its command history, readable with
 * ssm:ListCommands): `send` runs the command (SendCommand, request-response; its parameters name
 * the results-bucket key its token will be at, task-tokens/RUNID/INSTANCE/DOCUMENT), then the
 * waiting state (`.waitForTaskToken`) is an S3 PutObject of `$$.Task.Token` to that key; the
 * command reads the token there, deletes it and calls SendTaskHeartbeat while it works and
 * SendTaskSuccess / SendTaskFailure at its end. Waiting adds no history events, however long the
 * command runs. Transient SSM errors of the SendCommand are retried (nothing was sent); a timeout
 * is not.
 */
export function callbackCommandTasks(scope: Construct, id: string, p: {
  sendId: string; parameters: Record<string, unknown>; iamResources: string[]; bounds: CallbackBounds;
  tokens: { bucket: s3.IBucket; keyPath: string }; resultPath: string;
}): { send: tasks.CallAwsService; wait: tasks.CallAwsService } {
  const send = sdkTask(scope, p.sendId, 'ssm', 'sendCommand', p.parameters, p.iamResources, Duration.seconds(TASK_TIMEOUT_S.sendCommand), { resultPath: sfn.JsonPath.DISCARD });
  const wait = new tasks.CallAwsService(scope, id, {
    service: 's3', action: 'putObject', iamAction: 's3:PutObject',
    parameters: { Bucket: p.tokens.bucket.bucketName, 'Key.$': p.tokens.keyPath, 'Body.$': '$$.Task.Token' },
    iamResources: [p.tokens.bucket.arnForObjects(`${RESULTS_LAYOUT.taskTokens}*`)],
    integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    taskTimeout: p.bounds.timeout, heartbeatTimeout: sfn.Timeout.duration(p.bounds.heartbeat),
    resultPath: p.resultPath,
  });
  // A put that failed wrote no token the runner could have read: a retry (with a fresh token) is safe.
  wait.addRetry({ errors: retriedErrors('s3'), ...RETRY });
  return { send, wait };
}
