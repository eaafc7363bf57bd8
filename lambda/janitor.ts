import { EC2Client } from '@aws-sdk/client-ec2';
import { logger } from './shared/powertools';
import { findInstances, runnerFilters, terminateInstances } from './shared/runners';
import { env } from './shared/s3';

const ec2 = new EC2Client({ maxAttempts: 5 });

/**
 * The scheduled janitor: terminates every runner of this stack that has lived longer than the
 * maximum runner lifetime — the net under the state machine's teardown and the runners' own
 * scheduled shutdown.
 */
export async function handler(_event: unknown = {}, _context?: unknown, deps: { ec2?: EC2Client; now?: Date } = {}): Promise<{ terminated: string[]; checked: number }> {
  // Lambda calls handler(event, context): what a test injects comes third.
  const clients = { ec2: deps.ec2 ?? ec2 };
  const now = deps.now ?? new Date();
  const maxMinutes = Number(env('MAX_LIFETIME_MINUTES'));
  if (!(maxMinutes > 0)) throw new Error(`MAX_LIFETIME_MINUTES must be a number of minutes > 0, got "${process.env.MAX_LIFETIME_MINUTES}"`);
  const instances = await findInstances(clients.ec2, { filters: runnerFilters(env('STACK_NAME')) });
  const old = instances.filter((i) => i.LaunchTime && now.getTime() - new Date(i.LaunchTime).getTime() > maxMinutes * 60_000).map((i) => i.InstanceId!);
  await terminateInstances(clients.ec2, old);
  logger.info('janitor', { checked: instances.length, terminated: old });
  return { terminated: old, checked: instances.length };
}
