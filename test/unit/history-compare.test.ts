import { changesOf, compareWithHistory } from '../../runner/report/history/compare';
import { changesLines, historyLines } from '../../runner/report/history/text';
import { summaryLines } from '../../runner/report/text/summary';
import { cell, modelOf } from '../helpers/model';
import { answering, FACTS, NOT_LOOKED_FOR, pointsOf, record, runId } from '../helpers/history';

const STEADY = [99, 101, 100, 98, 102, 100, 99, 101, 100, 100];

describe('a run\'s points', () => {
  test('the median of the good repetitions, requests per operation by type, support and verification', () => {
    const [p] = pointsOf([record(1, 100), record(1, 120, { repetition: 2 }), record(1, 90, { repetition: 3 })]);
    expect(p.median).toBeCloseTo(100, 2);
    expect(p.metric).toEqual({ name: 'throughput', unit: 'MiB/s', higherIsBetter: true });
    expect(p.behaviour).toMatchObject({ 'requests/op head': 1, 'requests/op get': 1, 'requests/op list': 0.1, 'GET bytes/byte read': 1, support: 'supported', verification: 'all verified' });
    expect(p.requestsCounted).toBe(true);
  });

  test('fleet steps and step rows are not cases', () => {
    const fleet = record(1, 100, { facts: { clients: 3 } });
    const step = { ...record(1, 100), operation: 'step' };
    expect(pointsOf([fleet, step])).toEqual([]);
  });
});

describe('a run against its comparable history', () => {
  test('steady history, unchanged behaviour: compared, nothing flagged', () => {
    const pts = pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 100.5)]);
    const cmp = compareWithHistory(pts, runId(10));
    expect(cmp.comparableRuns).toBe(10);
    expect(cmp.cases).toHaveLength(1);
    expect(cmp.cases[0]).toMatchObject({ label: 'same', flagged: false, behaviour: [] });
    expect(changesOf(cmp)).toMatchObject({ behaviour: [], speed: [], unflagged: 1, insufficient: 0 });
  });

  test('a 20% slower run on a steady history is flagged', () => {
    const cmp = compareWithHistory(pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 80)]), runId(10));
    expect(cmp.cases[0].flagged).toBe(true);
    expect(cmp.cases[0].speed).toMatchObject({ kind: 'compared', runs: 10 });
  });

  test('fewer than 5 earlier runs: insufficient history, nothing flagged however large the change', () => {
    const cmp = compareWithHistory(pointsOf([record(0, 100), record(1, 100), record(2, 50)]), runId(2));
    expect(cmp.cases[0].speed).toEqual({ kind: 'insufficient', runs: 2, changePct: expect.closeTo(-50, 1) });
    expect(changesOf(cmp)).toMatchObject({ speed: [], insufficient: 1 });
  });

  test('an option that triples HEADs: a behaviour change, labelled an option change with its diff, exactly', () => {
    const pts = pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 100, { facts: { method_options: { stat_cache: 'off' } }, requests: { head: 30 } })]);
    const c = compareWithHistory(pts, runId(10)).cases[0];
    expect(c.label).toBe('option change');
    expect(c.diff).toEqual(['option stat_cache: on → off']);
    expect(c.behaviour).toEqual([{ figure: 'requests/op head', before: '1', after: '3' }]);
    expect(c.behaviourAgainst).toBe(runId(9));
  });

  test('a new client version: compared and labelled', () => {
    const pts = pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 100, { facts: { method_version: '1.95' } })]);
    expect(compareWithHistory(pts, runId(10)).cases[0]).toMatchObject({ label: 'version change', diff: ['version 1.90 → 1.95'], behaviour: [] });
  });

  test('any other difference is not comparable, with the fields', () => {
    const pts = pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 100, { facts: { workload_params: { files: '20' }, host: { ...FACTS.host, vcpus: 8 } } })]);
    const cmp = compareWithHistory(pts, runId(10));
    expect(cmp.cases).toEqual([]);
    expect(cmp.notComparable.map((n) => [n.against, n.fields])).toEqual([[runId(9), ['workload_params', 'host_class']]]);
  });

  test('uncounted requests are not a behaviour change; a changed probe outcome is', () => {
    const pts = pointsOf([...STEADY.map((v, i) => record(i, v)), record(10, 100, { requests: null })]);
    expect(compareWithHistory(pts, runId(10)).cases[0].behaviour).toEqual([]);
    const unverified = { ...record(11, 100), verified: false, status: 'ok' as const };
    const withUnverified = pointsOf([...STEADY.map((v, i) => record(i, v)), unverified]);
    expect(compareWithHistory(withUnverified, runId(11)).cases[0].behaviour).toEqual([{ figure: 'verification', before: 'all verified', after: 'none verified' }]);
  });

  test('later runs never count as history', () => {
    const pts = pointsOf([record(0, 100), ...STEADY.map((v, i) => record(i + 1, v))]);
    expect(compareWithHistory(pts, runId(0)).cases).toEqual([]);
    expect(compareWithHistory(pts, runId(0)).firstSeen).toBe(1);
  });
});

describe('where a user sees it', () => {
  const slower = (i: number) => record(i, 80, { facts: { workload: 'large-read' } });
  const pts = pointsOf([
    ...STEADY.map((v, i) => record(i, v)), ...STEADY.map((v, i) => record(i, v, { facts: { workload: 'large-read' } })),
    record(10, 100, { facts: { method_options: { stat_cache: 'off' } }, requests: { head: 30 } }), slower(10),
  ]);
  const cmp = compareWithHistory(pts, runId(10));

  test('the summary ends with the changes: behaviour first, then flagged speed changes, then the count of the rest', () => {
    const lines = summaryLines(modelOf([cell({ method: 's3-api' })]), { history: cmp });
    const tail = changesLines(cmp);
    expect(lines.slice(lines.length - tail.length)).toEqual(tail);
    const text = tail.join('\n').replace(/\s+/g, ' ');
    expect(text).toContain('Changes against 10 comparable runs');
    const at = (s: string) => text.indexOf(s);
    expect(at('behaviour changes')).toBeLessThan(at('flagged speed changes: 1'));
    expect(at('flagged speed changes: 1')).toBeLessThan(at('not flagged: 1 cases compared'));
    expect(text).toMatch(/small-reads read 1 KiB \(cold\) · s3fs \[option change: option stat_cache: on → off\]: requests\/op head 1 → 3/);
    expect(text).toMatch(/large-read read 1 KiB \(cold\) · s3fs: 80 MiB\/s — FLAGGED slower: -20%/);
    expect(text).toMatch(/by chance alone about 0\.0\d+ of the 2 compared cases/);
  });

  test('without a history the summary has no such part', () => {
    expect(summaryLines(modelOf([cell({ method: 's3-api' })])).join('\n')).not.toContain('comparable run');
  });

  test('the series: every run of a case, oldest first, with its verdict against the runs before it', () => {
    const text = historyLines(pts, { workload: 'large-read' }, NOT_LOOKED_FOR).join('\n');
    expect(text).not.toContain('small-reads');
    expect(text.match(/20261\d+T000000Z-abcdef/g)).toHaveLength(11);
    expect(text).toContain('first run of this case');
    expect(text).toContain('insufficient history (4 runs');
    expect(text).toMatch(/FLAGGED\s+slower/);
    expect(text).toMatch(/^Change points not looked for: not looked for in this test \(1 series\)/m);
  });

  test('a change point is dated to the run where the shift began, and printed there', () => {
    const cp = { index: 10, meanBefore: 100, meanAfter: 80, changePct: -20, pValue: 1e-6 };
    const text = historyLines(pts, { workload: 'large-read' }, answering([[cp]]), 200).join('\n');
    expect(text).toContain('Change points (Apache Otava: E-Divisive, then a t-test at p < 0.001 and a shift above 5%, over each case\'s runs under the same conditions): 1 found');
    const line = text.split('\n').find((l) => l.includes('CHANGE POINT'))!;
    expect(line).toContain(runId(10));
    expect(line).toContain('CHANGE POINT: a shift of -20% began here (mean 100 → 80 either side, t-test p 1.0e-6)');
  });
});
