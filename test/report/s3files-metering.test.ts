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

  const summaryRow = (workload: string, operation: string, size: string, method: string) =>
    summary.split('\n').find((l) => new RegExp(`^│ ${workload}\\s+│ ${operation}\\s+│ ${size}\\s+│ ${method.replace(/[()]/g, '\\$&')}\\s+│`).test(l));

  test('the summary shows the modelled figure for s3files rows, not counted but modelled', () => {
    expect(summary).toContain('S3 Files $ per 1,000 ops — modelled (S3 Files metering)');
    // 8 KiB fixture files: a 32 KiB data read and the open's metadata read.
    expect(summaryRow('small-reads', 'read', '8 KiB', 's3files (cold)')).toMatch(/│ 1,000\s+│ not counted\s+│ –\s+│ not counted\s+│ data read 1 \(32 KiB\), metadata read 1 \(4 KiB\)\s+│ \$0\.0010\s+│$/);
    // The fixture's objects workload lists 10 files: readdir and ten stats (the files column of the query).
    expect(summaryRow('objects', 'list', '1 KiB', 's3files')).toMatch(/│ metadata read 11 \(44 KiB\)\s+│ \$0\.0013\s+│$/);
    // 1 GiB fixture files are only in the bucket: every read streams from it.
    expect(summaryRow('large-read', 'read', '1 GiB', 's3files (cold)')).toMatch(/metadata read 1 \(4 KiB\), 1,024 reads streamed from the bucket/);
    expect(summary).toMatch(/^modelled \(S3 Files metering\): .*not a bill/m);
    expect(summary).toMatch(/requests: not counted for s3files \(\d+ measurements\)/);
  });

  test('other methods keep their measured cost and get no modelled figure', () => {
    expect(summaryRow('small-reads', 'read', '8 KiB', 's3-api')).toMatch(/│ GET 1\s+│ 1\s+│ \$0\.00040\s+│ –\s+│ –\s+│$/);
    expect(summaryRow('small-reads', 'read', '8 KiB', 's3fs (cold)')).toMatch(/│ \$0\.00081\s+│ –\s+│ –\s+│$/);
    // Probes are not modelled, and s3files has no counts for them: no row.
    expect(summaryRow('semantics', 'create', '–', 's3files')).toBeUndefined();
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
