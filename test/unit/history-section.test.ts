import { runHistory } from '../../runner/report/history/series';
import { renderHtmlReport } from '../../runner/report/html/render';
import { modelJson } from '../../runner/report/text/export';
import { cell, modelOf } from '../helpers/model';
import { answering, NOT_LOOKED_FOR, pointsOf, record, runId } from '../helpers/history';

const STEADY = [99, 101, 100, 98, 102, 100, 99, 101, 100, 100];

/**
 * Ten steady runs, a new client version at the ninth, and the eleventh run 30% slower: one rule,
 * one flagged point. Beside it a steady variant of the same method: a panel with no rule and no flag.
 */
function history(find = NOT_LOOKED_FOR) {
  const records = [
    ...STEADY.map((v, i) => record(i, v, { facts: i >= 8 ? { method_version: '1.91' } : {} })), record(10, 70, { facts: { method_version: '1.91' } }),
    ...[...STEADY, 100].map((v, i) => record(i, v, { facts: { method_variant: 'tuned' } })),
  ];
  return runHistory(pointsOf(records), runId(10), 11, find);
}

/** The History section's HTML, and the count of one layer's marks in its chart (Vega names each mark group after its layer). */
function historySection(html: string) {
  const at = html.indexOf('<section id="history"');
  const section = html.slice(at, html.indexOf('</section>', at));
  const svg = section.slice(section.indexOf('<svg'), section.indexOf('</svg>'));
  const groups = (name: string) => [...svg.matchAll(new RegExp(`class="mark-[a-z]+ role-mark ${name}_marks"[^>]*(?<!/)>(.*?)</g>`, 'gs'))].map((m) => m[1]).join('');
  const marks = (name: string) => (groups(name).match(/<(path|line)/g) ?? []).length;
  const flagged = () => (groups('points').match(/<path[^>]*fill="#cf222e"/g) ?? []).length;
  return { section, marks, flagged };
}

/** The warnings of this one-cell model's other sections, which have nothing to draw: the history's chart must add none. */
const baseline = async () => (await renderHtmlReport(modelOf([cell({ method: 's3fs' })]))).warnings;

describe('the page\'s History section', () => {
  test('a small multiple per case: every run a point, the flagged one a red diamond, the version change a rule', async () => {
    const model = modelOf([cell({ method: 's3fs' })]);
    model.history = history();
    expect(model.history.series).toHaveLength(2);
    expect(model.history.series[0].points.map((p) => [p.flagged, p.change])).toEqual([
      ...STEADY.map((_, i) => [false, i === 8 ? 'version change' : 'same']), [true, 'same'],
    ]);
    const out = await renderHtmlReport(model);
    expect(out.warnings).toEqual(await baseline());
    const { section, marks, flagged } = historySection(out.html);
    expect(section).toContain('data-has-data="true"');
    expect({ points: marks('points'), flagged: flagged(), version: marks('version_change'), option: marks('option_change') }).toEqual({ points: 22, flagged: 1, version: 1, option: 0 });
    expect(section).toMatch(/version change: version 1\.90 → 1\.91/);
    expect(section).toMatch(/speed change flagged/);
    expect(section).toContain('Change points were not looked for: not looked for in this test (2 series).');
  });

  test('a change point: a thick rule before the run where the shift began, a row saying so, in json too', async () => {
    const model = modelOf([cell({ method: 's3fs' })]);
    model.history = history(answering([[{ index: 10, meanBefore: 100, meanAfter: 70, changePct: -30, pValue: 2e-9 }], []]));
    expect(model.history.series[0].points.map((p) => p.changePoint !== null)).toEqual([...STEADY.map(() => false), true]);
    const out = await renderHtmlReport(model);
    expect(out.warnings).toEqual(await baseline());
    const { section, marks } = historySection(out.html);
    expect(marks('change_point')).toBe(1);
    expect(section).toContain('Change points found: 1.');
    expect(section).toContain('change point: a shift of -30% began here (mean 100 → 70 either side, t-test p 2.0e-9)');
    expect(JSON.parse(modelJson(model)).history[10]).toMatchObject({ change_point: true, change_point_pct: -30, change_point_p: 2e-9 });
  });

  test('the same series in --format json, a row per case and run', () => {
    const model = modelOf([cell({ method: 's3fs' })]);
    model.history = history();
    const rows = JSON.parse(modelJson(model)).history;
    expect(rows).toHaveLength(22);
    expect(rows[8]).toMatchObject({ method: 's3fs', run_id: runId(8), version: '1.91', change: 'version change', diff: 'version 1.90 → 1.91', flagged: false, unit: 'MiB/s' });
    expect(rows[10]).toMatchObject({ run_id: runId(10), median: 70, flagged: true, change: 'same', change_point: false });
  });

  test('without a history, or at a first run: no section on the page', async () => {
    const model = modelOf([cell({ method: 's3fs' })]);
    let out = await renderHtmlReport(model);
    expect(out.sections.map((x) => x.id)).not.toContain('history');
    expect(out.html).not.toContain('<section id="history"');
    model.history = runHistory(pointsOf([record(0, 100)]), runId(0), 1, NOT_LOOKED_FOR);
    out = await renderHtmlReport(model);
    expect(out.html).not.toContain('<section id="history"');
    model.history = history();
    out = await renderHtmlReport(model);
    expect(out.sections.find((x) => x.id === 'history')).toEqual({ id: 'history', title: 'History', hasData: true });
  });
});
