import seedProfile from '../../assets/profiles/seed.json';
import { buildReportModel } from '../../runner/report/model';
import type { Row } from '../../runner/report/rows';
import { scalingCases } from '../../runner/report/scaling';
import { modelTables } from '../../runner/report/text/export';
import { scalingAxis, scalingLines } from '../../runner/report/sections/scaling';
import { summaryLines } from '../../runner/report/text/summary';
import { cellRow, RUN } from '../helpers/model';

/**
 * The report's Scaling out section from fleet_scaling.sql rows with known figures: the model's
 * `scaling` table (medians over repetitions, × of one client, the ideal), the text section and its
 * verdicts, and the 100-column fit.
 */

const MiB = 2 ** 20;

/** A fleet_scaling.sql row: one repetition of a method at a fleet size, payload-moving unless told. */
function row(method: string, clients: number, aggregate: number | null, over: Row = {}): Row {
  return {
    run_id: RUN.runId, workload: 'large-read', operation: 'read', io: null, object_size_bytes: 100 * MiB, method, method_variant: 'default', cache: 'cold',
    repetition: 1, clients, clients_ok: clients, clients_failed: 0, hosts: 1, start_spread_ms: 12, window_ms: 9000, aggregate_mib_s: aggregate,
    aggregate_ops_s: aggregate === null ? null : aggregate / 100, aggregate_basis: aggregate === null ? null : 'series',
    // One client's own rate is the aggregate; several spread ±10% around their share.
    client_mib_s_min: aggregate === null ? null : ((clients > 1 ? 0.9 : 1) * aggregate) / clients,
    client_mib_s_max: aggregate === null ? null : ((clients > 1 ? 1.1 : 1) * aggregate) / clients,
    client_ops_s_min: null, client_ops_s_max: null, latencies: 1000 * clients, p50_us: 10_000, p95_us: 20_000, p99_us: 30_000 * clients, fleet_link_limit_mib_s: 1192, ...over,
  };
}

const ROWS: Row[] = [
  row('s3-crt', 1, 400), row('s3-crt', 2, 720), row('s3-crt', 3, 1000),
  // Three repetitions at one client: the median (300) is the baseline.
  row('mountpoint', 1, 280), row('mountpoint', 1, 300, { repetition: 2 }), row('mountpoint', 1, 330, { repetition: 3 }),
  row('mountpoint', 2, 540), row('mountpoint', 3, 810, { clients_ok: 2, clients_failed: 1, failed_clients: 'client-3', start_spread_ms: 1500 }),
];

/** The model of a run with these fleet rows (and a plain cell per method, as a run has). */
const modelWith = (rows: Row[]) => buildReportModel({
  fleet_scaling: rows,
  report_cells: [...new Set(rows.map((r) => String(r.method)))].map((method) => cellRow({ workload: 'large-read', operation: 'read', object_size_bytes: 100 * MiB, method, cache: 'cold', mib_s_median: 100 })) as unknown as Row[],
}, RUN);

describe('the scaling table of the report model', () => {
  const [c] = scalingCases(ROWS);

  test('one case, its methods in the report\'s order, a point per client count', () => {
    expect(scalingCases(ROWS)).toHaveLength(1);
    expect(c.unit).toBe('MiB/s');
    expect(c.methods.map((m) => [m.label, m.points.map((p) => p.clients)])).toEqual([['s3-crt', [1, 2, 3]], ['mountpoint', [1, 2, 3]]]);
  });

  test('the aggregate is the median over repetitions; × of one client and the ideal come from it', () => {
    const mp = c.methods.find((m) => m.method === 'mountpoint')!;
    expect(mp.points.map((p) => [p.clients, p.repetitions, p.aggregate, p.speedup, p.ideal])).toEqual([[1, 3, 300, 1, 300], [2, 1, 540, 1.8, 600], [3, 1, 810, 2.7, 900]]);
    expect(mp.points[2]).toMatchObject({ clientsOk: 2, clientsFailed: 1, p99Us: 90_000, basis: 'series', hosts: 1, linkLimitMibS: 1192 });
    // Per-client spread: the lowest and the highest of the clients' own rates.
    expect([mp.points[1].clientMin, mp.points[1].clientMax]).toEqual([243, 297]);
  });

  test('the verdict names each method\'s multiple of one client at its largest fleet, best first', () => {
    expect(c.verdict).toBe('mountpoint: 2.7x at 3 clients (client-3 failed at 3 clients); s3-crt: 2.5x at 3 clients');
  });

  test('failed clients are named in the verdict, per fleet size, over the repetitions', () => {
    const [f] = scalingCases([
      row('s3-crt', 1, 400), row('s3-crt', 2, 700, { clients_ok: 1, clients_failed: 1, failed_clients: 'client-2' }),
      row('s3-crt', 4, 1200, { clients_ok: 3, clients_failed: 1, failed_clients: 'client-4' }),
      row('s3-crt', 4, 1100, { repetition: 2, clients_ok: 2, clients_failed: 2, failed_clients: 'client-10, client-4' }),
      row('mountpoint', 1, 300), row('mountpoint', 2, null, { clients_ok: 0, clients_failed: 2, failed_clients: 'client-1, client-2', window_ms: null }),
    ]);
    expect(f.methods.find((m) => m.method === 's3-crt')!.points.map((p) => p.failedClients)).toEqual([[], ['client-2'], ['client-4', 'client-10']]);
    expect(f.verdict).toBe('s3-crt: 2.88x at 4 clients (client-2 failed at 2 clients; client-4 and client-10 at 4); mountpoint: no fleet figure (client-1 and client-2 failed at 2 clients)');
  });

  test('no fleet step, no table: a run of plain steps has no Scaling out section', () => {
    const plain = ROWS.filter((r) => r.clients === 1);
    expect(scalingCases(plain)).toEqual([]);
    expect(scalingLines({ model: modelWith(plain), width: 100, wide: false })).toEqual([]);
  });

  test('clients that never all ran at once, and a fleet without a 1-client figure, are said as such', () => {
    const cases = scalingCases([
      row('s3-crt', 1, 400), row('s3-crt', 2, null, { window_ms: -250 }),
      row('mountpoint', 2, 500),
    ]);
    expect(cases[0].verdict).toBe('s3-crt: its clients never all ran at once; mountpoint: no 1-client figure to compare');
    expect(cases[0].methods[0].points[1]).toMatchObject({ neverAllRunning: 1, aggregate: null, speedup: null, ideal: 800 });
  });

  test('operations/s where no payload moves', () => {
    const [ops] = scalingCases([row('s3-crt', 1, null, { client_mib_s_max: null, aggregate_ops_s: 50 }), row('s3-crt', 2, null, { client_mib_s_max: null, aggregate_ops_s: 90 })]);
    expect(ops.unit).toBe('ops/s');
    expect(ops.methods[0].points.map((p) => [p.aggregate, p.speedup])).toEqual([[50, 1], [90, 1.8]]);
  });
});

describe('the text section', () => {
  const model = modelWith(ROWS);
  const lines = scalingLines({ model, width: 100, wide: false });

  test('per method and client count: aggregate, × 1 client, ideal, link limit ("one host" for local clients), p99, per-client spread', () => {
    // Wide enough that no cell wraps (at 100 columns "3 (2 ok, 1 failed)" takes two lines).
    const unwrapped = scalingLines({ model, width: 120, wide: false });
    const table = unwrapped.slice(unwrapped.findIndex((l) => /^method\s+clients\s+MiB\/s/.test(l)));
    expect(table[0]).toMatch(/^method\s+clients\s+MiB\/s\s+x 1 client\s+ideal\s+link limit\s+p99\s+per client\s+from\s+spread$/);
    // The start spread: how far apart the clients began (none for one client).
    expect(table.slice(2, 8).map((l) => l.trim().split(/\s{2,}/))).toEqual([
      ['s3-crt', '1', '400', '1x', '400', '1,192', '30 ms', '400', 'series', '–'],
      ['2', '720', '1.8x', '800', 'one host', '60 ms', '324–396', 'series', '12 ms'],
      ['3', '1,000', '2.5x', '1,200', 'one host', '90 ms', '300–367', 'series', '12 ms'],
      // Three repetitions: the median aggregate, the clients' rates over all of them.
      ['mountpoint', '1', '300', '1x', '300', '1,192', '30 ms', '280–330', 'series', '–'],
      ['2', '540', '1.8x', '600', 'one host', '60 ms', '243–297', 'series', '12 ms'],
      ['3 (2 ok, 1 failed)', '810', '2.7x', '900', 'one host', '90 ms', '243–297', 'series', '1.5 s'],
    ]);
    expect(lines.join('\n')).toContain('verdict: mountpoint: 2.7x at 3 clients (client-3 failed at 3 clients); s3-crt: 2.5x at 3 clients');
  });

  test('runners on their own hosts: the link limit of N runners', () => {
    const aws = scalingLines({ model: modelWith(ROWS.map((r) => ({ ...r, hosts: r.clients, fleet_link_limit_mib_s: 1192 * Number(r.clients) }))), width: 100, wide: false });
    expect(aws.find((l) => /^s3-crt\s/.test(l))).toMatch(/\s1,192\s/);
    expect(aws.find((l) => /^\s+3\s+1,000\s/.test(l))).toMatch(/\s3,576\s/);
  });

  test('the summary prints it, within 100 columns at the seed profile\'s nine methods; --wide adds the all-running window', () => {
    const nine = seedProfile.methods.map((m) => (typeof m === 'string' ? m : m.name));
    const many = modelWith(nine.flatMap((m) => [row(m, 1, 100), row(m, 2, 190, { client_mib_s_min: 90.123, client_mib_s_max: 99.876 }), row(m, 4, 350)]));
    const summary = summaryLines(many);
    expect(summary).toContain('large-read read 100 MiB (cold) — aggregate MiB/s');
    expect(Math.max(...summary.map((l) => [...l].length))).toBeLessThanOrEqual(100);
    expect(summaryLines(many, { wide: true }).find((l) => /^method\s+clients/.test(l))).toMatch(/\sall running$/);
  });

  test('--format json|csv carry the scaling table', () => {
    const t = modelTables(model).find((x) => x.name === 'scaling')!;
    // A row per method and client count (mountpoint's three 1-client repetitions are one).
    expect(t.rows).toHaveLength(6);
    const at = (name: string) => t.columns.indexOf(name);
    const last = t.rows[t.rows.length - 1];
    expect([last[at('label')], last[at('clients')], last[at('aggregate')], last[at('speedup')], last[at('ideal')], last[at('clients_failed')], last[at('failed_clients')], last[at('start_spread_ms')]])
      .toEqual(['mountpoint', 3, 810, 2.7, 900, 1, 'client-3', 1500]);
  });
});

describe('the Scaling out chart\'s axis: figures never drawn flat', () => {
  test('figures within 10× of each other: a linear axis; a link limit within 3× of the highest drawn', () => {
    expect(scalingAxis([400, 720, 1160, 1600], [1192])).toEqual({ logScale: false, drawLinks: true });
    expect(scalingAxis([100, 300], [900])).toEqual({ logScale: false, drawLinks: true });
  });
  test('a link limit that would push the figures under a third of the axis is left off', () => {
    expect(scalingAxis([100, 299], [900])).toEqual({ logScale: false, drawLinks: false });
    expect(scalingAxis([5.93, 11.86], [801])).toEqual({ logScale: false, drawLinks: false });
  });
  test('figures spanning more than 10×: a log axis; the link limit drawn while the figures keep a third of its decades', () => {
    // 0.006 to 11.86 spans 3.3 decades; up to 801 it is 5.1: the figures keep 64%.
    expect(scalingAxis([0.006, 0.012, 5.93, 11.86], [801])).toEqual({ logScale: true, drawLinks: true });
    // 1 to 20 spans 1.3 decades of 5 up to 100,000: under a third.
    expect(scalingAxis([1, 20], [100_000])).toEqual({ logScale: true, drawLinks: false });
  });
  test('zeros are not figures on a log axis; no figures, the limit alone', () => {
    expect(scalingAxis([0, 5, 6], [])).toEqual({ logScale: false, drawLinks: false });
    expect(scalingAxis([], [801])).toEqual({ logScale: false, drawLinks: true });
  });
});
