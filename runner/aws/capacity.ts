import {
  DescribeInstancesCommand, DescribeInstanceTypeOfferingsCommand, EC2Client, type DescribeInstancesCommandOutput, type DescribeInstanceTypeOfferingsCommandOutput, type Instance,
} from '@aws-sdk/client-ec2';
import { countsAgainstStandardQuota, vcpusOf } from '../../lib/instance-types';
import { decideCapacity, STANDARD_VCPU_QUOTA, typesToCheck, type AccountCapacity, type CapacityDecision, type Refusal } from '../plan/capacity';
import type { RunnerSpec } from '../plan/execution-model';
import { serviceQuotasClient, type ServiceQuotasApi } from './service-quotas';

/**
 * The account's capacity for an execution, read before anything is created — by `s3ab aws run`
 * with the user's credentials and by ValidateInput with its role — and decided by the pure policy
 * of runner/plan/capacity.ts. Three reads, at once: the Standard vCPU quota (Service Quotas), the
 * On-Demand Standard instances pending or running and their vCPUs (EC2 DescribeInstances), and
 * the planned types' offerings in the stack's runner zones (EC2 DescribeInstanceTypeOfferings).
 */
export interface CapacityClients {
  /** EC2's two reads (a stand-in answers either with the fields it has). */
  ec2: { send(command: DescribeInstancesCommand | DescribeInstanceTypeOfferingsCommand): Promise<Partial<DescribeInstancesCommandOutput & DescribeInstanceTypeOfferingsCommandOutput>> };
  quotas: ServiceQuotasApi;
}

/** Clients whose every request ends within `requestMs` (the SDK only warns without throwOnRequestTimeout). */
export function capacityClients(region: string | undefined, requestMs = 3000): CapacityClients {
  const ec2 = new EC2Client({ region, maxAttempts: 2, requestHandler: { connectionTimeout: 1000, requestTimeout: requestMs, throwOnRequestTimeout: true } });
  return { ec2, quotas: serviceQuotasClient({ region: async () => ec2.config.region(), timeoutMs: requestMs }) };
}

/** An instance's vCPUs: its CPU options (cores × threads), else its type's size. */
function vcpusOfInstance(i: Instance): number {
  const cpu = i.CpuOptions;
  if (cpu?.CoreCount && cpu.ThreadsPerCore) return cpu.CoreCount * cpu.ThreadsPerCore;
  return vcpusOf(i.InstanceType ?? '') ?? 0;
}

/** vCPUs of the On-Demand instances of the Standard families pending or running (Spot instances have their own quota). */
async function runningStandardVcpus(ec2: CapacityClients['ec2']): Promise<number> {
  let total = 0;
  let NextToken: string | undefined;
  do {
    const page = await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'instance-state-name', Values: ['pending', 'running'] }], MaxResults: 1000, NextToken }));
    for (const r of page.Reservations ?? []) {
      for (const i of (r.Instances ?? []) as Instance[]) {
        if (i.InstanceLifecycle === 'spot' || !countsAgainstStandardQuota(i.InstanceType ?? '')) continue;
        total += vcpusOfInstance(i);
      }
    }
    NextToken = page.NextToken;
  } while (NextToken);
  return total;
}

/** For each type, the zones among `zones` that offer it. */
async function offerings(ec2: CapacityClients['ec2'], types: string[], zones: string[]): Promise<Record<string, string[]>> {
  const offered: Record<string, string[]> = Object.fromEntries(types.map((t) => [t, []]));
  let NextToken: string | undefined;
  do {
    const page = await ec2.send(new DescribeInstanceTypeOfferingsCommand({
      LocationType: 'availability-zone', Filters: [{ Name: 'instance-type', Values: types }, { Name: 'location', Values: zones }], NextToken,
    }));
    for (const o of page.InstanceTypeOfferings ?? []) {
      if (o.InstanceType && o.Location && zones.includes(o.Location) && offered[o.InstanceType] && !offered[o.InstanceType].includes(o.Location)) offered[o.InstanceType].push(o.Location);
    }
    NextToken = page.NextToken;
  } while (NextToken);
  // In the stack's order: the order its launches try the zones.
  for (const t of types) offered[t].sort((a, b) => zones.indexOf(a) - zones.indexOf(b));
  return offered;
}

/** The account as the check needs it, read at once; refused when the reads take longer than `withinMs`. */
async function readCapacity(c: CapacityClients, types: string[], zones: string[], withinMs: number): Promise<AccountCapacity> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CapacityUnknown(`the account's quota, running instances and instance type offerings did not all answer within ${(withinMs / 1000).toFixed(1)} s`)), withinMs);
  });
  try {
    const [quota, runningVcpus, offered] = await Promise.race([Promise.all([
      c.quotas.getServiceQuota({ ServiceCode: STANDARD_VCPU_QUOTA.serviceCode, QuotaCode: STANDARD_VCPU_QUOTA.quotaCode }),
      runningStandardVcpus(c.ec2),
      offerings(c.ec2, types, zones),
    ]), late]);
    const vcpuQuota = quota.Quota?.Value;
    if (typeof vcpuQuota !== 'number') throw new CapacityUnknown(`Service Quotas gave no value for ${STANDARD_VCPU_QUOTA.serviceCode} ${STANDARD_VCPU_QUOTA.quotaCode}`);
    return { vcpuQuota, runningVcpus, zones, offered };
  } finally {
    clearTimeout(timer);
  }
}

/** The capacity could not be read: what did not answer. */
export class CapacityUnknown extends Error {
  constructor(message: string) { super(message); this.name = 'CapacityUnknown'; }
}

/** Reads the account for these runners and decides: the runners to launch (after fallbacks), or a refusal naming the figure and the fix. */
export async function checkCapacity(c: CapacityClients, runners: RunnerSpec[], zones: string[], withinMs: number): Promise<CapacityDecision | Refusal> {
  const capacity = await readCapacity(c, typesToCheck(runners), zones, withinMs);
  return decideCapacity(runners, capacity);
}
