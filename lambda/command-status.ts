import { EC2Client } from '@aws-sdk/client-ec2';
import { DescribeInstanceInformationCommand, ListCommandInvocationsCommand, SSMClient, type CommandInvocation } from '@aws-sdk/client-ssm';
import { logger, NamedError } from './shared/powertools';
import { findInstances } from './shared/runners';

const ssm = new SSMClient({ maxAttempts: 5 });
const ec2 = new EC2Client({ maxAttempts: 5 });

export interface CommandStatusEvent { commandId: string; instanceIds: string[] }
export interface CommandStatus { done: boolean; succeeded: number; pending: number; total: number }

const FAILED = new Set(['Failed', 'TimedOut', 'Cancelled', 'Cancelling', 'Undeliverable', 'Terminated', 'DeliveryTimedOut', 'ExecutionTimedOut']);
const GONE = new Set(['shutting-down', 'terminated', 'stopping', 'stopped']);

/**
 * One poll of an SSM command running on every runner: done when every invocation succeeded;
 * `CommandFailed` (with the failing runner's output tail) when one failed; `RunnerLost` when a
 * runner is no longer running, or when its SSM agent lost contact (a hung or cut-off runner that
 * EC2 still shows running) — so a dead runner is seen within minutes, not when the command's own
 * timeout expires.
 */
export async function handler(event: CommandStatusEvent, _context?: unknown, deps: { ssm?: SSMClient; ec2?: EC2Client } = {}): Promise<CommandStatus> {
  // Lambda calls handler(event, context): the clients a test or the rehearsal injects come third.
  const clients = { ssm: deps.ssm ?? ssm, ec2: deps.ec2 ?? ec2 };
  if (!event?.commandId || !Array.isArray(event.instanceIds) || !event.instanceIds.length) {
    throw new NamedError('InvalidEvent', `commandId and instanceIds are required, got ${JSON.stringify(event)}`);
  }
  let instances;
  try {
    instances = await findInstances(clients.ec2, { instanceIds: event.instanceIds });
  } catch (err) {
    // EC2 forgets an instance a while after it terminated.
    if ((err as Error).name === 'InvalidInstanceID.NotFound') throw new NamedError('RunnerLost', `a runner is gone while command ${event.commandId} runs: ${(err as Error).message}`);
    throw err;
  }
  for (const id of event.instanceIds) {
    const i = instances.find((x) => x.InstanceId === id);
    if (!i) throw new NamedError('RunnerLost', `runner ${id} is no longer known to EC2 while command ${event.commandId} runs`);
    if (GONE.has(i.State?.Name ?? '')) {
      throw new NamedError('RunnerLost', `runner ${i.InstanceId} is ${i.State?.Name}${i.StateReason?.Message ? ` (${i.StateReason.Message})` : ''} while command ${event.commandId} runs`);
    }
  }
  const invocations: CommandInvocation[] = [];
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
  // A runner that still runs but stopped answering: SSM marks its agent ConnectionLost after a few
  // missed pings (minutes); its command would otherwise wait for its own timeout (2 h).
  const waiting = event.instanceIds.filter((id) => !invocations.some((i) => i.InstanceId === id && i.Status === 'Success'));
  if (waiting.length) {
    const info = await clients.ssm.send(new DescribeInstanceInformationCommand({ Filters: [{ Key: 'InstanceIds', Values: waiting }], MaxResults: 50 }));
    const lost = (info?.InstanceInformationList ?? []).find((i) => i.PingStatus === 'ConnectionLost');
    if (lost) {
      throw new NamedError('RunnerLost', `runner ${lost.InstanceId} stopped answering SSM (agent ConnectionLost, last ping ${lost.LastPingDateTime?.toISOString?.() ?? 'unknown'}) while command ${event.commandId} runs: it hangs or lost its network`);
    }
  }
  const succeeded = invocations.filter((i) => i.Status === 'Success').length;
  const status = { done: succeeded === event.instanceIds.length, succeeded, pending: event.instanceIds.length - succeeded, total: event.instanceIds.length };
  logger.info('command status', { commandId: event.commandId, ...status });
  return status;
}
