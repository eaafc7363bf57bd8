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
 * to ≤ 15 min besides the setup and the teardown rounds after the first (test/aws/pipeline.test.ts
 * sums them from the definition). Each is several times
 * the call's usual duration: SSM/EC2/Athena control calls take under a second, the report renders
 * in about one (`npm run bench:report-function`); teardown is one round of a loop (teardown-flow.ts):
 * it stops starting work 5 s before this timeout and reports whether anything is left.
 */
export const TASK_TIMEOUT_S = { validate: 8, runInstances: 8, checkOnline: 2, sendCommand: 5, commandStatus: 15, getNamedQuery: 3, summaryQuery: 20, report: 12, teardown: 90 };

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
export const RETRY = { maxAttempts: 3, interval: Duration.seconds(1), backoffRate: 2 };

/** Every state that can fail before Teardown catches States.ALL into `$.error` and goes there. */
export const CATCH_TO_TEARDOWN: sfn.CatchProps = { errors: ['States.ALL'], resultPath: '$.error' };

/**
 * A Lambda task of the pipeline: its payload's result under `resultPath.value`, a timeout, retries
 * on transient Lambda errors — and, for a read-only call (`readOnly`), on a timeout too: a slow cold
 * start of a function polled hundreds of times must not end a run.
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
  t.addRetry({ errors: opts.readOnly ? [...TRANSIENT_ERRORS.lambda, 'States.Timeout'] : TRANSIENT_ERRORS.lambda, ...RETRY });
  return t;
}

/** An AWS SDK task of the pipeline (EC2, SSM, Athena): a timeout and retries on that service's transient errors. */
export function sdkTask(scope: Construct, id: string, service: 'ec2' | 'ssm' | 'athena', action: string, parameters: Record<string, unknown>, iamResources: string[],
  timeout: Duration, extra: Partial<tasks.CallAwsServiceProps> = {}): tasks.CallAwsService {
  const t = new tasks.CallAwsService(scope, id, { service, action, parameters, iamResources, taskTimeout: sfn.Timeout.duration(timeout), ...extra });
  t.addRetry({ errors: TRANSIENT_ERRORS[service], ...RETRY });
  return t;
}
