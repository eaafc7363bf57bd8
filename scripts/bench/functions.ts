/**
 * The pipeline's function bundles as deployed: builds them with the stack's own esbuild options
 * (lib/function-bundles.ts, through scripts/fixtures/function-bundles.ts) and prints per function
 * the bundle size, how many project files it holds, and, each in a fresh Node process running the
 * bundle file: the cold start (process start + module load) and the first handler call.
 *
 *   npm run bench:functions [-- --runs 5]
 *
 * The first call runs where its AWS calls can be answered here: validate-input writes the matrix
 * to the embedded S3 server (versitygw, loopback); teardown and janitor call EC2, which cannot run here, so their first call is given an event the handler itself
 * rejects before any AWS call — it measures the handler's own path, not AWS's latency, and is
 * labelled so. The figures are medians over --runs fresh processes.
 */
import Table from 'cli-table3';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failScript, scriptOptions } from '../script-cli';
import { cleanupAll } from '../../runner/core/cleanup';
import { startEmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { functionBundleContents } from '../fixtures/function-bundles';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const values = scriptOptions('bench:functions', { runs: { type: 'string', default: '5' } }, ['runs']);
const runs = Math.max(1, Number(values.runs));

/** The first call each function gets, and what it stands for. */
const FIRST_CALL: Record<string, { event: unknown; note: string }> = {
  'validate-input': { event: { input: { profile: 'quick' } }, note: 'quick profile checked, matrix written to the embedded S3 server' },
  teardown: { event: { runId: 'not-a-run' }, note: 'rejected by the handler (bad run id): its own path only, EC2 cannot run here' },
  janitor: { event: { dryRun: true }, note: 'calls EC2, which cannot run here: module load only' },
};

/** Runs in a fresh process: loads the bundle, calls the handler once, prints both times. */
const PROBE = `
const t0 = performance.now();
const mod = require(process.argv[1]);
const loaded = performance.now();
const event = JSON.parse(process.argv[2] || 'null');
(async () => {
  let called = null, outcome = 'not called';
  if (event !== null) {
    const c0 = performance.now();
    try { await mod.handler(event); outcome = 'ok'; } catch (e) { outcome = (e && (e.name || e.message)) || String(e); }
    called = performance.now() - c0;
  }
  process.stdout.write('\\nS3AB-BENCH ' + JSON.stringify({ loadMs: loaded - t0, firstCallMs: called, outcome }) + '\\n');
})();`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-bench-functions-'));
  const server = await startEmbeddedEndpoint();
  try {
    const bundles = functionBundleContents(dir, true);
    const env = {
      ...process.env, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: server.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: server.target.credentials!.secretAccessKey,
      S3AB_S3_ENDPOINT: server.target.endpointUrl, RESULTS_BUCKET: server.target.bucket, S3AB_HOME: process.cwd(), AWS_EC2_METADATA_DISABLED: 'true',
      POWERTOOLS_METRICS_NAMESPACE: 's3-access-bench', POWERTOOLS_SERVICE_NAME: 'bench', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const table = new Table({ head: ['function', 'bundle', 'project files', 'cold start (process + load)', 'first call', 'first call is'], style: { head: [], border: [] } });
    for (const b of bundles) {
      const call = FIRST_CALL[b.entry];
      const samples: { wallMs: number; loadMs: number; firstCallMs: number | null; outcome: string }[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const r = spawnSync(process.execPath, ['-e', PROBE, b.path, call && b.entry !== 'janitor' ? JSON.stringify(call.event) : ''], { env, encoding: 'utf8' });
        const wallMs = performance.now() - t0;
        if (r.status !== 0) throw new Error(`${b.entry}: the bundle did not load: ${r.stderr.split('\n').filter((l) => l.trim() && !/^\s+at /.test(l)).slice(0, 6).join(' | ')}`);
        const line = r.stdout.split('\n').reverse().find((l) => l.startsWith('S3AB-BENCH '));
        if (!line) throw new Error(`${b.entry}: the probe printed no result: ${r.stdout.slice(-300)} ${r.stderr.slice(-300)}`);
        samples.push({ wallMs, ...JSON.parse(line.slice('S3AB-BENCH '.length)) });
      }
      const first = samples.map((s) => s.firstCallMs).filter((x): x is number => x !== null);
      table.push([
        b.entry, `${(b.bytes / 1024).toFixed(0)} KiB`, String(b.files.length),
        `${median(samples.map((s) => s.wallMs - (s.firstCallMs ?? 0))).toFixed(0)} ms (load ${median(samples.map((s) => s.loadMs)).toFixed(0)} ms)`,
        first.length ? `${median(first).toFixed(0)} ms (${samples[0].outcome})` : '–',
        call?.note ?? 'not measured here (needs its AWS service or a mount)',
      ]);
    }
    process.stdout.write(`function bundles as deployed (lib/function-bundles.ts), medians of ${runs} fresh Node ${process.version} processes on this host:\n${table.toString()}\n`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    await cleanupAll();
  }
}

void main().catch((err) => failScript('bench:functions', err));
