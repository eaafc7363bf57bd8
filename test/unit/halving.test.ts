import type { Step } from '../../runner/core/matrix';
import type { TuningGrid } from '../../runner/core/tune';
import type { ResultRecord } from '../../runner/core/record.generated';
import { GridHalving, settingsToDrop } from '../../runner/run/halving';

describe('successive halving: the policy', () => {
  test('a setting wholly below the best setting\'s range goes; one overlapping it stays', () => {
    const drops = settingsToDrop([
      { variant: 'a', cases: { 'read MiB/s': [100, 120] } },
      { variant: 'b', cases: { 'read MiB/s': [90, 105] } }, // overlaps a's 100–120
      { variant: 'c', cases: { 'read MiB/s': [40, 60] } }, // wholly below
    ]);
    expect(drops).toEqual([{ variant: 'c', why: 'read MiB/s: 40.0–60.0 below a\'s 100–120' }]);
  });

  test('a setting goes only when it is below the best in every case it was measured in', () => {
    const settings = [
      { variant: 'a', cases: { big: [100, 110], small: [10, 11] } },
      { variant: 'b', cases: { big: [50, 60], small: [20, 21] } }, // loses big, wins small
      { variant: 'c', cases: { big: [50, 60], small: [5, 6] } }, // loses both
    ];
    expect(settingsToDrop(settings).map((d) => d.variant)).toEqual(['c']);
    expect(settingsToDrop(settings)[0].why).toBe('big: 50.0–60.0 below a\'s 100–110; small: 5.0–6.0 below b\'s 20.0–21.0');
  });

  test('touching ranges overlap; a setting without figures (it failed) and a lone setting stay', () => {
    expect(settingsToDrop([{ variant: 'a', cases: { x: [10, 12] } }, { variant: 'b', cases: { x: [8, 10] } }])).toEqual([]);
    expect(settingsToDrop([{ variant: 'a', cases: { x: [10, 12] } }, { variant: 'b', cases: {} }])).toEqual([]);
    expect(settingsToDrop([{ variant: 'a', cases: { x: [1, 2] } }])).toEqual([]);
  });
});

describe('successive halving: the run\'s rounds', () => {
  const grid = (): TuningGrid => ({
    method: 'mountpoint', grid: 'mountpoint', knobs: ['max_threads'], halving: true, dropped: [],
    settings: [{ variant: 'max_threads=4', values: { max_threads: '4' } }, { variant: 'max_threads=16', values: { max_threads: '16' } }],
  });
  const step = (variant: string, repetition: number): Step => ({
    index: 1, repetition, clients: 1, workload: { name: 'large-read', params: {} },
    method: { name: 'mountpoint', variant, options: {}, optional: false, tune: { grid: 'mountpoint', settings: {}, halving: true } },
  });
  const record = (mibS: number) => ({
    status: 'ok', verified: true, operation: 'read', object_size_bytes: 8388608, cache: 'cold', bytes: 8388608, throughput_mib_s: mibS, ops_per_s: 1,
  }) as ResultRecord;

  test('nothing is dropped after round 1 (a point is no range) nor after the last round; a drop is recorded and its steps skipped', () => {
    const g = grid();
    const h = new GridHalving([g], 3, true);
    h.add(step('max_threads=4', 1), [record(10)]);
    h.add(step('max_threads=16', 1), [record(100)]);
    expect(h.endRound('large-read', 1)).toEqual([]);
    h.add(step('max_threads=4', 2), [record(12)]);
    h.add(step('max_threads=16', 2), [record(90)]);
    const drops = h.endRound('large-read', 2);
    expect(drops).toEqual([{ grid: 'mountpoint', workload: 'large-read', variant: 'max_threads=4', after_round: 2, why: 'read 8 MiB (cold) MiB/s: 10.0–12.0 below max_threads=16\'s 90.0–100' }]);
    expect(g.dropped).toEqual([{ workload: 'large-read', variant: 'max_threads=4', after_round: 2, why: drops[0].why }]);
    expect(h.drops(step('max_threads=4', 3))).toBe(true);
    expect(h.drops(step('max_threads=16', 3))).toBe(false);
    expect(h.drops({ ...step('max_threads=4', 3), workload: { name: 'small-reads', params: {} } })).toBe(false);
  });

  test('off for a runner\'s share of an execution, and for a grid with halving false', () => {
    for (const [enabled, halving] of [[false, true], [true, false]]) {
      const g = { ...grid(), halving };
      const h = new GridHalving([g], 3, enabled);
      const st = (v: string, r: number) => ({ ...step(v, r), method: { ...step(v, r).method, tune: { grid: 'mountpoint', settings: {}, halving } } });
      for (const r of [1, 2]) {
        h.add(st('max_threads=4', r), [record(10)]);
        h.add(st('max_threads=16', r), [record(100 + r)]);
      }
      expect(h.endRound('large-read', 2)).toEqual([]);
      expect(g.dropped).toEqual([]);
    }
  });
});
