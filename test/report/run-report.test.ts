import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBenchmark } from '../../runner/run';
import { openInChromium, type OpenedPage } from '../helpers/browser';
import { s3ab } from '../helpers/cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const work = mkdtempSync(join(tmpdir(), 's3ab-run-report-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the HTML report of a real run against the embedded versitygw', () => {
  const dir = join(work, 'results');
  const file = join(work, 'report.html');
  let runId = '';
  let stdout = '';
  let opened: OpenedPage;

  beforeAll(async () => {
    // Small but real: two methods, two sizes, two repetitions (so there are min–max bands), and a
    // single-size workload for the workload-times section.
    const matrix = join(work, 'matrix.json');
    writeFileSync(matrix, JSON.stringify({
      name: 'report-test', repetitions: 2, methods: ['s3-api', 'aws-cli'],
      workloads: { objects: { sizes: ['1KiB', '1MiB'], files: 1 }, 'small-reads': { files: 3, size: '8KiB' } },
    }));
    const outcome = await runBenchmark({ matrixFile: matrix, resultsDir: dir, quiet: true });
    expect(outcome.manifest.problem).toBeNull();
    runId = outcome.manifest.run_id;
    const r = await s3ab(['report', '--results', dir, '--html', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    stdout = r.stdout;
    opened = await openInChromium(file);
  }, 300_000);
  afterAll(async () => opened?.close());

  test('renders in Chromium with no console errors and no network requests', () => {
    expect(stdout).toContain(`report: ${file} (run ${runId}`);
    expect(stdout).not.toMatch(/chart warning/);
    expect(opened.errors).toEqual([]);
    expect(opened.requests).toEqual([]);
  });

  test('has data where the run measured, and says plainly where it did not', async () => {
    const state = Object.fromEntries(await opened.page.$$eval('section', (els) => els.map((s) => [s.id, s.dataset.hasData === 'true'])));
    expect(state).toEqual({
      summary: true, problems: true, size: true, ratios: true, percentiles: true, metadata: false, cache: false, semantics: false, workloads: true, requests: true, facts: true,
      // Every seed's claims are listed, measured or not ("not measured in this run", naming what would measure it).
      'seed-claims': true,
      // Whether a measurement lasted long enough for a series (0.5 s, enough operations) depends on this machine's speed.
      'over-time': expect.any(Boolean),
    });
    // A real run against the embedded server: its requests were counted and are on the page.
    expect(await opened.page.locator('section#requests').innerText()).toMatch(/objects\s+upload\s+1 KiB\s+s3-api\s+\d+\s+PUT 1/);
    for (const id of ['metadata', 'cache', 'semantics']) expect(await opened.page.locator(`section#${id} .nodata`).innerText()).toMatch(/^No data: /);
    // Throughput over time has data only when a measurement lasted long enough for a series (see above).
    expect(stdout).toMatch(/sections without data: (Throughput over time, )?Metadata operations, Cold vs warm cache, POSIX semantics and propagation\n/);
    expect(await opened.page.locator('section#problems').innerText()).toMatch(/No problems: .* all \d+ measurements of this run succeeded and were verified/);
  });

  test('draws the measured throughput of both methods against size, with bands over the two repetitions', async () => {
    const size = opened.page.locator('section#size figure.chart').first();
    expect(await size.innerText()).toMatch(/upload[\s\S]*download/);
    expect(await size.locator('.mark-line path').count()).toBe(4); // 2 methods × upload, download
    expect(await size.locator('.mark-area path').count()).toBe(4);
    const legend = await size.locator('.role-legend-label').allTextContents();
    expect(legend).toEqual(['s3-api', 'aws-cli']);
  });

  test('the summary comes out of the numbers: the SDK beats one CLI process per operation on head', async () => {
    const rows = await opened.page.locator('section#summary tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as unknown as { innerText: string }).innerText)));
    const head = rows.find((r) => r[0] === 'objects' && r[1].startsWith('head'))!;
    expect(head[2]).toBe('s3-api');
    expect(head[3]).toMatch(/x the operations\/s of aws-cli$/);
    expect(rows.some((r) => r[0] === 'small-reads')).toBe(true);
  });

  test('run facts name this host, the embedded server and each client version with its options', async () => {
    const text = await opened.page.locator('section#facts').innerText();
    expect(text).toContain(hostname());
    expect(text).toMatch(/instance type\s+local/);
    expect(text).toMatch(/versitygw v1\.8\.0/);
    expect(text).toMatch(/aws-sdk-js-v3 3\./);
    expect(text).toMatch(/aws-cli 2\./);
    expect(text).toContain('part_size=8MiB');
    expect(text).toMatch(/matrix\s+report-test/);
    expect(text).toMatch(/status\s+complete/);
  });
});

describe('s3ab run writes the HTML report and prints where', () => {
  test('by default next to the results, in _reports/RUNID.html; --no-html skips it', async () => {
    const dir = join(work, 'cli-results');
    const r = await s3ab(['run', '--methods', 's3-api', '--workloads', 'small-reads', '--repetitions', '1', '--results', dir, '--quiet'], { timeoutMs: 110_000 });
    expect(r.code).toBe(0);
    const runId = readdirSync(join(dir, '_runs'))[0].replace(/\.json$/, '');
    const path = join(dir, '_reports', `${runId}.html`);
    expect(r.stdout).toContain(`report: ${path}`);
    expect(existsSync(path)).toBe(true);

    const quiet = join(work, 'cli-no-html');
    const n = await s3ab(['run', '--methods', 's3-api', '--workloads', 'small-reads', '--repetitions', '1', '--results', quiet, '--quiet', '--no-html'], { timeoutMs: 110_000 });
    expect(n.code).toBe(0);
    expect(n.stdout).not.toMatch(/report: /);
    expect(existsSync(join(quiet, '_reports'))).toBe(false);
  }, 240_000);
});
