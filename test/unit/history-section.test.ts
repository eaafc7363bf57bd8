import { runHistory } from '../../runner/report/history/series';
import { renderHtmlReport } from '../../runner/report/html/render';
import { modelJson } from '../../runner/report/text/export';
import { cell, modelOf } from '../helpers/model';
import { answering, NOT_LOOKED_FOR, pointsOf, record, runId } from '../helpers/history';

const STEADY = [99, 101, 100, 98, 102, 100, 99, 101, 100, 100];

/** Ten steady runs, a new client version at the ninth, and the eleventh run 30% slower: one rule, one flagged point. */
function history(find = NOT_LOOKED_FOR) {
  const records = [...STEADY.map((v, i) => record(i, v, { facts: i >= 8 ? { method_version: '1.91' } : {} })), record(10, 70, { facts: { method_version: '1.91' } })];
  return runHistory(pointsOf(records), runId(10), 11, find);
}

describe('the page\'s History section', () => {
  test('a small multiple per case: every run a point, the flagged one a diamond, the version change a rule', async () => {
    const model = modelOf([cell({ method: 's3fs' })]);
    model.history = history();
    expect(model.history.series).toHaveLength(1);
    expect(model.history.series[0].points.map((p) => [p.flagged, p.change])).toEqual([
      ...STEADY.map((_, i) => [false, i === 8 ? 'version change' : 'same']), [true, 'same'],
    ]);
    const out = await renderHtmlReport(model);
    // The other sections of this one-cell model have nothing to draw, and warn so; the history's chart adds no warning.
    expect(out.warnings).toEqual((await renderHtmlReport(modelOf([cell({ method: 's3fs' })]))).warnings);
    const section = out.html.slice(out.html.indexOf('<section id="history"'), out.html.indexOf('</section>', out.html.indexOf('<section id="history"')));
    expect(section).toContain('data-has-data="true"');
    const svg = section.slice(section.indexOf('<svg'), section.indexOf('</svg>'));
    // Vega's SVG names each mark group after its layer: 11 points, 1 flagged diamond, 1 version rule, no option rule.
    const marks = (name: string) => (new RegExp(`class="mark-[a-z]+ role-mark ${name}_marks"[^>]*>(.*?)</g>`, 's').exec(svg)?.[1].match(/<(path|line)/g) ?? []).length;
    expect({ points: marks('points'), flagged: marks('flagged'), version: marks('version_change'), option: marks('option_change') }).toEqual({ points: 11, flagged: 1, version: 1, option: 0 });
    expect(section).toMatch(/version change: version 1\.90 → 1\.91/);
    expect(section).toMatch(/speed change flagged/);
    expect(section).toContain('Change points were not looked for: not looked for in this test (1 series).');
  });

  test('a change point: a thick rule before the run where the shift began, a row saying so, in json too', async () => {
    const model = modelOf([cell({ method: 's3fs' })]);
    model.history = history(answering([[{ index: 10, meanBefore: 100, meanAfter: 70, changePct: -30, pValue: 2e-9 }]]));
    expect(model.history.series[0].points.map((p) => p.changePoint !== null)).toEqual([...STEADY.map(() => false), true]);
    const out = await renderHtmlReport(model);
    const section = out.html.slice(out.html.indexOf('<section id="history"'), out.html.indexOf('</section>', out.html.indexOf('<section id="history"')));
    expect(section.match(/class="mark-rule role-mark change_point_marks"[^>]*>(.*?)<\/g>/s)?.[1].match(/<line/g)).toHaveLength(1);
    expect(section).toContain('Change points found: 1.');
    expect(section).toContain('change point: a shift of -30% began here (mean 100 → 70 either side, t-test p 2.0e-9)');
    expect(JSON.parse(modelJson(model)).history[10]).toMatchObject({ change_point: true, change_point_pct: -30, change_point_p: 2e-9 });
  });

  test('the same series in --format json, a row per run', () => {
    const model = modelOf([cell({ method: 's3fs' })]);
    model.history = history();
    const rows = JSON.parse(modelJson(model)).history;
    expect(rows).toHaveLength(11);
    expect(rows[8]).toMatchObject({ method: 's3fs', run_id: runId(8), version: '1.91', change: 'version change', diff: 'version 1.90 → 1.91', flagged: false, unit: 'MiB/s' });
    expect(rows[10]).toMatchObject({ run_id: runId(10), median: 70, flagged: true, change: 'same' });
  });

  test('without a history, or a first run: the section says so, no chart', async () => {
    const model = modelOf([cell({ method: 's3fs' })]);
    let out = await renderHtmlReport(model);
    expect(out.html).toMatch(/<section id="history" data-has-data="false">[\s\S]*?No data:<\/strong> this page was made without a results history/);
    model.history = runHistory(pointsOf([record(0, 100)]), runId(0), 1, NOT_LOOKED_FOR);
    out = await renderHtmlReport(model);
    expect(out.html).toMatch(/<section id="history" data-has-data="false">[\s\S]*?No data:<\/strong> no case of this run has an earlier comparable run/);
  });
});
