import type { TuningGrid } from '../../runner/core/tune';
import type { RunManifest } from '../../runner/results/writer';
import type { Cell } from '../../runner/report/model';
import { tuningSection } from '../../runner/report/sections/tuning';
import { prunedText, tuningCases } from '../../runner/report/tuning';
import { summaryLines } from '../../runner/report/text/summary';
import { cell, modelOf } from '../helpers/model';

/** The Tuning section on fixed figures: medians, the best or "no clear winner", each knob's weight, halving's drops. */

const GRID: TuningGrid = {
  method: 'mountpoint', grid: 'mountpoint', knobs: ['part_size', 'max_threads'], halving: true,
  settings: [
    { variant: 'part_size=8MiB,max_threads=2', values: { part_size: '8MiB', max_threads: '2' } },
    { variant: 'part_size=8MiB,max_threads=16', values: { part_size: '8MiB', max_threads: '16' } },
    { variant: 'part_size=16MiB,max_threads=2', values: { part_size: '16MiB', max_threads: '2' } },
    { variant: 'part_size=16MiB,max_threads=16', values: { part_size: '16MiB', max_threads: '16' } },
  ],
  dropped: [{ workload: 'large-read', variant: 'part_size=8MiB,max_threads=2', after_round: 2, why: 'read 64 MiB (cold) MiB/s: 40–50 below part_size=16MiB,max_threads=16\'s 180–220' }],
};

const read = (variant: string, median: number, min: number, max: number, reps = 3): Cell => cell({
  workload: 'large-read', operation: 'read', object_size_bytes: 64 * 1024 ** 2, cache: 'cold', method: 'mountpoint', method_variant: variant,
  mib_s_min: min, mib_s_median: median, mib_s_max: max, distinct_repetitions: reps, repetitions: reps,
});

const manifest = (grid: TuningGrid): RunManifest => ({
  run_id: 'r', status: 'complete', started_at: '2026-01-01T00:00:00Z', ended_at: null, matrix: 'm', steps_total: 12, steps_done: 11, steps_failed: 0,
  problem: null, endpoint: null, peak_rss_bytes: null, tuning: [grid], steps_pruned: 1,
});

const modelWith = (cells: Cell[], grid = GRID) => modelOf(cells, {}, { manifests: [manifest(grid)] });

describe('the Tuning section', () => {
  test('a clear winner: its range clears the next one\'s; every setting with its median, and the knobs\' weight', () => {
    const m = modelWith([
      read('part_size=8MiB,max_threads=2', 45, 40, 50, 2), read('part_size=8MiB,max_threads=16', 100, 90, 110),
      read('part_size=16MiB,max_threads=2', 120, 110, 150), read('part_size=16MiB,max_threads=16', 200, 180, 220),
    ]);
    const [tc] = tuningCases(m);
    expect(tc.settings.map((s) => [s.variant, s.median, s.repetitions, s.dropped?.after_round ?? null])).toEqual([
      ['part_size=16MiB,max_threads=16', 200, 3, null], ['part_size=16MiB,max_threads=2', 120, 3, null],
      ['part_size=8MiB,max_threads=16', 100, 3, null], ['part_size=8MiB,max_threads=2', 45, 2, 2],
    ]);
    expect(tc.clearWinner).toBe(true);
    // part_size: 8MiB settings' medians 100 and 45 (median 72.5), 16MiB's 200 and 120 (160).
    expect(tc.knobEffects).toEqual([
      { knob: 'part_size', byValue: [{ value: '8MiB', median: 72.5 }, { value: '16MiB', median: 160 }], spread: 160 / 72.5 },
      { knob: 'max_threads', byValue: [{ value: '2', median: 82.5 }, { value: '16', median: 150 }], spread: 150 / 82.5 },
    ]);
    const text = tuningSection.text!.lines({ model: m, width: 200, wide: false }).join('\n');
    expect(text).toContain('large-read, read 64 MiB (cold), mountpoint grid (part_size × max_threads), MiB/s: best part_size=16MiB,max_threads=16: 200 MiB/s (180–220), clear of part_size=16MiB,max_threads=2\'s 110–150');
    expect(text).toContain('part_size=8MiB,max_threads=2: 45 (40–50), 2 reps, dropped after round 2');
    expect(text).toContain('depends on: part_size ×2.21: 8MiB 72.5, 16MiB 160; max_threads ×1.82: 2 82.5, 16 150');
    expect(text).toContain('successive halving: mountpoint part_size=8MiB,max_threads=2 dropped from large-read after round 2: read 64 MiB');
  });

  test('no clear winner where the best\'s range overlaps the next one\'s, naming the overlapping settings', () => {
    const m = modelWith([read('part_size=8MiB,max_threads=16', 100, 90, 185), read('part_size=16MiB,max_threads=16', 200, 180, 220), read('part_size=16MiB,max_threads=2', 50, 40, 60)]);
    const [tc] = tuningCases(m);
    expect(tc.clearWinner).toBe(false);
    const text = tuningSection.text!.lines({ model: m, width: 300, wide: false }).join('\n');
    expect(text).toContain('no clear winner: part_size=16MiB,max_threads=16 has the best median, 200 MiB/s (180–220), but its range overlaps part_size=8MiB,max_threads=16\n');
    const [table] = tuningSection.tables!(m);
    expect(table.rows.map((r) => [r[6], r[13], r[14]])).toEqual([
      ['part_size=16MiB,max_threads=16', true, false], ['part_size=8MiB,max_threads=16', false, null], ['part_size=16MiB,max_threads=2', false, null],
    ]);
  });

  test('the run\'s step counts name the steps halving pruned', () => {
    expect(prunedText({ steps_pruned: 1 })).toBe(', 1 pruned by successive halving (their setting was dropped)');
    expect(prunedText({})).toBe('');
    const m = modelWith([read('part_size=8MiB,max_threads=16', 100, 90, 110)]);
    expect(summaryLines(m).join('\n')).toContain('steps: 11/12 ran, 0 failed, 1 pruned by successive halving');
  });

  test('variants outside the grid, and a run without a grid, are no tuning case', async () => {
    const other = cell({ workload: 'large-read', operation: 'read', method: 'mountpoint', method_variant: 'default', mib_s_median: 500, mib_s_min: 500, mib_s_max: 500 });
    expect(tuningCases(modelWith([other]))).toEqual([]);
    expect(tuningSection.hasData(modelOf([other]))).toBe(false);
    expect(tuningSection.omitWithoutData).toBe(true);
    const halvingOff = modelWith([read('part_size=8MiB,max_threads=16', 100, 90, 110)], { ...GRID, halving: false, dropped: [] });
    expect(tuningSection.text!.lines({ model: halvingOff, width: 200, wide: false }).join('\n')).toContain('only part_size=8MiB,max_threads=16 measured: 100 MiB/s');
    expect(tuningSection.text!.lines({ model: halvingOff, width: 200, wide: false }).join('\n')).toContain('mountpoint: successive halving off (halving: false)');
  });
});
