import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { S3AccessBenchStack, type S3AccessBenchStackProps } from '../../lib/s3-access-bench-stack';

/*
 * The stack as the rehearsal runs it (and the template tests read it): synthesized here, and its
 * state machine's definition in the form aws-local-stepfunctions runs.
 */

export interface Synthesized {
  app: App;
  stack: S3AccessBenchStack;
  template: Template;
  json: { Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; DependsOn?: string[] }>; Outputs: Record<string, unknown>; Parameters?: Record<string, unknown> };
}

/**
 * Synthesizes the stack (tests: once per file) without Lambda bundling (esbuild is exercised by
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

/**
 * The definition as aws-local-stepfunctions can run it: it reads TimeoutSecondsPath from a state's
 * effective input (after Parameters), not from its input as Step Functions does, so such a state
 * gets the execution's own limit instead — whoever runs it enforces that timeout itself (the
 * rehearsal's local Step Functions does, scripts/rehearsal/step-functions.ts).
 */
export function withoutTimeoutPaths(definition: Record<string, any>): Record<string, any> {
  // A JSON copy, not structuredClone: under jest that makes objects of another realm, which the executor's plain-object check skips.
  const copy = JSON.parse(JSON.stringify(definition));
  const walk = (states: Record<string, any>) => {
    for (const st of Object.values(states)) {
      if (st.TimeoutSecondsPath) {
        delete st.TimeoutSecondsPath;
        st.TimeoutSeconds = definition.TimeoutSeconds;
      }
      if (st.ItemProcessor) walk(st.ItemProcessor.States);
    }
  };
  walk(copy.States);
  return copy;
}
