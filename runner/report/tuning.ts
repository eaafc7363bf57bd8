import type { TuningDrop, TuningGrid } from '../core/tune';
import { isUntimed, movesPayload, ranked } from './analysis';
import type { Cell, ReportModel } from './model';
import { compareCases } from './order';

/**
 * The option grids of a run (`tune`), read from its manifest and its cells: per workload, case
 * and grid, each setting's median figure, the best setting (or no clear winner), how much the
 * figure depends on each knob, and what successive halving dropped. Pure.
 */

export interface SettingFigure {
  variant: string;
  /** The setting's value of each knob, as written in the matrix. */
  values: Record<string, string>;
  median: number;
  min: number;
  max: number;
  repetitions: number;
  /** Where successive halving dropped it from this workload: after which round, and why. */
  dropped: TuningDrop | null;
}

interface KnobEffect {
  knob: string;
  /** Each value of the knob, with the median of the medians of the settings that have it. */
  byValue: { value: string; median: number }[];
  /** Highest over lowest of those: how much the figure depends on the knob (1: not at all); null under two values. */
  spread: number | null;
}

export interface TuningCase {
  workload: string;
  method: string;
  grid: string;
  knobs: string[];
  /** A cell of the case (its operation, size and cache state), for labels and order. */
  cell: Cell;
  unit: 'MiB/s' | 'ops/s';
  /** Its settings, best median first. */
  settings: SettingFigure[];
  /** The best setting's range clears the next one's (min above max); false: no clear winner. Null: one setting measured. */
  clearWinner: boolean | null;
  knobEffects: KnobEffect[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The figures of one cell, in the case's unit. */
function figuresOf(c: Cell, unit: TuningCase['unit']): { median: number; min: number; max: number } | null {
  const [min, med, max] = unit === 'MiB/s' ? [c.mib_s_min, c.mib_s_median, c.mib_s_max] : [c.ops_s_min, c.ops_s_median, c.ops_s_max];
  return med === null ? null : { median: med, min: min ?? med, max: max ?? med };
}

function knobEffects(grid: TuningGrid, settings: SettingFigure[]): KnobEffect[] {
  return grid.knobs.map((knob) => {
    const values = grid.settings.map((s) => s.values[knob]).filter((v, i, all) => all.indexOf(v) === i);
    const byValue = values.flatMap((value) => {
      const mine = settings.filter((s) => s.values[knob] === value);
      return mine.length ? [{ value, median: median(mine.map((s) => s.median)) }] : [];
    });
    const medians = byValue.map((b) => b.median);
    return { knob, byValue, spread: byValue.length > 1 && Math.min(...medians) > 0 ? Math.max(...medians) / Math.min(...medians) : null };
  });
}

function caseOf(grid: TuningGrid, cells: Cell[]): TuningCase | null {
  const unit = cells.some(movesPayload) ? 'MiB/s' : 'ops/s';
  const settings: SettingFigure[] = cells.flatMap((c) => {
    const f = figuresOf(c, unit);
    const setting = grid.settings.find((s) => s.variant === c.method_variant)!;
    const dropped = grid.dropped.find((d) => d.workload === c.workload && d.variant === c.method_variant) ?? null;
    return f ? [{ variant: c.method_variant, values: setting.values, ...f, repetitions: c.distinct_repetitions, dropped }] : [];
  }).sort((a, b) => b.median - a.median);
  if (!settings.length) return null;
  const [best, next] = settings;
  return {
    workload: cells[0].workload, method: grid.method, grid: grid.grid, knobs: grid.knobs, cell: cells[0], unit, settings,
    clearWinner: next ? best.min > next.max : null, knobEffects: knobEffects(grid, settings),
  };
}

/** Every case of every grid in the run, in the report's case order. */
export function tuningCases(model: Pick<ReportModel, 'manifest' | 'cells'>): TuningCase[] {
  const out: TuningCase[] = [];
  for (const grid of model.manifest?.tuning ?? []) {
    const variants = new Set(grid.settings.map((s) => s.variant));
    const cells = model.cells.filter((c) => c.method === grid.method && variants.has(c.method_variant) && (c.clients ?? 1) === 1 && ranked(c) && !isUntimed(c));
    const byCase = new Map<string, Cell[]>();
    for (const c of cells) {
      const key = `${c.workload}\u0000${c.operation}\u0000${c.object_size_bytes}\u0000${c.cache}`;
      byCase.set(key, [...(byCase.get(key) ?? []), c]);
    }
    for (const group of byCase.values()) {
      const tc = caseOf(grid, group);
      if (tc) out.push(tc);
    }
  }
  return out.sort((a, b) => compareCases(a.cell, b.cell) || a.grid.localeCompare(b.grid));
}

/** ", 2 pruned by successive halving" for a run's step counts; '' where it pruned none. */
export function prunedText(m: { steps_pruned?: number }): string {
  return m.steps_pruned ? `, ${m.steps_pruned} pruned by successive halving (their setting was dropped)` : '';
}
