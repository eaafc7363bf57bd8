import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultRecord } from '../../runner/core/record.generated';
import { writeReportFixture } from '../../scripts/fixtures/report-fixture';
import { openInChromium, type OpenedPage } from '../helpers/browser';
import { s3ab } from '../helpers/cli';

/**
 * The page shows how much of a cold read a cache served, not a yes/no mark: the rendering fixture
 * with one method's cold web-serving reads made 1.1% cache-served (the server's GET bytes 0.989 of
 * the bytes read, flagged served-from-cache as the runner flags them), opened in Chromium.
 */
const work = mkdtempSync(join(tmpdir(), 's3ab-cache-share-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const isTarget = (r: ResultRecord) => r.workload === 'web-serving' && r.cache === 'cold' && r.method === 'mountpoint' && r.method_variant === 'default' && r.status === 'ok';

/** Rewrites every record file of the folder, marking the target records 1.1% served from a cache. */
function markPartialCacheHit(dir: string): number {
  let marked = 0;
  for (const part of readdirSync(dir).filter((d) => d.startsWith('dt='))) {
    for (const f of readdirSync(join(dir, part)).filter((x) => x.endsWith('.jsonl'))) {
      const file = join(dir, part, f);
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => {
        const r = JSON.parse(line) as ResultRecord;
        if (!isTarget(r) || !r.requests) return line;
        marked++;
        r.requests.get_bytes = Math.round(r.bytes * 0.989);
        r.flags = [...new Set([...r.flags, 'served-from-cache' as const])];
        return JSON.stringify(r);
      });
      writeFileSync(file, `${lines.join('\n')}\n`);
    }
  }
  return marked;
}

describe('a cold read 1.1% served from a cache, on the page', () => {
  const dir = join(work, 'results');
  const file = join(work, 'page.html');
  let opened: OpenedPage;

  beforeAll(async () => {
    await writeReportFixture(dir, { repetitions: 3 });
    expect(markPartialCacheHit(dir)).toBeGreaterThan(0);
    const r = await s3ab(['report', '--results', dir, '--html', file]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    opened = await openInChromium(file);
  }, 120_000);
  afterAll(async () => opened?.close());

  test('the requests table names the share beside the method; the page has no console errors', async () => {
    expect(opened.errors).toEqual([]);
    const rows = await opened.page.locator('section#requests tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')));
    const mine = rows.filter((r) => r[0] === 'web-serving' && r[3].startsWith('mountpoint (cold)'));
    expect(mine.length).toBeGreaterThan(0);
    for (const r of mine) expect(r[3]).toMatch(/^mountpoint \(cold\) (⚠ )?1\.1% from cache$/);
    expect(mine.map((r) => r[6])).toEqual(mine.map(() => '0.989'));
  });

  test('the workload table shows the share on the figure; the warning only where it could change the verdict, as the verdicts say', async () => {
    const marks = await opened.page.locator('section#workloads .cache-share, section#workloads .flag-cache').allTextContents();
    expect(marks.some((m) => /1\.1% from cache/.test(m))).toBe(true);
    const summary = await opened.page.locator('section#summary').innerText();
    const warned = await opened.page.locator('section#workloads .flag-cache').allTextContents();
    // Warned on the figure exactly when the verdict of its case carries the share as a caveat.
    expect(warned.some((m) => /1\.1% from cache/.test(m))).toBe(/1\.1% from cache, enough to change the verdict/.test(summary));
  });
});
