import type { Step } from '../core/matrix';
import type { TuningDrop, TuningGrid } from '../core/tune';
import { formatSize } from '../core/units';
import type { ResultRecord } from '../core/record.generated';

/**
 * Successive halving of option grids (`tune`): after each round of repetitions, a setting whose
 * figures lie wholly below the best setting's is dropped from the workload's remaining rounds.
 */

/** A setting's figures so far: per case (operation, size, cache state), one figure per repetition, higher is better. */
export interface SettingFigures {
  variant: string;
  cases: Record<string, number[]>;
}

/** Rounds before any setting may be dropped: one repetition's figure is a point, not a range. */
const HALVING_FIRST_ROUND = 2;

const range = (xs: number[]) => ({ min: Math.min(...xs), max: Math.max(...xs) });
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toPrecision(2));

/**
 * The settings to drop, with why: a setting goes when, in every case it has figures for, its
 * range (min–max over its repetitions) lies wholly below the range of that case's best setting
 * (the highest median). A setting overlapping the best anywhere stays; so does one with no
 * figures (it failed: the report shows that, a drop would hide it). Pure.
 */
export function settingsToDrop(settings: readonly SettingFigures[]): { variant: string; why: string }[] {
  const cases = [...new Set(settings.flatMap((s) => Object.keys(s.cases).filter((c) => s.cases[c].length)))];
  const best = new Map<string, SettingFigures>();
  for (const c of cases) {
    const measured = settings.filter((s) => s.cases[c]?.length);
    best.set(c, measured.reduce((a, b) => (median(b.cases[c]) > median(a.cases[c]) ? b : a)));
  }
  const drops: { variant: string; why: string }[] = [];
  for (const s of settings) {
    const mine = cases.filter((c) => s.cases[c]?.length);
    if (!mine.length) continue;
    const below = mine.every((c) => best.get(c) !== s && range(s.cases[c]).max < range(best.get(c)!.cases[c]).min);
    if (!below) continue;
    drops.push({
      variant: s.variant,
      why: mine.map((c) => {
        const r = range(s.cases[c]);
        const b = best.get(c)!;
        const br = range(b.cases[c]);
        return `${c}: ${fmt(r.min)}–${fmt(r.max)} below ${b.variant}'s ${fmt(br.min)}–${fmt(br.max)}`;
      }).join('; '),
    });
  }
  return drops;
}

/** A record's case as the drop's reason names it, and its figure: MiB/s where it moved data, else operations/s. */
function figureOf(r: ResultRecord): { label: string; value: number } | null {
  if (r.status !== 'ok' || !r.verified) return null;
  const size = r.object_size_bytes === null ? '' : ` ${formatSize(r.object_size_bytes)}`;
  const cache = r.cache === 'none' ? '' : ` (${r.cache})`;
  if (r.bytes > 0 && r.throughput_mib_s !== null) return { label: `${r.operation}${size}${cache} MiB/s`, value: r.throughput_mib_s };
  if (r.ops_per_s !== null) return { label: `${r.operation}${size}${cache} ops/s`, value: r.ops_per_s };
  return null;
}

/**
 * The run's halving: keeps each grid setting's figures per workload as its steps end, decides
 * after each round, and records the drops in the grids (the run manifest's `tuning`).
 */
export class GridHalving {
  private readonly figures = new Map<string, Map<string, SettingFigures>>();
  private readonly dropped = new Set<string>();

  /** `enabled` false (a runner's share of an AWS execution sees only its own steps): nothing is dropped. */
  constructor(private readonly grids: TuningGrid[], private readonly repetitions: number, private readonly enabled: boolean) {}

  private gridOf(step: Step): TuningGrid | undefined {
    return this.enabled && step.clients === 1 && step.method.tune?.halving ? this.grids.find((g) => g.grid === step.method.tune!.grid) : undefined;
  }

  /** Whether halving dropped this step's setting for its workload. */
  drops(step: Step): boolean {
    return this.dropped.has(`${step.workload.name}\u0000${step.method.name}\u0000${step.method.variant}`);
  }

  /** A grid setting's step ended: its figures count in the round's decision. */
  add(step: Step, records: readonly ResultRecord[]): void {
    const grid = this.gridOf(step);
    if (!grid) return;
    const key = `${step.workload.name}\u0000${grid.grid}`;
    const bySetting = this.figures.get(key) ?? new Map<string, SettingFigures>();
    this.figures.set(key, bySetting);
    const setting = bySetting.get(step.method.variant) ?? { variant: step.method.variant, cases: {} };
    bySetting.set(step.method.variant, setting);
    for (const r of records) {
      const f = figureOf(r);
      if (f) (setting.cases[f.label] ??= []).push(f.value);
    }
  }

  /** A round of a workload ended: the settings dropped now (recorded in their grids). None after the last round: nothing is left to save. */
  endRound(workload: string, round: number): (TuningDrop & { grid: string })[] {
    if (!this.enabled || round < HALVING_FIRST_ROUND || round >= this.repetitions) return [];
    const out: (TuningDrop & { grid: string })[] = [];
    for (const grid of this.grids.filter((g) => g.halving)) {
      const alive = [...(this.figures.get(`${workload}\u0000${grid.grid}`)?.values() ?? [])]
        .filter((s) => !this.dropped.has(`${workload}\u0000${grid.method}\u0000${s.variant}`));
      for (const d of settingsToDrop(alive)) {
        const drop: TuningDrop = { workload, variant: d.variant, after_round: round, why: d.why };
        grid.dropped.push(drop);
        this.dropped.add(`${workload}\u0000${grid.method}\u0000${d.variant}`);
        out.push({ ...drop, grid: grid.grid });
      }
    }
    return out;
  }
}
