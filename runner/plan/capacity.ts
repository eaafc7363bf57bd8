import { countsAgainstStandardQuota, vcpusOf } from '../../lib/instance-types';
import { EQUIVALENT_TYPES, STATE_DATA_LIMIT_BYTES } from './aws-facts';
import type { RunnerSpec } from './execution-model';

/**
 * What an execution needs of the account before anything is created, as pure policy: the
 * On-Demand Standard vCPU quota less what already runs, the planned types' offerings in the
 * stack's Availability Zones (with the documented fallbacks), and the execution's state size.
 * `s3ab aws run` and ValidateInput read the account (runner/aws/capacity.ts) and decide here.
 */

/** The quota the runners count against: Service Quotas, service `ec2`, in vCPUs. */
export const STANDARD_VCPU_QUOTA = {
  serviceCode: 'ec2',
  quotaCode: 'L-1216C47A',
  name: 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances',
} as const;


/** The account as read before an execution starts. */
export interface AccountCapacity {
  /** The applied value of the Standard vCPU quota (STANDARD_VCPU_QUOTA). */
  vcpuQuota: number;
  /** vCPUs of the On-Demand Standard instances already pending or running in the region. */
  runningVcpus: number;
  /** The stack's runner Availability Zones, in the order its launches try them. */
  zones: string[];
  /** For each instance type asked about, the zones among `zones` that offer it. */
  offered: Record<string, string[]>;
}

export interface Refusal { problem: string; fix: string }

/** What the check decided: the runners to launch (after fallbacks), the vCPU figures, and lines that say what changed. */
export interface CapacityDecision {
  runners: RunnerSpec[];
  fallbacks: { from: string; to: string }[];
  vcpus: { quota: number; running: number; needed: number };
  notes: string[];
}

const list = (xs: string[]) => xs.join(', ');
const specsLine = (runners: RunnerSpec[]) => runners.map((r) => `${r.count} × ${r.instanceType}`).join(' + ');

/** The instance types whose offerings the check needs: the plan's and their equivalents. */
export function typesToCheck(runners: RunnerSpec[]): string[] {
  return [...new Set(runners.flatMap((r) => [r.instanceType, ...(EQUIVALENT_TYPES[r.instanceType] ? [EQUIVALENT_TYPES[r.instanceType]] : [])]))];
}

/** The vCPUs these runners take of the Standard quota (types of other quotas count nothing here). */
export function standardVcpus(runners: RunnerSpec[]): number {
  return runners.reduce((n, r) => {
    if (!countsAgainstStandardQuota(r.instanceType)) return n;
    const each = vcpusOf(r.instanceType);
    if (each === null) throw new Error(`the vCPUs of ${r.instanceType} cannot be told from its size: lib/instance-types.ts vcpusOf`);
    return n + each * r.count;
  }, 0);
}

/**
 * Each planned type offered in at least one of the stack's zones stays (a launch that fails in
 * one subnet is tried in the next); a type offered in none runs as its documented equivalent
 * (EQUIVALENT_TYPES) where that is offered; otherwise the execution is refused, naming the fix.
 */
export function chooseTypes(runners: RunnerSpec[], cap: Pick<AccountCapacity, 'zones' | 'offered'>): { runners: RunnerSpec[]; fallbacks: CapacityDecision['fallbacks']; notes: string[] } | Refusal {
  const where = (type: string) => cap.offered[type] ?? [];
  const fallbacks: CapacityDecision['fallbacks'] = [];
  const notes: string[] = [];
  const chosen: RunnerSpec[] = [];
  for (const r of runners) {
    const zones = where(r.instanceType);
    if (zones.length) {
      if (zones.length < cap.zones.length) notes.push(`${r.instanceType} is offered in ${list(zones)} only of the stack's runner Availability Zones (${list(cap.zones)}): its launches skip the others`);
      chosen.push(r);
      continue;
    }
    const equivalent = EQUIVALENT_TYPES[r.instanceType];
    if (equivalent && where(equivalent).length) {
      fallbacks.push({ from: r.instanceType, to: equivalent });
      notes.push(`${r.instanceType} is not offered in the stack's runner Availability Zones (${list(cap.zones)}): its ${r.count} runner(s) run as ${equivalent}, its documented equivalent (the same architecture, vCPUs and baseline link; runner/plan/aws-facts.ts EQUIVALENT_TYPES)`);
      chosen.push({ instanceType: equivalent, count: r.count });
      continue;
    }
    return {
      problem: `${r.instanceType} is not offered in the stack's runner Availability Zones (${list(cap.zones)})${equivalent ? `, nor is its equivalent ${equivalent}` : ''}, so its runners cannot launch`,
      fix: `name types offered there with --runners (input "runners"), e.g. c7g.large; \`aws ec2 describe-instance-type-offerings --location-type availability-zone --filters Name=location,Values=${cap.zones.join(',')}\` lists them`,
    };
  }
  return { runners: chosen, fallbacks, notes };
}

/** Refused when the runners need more Standard vCPUs than the quota leaves beside what already runs. */
export function checkVcpus(runners: RunnerSpec[], cap: Pick<AccountCapacity, 'vcpuQuota' | 'runningVcpus'>): Refusal | null {
  const needed = standardVcpus(runners);
  const free = Math.max(0, cap.vcpuQuota - cap.runningVcpus);
  if (needed <= free) return null;
  const want = cap.runningVcpus + needed;
  return {
    problem: `the account's On-Demand Standard vCPU quota (Service Quotas ${STANDARD_VCPU_QUOTA.serviceCode} ${STANDARD_VCPU_QUOTA.quotaCode}, "${STANDARD_VCPU_QUOTA.name}") is ${cap.vcpuQuota} vCPUs and ${cap.runningVcpus} are running: ${free} free, and this execution's runners (${specsLine(runners)}) need ${needed}`,
    fix: `request an increase to at least ${want} vCPUs (\`aws service-quotas request-service-quota-increase --service-code ${STANDARD_VCPU_QUOTA.serviceCode} --quota-code ${STANDARD_VCPU_QUOTA.quotaCode} --desired-value ${want}\`, or the Service Quotas console), stop instances to free ${needed - free} vCPUs, or give --runners (input "runners") of at most ${free} vCPUs in all (\`s3ab aws estimate\` with them prints what that takes)`,
  };
}

/** The whole check: offerings (with fallbacks), then the quota on the runners that would launch. */
export function decideCapacity(runners: RunnerSpec[], cap: AccountCapacity): CapacityDecision | Refusal {
  const types = chooseTypes(runners, cap);
  if ('problem' in types) return types;
  const short = checkVcpus(types.runners, cap);
  if (short) return short;
  return { runners: types.runners, fallbacks: types.fallbacks, notes: types.notes, vcpus: { quota: cap.vcpuQuota, running: cap.runningVcpus, needed: standardVcpus(types.runners) } };
}

export const isRefusal = (x: CapacityDecision | Refusal): x is Refusal => 'problem' in x;

/**
 * What the states after ValidateInput add to the execution's state, at most — allowances, not
 * measurements, each from what the state writes:
 * - a runner's entry in `$.provisioned`: launched, its instance id (and the id again in
 *   `$.runners.instanceIds` and `$.instanceIds`); failed, the launch's error and cause as Step
 *   Functions passes them on — EC2's longest launch errors (Unsupported, InsufficientInstanceCapacity)
 *   are a sentence or two naming the other zones and a request id, about 350 characters: 1 KiB —
 *   twice on that path (`$.launches.errors`);
 * - each Lambda benchmark repetition's results in `$.lambdas` (the before and after functions'
 *   timings and keys: 2 KiB);
 * - the summary queries' ids and SQL order, the report's location, the readiness and teardown
 *   counters (16 KiB), and two errors (`$.error`, `$.teardownError`) with causes at Step
 *   Functions' largest (32,768 characters).
 */
export const STATE_ALLOWANCE = {
  launchedRunnerBytes: 160,
  failedLaunchBytes: 2 * 1024,
  lambdaRepetitionBytes: 2048,
  laterStatesBytes: 16 * 1024,
  errorBytes: 2 * 32 * 1024,
};

/** The execution's state at its largest: its input, ValidateInput's plan (`$.run`), and the allowances for what the later states add. */
export function stateBytesBound(p: { inputBytes: number; runBytes: number; runners: number; lambdaRepetitions: number }): { bytes: number; provisionedBytes: number } {
  const a = STATE_ALLOWANCE;
  const provisionedBytes = p.runners * Math.max(a.launchedRunnerBytes, a.failedLaunchBytes);
  // `$.run` holds the function's result under "value".
  const bytes = p.inputBytes + p.runBytes + 20 + provisionedBytes + p.lambdaRepetitions * a.lambdaRepetitionBytes + a.laterStatesBytes + a.errorBytes;
  return { bytes, provisionedBytes };
}

/** Refused when the state could outgrow Step Functions' limit once the runners are provisioned (States.DataLimitExceeded cannot be caught: nothing would tear the runners down). */
export function checkStateSize(p: { inputBytes: number; runBytes: number; runners: number; lambdaRepetitions: number; steps: number }): Refusal | null {
  const { bytes, provisionedBytes } = stateBytesBound(p);
  if (bytes <= STATE_DATA_LIMIT_BYTES) return null;
  const kib = (x: number) => `${Math.ceil(x / 1024)} KiB`;
  const perStep = p.steps ? p.runBytes / p.steps : 0;
  const over = bytes - STATE_DATA_LIMIT_BYTES;
  const fewer = perStep ? Math.ceil(over / perStep) : 0;
  return {
    problem: `the execution's state could reach ${kib(bytes)} once its ${p.runners} runner(s) are provisioned — the input ${kib(p.inputBytes)}, ValidateInput's plan of ${p.steps} steps ${kib(p.runBytes)}, the launches up to ${kib(provisionedBytes)} and what the later states add — more than the ${kib(STATE_DATA_LIMIT_BYTES)} Step Functions allows (States.DataLimitExceeded cannot be caught, so Teardown would not run)`,
    fix: `run the matrix as several executions, each a part of it (fewer methods, workloads or repetitions: about ${fewer} steps fewer in all)`,
  };
}
