import { synthesize } from '../../scripts/rehearsal/synthesize';
import { resourcesOf } from './stack';

/** The synthesized state machine definition with CloudFormation intrinsics resolved to plain values. */
export function synthesizedDefinition(): Record<string, any> {
  const s = synthesize();
  const [, sm] = resourcesOf(s, 'AWS::StepFunctions::StateMachine')[0];
  const resolve = (x: any): string => {
    if (typeof x === 'string') return x;
    if (x.Ref === 'AWS::Partition') return 'aws';
    if (x.Ref === 'AWS::Region') return 'us-east-1';
    if (x.Ref === 'AWS::AccountId') return '123456789012';
    if (x.Ref === 'AWS::URLSuffix') return 'amazonaws.com';
    if (x.Ref) return `ref-${x.Ref}`;
    if (x['Fn::GetAtt']) {
      const [id, attr] = x['Fn::GetAtt'];
      if (attr === 'Arn' && id.includes('Function')) return `arn:aws:lambda:us-east-1:123456789012:function:${id}`;
      return `${attr.toLowerCase()}-${id}`;
    }
    if (x['Fn::Join']) return x['Fn::Join'][1].map(resolve).join(x['Fn::Join'][0]);
    if (x['Fn::Select']) return resolve(x['Fn::Select'][1][x['Fn::Select'][0]] ?? 'subnet-x');
    throw new Error(`cannot resolve ${JSON.stringify(x).slice(0, 200)}`);
  };
  return JSON.parse(resolve(sm.DefinitionString));
}
