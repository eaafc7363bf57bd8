import type { Context } from 'aws-lambda';

/**
 * A context object as Lambda passes it as a handler's second argument. Handlers are called with it
 * in tests so that one taking injected clients second (where Lambda puts the context) fails here.
 */
export function lambdaContext(timeoutMs = 30_000, functionName = 'S3AccessBenchFunction'): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true, functionName, functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`, memoryLimitInMB: '512',
    awsRequestId: '00000000-0000-4000-8000-000000000000', logGroupName: `/aws/lambda/${functionName}`, logStreamName: 'local',
    getRemainingTimeInMillis: () => deadline - Date.now(), done: () => {}, fail: () => {}, succeed: () => {},
  };
}
