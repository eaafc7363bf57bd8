import { App, Stack } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';

/**
 * A state machine fragment rendered alone, as the aws-cdk repo tests Step Functions: the fragment in
 * a tiny stack (no bundling), its states as JSON (references rendered as "X").
 */
export function renderFragment(build: (stack: Stack) => sfn.IChainable): { States: Record<string, any>; StartAt: string } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'FragmentTest');
  const sm = new sfn.StateMachine(stack, 'SM', { definitionBody: sfn.DefinitionBody.fromChainable(build(stack)) });
  const resolved = stack.resolve((sm.node.defaultChild as sfn.CfnStateMachine).definitionString);
  const text = typeof resolved === 'string' ? resolved : resolved['Fn::Join'][1].map((p: unknown) => (typeof p === 'string' ? p : 'X')).join('');
  return JSON.parse(text);
}
