import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Advice } from '../../runner/report/advice';
import { openInChromium, type OpenedPage } from '../helpers/browser';
import { s3ab } from '../helpers/cli';

/**
 * The advisor after a real run of the mounts profile's tar-extract and the semantics probes on
 * s3fs, Mountpoint and rclone (real FUSE mounts on the embedded versitygw), whose matrix asks for
 * rename and append: `s3ab advise --workload tar-extract --needs rename,append` rules Mountpoint
 * out naming its probes and prints the Pareto set of the rest; the page's Advice section gives the
 * same answer, checked in Chromium; the summary's json carries it.
 */

const NEEDS = ['rename', 'append'];

describe('the Advice section and s3ab advise after a real mounts run', () => {
  let dir: string;
  let results: string;
  let run: { code: number | null; stderr: string };
  let advice: Advice;
  let opened: OpenedPage | null = null;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-advice-page-'));
    results = join(dir, 'results');
    const matrix = join(dir, 'matrix.json');
    writeFileSync(matrix, JSON.stringify({
      name: 'advice-page-test', repetitions: 2, methods: ['s3fs', 'mountpoint', 'rclone'],
      workloads: { 'tar-extract': { files: 40, dirs: 5, totalSize: '200KB' }, semantics: { propagation_timeout_s: 3 } },
      advice: { needs: NEEDS },
    }));
    run = await s3ab(['run', '--matrix', matrix, '--results', results, '--no-html', '--wait'], { timeoutMs: 720_000 });
    const json = await s3ab(['advise', '--results', results, '--workload', 'tar-extract', '--needs', NEEDS.join(','), '--format', 'json']);
    advice = JSON.parse(json.stdout) as Advice;
  }, 800_000);
  afterAll(async () => {
    await opened?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the run completes', () => {
    expect({ code: run.code, stderr: run.stderr.slice(-2000) }).toMatchObject({ code: 0 });
  });

  test('s3ab advise --workload tar-extract --needs rename,append rules out Mountpoint, naming the probes, and prints the Pareto set of the rest', async () => {
    const r = await s3ab(['advise', '--results', results, '--workload', 'tar-extract', '--needs', NEEDS.join(',')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const mountpoint = r.stdout.split('\n').filter((l) => l.startsWith('  mountpoint: '));
    expect(mountpoint).toHaveLength(1);
    for (const probe of ['rename-file unsupported', 'append unsupported']) expect(mountpoint[0]).toContain(probe);
    // The same advice as a document: every method accounted for, the compared ones met both needs.
    expect(advice.ruledOut.map((m) => m.method)).toContain('mountpoint');
    const extract = advice.cases.find((c) => c.operation === 'extract')!;
    const compared = extract.compared.map((c) => c.method);
    expect(compared).toContain('s3fs');
    for (const m of ['s3fs', 'mountpoint', 'rclone']) expect([...advice.ruledOut, ...advice.notMeasured].some((s) => s.method === m) || compared.includes(m)).toBe(true);
    expect(compared).not.toContain('mountpoint');
    expect(extract.pareto.length).toBeGreaterThan(0);
    const pareto = r.stdout.slice(r.stdout.indexOf('extract'));
    expect(pareto).toContain('Pareto set');
    for (const m of extract.pareto) expect(pareto).toMatch(new RegExp(`^ {4}${m}: `, 'm'));
    expect(pareto).not.toMatch(/^ {4}mountpoint:/m);
    expect(Number(extract.pick !== null) + Number(extract.noClearWinner !== null)).toBe(1);
  });

  test('the page\'s Advice section gives that answer in Chromium, with its evidence, and no console errors', async () => {
    const file = join(dir, 'report.html');
    const r = await s3ab(['report', '--results', results, '--html', file]);
    expect(r.code).toBe(0);
    opened = await openInChromium(file);
    expect(opened.errors).toEqual([]);
    const section = opened.page.locator('section#advice');
    expect(await section.getAttribute('data-has-data')).toBe('true');
    expect(await section.locator('p.lead').innerText()).toContain('needs: rename, append; priority: throughput');
    expect(await section.locator('h3').evaluateAll((hs) => hs.map((h) => h.id))).toEqual(['advice-tar-extract']);
    const ruledOut = await section.locator('table.advice-needs tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as unknown as { innerText: string }).innerText)));
    const expected = advice.ruledOut.flatMap((s) => s.verdicts.map((v) => [s.method, 'ruled out', v.need, v.probe, v.detail]));
    expect(ruledOut.filter((row) => row[1] === 'ruled out')).toEqual(expected);
    expect(ruledOut.some((row) => row[0] === 'mountpoint' && row[3] === 'rename-file')).toBe(true);
    const extract = advice.cases.find((c) => c.operation === 'extract')!;
    const table = section.locator('h4', { hasText: extract.case }).locator('xpath=following-sibling::div[1]//table');
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as unknown as { innerText: string }).innerText)));
    expect(rows.map((row) => row[0])).toEqual(extract.compared.map((c) => c.method));
    for (const [i, row] of rows.entries()) {
      const cand = extract.compared[i];
      const dominated = extract.dominated.find((d) => d.method === cand.method);
      expect(row[1]).toBe(extract.pick?.method === cand.method ? 'pick' : dominated ? `dominated by ${dominated.by.join(', ')}` : 'Pareto set');
      expect(row[row.length - 1]).toMatch(new RegExp(`^run ${advice.runId}, 2 repetitions, host class local:\\d+vCPU:\\d+GiB$`));
    }
    const verdict = extract.pick ? `Pick for throughput: ${extract.pick.method}` : 'No clear winner for throughput';
    expect(await section.innerText()).toContain(verdict);
    expect(opened.errors).toEqual([]);
  });

  test('the summary\'s json carries the same advice', async () => {
    const r = await s3ab(['report', '--results', results, '--format', 'json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, { [k: string]: unknown }[]>;
    const picks = doc.advice_picks.filter((p) => p.workload === 'tar-extract');
    const extract = advice.cases.find((c) => c.operation === 'extract')!;
    expect(picks.find((p) => p.case === extract.case)).toMatchObject({ priority: 'throughput', pick: extract.pick?.method ?? null });
    expect(doc.advice_needs.filter((n) => n.method === 'mountpoint' && n.outcome === 'ruled-out').map((n) => n.probe)).toEqual(expect.arrayContaining(['rename-file', 'append']));
  });
});
