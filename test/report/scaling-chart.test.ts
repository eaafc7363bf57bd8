import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFleetRecords, type FleetCase } from '../../scripts/fixtures/fleet-fixture';
import { openInChromium, type OpenedPage } from '../helpers/browser';
import { s3ab } from '../helpers/cli';

/**
 * The Scaling out chart must not hide its figures: a local fleet run's 0.006 and 5.93 MiB/s once
 * drew as flat lines at zero under an 801 MiB/s link limit. Synthetic fleet records at those
 * figures, 1 and 2 clients per method; the page opened in Chromium.
 */
const work = mkdtempSync(join(tmpdir(), 's3ab-scaling-chart-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const LINK = 801;
const MiB = 1024 * 1024;
/** Per case (object size): each method's per-client MiB/s. 1 MiB: three powers of ten apart; 4 MiB: close, far under the limit. */
const CASES = [
  { sizeBytes: MiB, rates: [{ method: 's3-crt', mibS: 5.93 }, { method: 'mountpoint', mibS: 0.006 }] },
  { sizeBytes: 4 * MiB, rates: [{ method: 's3-crt', mibS: 5.93 }, { method: 'mountpoint', mibS: 3 }] },
];

function cases(): FleetCase[] {
  let step = 0;
  return CASES.flatMap(({ sizeBytes, rates }) => rates.flatMap((m) => [1, 2].map((k) => {
    step++;
    return {
      step, method: m.method, workload: 'large-read', operation: 'read', sizeBytes, cache: 'cold' as const, repetition: 1,
      clients: Array.from({ length: k }, (_, i) => ({
        client: i + 1, startS: step * 20 + i * 0.01, endS: step * 20 + i * 0.01 + 10, mib: m.mibS * 10, ok: 10, latenciesNs: [[2e6, 10]] as [number, number][],
      })),
    };
  })));
}

describe('the Scaling out chart of figures far under the link limit', () => {
  const dir = join(work, 'fleet');
  const file = join(work, 'fleet.html');
  let opened: OpenedPage;
  let stdout = '';

  beforeAll(async () => {
    await writeFleetRecords(dir, '20261126T050000Z-5ca1e0', cases(), { linkLimitMibS: LINK });
    const r = await s3ab(['report', '--results', dir, '--html', file]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    stdout = r.stdout;
    opened = await openInChromium(file);
  }, 120_000);
  afterAll(async () => opened?.close());

  const figures = () => opened.page.locator('section#scaling figure.chart');

  test('figures three powers of ten apart: a log axis, with the link limit drawn above them', async () => {
    expect(stdout).not.toMatch(/chart warning/);
    expect(opened.errors).toEqual([]);
    expect(await figures().count()).toBe(2);
    const chart = figures().nth(0).locator('svg');
    expect(await chart.evaluate((svg) => svg.textContent ?? '')).toContain('aggregate throughput (MiB/s), log');
    expect(await chart.locator('.link_limit_label_marks text').allTextContents()).toEqual(['link limit (one host)']);
    expect(await figures().nth(0).locator('figcaption').innerText()).toMatch(/red, the link limit .*a log axis, as the figures span more than 10×/);
  });

  test('figures close together far under the limit: a linear axis, the link limit left off with the reason, still in the table', async () => {
    const chart = figures().nth(1).locator('svg');
    expect(await chart.evaluate((svg) => svg.textContent ?? '')).not.toContain(', log');
    expect(await chart.locator('.link_limit_label_marks text').count()).toBe(0);
    expect(await figures().nth(1).locator('figcaption').innerText()).toMatch(/the link limit of the one host the clients share \(801 MiB\/s\) is left off the chart/);
    const limits = await opened.page.locator('section#scaling table').nth(1).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.children[5].textContent));
    expect(limits).toContain('801');
  });

  test('in each chart the lowest method\'s 1- and 2-client points stand apart: not drawn flat at the bottom', async () => {
    for (const i of [0, 1]) {
      // The left plot's points (measured and ideal) and their heights on screen. The lowest method doubles from 1 to 2 clients:
      // on an axis up to 801 MiB/s those two points were under 1 px apart; here each pair is over 10 px apart.
      const ys = await figures().nth(i).locator('svg .concat_0_layer_0_layer_1_marks path').evaluateAll((ps) => ps.map((p) => p.getBoundingClientRect().top));
      expect(ys.length).toBe(8);
      const [lowest, next] = [...new Set(ys.map(Math.round))].sort((a, b) => b - a);
      expect(lowest - next).toBeGreaterThan(10);
    }
  });
});
