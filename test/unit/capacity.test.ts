import instanceNetwork from '../../assets/instance-network.json';
import { architectureOf, countsAgainstStandardQuota, vcpusOf } from '../../lib/instance-types';
import { baselineMiBps, EQUIVALENT_TYPES, STATE_DATA_LIMIT_BYTES } from '../../runner/plan/aws-facts';
import { checkStateSize, checkVcpus, chooseTypes, decideCapacity, isRefusal, STATE_ALLOWANCE, stateBytesBound, standardVcpus, typesToCheck, type AccountCapacity } from '../../runner/plan/capacity';

const ZONES = ['us-east-1a', 'us-east-1b'];
const everywhere = (types: string[]): Record<string, string[]> => Object.fromEntries(types.map((t) => [t, ZONES]));
const SEED = [{ instanceType: 'c8gn.large', count: 4 }, { instanceType: 'c7g.large', count: 12 }];

describe('the Standard vCPU quota (L-1216C47A): what counts, and how much', () => {
  test('the A, C, D, H, I, M, R, T, Z families count; G, P, Inf, Trn, X, U, DL, HPC and Mac have quotas of their own', () => {
    for (const t of ['a1.large', 'c8gn.large', 'c7g.large', 'd3.xlarge', 'h1.2xlarge', 'i4i.large', 'im4gn.large', 'is4gen.large', 'm7i.large', 'r8g.large', 't4g.micro', 'z1d.large']) expect({ t, counts: countsAgainstStandardQuota(t) }).toEqual({ t, counts: true });
    for (const t of ['g5.xlarge', 'p4d.24xlarge', 'inf2.xlarge', 'trn1.2xlarge', 'x2gd.large', 'u-6tb1.metal', 'dl1.24xlarge', 'hpc7g.4xlarge', 'mac2.metal', 'vt1.3xlarge', 'f1.2xlarge']) expect({ t, counts: countsAgainstStandardQuota(t) }).toEqual({ t, counts: false });
  });

  test('vCPUs from the size: medium 1 (T 2), large 2, xlarge 4, Nxlarge 4·N; unknown sizes are null', () => {
    expect([vcpusOf('c8gn.large'), vcpusOf('c7g.medium'), vcpusOf('t3.medium'), vcpusOf('t4g.micro'), vcpusOf('m7i.xlarge'), vcpusOf('c5n.18xlarge')]).toEqual([2, 1, 2, 2, 4, 72]);
    expect([vcpusOf('c7g.metal'), vcpusOf('t2.nano'), vcpusOf('big')]).toEqual([null, null, null]);
  });

  test('every type the model can plan (assets/instance-network.json) has its vCPUs', () => {
    for (const t of Object.keys(instanceNetwork).filter((k) => /^[a-z]/.test(k))) expect({ t, v: vcpusOf(t) }).toEqual({ t, v: expect.any(Number) });
  });

  test('seed\'s 16 runners take 32 vCPUs: on a 32 quota with 8 running, 24 are free — refused, asking for 40', () => {
    expect(standardVcpus(SEED)).toBe(32);
    const refusal = checkVcpus(SEED, { vcpuQuota: 32, runningVcpus: 8 })!;
    expect(refusal.problem).toMatch(/is 32 vCPUs and 8 are running: 24 free, and this execution's runners \(4 × c8gn\.large \+ 12 × c7g\.large\) need 32$/);
    expect(refusal.fix).toMatch(/--desired-value 40`.*stop instances to free 8 vCPUs.*at most 24 vCPUs in all/);
  });

  test('exactly enough fits; running more than the quota leaves nothing free (never a negative figure)', () => {
    expect(checkVcpus(SEED, { vcpuQuota: 40, runningVcpus: 8 })).toBeNull();
    expect(checkVcpus([{ instanceType: 'c7g.large', count: 1 }], { vcpuQuota: 32, runningVcpus: 40 })!.problem).toMatch(/40 are running: 0 free, .* need 2$/);
    // A type of another quota takes nothing of this one.
    expect(checkVcpus([{ instanceType: 'g5.xlarge', count: 5 }], { vcpuQuota: 0, runningVcpus: 0 })).toBeNull();
  });
});

describe('offerings in the stack\'s zones, and the documented fallback', () => {
  test('every equivalence keeps the architecture, the vCPUs and the baseline link (the plan\'s shards and timeouts do not change)', () => {
    expect(Object.keys(EQUIVALENT_TYPES)).toContain('c8gn.large');
    for (const [from, to] of Object.entries(EQUIVALENT_TYPES)) {
      expect({ from, to, arch: architectureOf(to), vcpus: vcpusOf(to), link: baselineMiBps(to) }).toEqual({ from, to, arch: architectureOf(from), vcpus: vcpusOf(from), link: baselineMiBps(from) });
      expect(baselineMiBps(to)).toBeGreaterThan(0);
    }
  });

  test('the types asked about: the plan\'s and their equivalents', () => {
    expect(typesToCheck(SEED).sort()).toEqual(['c7g.large', 'c7gn.large', 'c8gn.large']);
  });

  test('offered in every zone: unchanged, nothing said', () => {
    expect(chooseTypes(SEED, { zones: ZONES, offered: everywhere(typesToCheck(SEED)) })).toEqual({ runners: SEED, fallbacks: [], notes: [] });
  });

  test('offered in one zone of two: kept (a launch that fails in one subnet is tried in the next), and said', () => {
    const r = chooseTypes(SEED, { zones: ZONES, offered: { ...everywhere(typesToCheck(SEED)), 'c8gn.large': ['us-east-1b'] } });
    expect(r).toMatchObject({ runners: SEED, fallbacks: [], notes: ['c8gn.large is offered in us-east-1b only of the stack\'s runner Availability Zones (us-east-1a, us-east-1b): its launches skip the others'] });
  });

  test('c8gn offered in neither zone: its runners become c7gn, the others stay', () => {
    const r = chooseTypes(SEED, { zones: ZONES, offered: { ...everywhere(typesToCheck(SEED)), 'c8gn.large': [] } });
    expect(r).toMatchObject({ runners: [{ instanceType: 'c7gn.large', count: 4 }, { instanceType: 'c7g.large', count: 12 }], fallbacks: [{ from: 'c8gn.large', to: 'c7gn.large' }] });
  });

  test('neither the type nor its equivalent offered: refused, naming both and the zones', () => {
    const r = chooseTypes(SEED, { zones: ZONES, offered: { ...everywhere(typesToCheck(SEED)), 'c8gn.large': [], 'c7gn.large': [] } });
    expect(r).toEqual({ problem: 'c8gn.large is not offered in the stack\'s runner Availability Zones (us-east-1a, us-east-1b), nor is its equivalent c7gn.large, so its runners cannot launch', fix: expect.stringContaining('Name=location,Values=us-east-1a,us-east-1b') });
  });

  test('the whole decision: offerings first, then the quota on the runners that would launch', () => {
    const cap: AccountCapacity = { vcpuQuota: 64, runningVcpus: 8, zones: ZONES, offered: { ...everywhere(typesToCheck(SEED)), 'c8gn.large': [] } };
    const d = decideCapacity(SEED, cap);
    expect(isRefusal(d)).toBe(false);
    expect(d).toMatchObject({ vcpus: { quota: 64, running: 8, needed: 32 }, fallbacks: [{ from: 'c8gn.large', to: 'c7gn.large' }] });
    expect(isRefusal(decideCapacity(SEED, { ...cap, vcpuQuota: 32 }))).toBe(true);
  });
});

describe('the execution\'s state once the runners are provisioned: bounded below Step Functions\' 256 KiB', () => {
  test('the bound: input, the plan, each runner\'s launch at its worst (a failed launch\'s error, twice), the later states', () => {
    const a = STATE_ALLOWANCE;
    const b = stateBytesBound({ inputBytes: 3000, runBytes: 40_000, runners: 20, lambdaRepetitions: 3 });
    expect(b.provisionedBytes).toBe(20 * a.failedLaunchBytes);
    expect(b.bytes).toBe(3000 + 40_000 + 20 + 20 * a.failedLaunchBytes + 3 * a.lambdaRepetitionBytes + a.laterStatesBytes + a.errorBytes);
  });

  test('a plan that fits is let through; one whose state could pass 256 KiB is refused with the figure and the fix', () => {
    expect(checkStateSize({ inputBytes: 3000, runBytes: 40_000, runners: 20, lambdaRepetitions: 3, steps: 605 })).toBeNull();
    const runBytes = STATE_DATA_LIMIT_BYTES; // thousands of steps' labels
    const r = checkStateSize({ inputBytes: 3000, runBytes, runners: 20, lambdaRepetitions: 3, steps: 5000 })!;
    expect(r.problem).toMatch(/^the execution's state could reach \d+ KiB once its 20 runner\(s\) are provisioned — the input 3 KiB, ValidateInput's plan of 5000 steps 256 KiB, the launches up to 40 KiB .* more than the 256 KiB Step Functions allows \(States\.DataLimitExceeded cannot be caught, so Teardown would not run\)$/);
    expect(r.fix).toMatch(/^run the matrix as several executions, each a part of it .*about \d+ steps fewer in all\)$/);
    // The steps fewer it names bring the bound under the limit.
    const fewer = Number(/about (\d+) steps fewer/.exec(r.fix)![1]);
    expect(checkStateSize({ inputBytes: 3000, runBytes: runBytes * (5000 - fewer) / 5000, runners: 20, lambdaRepetitions: 3, steps: 5000 - fewer })).toBeNull();
  });
});
