#!/usr/bin/env node
// The CDK app: `npx cdk synth` / `cdk deploy`. Synthesizes with no AWS account (no env, no lookups).
// Context: runnerInstanceType (default DEFAULT_RUNNER_INSTANCE_TYPE, lib/instance-types.ts), runnerMaxLifetimeHours (default 12; also the execution's time limit),
// deleteResultsOnDestroy=true (cdk destroy deletes the results bucket; default: retained), resultsBucket=NAME (adopt a retained results bucket), nag=false to skip cdk-nag,
// objectivefsLicenseParameter=NAME with objectivefsRpmSha256=ARCH=HEX,... (ObjectiveFS on runners: lib/objectivefs-deploy.ts).
import { App, Duration, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { objectivefsDeploy } from '../lib/objectivefs-deploy';
import { S3AccessBenchStack } from '../lib/s3-access-bench-stack';

// CDK's built-in CloudFormation validation repeats what cfn-lint checks in `npm test`
// (test/aws/stack.test.ts) and its WebAssembly engine takes 3–8 s to start here, a third of the
// synth: it runs only on request (CDK_VALIDATION=true npx cdk synth).
const app = new App({ builtinCloudFormationValidation: process.env.CDK_VALIDATION === 'true' });
const lifetime = app.node.tryGetContext('runnerMaxLifetimeHours');
/** A true/false context value (`-c NAME=true` arrives as a string); anything else is refused. */
function booleanContext(name: string): boolean | undefined {
  const value = app.node.tryGetContext(name);
  if (value === undefined || value === true || value === false) return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Error(`context ${name} must be true or false, got "${value}": use -c ${name}=true`);
}
new S3AccessBenchStack(app, app.node.tryGetContext('stackName') ?? 'S3AccessBench', {
  description: 's3-access-bench: benchmark of the ways programs reach Amazon S3',
  runnerInstanceType: app.node.tryGetContext('runnerInstanceType'),
  runnerMaxLifetime: lifetime ? Duration.hours(Number(lifetime)) : undefined,
  deleteResultsOnDestroy: booleanContext('deleteResultsOnDestroy'),
  resultsBucketName: app.node.tryGetContext('resultsBucket'),
  objectivefs: objectivefsDeploy(app.node.tryGetContext('objectivefsLicenseParameter'), app.node.tryGetContext('objectivefsRpmSha256')),
});
if (String(app.node.tryGetContext('nag')) !== 'false') Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
