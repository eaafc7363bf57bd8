import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { S3AccessBenchStack, type S3AccessBenchStackProps } from '../../lib/s3-access-bench-stack';

export interface Synthesized {
  app: App;
  stack: S3AccessBenchStack;
  template: Template;
  json: { Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; DependsOn?: string[] }>; Outputs: Record<string, unknown>; Parameters?: Record<string, unknown> };
}

/**
 * Synthesizes the stack once per test file, without Lambda bundling (esbuild is exercised by
 * `cdk synth`; the tests look at the template), with no AWS account or credentials, and without
 * CDK's built-in template validation, as bin/app.ts (it only warns, cfn-lint checks the template in
 * stack.test.ts, and its engine costs 2–3 s per test file).
 */
export function synthesize(props: S3AccessBenchStackProps = {}): Synthesized {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const stack = new S3AccessBenchStack(app, 'S3AccessBench', props);
  const template = Template.fromStack(stack);
  return { app, stack, template, json: template.toJSON() as Synthesized['json'] };
}

/** Resources of one type, as [logicalId, properties]. */
export function resourcesOf(s: Synthesized, type: string): [string, Record<string, any>][] {
  return Object.entries(s.json.Resources).filter(([, r]) => r.Type === type).map(([id, r]) => [id, r.Properties ?? {}]);
}
