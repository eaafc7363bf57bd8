#!/usr/bin/env node
// The CDK app: `npx cdk synth` / `cdk deploy`. Synthesizes with no AWS account (no env, no lookups).
// Context: runnerInstanceType (default DEFAULT_RUNNER_INSTANCE_TYPE, lib/instance-types.ts), runnerMaxLifetimeHours (default 12; also the execution's time limit), nag=false to skip cdk-nag.
import { App, Duration, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { S3AccessBenchStack } from '../lib/s3-access-bench-stack';

// CDK's built-in CloudFormation validation repeats what cfn-lint checks in `npm test`
// (test/aws/stack.test.ts) and its WebAssembly engine takes 3–8 s to start here, a third of the
// synth: it runs only on request (CDK_VALIDATION=true npx cdk synth).
const app = new App({ builtinCloudFormationValidation: process.env.CDK_VALIDATION === 'true' });
const lifetime = app.node.tryGetContext('runnerMaxLifetimeHours');
new S3AccessBenchStack(app, app.node.tryGetContext('stackName') ?? 'S3AccessBench', {
  description: 's3-access-bench: benchmark of the ways programs reach Amazon S3',
  runnerInstanceType: app.node.tryGetContext('runnerInstanceType'),
  runnerMaxLifetime: lifetime ? Duration.hours(Number(lifetime)) : undefined,
});
if (String(app.node.tryGetContext('nag')) !== 'false') Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
