import seedProfile from '../../assets/profiles/seed.json';
import { renderModel } from '../../runner/report/summary';
import type { Cell } from '../../runner/report/model';
import { summaryLines } from '../../runner/report/text/summary';
import { verdicts } from '../../runner/report/verdicts';
import { cell, modelOf } from '../helpers/model';

/** The seed profile's nine methods (variants included), as the report labels them. */
const NINE = seedProfile.methods.map((m) => (typeof m === 'string' ? { method: m, variant: 'default' } : { method: m.name, variant: 'variant' in m ? String(m.variant) : 'default' }));

const rate = (method: string, variant: string, size: number, mibS: number, over: Partial<Cell> = {}): Cell => cell({
  workload: 'large-read', operation: 'read', object_size_bytes: size, method, method_variant: variant, cache: method.startsWith('s3') && method !== 's3fs' && method !== 's3files' || method === 'aws-cli' ? 'none' : 'cold',
  mib_s_min: mibS * 0.95, mib_s_median: mibS, mib_s_max: mibS * 1.05, ops_s_median: mibS / (size / 2 ** 20), p99_us_median: 2e6 / mibS,
  duration_ms_min: 9e5 / mibS, duration_ms_median: 1e6 / mibS, duration_ms_max: 1.1e6 / mibS, distinct_repetitions: 3, ...over,
});

describe('the text summary (long format)', () => {
  const cells = NINE.flatMap(({ method, variant }, i) => [rate(method, variant, 16e6, 100 + 50 * i), rate(method, variant, 2 ** 30, 200 + 40 * i)]);
  const model = modelOf(cells, {}, {});
  model.workloads = [{ workload: 'large-read', workload_params: { files: '5', size: '16 MB' }, methods: 9, repetitions: 3, records: 27 }];
  model.sizes = new (model.sizes.constructor as new (w: typeof model.workloads) => typeof model.sizes)(model.workloads);
  const lines = summaryLines(model);

  test('fits 100 columns at nine methods (the seed profile), one row per method and case', () => {
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(100);
    const table = lines.slice(lines.findIndex((l) => /^case\s+method\s+time/.test(l)));
    for (const { method, variant } of NINE) {
      const name = variant === 'default' ? method : `${method}:${variant}`;
      expect(table.filter((l) => new RegExp(`\\s${name.replace(':', ':')}\\s`).test(l))).toHaveLength(2);
    }
  });

  test('"vs best": 1x for the best of a case, the best rate over each other method\'s', () => {
    const best = NINE[NINE.length - 1];
    const row = lines.find((l) => l.includes(` ${best.method}:${best.variant} `) || l.includes(` ${best.method} `) && l.includes('16 MB'));
    expect(lines.filter((l) => / 1x$/.test(l))).toHaveLength(2);
    expect(row).toBeDefined();
  });

  test('a size prints in the unit the matrix gave: 16 MB, not 15625 KiB', () => {
    expect(lines.some((l) => l.startsWith('read 16 MB'))).toBe(true);
    expect(lines.join('\n')).not.toContain('15625 KiB');
  });

  test('--wide puts the methods side by side', () => {
    const wide = summaryLines(model, { wide: true });
    const head = wide.find((l) => NINE.every(({ method }) => l.includes(method)))!;
    expect(head).toBeDefined();
    expect(wide.filter((l) => /^(16 MB|1 GiB)\s/.test(l))).toHaveLength(2);
  });

  test('--format json and csv give the model\'s tables', () => {
    const json = JSON.parse(renderModel(model, { format: 'json' })[0]);
    expect(json.cases).toHaveLength(18);
    expect(json.cases[0]).toMatchObject({ workload: 'large-read', operation: 'read', object_size_bytes: 16e6 });
    const csv = renderModel(model, { format: 'csv' })[0].split('\n');
    expect(csv[0]).toMatch(/^cases,workload,operation,object_size_bytes,/);
    expect(csv.filter((l) => l.startsWith('cases,'))).toHaveLength(19);
  });

  test('--format json gives every case and verdict its fleet size (one client: fleets are in the scaling table)', () => {
    const json = JSON.parse(renderModel(model, { format: 'json' })[0]);
    expect(json.cases.map((c: { clients: number }) => c.clients)).toEqual(json.cases.map(() => 1));
    expect(json.verdicts.length).toBeGreaterThan(0);
    expect(json.verdicts.map((v: { clients: number }) => v.clients)).toEqual(json.verdicts.map(() => 1));
    expect(json.cases[0]).toHaveProperty('comparable_key');
    expect(json.cases[0]).toMatchObject({ cache_share: null, cache_warning: null });
  });
});

describe('the verdicts name the winning variant', () => {
  test('best S3 API is s3-crt:tuned, or s3-crt:default where the default won beside its tuned variant; a method with one variant keeps its plain name', () => {
    const tunedWins = modelOf([rate('s3-crt', 'default', 2 ** 30, 300), rate('s3-crt', 'tuned', 2 ** 30, 400), rate('s3-api', 'default', 2 ** 30, 200)]);
    expect(verdicts(tunedWins)[0]).toMatchObject({ best: 's3-crt:tuned', margin: '1.33x faster than s3-crt:default' });
    const defaultWins = modelOf([rate('s3-crt', 'default', 2 ** 30, 500), rate('s3-crt', 'tuned', 2 ** 30, 400), rate('s3-api', 'default', 2 ** 30, 200)]);
    expect(verdicts(defaultWins)[0]).toMatchObject({ best: 's3-crt:default', margin: '1.25x faster than s3-crt:tuned' });
    const oneVariant = modelOf([rate('s3-crt', 'default', 2 ** 30, 500), rate('s3-api', 'default', 2 ** 30, 200)]);
    expect(verdicts(oneVariant)[0]).toMatchObject({ best: 's3-crt', margin: '2.5x faster than s3-api' });
  });
});

describe('measurements that did not finish, findings and untrusted measurements', () => {
  const extract = (method: string, seconds: number, over: Partial<Cell> = {}) => cell({
    workload: 'tar-extract', operation: 'extract', object_size_bytes: null, method, cache: 'cold', ops: 4280 * 3, ok: 4280 * 3,
    duration_ms_min: seconds * 900, duration_ms_median: seconds * 1000, duration_ms_max: seconds * 1100, ops_s_median: 4280 / seconds, ...over,
  });
  const dnf = { repetitions: 0, distinct_repetitions: 0, did_not_finish: 3, dnf_budget_s: 600, dnf_done_share: 0.1, dnf_extrapolated_s: 7200, duration_ms_median: null, ops_s_median: null };
  const health = (method: string, failed: number, failure: string) => ({
    method, method_variant: 'default', workload: 'tar-extract', records: 9, failed, unverified: 0, in_failed_steps: 0, unsupported: 0, did_not_finish: 0, first_error: null, first_failure: failure,
  });
  const model = modelOf([
    extract('s3fs', 14), extract('rclone', 12, { failed_batches: 1 }), extract('mountpoint', 0, dnf),
    cell({ workload: 'tar-extract', operation: 'timestamps', object_size_bytes: null, method: 's3fs', cache: 'cold', repetitions: 0, failed_batches: 3, ok: 4155, ops: 4280, first_error: '125 of 4280 files did not keep their mtime' }),
    cell({ workload: 'tar-extract', operation: 'timestamps', object_size_bytes: null, method: 'rclone', cache: 'cold' }),
  ], { health: [health('s3fs', 3, '125 of 4280 files did not keep their mtime'), health('rclone', 1, 'checksum mismatch')] });
  const text = summaryLines(model).join('\n');

  test('a DNF shows what it reached, never a time, and is never ranked', () => {
    expect(text).toMatch(/mountpoint\s+DNF at 10 min — 10% done, ≈ 2 h extrapolated/);
    const v = verdicts(model).find((x) => x.case === 'extract (cold)')!;
    expect(v).toMatchObject({ best: 'rclone' });
    expect(v.margin).toContain('than s3fs');
    expect(v.notes.join(' ')).toContain('mountpoint: DNF at 10 min — 10% done, ≈ 2 h extrapolated');
    expect(text).toMatch(/did not finish — .*never ranked:\n  mountpoint tar-extract extract \(cold\): DNF at 10 min/);
  });

  test('a cell with any did-not-finish repetition is shown with what it reached, and kept out of "best" and "vs best"', () => {
    // mountpoint's two finished repetitions are the fastest of all; its third ran out of budget.
    const partial = { repetitions: 2, distinct_repetitions: 2, did_not_finish: 1, dnf_budget_s: 600, dnf_done_share: 0.1, dnf_extrapolated_s: 7200 };
    const m = modelOf([extract('s3fs', 14), extract('rclone', 12), extract('mountpoint', 5, partial)]);
    const v = verdicts(m).find((x) => x.case === 'extract (cold)')!;
    expect(v.best).toBe('rclone');
    expect(v.notes.join(' ')).toContain('mountpoint: DNF at 10 min — 10% done, ≈ 2 h extrapolated (1 of 3 repetitions; the finished ones shown, not ranked), not ranked');
    const lines = summaryLines(m).join('\n').split('\n');
    const row = lines.find((l) => /^\s*mountpoint\s/.test(l) || /\smountpoint\s+5 s/.test(l))!;
    expect(row).toMatch(/5 s/);
    expect(row.trim().endsWith('–')).toBe(true);
    expect(lines.slice(lines.indexOf(row) + 1, lines.indexOf(row) + 3).join(' ').replace(/\s+/g, ' ')).toMatch(/1 of 3 repetitions DNF at 10 min — 10% done, ≈ 2 h extrapolated; not in the median; not ranked/);
    // The others' "vs best" is against rclone, the best ranked: s3fs at 14 s is 1.17x.
    expect(lines.find((l) => /\ss3fs\s+14 s/.test(l))).toMatch(/1\.17x$/);
  });

  test('--wide reshapes, it does not drop: time, ±, rate, p99, vs best and the did-not-finish facts of every cell', () => {
    const partial = { repetitions: 2, distinct_repetitions: 2, did_not_finish: 1, dnf_budget_s: 600, dnf_done_share: 0.1, dnf_extrapolated_s: 7200, p99_us_median: 4321 };
    const m = modelOf([extract('s3fs', 14, { p99_us_median: 1234, failed_batches: 1, first_error: 'EIO on file 7' }), extract('rclone', 12), extract('mountpoint', 5, partial), extract('juicefs', 0, dnf)]);
    const wide = summaryLines(m, { wide: true });
    const text = wide.join(' ').replace(/\s+/g, ' ');
    const row = (label: string) => wide.find((l) => new RegExp(`^(extract\\s+)?${label}\\s`).test(l.replace(/^\s+/, '')))!;
    expect(row('time')).toMatch(/14 s\s+5 s\s+12 s\s+DNF$/);
    expect(row('p99')).toMatch(/1\.23 ms\s+4\.32 ms\s+–$/);
    expect(row('rate')).toMatch(/306 op\/s\s+856 op\/s\s+357 op\/s$/);
    expect(row('vs best')).toMatch(/1\.17x\s+not ranked\s+1x$/);
    expect(text).toMatch(/mountpoint extract: 1 of 3 repetitions DNF at 10 min — 10% done, ≈ 2 h extrapolated; not in the median; not ranked/);
    expect(text).toMatch(/juicefs extract: DNF at 10 min — 10% done, ≈ 2 h extrapolated/);
    expect(text).toMatch(/s3fs extract: 1 failed repetition left out: EIO on file 7/);
  });

  test('what a method\'s check found is its finding, apart from the measurements that cannot be trusted', () => {
    expect(text).toMatch(/findings — what a method did wrong[^\n]*\n  s3fs tar-extract timestamps \(3 repetitions\): 125 of 4280 files did not keep their mtime/);
    const problems = text.slice(text.indexOf('PROBLEMS'));
    expect(problems).toContain('rclone');
    expect(problems).not.toContain('s3fs');
  });
});
