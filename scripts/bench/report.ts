/**
 * HTML report performance: writes a results folder of about 100,000 records (the rendering
 * fixture, one step file per method × workload × repetition as a real run writes them), then
 * times `s3ab report --results DIR --html FILE` end to end as a user runs it (process start,
 * checking every line against the schema, DuckDB over the Athena SQL, charts, page).
 *
 *   npm run bench:report [-- --records 100000]
 *
 * Target: ≤ 10 s for 100,000 records (a seed run's report while its reader waits).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failScript, scriptOptions } from '../script-cli';
import { writeReportFixture } from '../fixtures/report-fixture';

const TARGET_S = 10;
const root = join(__dirname, '..', '..');
const values = scriptOptions('bench:report', { records: { type: 'string', default: '100000' } }, ['records']);
const wanted = Number(values.records);

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 's3ab-bench-report-'));
  try {
    // One repetition tells how many records a repetition of the fixture holds.
    const probe = await writeReportFixture(join(work, 'probe'), { repetitions: 1 });
    const repetitions = Math.ceil(wanted / probe.records);
    const results = join(work, 'results');
    process.stdout.write(`writing ${repetitions} repetitions of the rendering fixture (${probe.records} records each)...\n`);
    const { records } = await writeReportFixture(results, { repetitions });
    const files = readdirSync(results).filter((d) => d.startsWith('dt=')).reduce((n, d) => n + readdirSync(join(results, d)).length, 0);
    const bytes = readdirSync(results).filter((d) => d.startsWith('dt=')).reduce((n, d) => n + readdirSync(join(results, d)).reduce((m, f) => m + statSync(join(results, d, f)).size, 0), 0);
    process.stdout.write(`results folder: ${records.toLocaleString('en-US')} records in ${files.toLocaleString('en-US')} files, ${(bytes / 1024 / 1024).toFixed(0)} MiB\n`);

    const html = join(work, 'report.html');
    const t0 = process.hrtime.bigint();
    const run = spawnSync(process.execPath, [join(root, 'dist', 's3ab.js'), 'report', '--results', results, '--html', html], { encoding: 'utf8' });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    process.stdout.write(run.stdout);
    if (run.status !== 0) throw new Error(`s3ab report failed (exit ${run.status}): ${run.stderr}`);
    process.stdout.write(`s3ab report --html for ${records.toLocaleString('en-US')} records: ${seconds.toFixed(1)} s wall (target ≤ ${TARGET_S} s): ${seconds <= TARGET_S ? 'PASS' : 'FAIL'}\n`);
    if (seconds > TARGET_S) process.exitCode = 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

void main().catch((err) => failScript('bench:report', err));
