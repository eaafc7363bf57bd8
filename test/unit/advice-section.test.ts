import type { ResolvedAdvice } from '../../runner/core/matrix';
import { advise } from '../../runner/report/advice';
import type { Cell, ReportModel } from '../../runner/report/model';
import { adviceSection } from '../../runner/report/sections/advice';
import type { PageContext } from '../../runner/report/sections/section';
import type { RunManifest } from '../../runner/results/writer';
import { PROBES } from '../../runner/workloads/semantics';
import { cell, modelOf } from '../helpers/model';

/**
 * The report's Advice section on fixed fixtures: it answers the matrix's question (the manifest's
 * `advice`) with the same model and the same words as `s3ab advise`, for every workload of the run
 * but the probes; without a question it says how to ask one.
 */

const MiB = 2 ** 20;

function probe(method: string, operation: string, over: Partial<Cell> = {}): Cell {
  const delay = operation.endsWith('-delay') ? { delay_ms_median: 50, delay_ms_min: 40, delay_ms_max: 60 } : {};
  return cell({ workload: 'semantics', operation, method, object_size_bytes: null, cache: 'cold', ...delay, ...over });
}

const refused = (error: string): Partial<Cell> => ({ repetitions: 0, distinct_repetitions: 0, unsupported: 3, first_error: error });

const read = (method: string, [min, median, max]: [number, number, number], p99Ms: number): Cell => cell({
  workload: 'large-read', operation: 'read', object_size_bytes: 1024 * MiB, cache: 'cold', method,
  mib_s_min: min, mib_s_median: median, mib_s_max: max, p99_us_median: p99Ms * 1000,
});

const CELLS = [
  ...PROBES.map((p) => probe('s3fs', p)),
  ...PROBES.map((p) => probe('rclone', p)),
  ...PROBES.map((p) => probe('mountpoint', p, p === 'rename-file' || p === 'rename-dir' || p === 'append' ? refused(`${p}: Function not implemented (ENOSYS)`) : {})),
  read('s3fs', [300, 310, 320], 60), read('rclone', [400, 420, 440], 50), read('mountpoint', [800, 810, 820], 30),
];

const REQUEST: ResolvedAdvice = { needs: ['rename', 'append'], priority: 'throughput', max_cost_per_million: null, p99_under_us: null, max_delay_ms: null };

function modelAsking(advice: ResolvedAdvice | undefined): ReportModel {
  const manifest = {
    run_id: '20260101T000000Z-abcdef', status: 'complete', started_at: '2026-01-01T00:00:00Z', ended_at: '2026-01-01T00:01:00Z', matrix: 'unit',
    steps_total: 6, steps_done: 6, steps_failed: 0, problem: null, endpoint: null, peak_rss_bytes: null, ...(advice ? { advice } : {}),
  } satisfies RunManifest;
  return modelOf(CELLS, {}, { manifests: [manifest] });
}

const page = async (model: ReportModel) => adviceSection.html!({ model } as PageContext);

describe('the Advice section', () => {
  it('without a question in the matrix, has no data and says how to add one', async () => {
    const model = modelAsking(undefined);
    expect(adviceSection.hasData(model)).toBe(false);
    const html = await page(model);
    expect(html).toContain('No data:');
    expect(html).toContain('Add &quot;advice&quot;: {&quot;needs&quot;: [&quot;rename&quot;, &quot;append&quot;]} to the matrix');
    expect(adviceSection.text!.lines({ model, width: 100, wide: false })).toEqual([]);
    expect(adviceSection.tables!(model).every((t) => t.rows.length === 0)).toBe(true);
  });

  it('answers the matrix\'s needs per workload: the ruled-out methods with their probes, the Pareto set, the pick, the evidence', async () => {
    const model = modelAsking(REQUEST);
    expect(adviceSection.hasData(model)).toBe(true);
    const html = await page(model);
    // The probes are what the needs read, not a workload to advise on.
    expect(html).toContain('id="advice-large-read"');
    expect(html).not.toContain('id="advice-semantics"');
    expect(html).toMatch(/<th>mountpoint<\/th><td class="unsupported">ruled out<\/td><td>rename<\/td><td>rename-file<\/td><td>unsupported: Function not implemented \(ENOSYS\)<\/td>/);
    expect(html).toContain('<strong>Pick for throughput: rclone</strong>');
    expect(html).toContain('run 20260101T000000Z-abcdef, 3 repetitions, host class local:2vCPU:4GiB');
    const [methods] = adviceSection.tables!(model).filter((t) => t.name === 'advice_methods');
    expect(methods.rows.map((r) => [r[2], r[9], r[11]])).toEqual([['rclone', true, true], ['s3fs', false, false]]);
  });

  it('gives, in the text summary, the ruled-out methods once, and per case the pick, the Pareto set and the evidence, as `s3ab advise` decides them', () => {
    const model = modelAsking(REQUEST);
    const text = adviceSection.text!.lines({ model, width: 400, wide: false }).join('\n');
    const cli = advise(model, { workload: 'large-read', needs: REQUEST.needs, priority: 'throughput', maxDelayMs: 1000 });
    expect(text).toMatch(/^Advice — which method for each workload, for the matrix's needs: rename, append; priority: throughput;/m);
    expect(text).toContain('from run 20260101T000000Z-abcdef\'s figures only');
    expect(text).toContain('s3ab advise --run 20260101T000000Z-abcdef --workload W --needs rename,append');
    expect(text).toContain(`ruled out: mountpoint: rename: rename-file unsupported: Function not implemented (ENOSYS)`);
    const rows = text.split('\n');
    const at = rows.findIndex((l) => l.startsWith('large-read'));
    expect(rows[at].split(/  +/)).toEqual(['large-read', 'read 1 GiB (cold)', cli.cases[0].pick!.method, 'rclone', '3 reps, local:2vCPU:4GiB']);
    // Why, under the row (wrapped within the columns it spans).
    expect(rows.slice(at + 1, at + 3).map((l) => l.trim()).join(' ')).toBe(cli.cases[0].pick!.why);
    // In a terminal's width, wrapped: no line beyond it.
    expect(adviceSection.text!.lines({ model, width: 80, wide: false }).filter((l) => [...l].length > 80)).toEqual([]);
  });

  it('passes the matrix\'s limits and priority to the advisor; without needs, says how to add them', async () => {
    const model = modelAsking({ ...REQUEST, needs: [], priority: 'p99', p99_under_us: 55_000 });
    const [picks] = adviceSection.tables!(model).filter((t) => t.name === 'advice_picks');
    expect(picks.rows).toEqual([['large-read', expect.any(String), 'p99', 'mountpoint', null, expect.stringMatching(/^best on p99: p99 30 ms/)]]);
    const html = await page(model);
    expect(html).toContain('Over the limit: s3fs: p99 60 ms ≥ 55 ms');
    // No needs named: every method compared, and the section says how to name them.
    expect(html).toContain('The matrix names no needs, so no method is ruled out. Add &quot;advice&quot;');
  });
});
