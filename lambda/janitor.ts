import { DescribeInstancesCommand, EC2Client, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { RUNNER_TAG } from '../lib/runner-tags';
import { logger } from './shared/powertools';
import { env } from './shared/s3';

const ec2 = new EC2Client({ maxAttempts: 5 });

/**
 * The scheduled janitor: terminates every runner of this stack that has lived longer than the
 * maximum runner lifetime — the net under the state machine's teardown and the runners' own
 * scheduled shutdown.
 */
export async function handler(_event: unknown = {}, clients = { ec2 }, now = new Date()): Promise<{ terminated: string[]; checked: number }> {
  const maxMinutes = Number(env('MAX_LIFETIME_MINUTES'));
  const found = await clients.ec2.send(new DescribeInstancesCommand({
    Filters: [
      { Name: `tag:${RUNNER_TAG.stack}`, Values: [env('STACK_NAME')] },
      { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped'] },
    ],
  }));
  const instances = (found.Reservations ?? []).flatMap((r) => r.Instances ?? []);
  const old = instances.filter((i) => i.LaunchTime && now.getTime() - new Date(i.LaunchTime).getTime() > maxMinutes * 60_000).map((i) => i.InstanceId!);
  if (old.length) await clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: old }));
  logger.info('janitor', { checked: instances.length, terminated: old });
  return { terminated: old, checked: instances.length };
}
