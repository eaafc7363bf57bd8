import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { writeReportFixture } from '../../scripts/fixtures/report-fixture';
import { METADATA_TESTS } from '../../runner/workloads/metadata';
import { PROBES } from '../../runner/workloads/semantics';
import { s3ab } from '../helpers/cli';

/**
 * The same summary and page for the same results: the text summary of the rendering fixture's
 * mounts-profile run (its methods, its workloads, DNF records, a finding, interval series) in 100
 * columns, and the HTML page of the default fixture (fixed run ids), compared with the files kept
 * in test/report/golden/. Only the results folder's path and the page's generation time differ
 * between runs, and are replaced before comparing. A deliberate change of the output regenerates
 * the files: `S3AB_UPDATE_GOLDEN=1 npx jest test/report/golden.test.ts`, then review the diff of
 * fixture-summary-mounts.txt (and of the unzipped page) before committing.
 */
const UPDATE = process.env.S3AB_UPDATE_GOLDEN === '1';
const GOLDEN = join(__dirname, 'golden');
const RUN_ID = '20260115T101500Z-901d3e';
const MOUNTS_RUN_ID = '20260115T101500Z-3a0c5e';
/**
 * Every probe and metadata test the workloads declare, not a frozen copy: a new probe changes the
 * output, and this test fails until the golden files are regenerated with it and reviewed.
 */
const GOLDEN_PROBES = [...PROBES];
const GOLDEN_METADATA_TESTS = [...METADATA_TESTS];

/** The first line that differs, with its neighbours, so a failure shows what changed. */
function firstDifference(actual: string, expected: string): string | null {
  const a = actual.split('\n');
  const e = expected.split('\n');
  for (let i = 0; i < Math.max(a.length, e.length); i++) {
    if (a[i] !== e[i]) return `line ${i + 1}:\n  expected: ${(e[i] ?? '<end>').slice(0, 400)}\n  actual:   ${(a[i] ?? '<end>').slice(0, 400)}`;
  }
  return null;
}

describe('report output is unchanged on the rendering fixture', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-golden-'));
    await writeReportFixture(join(dir, 'results'), { repetitions: 2, runId: RUN_ID, probes: GOLDEN_PROBES, metadataTests: GOLDEN_METADATA_TESTS });
    await writeReportFixture(join(dir, 'mounts'), { repetitions: 2, runId: MOUNTS_RUN_ID, profile: 'mounts' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the golden page holds every declared probe and metadata test (a new one fails here until the goldens are regenerated)', () => {
    const page = gunzipSync(readFileSync(join(GOLDEN, 'fixture-report.html.gz'))).toString('utf8');
    for (const name of [...GOLDEN_PROBES, ...GOLDEN_METADATA_TESTS]) expect({ name, shown: page.includes(`>${name}<`) }).toEqual({ name, shown: true });
  });

  test('text summary of the mounts profile\'s run, in 100 columns', async () => {
    const r = await s3ab(['report', '--results', join(dir, 'mounts')]);
    expect(r.code).toBe(0);
    const actual = r.stdout.split(join(dir, 'mounts')).join('RESULTS_DIR');
    expect(actual.split('\n').filter((l) => [...l].length > 100)).toEqual([]);
    if (UPDATE) writeFileSync(join(GOLDEN, 'fixture-summary-mounts.txt'), actual);
    expect(firstDifference(actual, readFileSync(join(GOLDEN, 'fixture-summary-mounts.txt'), 'utf8'))).toBeNull();
  });

  test('no line of any summary exceeds 100 columns: the default fixture, its --compare, and the mounts run', async () => {
    for (const args of [['report', '--results', join(dir, 'results')], ['report', '--results', join(dir, 'mounts')],
      ['report', '--compare', join(dir, 'results'), join(dir, 'mounts')]]) {
      const r = await s3ab(args);
      expect(r.code).toBe(0);
      const over = r.stdout.split('\n').filter((l) => [...l].length > 100);
      expect({ args: args.join(' '), over }).toEqual({ args: args.join(' '), over: [] });
    }
  });

  test('HTML page', async () => {
    const file = join(dir, 'report.html');
    const r = await s3ab(['report', '--results', join(dir, 'results'), '--html', file]);
    expect(r.code).toBe(0);
    const actual = readFileSync(file, 'utf8').split(join(dir, 'results')).join('RESULTS_DIR')
      .replace(/(<th>report generated<\/th><td>)[^<]*/, '$1GENERATED_AT');
    if (UPDATE) writeFileSync(join(GOLDEN, 'fixture-report.html.gz'), gzipSync(actual));
    const expected = gunzipSync(readFileSync(join(GOLDEN, 'fixture-report.html.gz'))).toString('utf8');
    expect(actual.length).toBeGreaterThan(100_000);
    expect(firstDifference(actual.replace(/></g, '>\n<'), expected.replace(/></g, '>\n<'))).toBeNull();
  });
});
