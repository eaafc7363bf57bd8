import { isUntimed, ranked } from '../../runner/report/analysis';
import { isVerdictOperation } from '../../runner/report/verdict-operations';
import type { Measurement } from '../../runner/core/batch';
import { runPoints } from '../../runner/report/history/points';
import { renderHtmlReport } from '../../runner/report/html/render';
import type { Cell } from '../../runner/report/model';
import { requestRowsShown } from '../../runner/report/requests';
import { renderModel } from '../../runner/report/summary';
import { toRecord, type StepFacts } from '../../runner/results/record';
import { verdicts } from '../../runner/report/verdicts';
import { cell, modelOf } from '../helpers/model';

const KiB = 1024;
const HOLDS = 'fastest read of 128 KiB 9.20 ms vs 120 KiB 0.41 ms: ×22.44, a step (a threshold holds at ×2 or more)';
const NO_STEP = 'fastest read of 1 MiB 3.51 ms vs 1020 KiB 3.64 ms: ×0.96, no step (a threshold holds at ×2 or more)';

/** sync-behaviour's records as the workload writes them: timed reads, and two verdicts with a 0 ms "duration" and their line. */
const cells = (method: string): Cell[] => [
  cell({
    workload: 'sync-behaviour', operation: 'read-exported', object_size_bytes: 120 * KiB, method, cache: 'cold', mib_s_median: 250, ops_s_median: 2000,
    duration_ms_min: 2, duration_ms_median: 2.5, duration_ms_max: 3, p99_us_median: 900,
  }),
  // Holds in every repetition: status ok, nothing timed (the runner records 0 ms).
  cell({
    workload: 'sync-behaviour', operation: 'direct-read-128KB', object_size_bytes: 128 * KiB, method, cache: 'cold', repetitions: 3, ops: 6, ok: 6,
    duration_ms_min: 0, duration_ms_median: 0, duration_ms_max: 0, first_error: HOLDS,
  }),
  // Does not hold: status unsupported in every repetition.
  cell({
    workload: 'sync-behaviour', operation: 'direct-read-1MiB', object_size_bytes: 1024 * KiB, method, cache: 'cold', repetitions: 0, distinct_repetitions: 0,
    unsupported: 3, ops: 6, ok: 6, first_error: NO_STEP,
  }),
];

const model = () => modelOf([...cells('s3files'), ...cells('s3fs')]);
const verdictCell = (op: string) => model().cells.find((c) => c.operation === op)!;

describe('verdict operations (a verdict over other figures, no file operation of its own)', () => {
  test('come from the workload descriptor, are untimed and never ranked', () => {
    expect(isVerdictOperation(verdictCell('direct-read-128KB'))).toBe(true);
    expect(isVerdictOperation(verdictCell('read-exported'))).toBe(false);
    expect(isUntimed(verdictCell('direct-read-1MiB'))).toBe(true);
    expect(ranked(verdictCell('direct-read-128KB'))).toBe(false);
    expect(verdicts(model()).map((v) => v.case).join(' ')).not.toMatch(/direct-read/);
  });

  test.each([[{ wide: false }], [{ wide: true }]])('the text summary %j shows the outcome and the line, never a time', (opts) => {
    const text = renderModel(model(), opts).join('\n');
    expect(text).toContain('holds');
    expect(text).toContain('does not hold');
    // The line wraps within its column: read as one.
    const joined = text.replace(/\n\s+/g, ' ');
    expect(joined).toContain(`holds: ${HOLDS}`);
    expect(joined).toContain(`does not hold: ${NO_STEP}`);
    const rows = text.split('\n').filter((l) => /direct-read/.test(l));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).not.toMatch(/\b0 µs\b|\b0(\.0+)? ms\b|MiB\/s|op\/s/);
    expect(text).not.toMatch(/\b0 µs\b/);
    if (opts.wide) expect(text).toMatch(/128 KiB\s+outcome\s+holds\s+holds/);
  });

  test('json and csv carry the verdict with its line and no time or rate', () => {
    type Row = Record<string, unknown>;
    const { cases } = JSON.parse(renderModel(model(), { format: 'json' })[0]) as { cases: Row[] };
    const holds = cases.find((r) => r.operation === 'direct-read-128KB')!;
    const notHolds = cases.find((r) => r.operation === 'direct-read-1MiB')!;
    expect(holds.verdict).toBe(`holds: ${HOLDS}`);
    expect(notHolds.verdict).toBe(`does not hold: ${NO_STEP}`);
    for (const figure of ['duration_ms_median', 'mib_s_median', 'ops_s_median', 'p99_us_median']) expect(holds[figure]).toBeNull();
    const read = cases.find((r) => r.operation === 'read-exported')!;
    expect(read.verdict).toBeNull();
    expect(read.duration_ms_median).toBe(2.5);
    expect(renderModel(model(), { format: 'csv' })[0]).toContain(`does not hold: ${NO_STEP}`);
  });

  test('the page shows the outcome and the line, not a time', async () => {
    const out = await renderHtmlReport(model());
    expect(out.html).toContain(`holds: ${HOLDS}`);
    expect(out.html).toContain(`does not hold: ${NO_STEP}`);
  });

  test('the requests table leaves them out: they send nothing, their "operations" are the figures compared', () => {
    const row = (operation: string) => ({ workload: 'sync-behaviour', operation, method: 's3fs', ops: 2, measurements: 1, not_counted: 0, get: 0 });
    expect(requestRowsShown([row('read-exported'), row('direct-read-128KB'), row('direct-read-1MiB')]).map((r) => r.operation)).toEqual(['read-exported']);
  });

  test('the history gives them no figure (a 0 ms "time"), only their support: holds or not', () => {
    const facts: StepFacts = {
      run_id: '20261128T000000Z-abcdef', step: 1, cache: 'cold', repetition: 1, clients: 1, fleet: null,
      host: {
        hostname: 'h', instance_type: 'local', vcpus: 2, memory_bytes: 2 ** 34, kernel: '6.1', os: 'Debian 12', region: null, availability_zone: null,
        link_limit_mib_s: null, link_baseline_mib_s: null, link_limit_source: 'none', runner_id: null,
      },
      endpoint: { kind: 'embedded', url: 'http://127.0.0.1:41234', server: 'versitygw' },
      method: 's3fs', method_variant: 'default', method_version: '1.90', method_options: {}, workload: 'sync-behaviour', workload_params: {},
    };
    // As the workload records them: 0 ms, no latency, the line in error_sample.
    const verdict = (operation: string, holds: boolean): Measurement => ({
      operation, objectSizeBytes: 128 * KiB, status: holds ? 'ok' : 'unsupported', supported: holds, verified: true,
      ops: 2, ok: 2, failed: 0, bytes: 0, durationMs: 0, latency: null, errorSample: holds ? HOLDS : NO_STEP, movesPayload: false,
    });
    const records = [verdict('direct-read-128KB', true), verdict('direct-read-1MiB', false)].map((m) => toRecord(facts, m, [], Date.parse('2026-11-28T00:00:00Z'), null));
    const points = runPoints(records, '2026-11-28', 'results');
    expect(points.map((p) => [p.operation, p.metric, p.median, p.behaviour.support])).toEqual([
      ['direct-read-128KB', null, null, 'supported'], ['direct-read-1MiB', null, null, 'unsupported'],
    ]);
  });
});
