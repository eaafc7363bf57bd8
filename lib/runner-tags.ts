/** The tags runners carry; the janitor and the teardown find runners by them. */
export const RUNNER_TAG = { stack: 's3ab:stack', execution: 's3ab:execution', runId: 's3ab:run-id' } as const;
