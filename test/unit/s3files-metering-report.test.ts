import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHtmlReport, type WrittenReport } from '../../runner/report/html-report';
import { printSummary } from '../../runner/report/summary';
import { writeReportFixture } from '../../scripts/fixtures/report-fixture';

/**
 * Issue 15: S3 Files' own metering, modelled, beside the measured request cost — through the real
 * path (records → request_counts.sql on DuckDB → the summary and the page). The rendering fixture
 * with its s3files option: s3files records carry no request counts, as on AWS.
 */
describe('the modelled S3 Files figure from records', () => {
  const work = mkdtempSync(join(tmpdir(), 's3ab-s3files-meter-'));
  const dir = join(work, 'results');
  let summary = '';
  let page: WrittenReport;
  let section = '';

  beforeAll(async () => {
    const { runId } = await writeReportFixture(dir, { repetitions: 1, s3files: true });
    await printSummary(dir, runId, (l) => (summary += `${l}\n`));
    page = await writeHtmlReport(dir, runId, join(work, 'report.html'));
    const html = page.rendered.html;
    const start = html.indexOf('<section id="requests"');
    section = html.slice(start, html.indexOf('</section>', start));
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /**
   * The row of a case and method in one of the summary's request tables (the measured one, or S3
   * Files' modelled one), with its wrapped continuation lines joined by single spaces.
   */
  const summaryRow = (table: 'measured' | 'modelled', kase: string, method: string) => {
    const [from, to] = table === 'measured' ? ['Requests and request cost', 'S3 Files metering, modelled'] : ['S3 Files metering, modelled', 'modelled (S3 Files metering):'];
    const section = summary.slice(summary.indexOf(from), summary.indexOf(to) > summary.indexOf(from) ? summary.indexOf(to) : undefined).split('\n');
    const i = section.findIndex((l) => new RegExp(`^${kase}\\s+${method}\\s`).test(l));
    if (i < 0) return undefined;
    const rest = section.slice(i + 1);
    const more = rest.slice(0, Math.max(0, rest.findIndex((l) => !/^\s/.test(l))));
    return [section[i], ...more].map((l) => l.trim()).join(' ').replace(/\s+/g, ' ');
  };

  test('the summary shows the modelled figure for s3files rows, not counted but modelled', () => {
    expect(summary).toContain('S3 Files metering, modelled (not measured)');
    // 8 KiB fixture files: a 32 KiB data read and the open's metadata read.
    expect(summaryRow('modelled', 'small-reads read 8 KiB', 's3files \\(cold\\)')).toMatch(/1,000 data read 1 \(32 KiB\), metadata \$0\.0010 read 1 \(4 KiB\)$|1,000 data read 1 \(32 KiB\), metadata read 1 \(4 KiB\) \$0\.0010$/);
    // The fixture's objects workload lists 10 files: readdir and ten stats (the files column of the query).
    expect(summaryRow('modelled', 'objects list 1 KiB', 's3files')).toMatch(/metadata read 11 \(44 KiB\) \$0\.0013$/);
    // 1 GiB fixture files are only in the bucket: every read streams from it.
    const text = summary.replace(/\s+/g, ' ');
    expect(summaryRow('modelled', 'large-read read 1 GiB', 's3files \\(cold\\)')).toMatch(/^large-read read 1 GiB s3files \(cold\) \d+ metadata read 1 \(4 KiB\), 1,024 .*reads streamed from the bucket/);
    expect(summary).toMatch(/^modelled \(S3 Files metering\): [^]*not a bill/m);
    expect(text).toMatch(/requests: not counted for s3files \(\d+ measurements\)/);
    // s3files's requests were not counted: it has no row in the measured table.
    expect(summaryRow('measured', 'small-reads read 8 KiB', 's3files \\(cold\\)')).toBeUndefined();
  });

  test('other methods keep their measured cost and get no modelled figure', () => {
    expect(summaryRow('measured', 'small-reads read 8 KiB', 's3-api')).toMatch(/GET 1 1 \$0\.00040$/);
    expect(summaryRow('measured', 'small-reads read 8 KiB', 's3fs \\(cold\\)')).toMatch(/ \$0\.00081( |$)/);
    expect(summaryRow('modelled', 'small-reads read 8 KiB', 's3-api')).toBeUndefined();
    // Probes are not modelled, and s3files has no counts for them: no row.
    expect(summary).not.toMatch(/^semantics create\s+s3files/m);
  });

  test('the page shows the same figures in the same rows', () => {
    expect(page.rendered.sections.find((s) => s.id === 'requests')!.hasData).toBe(true);
    expect(section).toContain('<th>S3 Files $ per 1,000 ops — modelled (S3 Files metering)</th>');
    const rows = [...section.slice(section.indexOf('<tbody>')).matchAll(/<tr>(.*?)<\/tr>/g)].map((m) => m[1]);
    const isS3Files = (r: string) => /<td( class="cached")?>s3files/.test(r);
    const s3files = rows.filter(isS3Files);
    const others = rows.filter((r) => !isS3Files(r));
    expect(s3files.length).toBeGreaterThan(10);
    for (const r of s3files) expect(r).toMatch(/<td class="modelled" title="modelled \(S3 Files metering\): not measured">\$[\d.]+<\/td>$/);
    for (const r of others) expect(r).toMatch(/<td>–<\/td><td>–<\/td>$/);
    expect(rows.find((r) => r.startsWith('<th>small-reads</th><td>read</td><td>8 KiB</td><td>s3files (cold)</td>')))
      .toContain('<td>data read 1 (32 KiB), metadata read 1 (4 KiB)</td><td class="modelled" title="modelled (S3 Files metering): not measured">$0.0010</td>');
  });
});
