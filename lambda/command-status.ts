import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { ListCommandInvocationsCommand, SSMClient } from '@aws-sdk/client-ssm';
import { logger, NamedError } from './shared/powertools';

const ssm = new SSMClient({ maxAttempts: 5 });
const ec2 = new EC2Client({ maxAttempts: 5 });

export interface CommandStatusEvent { commandId: string; instanceIds: string[] }
export interface CommandStatus { done: boolean; succeeded: number; pending: number; total: number }

const FAILED = new Set(['Failed', 'TimedOut', 'Cancelled', 'Cancelling', 'Undeliverable', 'Terminated', 'DeliveryTimedOut', 'ExecutionTimedOut']);
const GONE = new Set(['shutting-down', 'terminated', 'stopping', 'stopped']);

/**
 * One poll of an SSM command running on every runner: done when every invocation succeeded;
 * `CommandFailed` (with the failing runner's output tail) when one failed; `RunnerLost` when a
 * runner is no longer running — so a dead runner is seen at the next poll, not when the
 * command's own timeout expires.
 */
export async function handler(event: CommandStatusEvent, clients = { ssm, ec2 }): Promise<CommandStatus> {
  if (!event?.commandId || !Array.isArray(event.instanceIds) || !event.instanceIds.length) {
    throw new NamedError('InvalidEvent', `commandId and instanceIds are required, got ${JSON.stringify(event)}`);
  }
  const instances = await clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: event.instanceIds }));
  for (const i of (instances.Reservations ?? []).flatMap((r) => r.Instances ?? [])) {
    if (GONE.has(i.State?.Name ?? '')) {
      throw new NamedError('RunnerLost', `runner ${i.InstanceId} is ${i.State?.Name}${i.StateReason?.Message ? ` (${i.StateReason.Message})` : ''} while command ${event.commandId} runs`);
    }
  }
  const invocations = [];
  let token: string | undefined;
  do {
    const page = await clients.ssm.send(new ListCommandInvocationsCommand({ CommandId: event.commandId, Details: true, NextToken: token }));
    invocations.push(...(page.CommandInvocations ?? []));
    token = page.NextToken;
  } while (token);
  for (const inv of invocations) {
    if (FAILED.has(inv.Status ?? '') || FAILED.has(inv.StatusDetails ?? '')) {
      const output = (inv.CommandPlugins ?? []).map((p) => p.Output ?? '').join('\n').trim().split('\n').slice(-8).join('\n');
      throw new NamedError('CommandFailed', `command ${event.commandId} ${inv.StatusDetails ?? inv.Status} on ${inv.InstanceId}: ${output || 'no output'}`);
    }
  }
  const succeeded = invocations.filter((i) => i.Status === 'Success').length;
  const status = { done: succeeded === event.instanceIds.length, succeeded, pending: event.instanceIds.length - succeeded, total: event.instanceIds.length };
  logger.info('command status', { commandId: event.commandId, ...status });
  return status;
}
