import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { BenchFunction } from '../bench-function';

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
export const TRANSIENT_ERRORS: Record<'lambda' | 'ec2' | 'ssm' | 'athena', string[]> = {
  lambda: ['Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException', 'Lambda.TooManyRequestsException'],
  ec2: ['Ec2.RequestLimitExceededException', 'Ec2.Ec2Exception', 'Ec2.InternalErrorException'],
  ssm: ['Ssm.ThrottlingException', 'Ssm.InternalServerErrorException'],
  athena: ['Athena.TooManyRequestsException', 'Athena.InternalServerException'],
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
 * An SSM command whose runner ends the task itself (`.waitForTaskToken`): the command carries the
 * task token (`$$.Task.Token`, as the document parameter `taskToken`) and the runner calls
 * SendTaskHeartbeat while it works and SendTaskSuccess / SendTaskFailure at its end. Waiting adds
 * no history events, however long the command runs. Transient SSM errors of the SendCommand are
 * retried (nothing was sent); a timeout is not.
 */
export function callbackCommandTask(scope: Construct, id: string, parameters: Record<string, unknown>, iamResources: string[], bounds: CallbackBounds,
  extra: Partial<tasks.CallAwsServiceProps> = {}): tasks.CallAwsService {
  const t = new tasks.CallAwsService(scope, id, {
    service: 'ssm', action: 'sendCommand', parameters, iamResources,
    integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    taskTimeout: bounds.timeout, heartbeatTimeout: sfn.Timeout.duration(bounds.heartbeat),
    ...extra,
  });
  t.addRetry({ errors: retriedErrors('ssm'), ...RETRY });
  return t;
}
