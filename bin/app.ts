#!/usr/bin/env node
// The CDK app: `npx cdk synth` / `cdk deploy`. Synthesizes with no AWS account (no env, no lookups).
// Context: runnerInstanceType (default c7g.large), runnerMaxLifetimeHours (default 6), nag=false to skip cdk-nag.
import { App, Duration, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { S3AccessBenchStack } from '../lib/s3-access-bench-stack';

const app = new App();
const lifetime = app.node.tryGetContext('runnerMaxLifetimeHours');
new S3AccessBenchStack(app, app.node.tryGetContext('stackName') ?? 'S3AccessBench', {
  description: 's3-access-bench: benchmark of the ways programs reach Amazon S3',
  runnerInstanceType: app.node.tryGetContext('runnerInstanceType'),
  runnerMaxLifetime: lifetime ? Duration.hours(Number(lifetime)) : undefined,
});
if (String(app.node.tryGetContext('nag')) !== 'false') Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
