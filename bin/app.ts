#!/usr/bin/env node
// The CDK app: `npx cdk synth` / `cdk deploy`. The stack grows one construct per concern in lib/.
import { App } from 'aws-cdk-lib';
import { S3AccessBenchStack } from '../lib/s3-access-bench-stack';

const app = new App();
new S3AccessBenchStack(app, 'S3AccessBench', {
  description: 's3-access-bench: benchmark of the ways programs reach Amazon S3',
});
app.synth();
