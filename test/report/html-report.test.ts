import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCHEMA_VERSION, recordErrors } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';
import { FIXTURE_LINK_LIMIT, FIXTURE_WORKLOADS, METADATA_TESTS, SEMANTICS_PROBES, writeReportFixture } from '../../scripts/fixtures/report-fixture';
import { writeScalingFixture } from '../../scripts/fixtures/fleet-fixture';
import { openInChromium, type OpenedPage } from '../helpers/browser';
import { s3ab } from '../helpers/cli';
import { num } from '../../runner/report/format';

/** The page's sections as the browser shows them. */
async function sections(page: OpenedPage['page']): Promise<Record<string, { hasData: boolean; text: string; charts: number }>> {
  const list = await page.$$eval('section', (els) => els.map((s) => ({
    id: s.id, hasData: s.dataset.hasData === 'true', text: (s as unknown as { innerText: string }).innerText, charts: s.querySelectorAll('figure.chart svg').length,
  })));
  return Object.fromEntries(list.map(({ id, ...rest }) => [id, rest]));
}

function readRecords(dir: string): ResultRecord[] {
  const out: ResultRecord[] = [];
  for (const part of readdirSync(dir).filter((d) => d.startsWith('dt='))) {
    for (const f of readdirSync(join(dir, part))) {
      for (const line of readFileSync(join(dir, part, f), 'utf8').split('\n').filter(Boolean)) out.push(JSON.parse(line));
    }
  }
  return out;
}

/** The text of one cell of a seed-000 table in the ratios section: details `summary`, table `metric`, row `size`, column `column`. */
async function ratioCell(page: OpenedPage['page'], summary: string, metric: string, size: string, column: string): Promise<string | null> {
  return page.locator('section#ratios').evaluate((section, { summary, metric, size, column }) => {
    const details = [...section.querySelectorAll('details')].find((d) => d.querySelector('summary')?.textContent === summary);
    const cap = [...(details?.querySelectorAll('p.tcap') ?? [])].find((p) => p.textContent!.endsWith(`— ${metric}`));
    const table = cap?.nextElementSibling?.querySelector('table');
    if (!table) return null;
    const col = [...table.querySelectorAll('thead th')].findIndex((th) => th.textContent === column);
    const row = [...table.querySelectorAll('tbody tr')].find((tr) => tr.children[0].textContent === size);
    return row && col >= 0 ? row.children[col].textContent : null;
  }, { summary, metric, size, column });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const SECTION_IDS = ['summary', 'problems', 'advice', 'size', 'ratios', 'over-time', 'percentiles', 'metadata', 'cache', 'semantics', 'workloads', 'requests', 'seed-claims', 'facts'];
const work = mkdtempSync(join(tmpdir(), 's3ab-report-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the HTML report of a folder with every kind of record (rendering fixture)', () => {
  const dir = join(work, 'fixture');
  const file = join(work, 'fixture.html');
  let stdout = '';
  let opened: OpenedPage;
  let html = '';

  beforeAll(async () => {
    await writeReportFixture(dir, { repetitions: 3 });
    const r = await s3ab(['report', '--results', dir, '--html', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    stdout = r.stdout;
    html = readFileSync(file, 'utf8');
    opened = await openInChromium(file);
  }, 120_000);
  afterAll(async () => opened?.close());

  test('the fixture is schema-valid and covers every record kind the report draws', () => {
    const records = readRecords(dir);
    for (const r of records) expect(recordErrors(r)).toEqual([]);
    expect(new Set(records.map((r) => r.workload))).toEqual(new Set(FIXTURE_WORKLOADS));
    expect(new Set(records.map((r) => r.status))).toEqual(new Set(['ok', 'failed', 'unsupported', 'not-applicable', 'did-not-finish']));
    // A did-not-finish record says how far it got, with the extrapolation marked as such.
    expect(records.find((r) => r.status === 'did-not-finish')!.progress).toMatchObject({ budget_s: 600, done: 428, planned: 4280, unit: 'files' });
    expect(new Set(records.map((r) => r.cache))).toEqual(new Set(['none', 'cold', 'warm', 'warm-disk', 'warm-memory']));
    expect(records.some((r) => r.flags.includes('served-from-cache'))).toBe(true);
    expect(records.filter((r) => r.workload === 'semantics' && r.delay_ms !== null).length).toBeGreaterThan(0);
    expect(new Set(records.filter((r) => r.workload === 'semantics').map((r) => r.operation))).toEqual(new Set([...SEMANTICS_PROBES, 'all']));
    expect(new Set(records.filter((r) => r.workload === 'metadata').map((r) => r.operation))).toEqual(new Set([...METADATA_TESTS, 'all']));
    expect(records.every((r) => r.host.hostname === 'rendering-fixture.invalid')).toBe(true);
  });

  test('the CLI writes one page, says where, and reports no chart warnings', () => {
    expect(stdout).toContain(`report: ${file}`);
    expect(stdout).toMatch(/\d+ charts/);
    expect(stdout).not.toMatch(/sections without data/);
    expect(stdout).not.toMatch(/chart warning/);
  });

  test('the page is self-contained: no script, no remote style, font or image, nothing fetched', () => {
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(\s*['"]?https?:|@font-face/i);
    expect(html).not.toMatch(/\s(src|href)="(https?:)?\/\//i);
    expect(opened.requests).toEqual([]);
  });

  test('it opens in Chromium with no console errors', () => {
    expect(opened.errors).toEqual([]);
  });

  test('every section is there, with data, and the contents list says so', async () => {
    const s = await sections(opened.page);
    expect(Object.keys(s)).toEqual(SECTION_IDS);
    for (const id of SECTION_IDS) {
      expect({ id, hasData: s[id].hasData }).toEqual({ id, hasData: true });
      expect(s[id].text).not.toMatch(/No data:/);
    }
    expect(await opened.page.locator('header').innerText()).toMatch(/Every section has data/);
    expect(await opened.page.locator('nav .nodata-tag').count()).toBe(0);
  });

  test('charts are Vega SVGs the browser lays out at a real size', async () => {
    const s = await sections(opened.page);
    for (const id of ['size', 'percentiles', 'metadata', 'cache', 'semantics', 'workloads']) expect({ id, charts: s[id].charts > 0 }).toEqual({ id, charts: true });
    const boxes = await opened.page.$$eval('figure.chart svg', (svgs) => svgs.map((svg) => {
      const b = svg.getBoundingClientRect();
      return { w: b.width, h: b.height, marks: svg.querySelectorAll('.role-mark').length };
    }));
    expect(boxes.length).toBeGreaterThanOrEqual(15);
    for (const b of boxes) {
      expect(b.w).toBeGreaterThan(200);
      expect(b.h).toBeGreaterThan(60);
      expect(b.marks).toBeGreaterThan(0);
    }
    // Element ids stay unique although every SVG comes from its own Vega view.
    const ids = await opened.page.$$eval('[id]', (els) => els.map((e) => e.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('throughput against size: log scales, min–max bands, the link limit, cache-served points marked', async () => {
    const size = opened.page.locator('section#size');
    expect(await size.locator('h3').allInnerTexts()).toEqual([expect.stringMatching(/^objects/), expect.stringMatching(/^fio-seq/)]);
    const first = size.locator('figure.chart').first();
    expect(await first.locator('.mark-area').count()).toBeGreaterThan(0); // bands
    expect(await first.locator('.mark-line').count()).toBeGreaterThan(0);
    expect(await first.innerText()).toMatch(/throughput \(MiB\/s\)/);
    expect(await size.locator('.link_limit_marks').count()).toBeGreaterThan(0);
    expect(await size.locator('.cached_flags_marks path').count()).toBeGreaterThan(0);
    expect(await size.innerText()).toContain(`link limit (${FIXTURE_LINK_LIMIT.toLocaleString('en-US')} MiB/s)`);
    for (const label of ['1 KiB', '100 KiB', '1 MiB', '10 MiB', '100 MiB']) expect(await first.innerText()).toContain(label);
    expect(await size.innerText()).toMatch(/operations\/s \(IOPS\)/);
    expect(await size.innerText()).toMatch(/mean latency \(µs\)/);
  });

  test('the link limit is drawn once per panel, its label too', async () => {
    const charts = await opened.page.locator('section#size figure.chart svg').evaluateAll((svgs) => svgs.map((svg) => ({
      panels: svg.querySelectorAll('.role-mark.link_limit_marks').length,
      rules: svg.querySelectorAll('.link_limit_marks line').length,
      labels: svg.querySelectorAll('.link_limit_label_marks text').length,
    })).filter((c) => c.panels > 0));
    expect(charts.length).toBeGreaterThanOrEqual(2); // objects and fio-seq throughput
    for (const c of charts) expect(c).toEqual({ panels: c.panels, rules: c.panels, labels: c.panels });
  });

  test('the Advice section answers the matrix\'s needs: Mountpoint ruled out naming its probes, per case the Pareto set, a pick or no clear winner, each with its evidence', async () => {
    const section = opened.page.locator('section#advice');
    expect(await section.getAttribute('data-has-data')).toBe('true');
    expect(await section.locator('p.lead').innerText()).toMatch(/for needs: rename, append; priority: throughput \(the matrix's advice\)/);
    // The probes are what the needs read: advice on the other workloads only.
    const workloads = await section.locator('h3').evaluateAll((hs) => hs.map((h) => h.id));
    expect(workloads).toContain('advice-large-read');
    expect(workloads).not.toContain('advice-semantics');
    const ruledOut = (await section.locator('table.advice-needs tbody tr').allInnerTexts()).filter((r) => /\bruled out\b/.test(r));
    expect(ruledOut.length).toBeGreaterThan(0);
    for (const probe of ['rename-file', 'rename-dir', 'append']) expect(ruledOut.some((r) => r.startsWith('mountpoint') && r.includes(`${probe}\tunsupported`))).toBe(true);
    const compared = await section.locator('table.advice tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as unknown as { innerText: string }).innerText)));
    expect(compared.length).toBeGreaterThan(0);
    for (const row of compared) {
      expect(row[0]).not.toMatch(/^mountpoint/);
      expect(row[1]).toMatch(/^(pick|Pareto set|dominated by .+)$/);
      // The good repetitions of the case: the fixture runs 3, some of them failed on purpose.
      expect(row[row.length - 1]).toMatch(/^run \d{8}T\d{6}Z-[0-9a-f]{6}, (1 repetition|[23] repetitions), host class c7g\.large/);
    }
    // Every case with methods compared says what it picks, or that there is no clear winner.
    const cases = await section.locator('h4').count();
    const verdicts = await section.locator('ul.advice-notes li').evaluateAll((lis) => lis.map((li) => (li as unknown as { innerText: string }).innerText).filter((t) => /^(Pick for throughput: |No clear winner for throughput)/.test(t)));
    expect(cases).toBeGreaterThan(0);
    expect(verdicts.length).toBe(await section.locator('table.advice').count());
    expect(opened.errors).toEqual([]);
  });

  test('the cold/warm legend of size charts draws its dash patterns (the symbols have a stroke)', async () => {
    const dashes = await opened.page.locator('section#size .role-legend-symbol path[stroke-dasharray]').evaluateAll((paths) => paths.map((p) => p.getAttribute('stroke')));
    expect(dashes.length).toBeGreaterThanOrEqual(2);
    for (const stroke of dashes) expect(stroke).toMatch(/^#[0-9a-f]{6}$/i);
  });

  test('throughput over time: for every cell with a series, its line of intervals, its sustained rule and its peak point', async () => {
    // The cells with a series, from the interval files the fixture wrote (as the runner writes them).
    const files = readdirSync(join(dir, 'intervals')).flatMap((d) => readdirSync(join(dir, 'intervals', d)).map((f) => join(dir, 'intervals', d, f)));
    const rows = files.flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { workload: string; method: string; method_variant: string; interval_ms: number }));
    expect(rows.length).toBeGreaterThan(0);
    // Short measurements were cut finer than the 1 s default: both kinds are drawn.
    expect(rows.some((r) => r.interval_ms < 1000)).toBe(true);
    expect(rows.some((r) => r.interval_ms === 1000)).toBe(true);
    const section = opened.page.locator('section#over-time');
    expect(await section.getAttribute('data-has-data')).toBe('true');
    const charts = await section.locator('figure.chart svg').evaluateAll((svgs) => svgs.map((svg) => {
      const box = svg.getBoundingClientRect();
      const drawn = (sel: string) => [...svg.querySelectorAll(sel)].filter((e) => {
        const b = e.getBoundingClientRect();
        return b.width > 0 || b.height > 0;
      });
      return {
        w: box.width, h: box.height,
        // Each line's points: the moves and line-tos of its path.
        lines: drawn('.intervals_marks path').map((p) => (p.getAttribute('d') ?? '').split(/[ML]/).filter(Boolean).length),
        rules: drawn('.sustained_marks line').length,
        peaks: drawn('.peak_marks path').length,
      };
    }));
    expect(charts.length).toBe(2); // MiB/s and ops/s
    const tableRows = await section.locator('details table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? '')));
    let drawnLines = 0;
    for (const c of charts) {
      expect(c.w).toBeGreaterThan(200);
      expect(c.h).toBeGreaterThan(60);
      // One line per cell, each through four intervals at least; one sustained rule and one peak per line.
      expect(c.lines.length).toBeGreaterThan(0);
      for (const points of c.lines) expect(points).toBeGreaterThanOrEqual(4);
      expect(c.rules).toBe(c.lines.length);
      expect(c.peaks).toBe(c.lines.length);
      drawnLines += c.lines.length;
    }
    expect(drawnLines).toBe(tableRows.length);
    // Every method whose large reads kept a series (s3-api: its parts as they land) is drawn.
    const largeRead = new Set(rows.filter((r) => r.workload === 'large-read').map((r) => r.method));
    expect(largeRead).toContain('s3-api');
    for (const m of largeRead) expect(tableRows.some((r) => r[0].startsWith('large-read') && r[1].startsWith(m))).toBe(true);
    // Its burst (twice the rate it sustains, in the fixture) is named as such.
    expect(tableRows.find((r) => r[0].startsWith('large-read · read') && r[1] === 's3-api')?.[4]).toMatch(/^peak \d+(\.\d+)?% above sustained$/);
  });

  test('A vs B tables in seed 000\'s form, with cache-served figures flagged', async () => {
    // textContent: most tables sit in closed <details>.
    const text = (await opened.page.locator('section#ratios').textContent())!;
    expect(text).toMatch(/objects · download — throughput \(MiB\/s\)/);
    expect(text).toContain('s3-api vs aws-cli');
    expect(text).toMatch(/fio-seq · read \(direct\) · warm/);
    expect(await opened.page.locator('section#ratios td.cached .flag-cache').count()).toBeGreaterThan(0);
  });

  test('fio direct and buffered results stay apart: own panels, own tables, own medians', async () => {
    const records = readRecords(dir).filter((r) => r.workload === 'fio-seq' && r.method === 's3fs' && r.object_size_bytes === 1024 && r.operation === 'read' && r.cache === 'cold');
    const iops = (io: string) => records.filter((r) => r.workload_params.io === io).map((r) => r.ops_per_s!);
    expect(iops('direct')).toHaveLength(3);
    expect(iops('buffered')).toHaveLength(3);
    for (const io of ['direct', 'buffered']) {
      expect({ io, shown: await ratioCell(opened.page, `fio-seq · read (${io}) · cold`, 'IOPS (operations/s)', '1 KiB', 's3fs') }).toEqual({ io, shown: num(median(iops(io))) });
    }
    // No table or chart panel mixes the modes.
    const summaries = await opened.page.locator('section#ratios details summary').allTextContents();
    expect(summaries.filter((t) => t.startsWith('fio-seq'))).toEqual([
      'fio-seq · read (direct) · cold', 'fio-seq · read (direct) · warm', 'fio-seq · read (buffered) · cold', 'fio-seq · read (buffered) · warm',
      'fio-seq · write (direct) · cold', 'fio-seq · write (buffered) · cold',
    ]);
    const fioChart = await opened.page.locator('section#size figure.chart').filter({ hasText: 'Throughput of fio-seq' }).innerText();
    for (const panel of ['read (direct)', 'read (buffered)', 'write (direct)', 'write (buffered)']) expect(fioChart).toContain(panel);
    const rows = await opened.page.locator('section#summary table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as unknown as { innerText: string }).innerText)));
    const fioCases = rows.filter((r) => r[0] === 'fio-seq').map((r) => r[1]);
    expect(fioCases.filter((r) => /^read \(direct\) 1 KiB.*\(cold\)$/.test(r))).toHaveLength(1);
    expect(fioCases.filter((r) => /^read \(buffered\) 1 KiB.*\(cold\)$/.test(r))).toHaveLength(1);
    expect(fioCases.filter((r) => !/^(read|write) \((direct|buffered)\) /.test(r))).toEqual([]);
  });

  test('latency percentiles per method and workload', async () => {
    const text = await opened.page.locator('section#percentiles').innerText();
    for (const w of ['objects', 'fio-seq', 'metadata', 'web-serving', 'small-reads']) expect(text).toContain(w);
    expect(text).toMatch(/p50 \/ p95 \/ p99/);
  });

  test('metadata: operations per second per method with the success rate, refusals shown as such', async () => {
    const section = opened.page.locator('section#metadata');
    const text = await section.innerText();
    expect(text).toMatch(/sequential-writes/);
    expect(text).toMatch(/2% ok/); // mountpoint's partial empty-files, drawn and labelled
    // mountpoint refuses data-modifications, single-file-append and file-moves.
    expect(await section.locator('td.unsupported', { hasText: 'not supported' }).count()).toBe(3);
  });

  test('cold and warm side by side, with the improvement over cold', async () => {
    const text = await opened.page.locator('section#cache').innerText();
    expect(text).toMatch(/warm-memory/);
    expect(text).toMatch(/warm-disk/);
    expect(text).toMatch(/vs cold/);
    expect(text).toMatch(/web-serving · read 16 KiB/);
  });

  test('the semantics matrix: methods × probes, supported, unsupported, delays in ms', async () => {
    const section = opened.page.locator('section#semantics');
    const headers = await section.locator('table.matrix thead th').allInnerTexts();
    expect(headers).toEqual(['probe', 's3fs', 'mountpoint', 'rclone']);
    const row = async (probe: string) => section.locator('table.matrix tbody tr', { has: opened.page.locator(`th:text-is("${probe}")`) }).locator('td').allInnerTexts();
    expect(await row('rename-file')).toEqual(['✓ supported', '✗ unsupported', '✓ supported']);
    expect(await row('hardlink')).toEqual(['✗ unsupported', '✗ unsupported', '✗ unsupported']);
    const delays = await row('s3-to-mount-delay');
    for (const d of delays) expect(d).toMatch(/^✓ [\d.,]+ (ms|s)$/);
    expect(await row('probes supported')).toEqual(['17 of 20', '8 of 20', '17 of 20']);
  });

  test('workload times for the jobs, failures and refusals named', async () => {
    const text = await opened.page.locator('section#workloads').innerText();
    expect(text).toMatch(/git-clone · clone/);
    expect(text).toMatch(/not supported/); // mountpoint git clone
    expect(text).toMatch(/1 failed/); // rclone tar -xf, repetition 2
    expect(text).toMatch(/Not applicable \(the workload needs a file system\)/);
  });

  test('the generated summary names the winners the numbers give, with caveats', async () => {
    const rows = await opened.page.locator('section#summary table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as unknown as { innerText: string }).innerText)));
    const find = (workload: string, kase: RegExp) => rows.find((r) => r[0] === workload && kase.test(r[1]));
    expect(find('objects', /^list 1 KiB–100 MiB$/)?.[2]).toBe('s3-api');
    expect(find('fio-seq', /^read \(direct\) 100 KiB–100 MiB \(warm\)$/)?.[2]).toBe('s3fs');
    expect(find('fio-seq', /^read \(direct\) 100 KiB–100 MiB \(warm\)$/)?.[5]).toMatch(/served from a cache/);
    expect(find('metadata', /^data-modifications$/)?.[5]).toMatch(/not supported by mountpoint/);
    expect(find('metadata', /^empty-files$/)?.[5]).toMatch(/mountpoint completed 2%/);
    expect(find('semantics', /POSIX semantics/)?.[2]).toBe('s3fs, rclone');
    expect(find('tar-extract', /extract/)?.[5]).toMatch(/rclone: 1 failed batch left out/);
    // Support checks (not timed) are verdicts: who kept the files' metadata.
    expect(find('tar-extract', /^timestamps$/)?.slice(2, 4)).toEqual(['rclone', 'kept by rclone']);
    // s3fs's check found it losing times: the method's finding, in its verdict, not a broken measurement.
    expect(find('tar-extract', /^timestamps$/)?.[5]).toMatch(/^s3fs: 125 of 4280 files did not keep their mtime/);
    expect(find('tar-extract', /^permissions$/)?.slice(2, 4)).toEqual(['s3fs', 'kept by s3fs']);
    // Mountpoint's extraction ran out of its budget: shown as what it reached, never ranked.
    expect(find('tar-extract', /^extract/)?.[2]).not.toBe('mountpoint');
    expect(find('tar-extract', /^extract/)?.[5]).toMatch(/mountpoint: DNF at 10 min — 10% done, ≈ 1\.\d h extrapolated/);
    const table = await opened.page.locator('section#workloads table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as unknown as { innerText: string }).innerText)));
    const stamps = table.filter((r) => r[0] === 'tar-extract · timestamps').map((r) => [r[1], r[3], r[10]]);
    expect(stamps).toEqual([['s3fs', 'not timed', 'not kept'], ['rclone', 'not timed', 'kept']]);
    const dnf = table.find((r) => r[0] === 'tar-extract · extract' && r[1] === 'mountpoint')!;
    expect([dnf[3], dnf[9]]).toEqual(['–', '–']);
    expect(dnf[10]).toMatch(/^DNF at 10 min — 10% done, ≈ 1\.\d h extrapolated$/);
    const problems = await opened.page.locator('section#problems').innerText();
    expect(problems).toMatch(/Findings about methods[^]*s3fs\s+tar-extract\s+timestamps/);
    expect(problems).toMatch(/Did not finish[^]*mountpoint\s+tar-extract\s+extract/);
  });

  test('object methods (no cache) are ranked with the mounts\' cold figures; warm apart', async () => {
    const rows = await opened.page.locator('section#summary table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as unknown as { innerText: string }).innerText)));
    const walks = rows.filter((r) => r[0] === 'dir-walk');
    expect(walks.map((r) => r[1])).toEqual(['walk 1 KiB (cold)']);
    // s3fs and rclone walk in ~0.9 s, the object methods in 1.7 s or more, mountpoint in 175 s.
    expect(walks[0][2]).toMatch(/^(s3fs|rclone)$/);
    expect(walks[0][3]).toMatch(/x faster than (s3fs|rclone)$/);
    expect(walks[0][5]).toContain('s3-api, aws-cli: no client cache, ranked with the mounts\' cold (first-access) figures');
    // The workload table: one row for the walk, every method in it, "vs best" across them.
    const table = await opened.page.locator('section#workloads table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as unknown as { innerText: string }).innerText)));
    const walkRows = table.filter((r) => r[0].startsWith('dir-walk'));
    expect(new Set(walkRows.map((r) => r[0]))).toEqual(new Set(['dir-walk · walk 1 KiB (cold)']));
    expect(walkRows.map((r) => r[1]).sort()).toEqual(['aws-cli', 'mountpoint', 'rclone', 's3-api', 's3fs']);
    const vsBest = (m: string) => Number(walkRows.find((r) => r[1] === m)![9].replace(/[x,]/g, ''));
    expect(Math.min(vsBest('s3fs'), vsBest('rclone'))).toBe(1);
    expect(vsBest('s3-api')).toBeGreaterThan(1.3);
    expect(vsBest('mountpoint')).toBeGreaterThan(100);
  });

  test('run facts: host, instance type, link limit, versions and options of every method', async () => {
    const text = await opened.page.locator('section#facts').innerText();
    for (const s of ['rendering-fixture.invalid', 'c7g.large', '1,192 MiB/s', 'mount-s3 (mountpoint-s3-fs 0.11.0)', 'rclone v1.60.1', 'aws-cli 2.9.19',
      'vfs-cache-mode=writes', 'part_size=8MiB', 'rendering-fixture (synthetic numbers)', 'rendering-fixture']) expect(text).toContain(s);
    // The fixture marks its run failed (on purpose): the page says so at the top.
    expect(await opened.page.locator('header .status').innerText()).toMatch(/failed — results incomplete/);
  });
});

describe('a results folder with bad lines', () => {
  const dir = join(work, 'bad');
  const file = join(work, 'bad.html');
  let stdout = '';
  let opened: OpenedPage;
  let stepFile = '';
  let records = 0;

  beforeAll(async () => {
    ({ records } = await writeReportFixture(dir, { repetitions: 2 }));
    const part = readdirSync(dir).find((d) => d.startsWith('dt='))!;
    stepFile = readdirSync(join(dir, part)).find((f) => f.includes('--s3-api--objects'))!;
    const lines = readFileSync(join(dir, part, stepFile), 'utf8').split('\n').filter(Boolean).length;
    const good = JSON.parse(readFileSync(join(dir, part, stepFile), 'utf8').split('\n')[0]);
    appendFileSync(join(dir, part, stepFile), [
      '{"truncated": ',
      JSON.stringify({ ...good, ops: 'many' }),
      JSON.stringify({ ...good, schema_version: '0.9.0' }),
      '',
    ].join('\n'));
    expect(lines).toBe(25);
    const r = await s3ab(['report', '--results', dir, '--html', file]);
    expect(r.code).toBe(0);
    stdout = r.stdout;
    opened = await openInChromium(file);
  }, 120_000);
  afterAll(async () => opened?.close());

  test('the CLI counts them and still writes the page', () => {
    expect(stdout).toContain('3 unreadable lines left out');
    expect(existsSync(file)).toBe(true);
  });

  test('the page lists each bad line with file, line number and reason, and renders the rest', async () => {
    expect(opened.errors).toEqual([]);
    const problems = opened.page.locator('section#problems');
    expect(await problems.innerText()).toMatch(/3 lines at the source could not be read/);
    const rows = await problems.locator('table.bad-lines tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as unknown as { innerText: string }).innerText)));
    expect(rows.map((r) => r.slice(0, 2))).toEqual([[expect.stringContaining(stepFile), '26'], [expect.stringContaining(stepFile), '27'], [expect.stringContaining(stepFile), '28']]);
    expect(rows[0][2]).toMatch(/not JSON/);
    expect(rows[1][2]).toMatch(/\/ops must be integer/);
    expect(rows[2][2]).toContain(`schema_version "0.9.0", this report reads ${SCHEMA_VERSION}`);
    const s = await sections(opened.page);
    for (const id of SECTION_IDS) expect({ id, hasData: s[id].hasData }).toEqual({ id, hasData: true });
    // The good lines of the damaged file still count: every record of the two repetitions is in.
    expect(await opened.page.locator('section#facts').innerText()).toContain(`${num(records)} in this run (${num(records)} valid records read, 3 unreadable lines)`);
  });

  test('the text summary leaves them out too, and says so', async () => {
    const r = await s3ab(['report', '--results', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('3 unreadable lines left out');
    expect(r.stdout).toMatch(/^upload 1 KiB\s+s3-api\s/m);
  });
});

describe('a complete run with lines that are not objects', () => {
  test('the header says lines were left out, and the reasons say why', async () => {
    const dir = join(work, 'not-objects');
    const file = join(work, 'not-objects.html');
    await writeReportFixture(dir, { repetitions: 1, workloads: ['objects'] });
    const part = readdirSync(dir).find((d) => d.startsWith('dt='))!;
    const step = readdirSync(join(dir, part)).find((f) => f.includes('--s3-api--objects'))!;
    appendFileSync(join(dir, part, step), '[]\nnull\n42\n');
    const r = await s3ab(['report', '--results', dir, '--html', file]);
    expect(r.code).toBe(0);
    const opened = await openInChromium(file);
    try {
      expect(opened.errors).toEqual([]);
      expect(await opened.page.locator('header .status').innerText()).toBe('Run complete — 3 unreadable lines left out');
      const reasons = await opened.page.locator('section#problems table.bad-lines tbody tr td:last-child').allInnerTexts();
      expect(reasons).toEqual([
        'not a JSON object (an array): a result record is one object per line',
        'not a JSON object (null): a result record is one object per line',
        'not a JSON object (a number): a result record is one object per line',
      ]);
    } finally {
      await opened.close();
    }
  }, 60_000);
});

describe('a results folder with some sections missing', () => {
  const dir = join(work, 'partial');
  const file = join(work, 'partial.html');

  test('the page says plainly which sections have no data, and the CLI lists them', async () => {
    await writeReportFixture(dir, { repetitions: 1, workloads: ['objects'] });
    const r = await s3ab(['report', '--results', dir, '--html', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/sections without data: Metadata operations, Cold vs warm cache, POSIX semantics and propagation, Workload times \(1 client\)/);
    const opened = await openInChromium(file);
    try {
      expect(opened.errors).toEqual([]);
      const s = await sections(opened.page);
      for (const id of ['metadata', 'cache', 'semantics', 'workloads']) {
        expect({ id, hasData: s[id].hasData }).toEqual({ id, hasData: false });
        expect(s[id].text).toMatch(/No data: this run has no|No data: no operation|No data: this run has no timed jobs/);
        expect(s[id].charts).toBe(0);
      }
      for (const id of ['summary', 'size', 'ratios', 'percentiles', 'facts']) expect({ id, hasData: s[id].hasData }).toEqual({ id, hasData: true });
      expect(await opened.page.locator('header .nodata-summary').innerText()).toMatch(/Sections without data in this run: Metadata operations, Cold vs warm cache/);
      expect(await opened.page.locator('nav .nodata-tag').count()).toBe(4);
      expect(await opened.page.locator('header .status').innerText()).toMatch(/Run complete/);
    } finally {
      await opened.close();
    }
  }, 120_000);
});

describe('a repetition recorded twice (say, by two hosts)', () => {
  test('captions count repetitions, not records', async () => {
    const dir = join(work, 'twice');
    const file = join(work, 'twice.html');
    const { runId } = await writeReportFixture(dir, { repetitions: 2, workloads: ['objects'] });
    const part = readdirSync(dir).find((d) => d.startsWith('dt='))!;
    const step = readdirSync(join(dir, part)).find((f) => f.includes('--s3-api--objects'))!;
    appendFileSync(join(dir, part, `${runId}--s999--s3-api--objects.jsonl`), readFileSync(join(dir, part, step)));
    const r = await s3ab(['report', '--results', dir, '--html', file]);
    expect(r.code).toBe(0);
    const opened = await openInChromium(file);
    try {
      const captions = await opened.page.locator('section#size figcaption').allInnerTexts();
      expect(captions.length).toBeGreaterThan(0);
      for (const c of captions) expect(c).toContain('median over 2 repetitions');
    } finally {
      await opened.close();
    }
  }, 60_000);
});

describe('comparing two runs', () => {
  const dir = join(work, 'compare');
  let runA = '';
  let runB = '';
  let runC = '';

  beforeAll(async () => {
    runA = (await writeReportFixture(dir, { repetitions: 1, workloads: ['objects', 'metadata'], runId: '20260115T101500Z-aaaaaa' })).runId;
    runB = (await writeReportFixture(dir, { repetitions: 1, workloads: ['objects', 'metadata'], runId: '20260116T101500Z-bbbbbb', slowdown: 1.25 })).runId;
    runC = (await writeReportFixture(dir, { repetitions: 1, workloads: ['objects', 'metadata'], runId: '20260117T101500Z-cccccc', slowdown: 1.25, instanceType: 'm7i.large' })).runId;
  });

  test('another instance type: what differs, and every case not comparable (its host class differs), none compared', async () => {
    const r = await s3ab(['report', '--results', dir, '--compare', runA, runC]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^instance type\s+c7g\.large\s+m7i\.large$/m);
    expect(r.stdout).toMatch(/^0 metrics in both runs/m);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/not comparable \(their comparability keys differ in more than the client's version or options; not compared\): \d+ \(objects upload 1 KiB s3-api \(host_class differ\);/);
  });

  test('prints the change per metric in %', async () => {
    const r = await s3ab(['report', '--results', dir, '--compare', runA, runB]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/not comparable/);
    // Every latency 25% longer: throughput -20%, latency +25%, all worse.
    expect(r.stdout).toMatch(/^objects download 1 MiB\s+s3-api\s+throughput \(MiB\/s\)\s+[\d.,]+\s+[\d.,]+\s+-20(\.\d+)?%\s+worse$/m);
    expect(r.stdout).toMatch(/mean latency \(µs\)\s+[\d.,]+\s+[\d.,]+\s+\+25(\.\d+)?%\s+worse$/m);
    expect(r.stdout.split('\n').filter((l) => [...l].length > 100)).toEqual([]);
    expect(r.stdout).toMatch(/\d+ metrics in both runs: 0 better, \d+ worse/);
  });

  test('writes the comparison as a page that opens cleanly', async () => {
    const file = join(work, 'compare.html');
    const r = await s3ab(['report', '--results', dir, '--compare', runA, runB, '--html', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`comparison: ${file}`);
    const opened = await openInChromium(file);
    try {
      expect(opened.errors).toEqual([]);
      expect(opened.requests).toEqual([]);
      expect(await opened.page.locator('figure.chart svg').count()).toBe(1);
      expect(await opened.page.locator('section#facts').innerText()).toMatch(/Same host facts, client versions and options/);
    } finally {
      await opened.close();
    }
  }, 60_000);

  test('bad requests get a clear message and exit 2', async () => {
    const one = await s3ab(['report', '--results', dir, '--compare', runA]);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/--compare takes two runs, got 1/);
    const unknown = await s3ab(['report', '--results', dir, '--compare', runA, '20990101T000000Z-ffffff']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no run 20990101T000000Z-ffffff/);
    expect(unknown.stderr).toContain(runB);
    const junk = await s3ab(['report', '--results', dir, '--compare', runA, 'yesterday']);
    expect(junk.code).toBe(2);
    expect(junk.stderr).toMatch(/"yesterday" is neither a run id nor a results folder/);
  });
});

describe('report errors', () => {
  test('no results folder: exit 2 naming the folder and the fix', async () => {
    const r = await s3ab(['report', '--results', join(work, 'nothing-here'), '--html', join(work, 'x.html')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no results folder at .*nothing-here/);
    expect(r.stderr).toMatch(/fix: run `s3ab run`/);
    expect(existsSync(join(work, 'x.html'))).toBe(false);
  });

  test('an unknown run: exit 2 listing the runs there', async () => {
    const dir = join(work, 'one-run');
    const { runId } = await writeReportFixture(dir, { repetitions: 1, workloads: ['small-reads'] });
    const r = await s3ab(['report', '--results', dir, '--run', '20990101T000000Z-ffffff', '--html', join(work, 'y.html')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`runs there: ${runId}`);
  });
});

describe('the Scaling out section of a fleet run (synthetic fleet records: s3-crt and mountpoint at 1, 2 and 4 clients)', () => {
  const dir = join(work, 'fleet');
  const file = join(work, 'fleet.html');
  let opened: OpenedPage;
  let stdout = '';

  beforeAll(async () => {
    await writeScalingFixture(dir, undefined, { linkLimitMibS: FIXTURE_LINK_LIMIT });
    const r = await s3ab(['report', '--results', dir, '--html', file]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    stdout = r.stdout;
    opened = await openInChromium(file);
  }, 120_000);
  afterAll(async () => opened?.close());

  test('one chart per case: aggregate against clients per method with its ideal line, the one host\'s link limit, and p99; no chart warnings', async () => {
    expect(stdout).not.toMatch(/chart warning/);
    const s = await sections(opened.page);
    expect(s.scaling).toMatchObject({ hasData: true, charts: 1 });
    const chart = opened.page.locator('section#scaling figure.chart svg');
    // Per method a measured and an ideal line on the left, a p99 line on the right; the link limit once.
    expect(await chart.locator('.mark-line path').count()).toBe(2 * 2 + 2 + 1);
    expect(await chart.locator('.link_limit_label_marks text').allTextContents()).toEqual(['link limit (one host)']);
    const text = await chart.evaluate((svg) => svg.textContent ?? '');
    expect(text).toMatch(/aggregate throughput \(MiB\/s\)/);
    expect(text).toMatch(/p99 latency \(ms, merged over the clients\)/);
    for (const legend of ['measured', 'ideal (linear)', 's3-crt', 'mountpoint']) expect(text).toContain(legend);
  });

  test('the verdict and the table: × of one client at each client count', async () => {
    const section = opened.page.locator('section#scaling');
    // Per client 400, 360, 290 MiB/s (s3-crt) and 300, 210, 100 (mountpoint) at 1, 2, 4 clients.
    expect(await section.locator('p.verdict').innerText()).toBe('Verdict: s3-crt: 2.9x at 4 clients; mountpoint: 1.33x at 4 clients');
    const rows = await section.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].slice(0, 6).map((td) => td.textContent)));
    expect(rows).toEqual([
      ['s3-crt', '1', '400', '1x', '400', num(FIXTURE_LINK_LIMIT)], ['s3-crt', '2', '720', '1.8x', '800', 'one host'], ['s3-crt', '4', '1,160', '2.9x', '1,600', 'one host'],
      ['mountpoint', '1', '300', '1x', '300', num(FIXTURE_LINK_LIMIT)], ['mountpoint', '2', '420', '1.4x', '600', 'one host'], ['mountpoint', '4', '400', '1.33x', '1,200', 'one host'],
    ]);
  });

  test('the text summary of the same run prints the section', async () => {
    const r = await s3ab(['report', '--results', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Scaling out');
    expect(r.stdout).toMatch(/verdict: s3-crt: 2\.9x at 4 clients; mountpoint: 1\.33x at 4 clients/);
  });
});
