import { knobAccepts, knobRange, knobValueLabel, type KnobValue } from './knobs';
import type { MethodDescriptor } from './method';
import { methodLabel } from './vocabulary';

/**
 * Option grids (`tune` in a matrix's method entry): one variant per combination of the named
 * knobs' values, each named after its settings, each a comparability key of its own.
 */

/** The most settings one grid may expand to: a typo (a list of 100 values) is refused, not run for hours. */
const MAX_GRID_SETTINGS = 64;

/** A method choice's place in a grid. */
export interface GridSetting {
  /** The grid: the method and base variant it was expanded from (`mountpoint`, `mountpoint:cached`). */
  grid: string;
  /** This setting's value of each tuned knob, in the grid's knob order. */
  settings: Record<string, KnobValue>;
  /** Whether successive halving may drop it (the matrix entry's `halving`). */
  halving: boolean;
}

/** A grid as the run manifest records it: its settings, and what successive halving dropped. */
export interface TuningGrid {
  method: string;
  grid: string;
  knobs: string[];
  /** Every setting: its variant (the records' method_variant) and its value of each knob, as written. */
  settings: { variant: string; values: Record<string, string> }[];
  halving: boolean;
  /** Settings dropped from a workload's remaining rounds, and after which round (repetition). */
  dropped: TuningDrop[];
}

export interface TuningDrop {
  workload: string;
  variant: string;
  after_round: number;
  /** The figures that decided it: the setting's range against the best setting's, per case. */
  why: string;
}

/**
 * The variant a setting runs as: its settings (`part_size=8MiB,max_threads=16`), after the base
 * variant where that is not the default (`cached[cache=true]`), so methodLabel reads
 * `mountpoint:part_size=8MiB,max_threads=16`.
 */
function gridVariantName(baseVariant: string, settings: Record<string, KnobValue>): string {
  const text = Object.entries(settings).map(([k, v]) => `${k}=${knobValueLabel(v)}`).join(',');
  return baseVariant === 'default' ? text : `${baseVariant}[${text}]`;
}

/** Every combination of the tuned knobs' values, the first knob varying slowest. */
function combinations(tune: Record<string, KnobValue[]>): Record<string, KnobValue>[] {
  let out: Record<string, KnobValue>[] = [{}];
  for (const [knob, values] of Object.entries(tune)) out = out.flatMap((o) => values.map((v) => ({ ...o, [knob]: v })));
  return out;
}

/**
 * A method entry's grid: checked against the method's knobs (a name it lacks, a value outside the
 * documented range, a knob also fixed in `options`, a grid above MAX_GRID_SETTINGS: a problem and
 * its fix), then its settings, each with its variant name.
 */
export function expandGrid(
  def: MethodDescriptor, baseVariant: string, tune: Record<string, KnobValue[]>, fixed: Record<string, unknown>, where: string, halving = true,
): { problem: string; fix: string } | { variant: string; membership: GridSetting }[] {
  const knobs = def.knobs ?? {};
  const knobList = Object.entries(knobs).map(([k, knob]) => `${k} (${knobRange(knob)}, default ${knob.default})`).join('; ');
  for (const [name, values] of Object.entries(tune)) {
    const knob = knobs[name];
    if (!knob) {
      return { problem: `${where}.tune: ${def.name} has no knob "${name}"`, fix: knobList ? `its knobs are: ${knobList}` : `${def.name} declares no knobs to tune; compare its variants (${Object.keys(def.variants).join(', ')}) instead` };
    }
    if (name in fixed) return { problem: `${where}: ${name} is both fixed in "options" and tuned in "tune"`, fix: `name ${name} in one of them only` };
    const outside = values.find((v) => !knobAccepts(knob, v));
    if (outside !== undefined) {
      return { problem: `${where}.tune.${name}: ${JSON.stringify(outside)} is outside ${def.name}'s documented range for ${name}`, fix: `${name} takes ${knobRange(knob)} (default ${knob.default}; ${knob.source}${knob.bound ? `; ${knob.bound}` : ''})` };
    }
  }
  const settings = combinations(tune);
  if (settings.length > MAX_GRID_SETTINGS) {
    return { problem: `${where}.tune expands to ${settings.length} settings, more than ${MAX_GRID_SETTINGS}`, fix: 'tune fewer knobs or fewer values at once (each setting runs every workload and repetition)' };
  }
  const grid = methodLabel({ method: def.name, method_variant: baseVariant });
  return settings.map((s) => ({ variant: gridVariantName(baseVariant, s), membership: { grid, settings: s, halving } }));
}

/** The grids of a run's method choices, as its manifest records them (nothing dropped yet). */
export function tuningGrids(methods: readonly { name: string; variant: string; tune?: GridSetting }[]): TuningGrid[] {
  const grids = new Map<string, TuningGrid>();
  for (const m of methods) {
    if (!m.tune) continue;
    const g = grids.get(m.tune.grid) ?? { method: m.name, grid: m.tune.grid, knobs: Object.keys(m.tune.settings), settings: [], halving: m.tune.halving, dropped: [] };
    g.settings.push({ variant: m.variant, values: Object.fromEntries(Object.entries(m.tune.settings).map(([k, v]) => [k, knobValueLabel(v)])) });
    grids.set(m.tune.grid, g);
  }
  return [...grids.values()];
}
