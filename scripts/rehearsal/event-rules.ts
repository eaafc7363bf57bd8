/**
 * EventBridge as the rehearsal plays it: the status-change event Step Functions sends when the
 * execution ends, matched against every rule of the template (its EventPattern as written there:
 * arrays of values and nested objects, which is all the stack's rules use), and the Lambda
 * targets of the rules that match — each must be allowed to be invoked by that rule (its
 * AWS::Lambda::Permission for events.amazonaws.com).
 */
import { STATUS_CHANGE } from '../../lib/execution-run';
import type { RehearsalTemplate } from './template';

export interface ExecutionStatusEvent {
  version: '0'; id: string; source: 'aws.states'; 'detail-type': typeof STATUS_CHANGE; account: string; region: string; time: string; resources: string[];
  detail: { executionArn: string; stateMachineArn: string; name: string; status: string; startDate: number; stopDate: number };
}

/** Whether `value` matches an event pattern: every key of the pattern is in the value, a list matches one of its values. */
export function matchesPattern(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some((p) => (typeof p === 'object' && p !== null ? matchesPattern(p, value) : p === value));
  if (pattern && typeof pattern === 'object') {
    if (!value || typeof value !== 'object') return false;
    return Object.entries(pattern).every(([k, p]) => matchesPattern(p, (value as Record<string, unknown>)[k]));
  }
  return pattern === value;
}

/** The Lambda functions (logical ids) the template's rules invoke for this event, each checked to be allowed to. */
export function lambdaTargetsOf(template: RehearsalTemplate, event: ExecutionStatusEvent): { rule: string; functionId: string }[] {
  const out: { rule: string; functionId: string }[] = [];
  for (const rule of template.idsOf('AWS::Events::Rule')) {
    const props = template.resources[rule].Properties!;
    if (!props.EventPattern || !matchesPattern(template.resolve(props.EventPattern), event)) continue;
    for (const t of props.Targets ?? []) {
      const functionId = (t.Arn as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']?.[0];
      if (!functionId || template.resources[functionId]?.Type !== 'AWS::Lambda::Function') continue;
      const allowed = template.idsOf('AWS::Lambda::Permission').some((id) => {
        const p = template.resources[id].Properties!;
        return p.Principal === 'events.amazonaws.com' && p.FunctionName?.['Fn::GetAtt']?.[0] === functionId && p.SourceArn?.['Fn::GetAtt']?.[0] === rule;
      });
      if (!allowed) throw new Error(`rehearsal: rule ${rule} targets ${functionId}, which has no permission for events.amazonaws.com from that rule`);
      out.push({ rule, functionId });
    }
  }
  return out;
}
