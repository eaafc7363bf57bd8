import { num } from '../format';
import { esc } from '../html/format';
import { noData, table, type TCell } from '../html/parts';
import { caseLabel, type SizeLabels } from '../labels';
import type { ReportModel } from '../model';
import { wrapText } from '../text/table';
import { tuningCases, type SettingFigure, type TuningCase } from '../tuning';
import type { DataTable, PageContext, ReportSection, TextContext } from './section';

/** "Tuning": the option grids (`tune`), each setting's median, the best, each knob's weight, and what halving dropped. */

const range = (s: SettingFigure) => `${num(s.min)}–${num(s.max)}`;
const droppedText = (s: SettingFigure) => (s.dropped ? `dropped after round ${s.dropped.after_round}` : '');

/** The case's verdict: the best setting, or "no clear winner" naming the settings whose ranges overlap the best's. */
function verdict(tc: TuningCase): string {
  const [best, ...rest] = tc.settings;
  if (tc.clearWinner === null) return `only ${best.variant} measured: ${num(best.median)} ${tc.unit}`;
  if (tc.clearWinner) return `best ${best.variant}: ${num(best.median)} ${tc.unit} (${range(best)}), clear of ${rest[0].variant}'s ${range(rest[0])}`;
  const overlapping = rest.filter((s) => s.max >= best.min).map((s) => s.variant);
  return `no clear winner: ${best.variant} has the best median, ${num(best.median)} ${tc.unit} (${range(best)}), but its range overlaps ${overlapping.join(', ')}`;
}

/** How much the figure depends on each knob: the median over its settings per value, and highest over lowest. */
function effectsText(tc: TuningCase): string {
  return tc.knobEffects.map((e) => `${e.knob} ${e.spread === null ? '(one value)' : `×${num(e.spread)}`}: ${e.byValue.map((b) => `${b.value} ${num(b.median)}`).join(', ')}`).join('; ');
}

const heading = (tc: TuningCase, sizes: SizeLabels) => `${tc.workload}, ${caseLabel(tc.cell, sizes)}, ${tc.grid} grid (${tc.knobs.join(' × ')}), ${tc.unit}`;

function caseHtml(tc: TuningCase, sizes: SizeLabels): string {
  const rows: TCell[][] = tc.settings.map((s, i) => [
    i === 0 ? { html: `<strong>${esc(s.variant)}</strong>` } : s.variant, ...tc.knobs.map((k) => s.values[k]), num(s.median), range(s), s.repetitions, droppedText(s),
  ]);
  return table(['setting', ...tc.knobs, `median ${tc.unit}`, 'min–max', 'repetitions', 'successive halving'], rows, { cls: 'tuning', caption: `${heading(tc, sizes)}: ${verdict(tc)}. Depends on: ${effectsText(tc)}.` });
}

function droppedLines(model: ReportModel): string[] {
  return (model.manifest?.tuning ?? []).flatMap((g) => (g.halving
    ? g.dropped.map((d) => `${g.grid} ${d.variant} dropped from ${d.workload} after round ${d.after_round}: ${d.why}`)
    : [`${g.grid}: successive halving off (halving: false), every setting ran every repetition`]));
}

function html(ctx: PageContext): string {
  const cases = tuningCases(ctx.model);
  if (!cases.length) return noData('this run has no option grid.', 'A matrix method entry with "tune" (e.g. {"name": "mountpoint", "tune": {"part_size": ["8MiB", "16MiB"]}}) runs one variant per setting; docs/usage.md shows how.');
  const dropped = droppedLines(ctx.model);
  return `<p class="lead">Each setting's median over its repetitions, with its min–max. A best setting is named only where its range clears the next one's; "depends on" is, per knob, the median over the settings with each value and the highest over the lowest. ` +
    `Successive halving drops a setting from a workload's remaining rounds once its range lies wholly below the best's in every case.</p>` +
    cases.map((tc) => caseHtml(tc, ctx.model.sizes)).join('\n') +
    `<p>${dropped.length ? `Successive halving: ${dropped.map(esc).join('; ')}.` : 'Successive halving dropped no setting.'}</p>`;
}

function lines({ model, width }: TextContext): string[] {
  const cases = tuningCases(model);
  if (!cases.length) return [];
  const out = ['', ...wrapText('Tuning — option grids: each setting\'s median (min–max) over its repetitions; the best where its range clears the next one\'s; per knob, the median per value and highest over lowest', width, '  ')];
  for (const tc of cases) {
    out.push(...wrapText(`${heading(tc, model.sizes)}: ${verdict(tc)}`, width, '    '));
    for (const s of tc.settings) out.push(...wrapText(`  ${s.variant}: ${num(s.median)} (${range(s)}), ${s.repetitions} rep${s.repetitions === 1 ? '' : 's'}${s.dropped ? `, ${droppedText(s)}` : ''}`, width, '      '));
    out.push(...wrapText(`  depends on: ${effectsText(tc)}`, width, '      '));
  }
  const dropped = droppedLines(model);
  out.push(...wrapText(dropped.length ? `successive halving: ${dropped.join('; ')}` : 'successive halving dropped no setting', width, '  '));
  return out;
}

function tables(model: ReportModel): DataTable[] {
  const cases = tuningCases(model);
  return [{
    name: 'tuning',
    columns: ['workload', 'operation', 'object_size_bytes', 'cache', 'method', 'grid', 'method_variant', 'settings', 'unit', 'median', 'min', 'max', 'repetitions', 'best', 'clear_winner', 'dropped_after_round'],
    rows: cases.flatMap((tc) => tc.settings.map((s, i) => [
      tc.workload, tc.cell.operation, tc.cell.object_size_bytes, tc.cell.cache, tc.method, tc.grid, s.variant, JSON.stringify(s.values), tc.unit, s.median, s.min, s.max, s.repetitions,
      i === 0, i === 0 ? tc.clearWinner : null, s.dropped?.after_round ?? null,
    ])),
  }, {
    name: 'tuning_knobs',
    columns: ['workload', 'operation', 'object_size_bytes', 'cache', 'grid', 'knob', 'value', 'median_of_settings', 'spread'],
    rows: cases.flatMap((tc) => tc.knobEffects.flatMap((e) => e.byValue.map((b) => [tc.workload, tc.cell.operation, tc.cell.object_size_bytes, tc.cell.cache, tc.grid, e.knob, b.value, b.median, e.spread]))),
  }];
}

export const tuningSection: ReportSection = {
  id: 'tuning',
  title: 'Tuning',
  hasData: (model) => tuningCases(model).length > 0,
  // A run without a grid has nothing to say here.
  omitWithoutData: true,
  html,
  text: { lines },
  tables,
};
