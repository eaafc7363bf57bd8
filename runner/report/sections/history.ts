import type { TopLevelSpec } from 'vega-lite';
import { num } from '../format';
import { changesLines, caseText } from '../history/text';
import { CHANGE_POINT_RULES, changePointText } from '../history/change-points';
import type { CaseSeries, RunHistory } from '../history/series';
import { esc } from '../html/format';
import { figure, table, type TCell } from '../html/parts';
import type { ReportModel } from '../model';
import type { DataTable, PageContext, ReportSection, TextContext } from './section';

/**
 * "History": the run against the comparable runs before it (runner/report/history). On the page a
 * small multiple per case — its medians run by run, flagged points marked, version and option
 * changes as vertical rules — and a table of what changed; in `--format json|csv` the series; in
 * the text summary, last, "Changes against N comparable runs". The history comes with the model
 * where its caller read a results folder's runs (`s3ab run`, `s3ab report`); the pipeline's report
 * reads none.
 */

/** A case's series has something to draw: two points or more. */
const drawn = (h: RunHistory | null | undefined) => (h?.series ?? []).filter((s) => s.points.length >= 2);

/** One datum of the chart: a point of a series, at its place in the series (1 = oldest). */
interface HistoryDatum {
  panel: string;
  seq: number;
  run: string;
  median: number | null;
  /** A median datum's point was flagged (drawn as a red diamond). */
  flagged: boolean;
  kind: 'median' | 'version change' | 'option change' | 'change point';
}

function panelOf(s: CaseSeries): string {
  const m = s.point.metric;
  return `${caseText(s.point)}${m ? ` (${m.unit})` : ''}`;
}

function datums(series: CaseSeries[]): HistoryDatum[] {
  return series.flatMap((s) => {
    const panel = panelOf(s);
    return s.points.flatMap((p, i): HistoryDatum[] => {
      const at = { panel, seq: i + 1, run: p.runId, median: p.median, flagged: p.flagged };
      const out: HistoryDatum[] = [{ ...at, kind: 'median' }];
      // A version change names both; the rule says which came first in the label.
      if (p.change !== 'same') out.push({ ...at, kind: p.change === 'option change' ? 'option change' : 'version change' });
      if (p.changePoint) out.push({ ...at, kind: 'change point' });
      return out;
    });
  });
}

/**
 * A small multiple per case: the median run by run (x: the run's place in the series, oldest
 * first), flagged points as red diamonds, a version change as a solid rule just before the run
 * that brought it, an option change as a dashed one, a change point as a thick orange one.
 */
function historySpec(data: HistoryDatum[], panels: string[]): TopLevelSpec {
  // One x scale for every panel, its domain given: a mark layer that is empty in some panel (no
  // rule, no flag there) then has no extent of its own to compute, which Vega would warn about.
  const longest = Math.max(...data.map((d) => d.seq));
  const x = { field: 'seq', type: 'quantitative', title: 'run (oldest first)', scale: { domain: [0.5, longest + 0.5], nice: false }, axis: { tickMinStep: 1, format: 'd' } } as const;
  const y = { field: 'median', type: 'quantitative', title: 'median', scale: { zero: false } } as const;
  const tooltip = [{ field: 'run' }, { field: 'median', format: '.4~g' }];
  const rule = (kind: string, dash: number[], color = '#6e7781', width = 1.5) => ({
    name: kind.replace(' ', '_'), transform: [{ filter: `datum.kind === '${kind}'` }, { calculate: 'datum.seq - 0.5', as: 'seq' }],
    mark: { type: 'rule', color, strokeWidth: width, strokeDash: dash, opacity: 0.85 }, encoding: { x },
  });
  const flagged = 'datum.flagged';
  return {
    data: { values: data },
    facet: { field: 'panel', type: 'nominal', title: null, sort: panels, header: { labelLimit: 420 } },
    columns: 2,
    spec: {
      width: 380, height: 130,
      layer: [
        ...(data.some((d) => d.kind === 'version change') ? [rule('version change', [])] : []),
        ...(data.some((d) => d.kind === 'option change') ? [rule('option change', [4, 3])] : []),
        ...(data.some((d) => d.kind === 'change point') ? [rule('change point', [], '#bc4c00', 3)] : []),
        { name: 'line', transform: [{ filter: "datum.kind === 'median' && isValid(datum.median)" }], mark: { type: 'line', color: '#4e79a7', strokeWidth: 1.4 }, encoding: { x, y } },
        // Flagged points in the same layer (a red diamond), not a layer of their own: y has a point in every panel.
        {
          name: 'points', transform: [{ filter: "datum.kind === 'median' && isValid(datum.median)" }], mark: { type: 'point', filled: true },
          encoding: {
            x, y, tooltip,
            color: { condition: { test: flagged, value: '#cf222e' }, value: '#4e79a7' },
            shape: { condition: { test: flagged, value: 'diamond' }, value: 'circle' },
            size: { condition: { test: flagged, value: 110 }, value: 30 },
          },
        },
      ],
    },
    resolve: { scale: { y: 'independent' } },
  } as unknown as TopLevelSpec;
}

/** The points that changed something: flagged, a version or option change, a behaviour change. */
function changeRows(series: CaseSeries[]): TCell[][] {
  return series.flatMap((s) => s.points.flatMap((p) => {
    const what = [
      ...(p.change !== 'same' ? [`${p.change}: ${p.diff.join('; ')}`] : []),
      ...(p.behaviour.length ? [`behaviour change: ${p.behaviour.join('; ')}`] : []),
      ...(p.flagged ? ['speed change flagged'] : []),
      ...(p.changePoint ? [changePointText(p.changePoint)] : []),
    ];
    const alarm = p.flagged || p.behaviour.length || p.changePoint;
    return what.length ? [[caseText(s.point), p.runId, p.version, p.median === null ? '–' : num(p.median), { html: esc(what.join('; ')), cls: alarm ? 'failed' : undefined }]] : [];
  }));
}

async function html(ctx: PageContext): Promise<string> {
  // Left out of the page without data (omitWithoutData): every series here has an earlier run.
  const history = ctx.model.history!;
  const series = drawn(history);
  const panels = series.map(panelOf);
  const svg = await ctx.charts.svg(historySpec(datums(series), panels));
  const cmp = history.comparison;
  const rows = changeRows(series);
  return [
    `<p>This run against ${cmp.comparableRuns} comparable earlier run${cmp.comparableRuns === 1 ? '' : 's'} of ${history.runs} read: ` +
      `${cmp.cases.filter((c) => c.behaviour.length).length} behaviour changes, ${cmp.cases.filter((c) => c.flagged).length} flagged speed changes, ${cmp.compared} cases compared ` +
      `(fewer than ${cmp.rules.minRuns} comparable runs: insufficient history, nothing flagged).</p>`,
    figure(svg, 'Each case\'s median run by run, oldest first, over the runs measured under the same conditions (the comparability key, whatever the client\'s version and options). ' +
      'Red diamond: a speed change flagged against the runs before it (robust score beyond ' + esc(cmp.rules.scoreThreshold) + ', a change above ' + esc(cmp.rules.minChangePct) +
      '% and twice the case\'s own variation, a false-discovery control across the run\'s cases). Solid gray rule: the client\'s version changed before that run; dashed: its options. ' +
      `Thick orange rule: a change point, where a sustained shift began (Apache Otava's E-Divisive with a t-test at p < ${esc(CHANGE_POINT_RULES.maxPValue)}, a shift above ${esc(100 * CHANGE_POINT_RULES.minMagnitude)}%).`),
    history.changePoints.available ? `<p>Change points found: ${history.changePoints.found}.</p>` : `<p class="nodata">Change points were not looked for: ${esc(history.changePoints.reason)}.</p>`,
    rows.length ? table(['case', 'run', 'version', 'median', 'what changed'], rows, { caption: 'The runs where something changed, against the run before them' })
      : '<p>No run of these series changed version, options or behaviour, none was flagged and no change point was found.</p>',
  ].join('\n');
}

/** The series as one table: a row per case and run. */
function tables(model: ReportModel): DataTable[] {
  const series = model.history?.series ?? [];
  if (!series.length) return [];
  return [{
    name: 'history',
    columns: ['case', 'workload', 'operation', 'object_size_bytes', 'cache', 'method', 'method_variant', 'metric', 'unit', 'run_id', 'date', 'version', 'median', 'flagged', 'change', 'diff', 'behaviour_changes',
      'change_point', 'change_point_pct', 'change_point_p'],
    rows: series.flatMap((s) => s.points.map((p) => [
      caseText(s.point), s.point.workload, s.point.operation, s.point.object_size_bytes, s.point.cache, s.point.method, s.point.method_variant,
      s.point.metric?.name ?? null, s.point.metric?.unit ?? null, p.runId, p.date, p.version, p.median, p.flagged, p.change, p.diff.join('; ') || null, p.behaviour.join('; ') || null,
      !!p.changePoint, p.changePoint?.changePct ?? null, p.changePoint?.pValue ?? null,
    ])),
  }];
}

export const historySection: ReportSection = {
  id: 'history',
  title: 'History',
  hasData: (model) => drawn(model.history).length > 0,
  // A first run, or a page made without a history (the pipeline's): no section; the summary's closing part says why.
  omitWithoutData: true,
  html,
  text: { lines: ({ history, width }: TextContext) => (history ? changesLines(history, width) : []), closing: true },
  tables,
};
