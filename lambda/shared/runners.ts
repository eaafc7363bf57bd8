import { DescribeInstancesCommand, TerminateInstancesCommand, type EC2Client, type Filter, type Instance } from '@aws-sdk/client-ec2';
import { RUNNER_TAG } from '../../lib/runner-tags';

/** Instance states that still cost money or could come back: everything but shutting-down and terminated. */
const LIVE_STATES = ['pending', 'running', 'stopping', 'stopped'];

/** The filters that find this stack's live runners (optionally one run's). */
export function runnerFilters(stackName: string, runId?: string): Filter[] {
  return [
    { Name: `tag:${RUNNER_TAG.stack}`, Values: [stackName] },
    ...(runId ? [{ Name: `tag:${RUNNER_TAG.runId}`, Values: [runId] }] : []),
    { Name: 'instance-state-name', Values: LIVE_STATES },
  ];
}

/** Every instance matching the filters (or with the given ids), page by page. */
export async function findInstances(ec2: EC2Client, query: { filters?: Filter[]; instanceIds?: string[] }): Promise<Instance[]> {
  const found: Instance[] = [];
  let token: string | undefined;
  do {
    const page = await ec2.send(new DescribeInstancesCommand({ Filters: query.filters, InstanceIds: query.instanceIds, NextToken: token }));
    found.push(...(page.Reservations ?? []).flatMap((r) => r.Instances ?? []));
    token = page.NextToken;
  } while (token);
  return found;
}

/** TerminateInstances in batches (the API takes a bounded list of ids per call). */
export async function terminateInstances(ec2: EC2Client, ids: string[], batch = 100): Promise<void> {
  for (let i = 0; i < ids.length; i += batch) await ec2.send(new TerminateInstancesCommand({ InstanceIds: ids.slice(i, i + batch) }));
}
