import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountTable } from '../../runner/core/mounts-table';
import { isRequestsOnly } from '../../runner/core/vocabulary';
import type { EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { printSummary } from '../../runner/report/summary';
import type { ResultRecord } from '../../runner/core/record.generated';
import { runBenchmark } from '../../runner/run';
import { exitCodeFor } from '../../runner/run/policy';
import { tarball } from '../../runner/workloads/tar-extract.impl';
import { stopsWithin } from '../helpers/cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/**
 * Issue 21's budgeted steps, as seed 002 bounded Mountpoint's extraction by hand: tar-extract on
 * Mountpoint with a budget far too small for it stops cleanly, is recorded as did-not-finish with
 * how far it got, and leaves nothing behind — no extracted file in the bucket, no mount, no client.
 */
describe('a step that runs out of its budget', () => {
  test('tar-extract on Mountpoint: did-not-finish with its progress, the partial extraction removed, nothing mounted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-budget-'));
    // A temp folder of its own: whatever the run leaves there is its own.
    const savedTmp = process.env.TMPDIR;
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    process.env.TMPDIR = tmp;
    const params = { files: 20000, dirs: 200, totalSize: '20MB', maxSize: '1MB' };
    // Built before the run (cached), so the budget is spent extracting.
    await tarball(params);
    writeFileSync(join(dir, 'matrix.json'), JSON.stringify({ repetitions: 1, methods: ['mountpoint'], workloads: { 'tar-extract': params } }));
    let server: EmbeddedEndpoint | null = null;
    const mounted: { mountPoint: string; clientPid: number | null }[] = [];
    let left: string[] | null = null;
    let stepStarted = 0;
    let stepEnded = 0;
    try {
      const outcome = await runBenchmark({
        matrixFile: join(dir, 'matrix.json'), resultsDir: join(dir, 'results'), quiet: true, stepBudgetS: 8,
        onEndpoint: (e) => { server = e; },
        onMounted: (m) => mounted.push(m),
        onStep: () => { stepStarted = Date.now(); },
        // As the step's records are written, before the run's own cleanup: what did the step leave in the bucket?
        onStepFile: async () => {
          stepEnded = Date.now();
          const client = makeS3Client(server!.target, { maxSockets: 2 });
          const listed = await client.send(new ListObjectsV2Command({ Bucket: server!.target.bucket, Prefix: 's3ab/' }));
          client.destroy();
          left = (listed.Contents ?? []).map((o) => o.Key!);
        },
      });
      const records: ResultRecord[] = readdirSync(join(dir, 'results')).filter((d) => d.startsWith('dt='))
        .flatMap((d) => readdirSync(join(dir, 'results', d)).flatMap((f) => readFileSync(join(dir, 'results', d, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l))))
        // The client's requests outside the measurement (mounting, unmounting) are a row of their own.
        .filter((r: ResultRecord) => !isRequestsOnly(r.operation));
      expect(records).toHaveLength(1);
      const [r] = records;
      expect(r).toMatchObject({ workload: 'tar-extract', method: 'mountpoint', operation: 'extract', status: 'did-not-finish', verified: false, throughput_mib_s: null, flags: [] });
      expect(r.progress).toMatchObject({ budget_s: 8, planned: 20000, unit: 'files' });
      const p = r.progress!;
      expect(p.done).toBeGreaterThan(0);
      expect(p.done).toBeLessThan(20000);
      expect(p.rate_per_s).toBeGreaterThan(0);
      expect(p.extrapolated_total_s).toBeCloseTo(20000 / p.rate_per_s, 0);
      expect(p.extrapolated_total_s).toBeGreaterThan(8);
      process.stdout.write(`budget: ${p.done} of ${p.planned} files in the 8 s budget, ${p.rate_per_s} files/s, ${p.extrapolated_total_s} s extrapolated; the step ended ${((stepEnded - stepStarted) / 1000).toFixed(1)} s after it started\n`);
      // A budget spent is a result, not a failure: the run is complete and exits 0.
      expect(outcome.manifest).toMatchObject({ status: 'complete', steps_done: 1, steps_failed: 0, steps_did_not_finish: 1, problem: null });
      expect(exitCodeFor(outcome.manifest.status)).toBe(0);
      // Stopped cleanly, well within the watchdog's bound (budget + 60 s).
      expect(stepEnded - stepStarted).toBeLessThan(8_000 + 20_000);
      expect(left!.filter((k) => k.includes('tar-extract'))).toEqual([]);
      expect(mounted).toHaveLength(1);
      expect(mountTable().some((e) => e.mountPoint === mounted[0].mountPoint)).toBe(false);
      expect(existsSync(mounted[0].mountPoint)).toBe(false);
      expect(await stopsWithin(mounted[0].clientPid!)).toBe(true);
      // Only the cached archive is left in the temp folder: no scratch folder, no mount point.
      expect(readdirSync(tmp).filter((f) => f !== 's3ab-inputs' && f !== 's3ab-fs-thread')).toEqual([]);
      // The summary lists it apart, with its label; no table ranks it.
      const lines: string[] = [];
      await printSummary(join(dir, 'results'), undefined, (l) => lines.push(l));
      const text = lines.join('\n');
      expect(text).toMatch(/did not finish — the step's time budget ran out/);
      // Listed apart, never ranked: what it reached (the summary wraps in 100 columns: compare its words).
      expect(text.replace(/\s+/g, ' ')).toMatch(/mountpoint tar-extract extract \(cold\): DNF at 8 s — \d+(\.\d+)?% done, ≈ \d+(\.\d+)? (s|min|h) extrapolated/);
      expect(text).not.toMatch(/untar \(seed 004\)/);
      expect(text).toMatch(/steps: 1\/1 ran, 0 failed, 1 did not finish within their budget/);
      // --wide reshapes the tables, it drops nothing: the cell shows DNF and its note what it reached.
      const wide: string[] = [];
      await printSummary(join(dir, 'results'), undefined, (l) => wide.push(l), { wide: true });
      const wideText = wide.join('\n');
      expect(wideText).toMatch(/^extract\s+time\s+DNF$/m);
      expect(wideText.replace(/\s+/g, ' ')).toMatch(/mountpoint extract: DNF at 8 s — \d+(\.\d+)?% done, ≈ \d+(\.\d+)? (s|min|h) extrapolated/);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
