import instanceNetwork from '../../assets/instance-network.json';
import type { Measurement } from '../../runner/core/batch';
import { gbpsToMibPerSecond, instanceBandwidth, instanceLinkLimit } from '../../runner/endpoint/link-limit';
import { linkFlag, recordErrors, toRecord, type StepFacts } from '../../runner/results/record';
import { NEAR_BASELINE } from '../../runner/core/host';

// A c7g.large's link as AWS's Network specifications table gives it: 0.937 Gbit/s baseline, 12.5 burst.
const C7G_LARGE = instanceLinkLimit('c7g.large');
const host = { link_limit_mib_s: C7G_LARGE.mibPerSecond, link_baseline_mib_s: C7G_LARGE.baselineMibPerSecond };

describe('instanceLinkLimit: baseline and burst from assets/instance-network.json', () => {
  test('c7g.large: the burst is the most the link carries, the baseline what it sustains', () => {
    expect(C7G_LARGE.mibPerSecond).toBe(1490); // 12.5 Gbit/s
    expect(C7G_LARGE.baselineMibPerSecond).toBe(112); // 0.937 Gbit/s
    expect(C7G_LARGE.source).toBe('instance type c7g.large: 0.937 Gbit/s baseline, 12.5 Gbit/s burst while network I/O credits last (assets/instance-network.json)');
  });

  test('a type without burst sustains its figure: baseline = burst', () => {
    expect(instanceLinkLimit('c7g.8xlarge')).toMatchObject({ mibPerSecond: 1788, baselineMibPerSecond: 1788, source: expect.stringMatching(/15 Gbit\/s sustained/) });
  });

  test('an unknown type, or the file\'s own notes, have no limit (and say so)', () => {
    expect(instanceLinkLimit('x9.huge')).toMatchObject({ mibPerSecond: null, baselineMibPerSecond: null, source: expect.stringMatching(/not in assets\/instance-network.json/) });
    expect(instanceBandwidth('_source')).toBeNull();
    expect(instanceBandwidth('$comment')).toBeNull();
  });

  test('every entry has a baseline no higher than its burst, and the file cites its source', () => {
    const types = Object.keys(instanceNetwork).filter((k) => !k.startsWith('$') && !k.startsWith('_'));
    expect(types.length).toBeGreaterThan(20);
    for (const t of types) {
      const bw = instanceBandwidth(t);
      expect({ t, ok: bw !== null && bw.baselineGbps > 0 && bw.baselineGbps <= bw.burstGbps }).toEqual({ t, ok: true });
    }
    const source = (instanceNetwork as Record<string, unknown>)._source;
    expect(source).toMatch(/Baseline \/ Burst bandwidth \(Gbps\)/);
    expect(source).toMatch(/https:\/\/docs\.aws\.amazon\.com\/ec2\/latest\/instancetypes\/co\.html#co_network/);
  });
});

describe('linkFlag: a throughput against the baseline and the burst', () => {
  test('well below the baseline: no flag', () => {
    expect(linkFlag(43, host)).toBeNull(); // seed 001's S3 API GetObject stream
    expect(linkFlag(0.89 * 112, host)).toBeNull();
  });

  test('at or near the baseline (≥ 90 %): possibly network-capped', () => {
    expect(NEAR_BASELINE).toBe(0.9);
    expect(linkFlag(0.9 * 112, host)).toBe('possibly-network-capped');
    expect(linkFlag(112, host)).toBe('possibly-network-capped');
  });

  test('above the baseline, within the burst: flagged, not rejected (it holds only while credits last)', () => {
    expect(linkFlag(459, host)).toBe('possibly-network-capped'); // seed 001's Mountpoint on a c7g.large
    expect(linkFlag(1490, host)).toBe('possibly-network-capped');
  });

  test('above the burst: served from a cache, as before', () => {
    expect(linkFlag(1491, host)).toBe('served-from-cache');
  });

  test('no throughput, or no sustained rate known (a measured loopback): no network-capped flag', () => {
    expect(linkFlag(null, host)).toBeNull();
    expect(linkFlag(900, { link_limit_mib_s: 1000, link_baseline_mib_s: null })).toBeNull();
    expect(linkFlag(1001, { link_limit_mib_s: 1000, link_baseline_mib_s: null })).toBe('served-from-cache');
    expect(linkFlag(10_000, { link_limit_mib_s: null, link_baseline_mib_s: null })).toBeNull();
  });

  test('the chosen default runner type carries seed 001\'s fastest figure below the flag threshold', () => {
    const c8gn = instanceLinkLimit('c8gn.large');
    expect(c8gn.baselineMibPerSecond).toBe(gbpsToMibPerSecond(6.25));
    expect(linkFlag(459, { link_limit_mib_s: c8gn.mibPerSecond, link_baseline_mib_s: c8gn.baselineMibPerSecond })).toBeNull();
  });
});

describe('toRecord applies the flag and records both limits', () => {
  const facts: StepFacts = {
    run_id: '20260115T101500Z-901d3e', method: 'mountpoint', method_variant: 'default', method_version: 'mount-s3 1.0', method_options: {},
    workload: 'large-read', workload_params: {}, step: 1, cache: 'cold', repetition: 1, clients: 1, fleet: null,
    endpoint: { kind: 'aws', url: null, server: null },
    host: {
      hostname: 'h', instance_type: 'c7g.large', vcpus: 2, memory_bytes: 4 * 2 ** 30, kernel: 'k', os: 'o', region: 'us-east-1', availability_zone: 'us-east-1a',
      link_limit_mib_s: C7G_LARGE.mibPerSecond, link_baseline_mib_s: C7G_LARGE.baselineMibPerSecond, link_limit_source: C7G_LARGE.source, runner_id: null,
    },
  };
  // 1 GiB read in the given time: the throughput is derived from bytes and duration, as for a real measurement.
  const read = (seconds: number): Measurement => ({
    operation: 'read', objectSizeBytes: 2 ** 30, status: 'ok', supported: true, verified: true, ops: 1, ok: 1, failed: 0, bytes: 2 ** 30,
    durationMs: seconds * 1000, latency: null, errorSample: null, movesPayload: true,
  });

  test('a read at seed 001\'s Mountpoint rate on a c7g.large is flagged possibly-network-capped; a slow one is not', () => {
    const fast = toRecord(facts, read(1024 / 459));
    expect(fast.throughput_mib_s).toBeCloseTo(459, 0);
    expect(fast.flags).toEqual(['possibly-network-capped']);
    expect(fast.host.link_baseline_mib_s).toBe(112);
    expect(recordErrors(fast)).toEqual([]);
    expect(toRecord(facts, read(1024 / 43)).flags).toEqual([]);
  });

  test('faster than the burst: served-from-cache only', () => {
    expect(toRecord(facts, read(0.5)).flags).toEqual(['served-from-cache']);
  });
});
