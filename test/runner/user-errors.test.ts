import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, S3AB } from '../helpers/cli';

// Every entry point a user types — each `s3ab` command and each npm script — given a bad input:
// it exits non-zero, names the problem and a fix, and prints no stack frame. The bundled CLI is
// spawned as `npm run s3ab` runs it; the tsx scripts as their npm scripts run them, without the
// build or setup step in front (tested on their own: `s3ab setup`, scripts/setup.mjs).

/** A line of a JavaScript stack trace. */
const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
/** Loopback only: a port nothing listens on. */
const UNREACHABLE = 'http://127.0.0.1:1';
const AWS_ENV = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_REGION: 'us-east-1', AWS_EC2_METADATA_DISABLED: 'true', AWS_ENDPOINT_URL: UNREACHABLE };

interface Case { argv: string[]; message: RegExp; code?: number; env?: NodeJS.ProcessEnv }

function run(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function expectUserError(c: Case): Promise<void> {
  const r = await run(c.argv, c.env);
  expect({ code: r.code, named: c.message.test(r.output), fix: /fix:/.test(r.output), stack: STACK_FRAME.exec(r.output)?.[0] ?? null, output: r.output })
    .toMatchObject({ code: c.code ?? 2, named: true, fix: true, stack: null });
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 's3ab-user-errors-'));
  // A results folder whose only step file holds no readable record, and no run manifest.
  mkdirSync(join(dir, 'unreadable', 'dt=2026-11-28'), { recursive: true });
  writeFileSync(join(dir, 'unreadable', 'dt=2026-11-28', '20261128T010000Z-abc123--s001--s3-api--objects.jsonl'), 'not json\n{"run_id":"20261128T010000Z-abc123"}\n');
  mkdirSync(join(dir, 'empty'));
  writeFileSync(join(dir, 'unknown-need.json'), JSON.stringify({ methods: ['s3fs'], workloads: { semantics: {} }, advice: { needs: ['rename', 'teleport'] } }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('s3ab: every command with a bad input exits 2, names the problem and a fix, and prints no stack trace', () => {
  const s3ab = (...args: string[]) => [process.execPath, S3AB, ...args];
  const cases: [string, () => Case][] = [
    ['run: unknown flag', () => ({ argv: s3ab('run', '--bogus'), message: /unknown option '--bogus'/ })],
    ['run: bad value', () => ({ argv: s3ab('run', '--repetitions', 'abc'), message: /'abc' is invalid\. must be a whole number/ })],
    ['run: unknown profile', () => ({ argv: s3ab('run', '--profile', 'nope'), message: /unknown profile "nope"/ })],
    ['run: missing matrix file', () => ({ argv: s3ab('run', '--matrix', join(dir, 'none.json')), message: /matrix file .*none\.json does not exist/ })],
    ['run: a matrix advice need that is not one', () => ({ argv: s3ab('run', '--matrix', join(dir, 'unknown-need.json')), message: /matrix\.advice\.needs\.1 must be one of create, .*fix: .*needs are any of: create, /s })],
    ['run: unreachable endpoint', () => ({ argv: s3ab('run', '--endpoint', UNREACHABLE, '--bucket', 'bench', '--methods', 's3-api', '--workloads', 'objects', '--results', join(dir, 'r')), message: /cannot reach the S3 endpoint http:\/\/127\.0\.0\.1:1/, env: AWS_ENV })],
    ['step: bad results URL', () => ({ argv: s3ab('step', '--matrix', join(dir, 'none.json'), '--steps', '1', '--run-id', '20261128T010000Z-abc123', '--results', 's3://b/p', '--bucket', 'bench'), message: /--results "s3:\/\/b\/p" is not s3:\/\/BUCKET\/PREFIX/ })],
    ['step: bad step list', () => ({ argv: s3ab('step', '--steps', 'abc'), message: /'abc' is invalid/ })],
    ['report: missing folder', () => ({ argv: s3ab('report', '--results', join(dir, 'none')), message: /no results folder at .*none/ })],
    ['report: empty folder', () => ({ argv: s3ab('report', '--results', join(dir, 'empty')), message: /no benchmark runs in .*empty/ })],
    ['report: bad format', () => ({ argv: s3ab('report', '--format', 'xml'), message: /'xml' is invalid/ })],
    ['report: one run to compare', () => ({ argv: s3ab('report', '--compare', 'a'), message: /--compare takes two runs, got 1/ })],
    ['list: unknown method', () => ({ argv: s3ab('list', '--require', 'nope'), message: /"nope" is not a method/ })],
    ['setup: unknown name', () => ({ argv: s3ab('setup', 'nope'), message: /"nope" is not a component, method or workload/ })],
    ['setup: unknown flag', () => ({ argv: s3ab('setup', '--bogus'), message: /unknown option --bogus/ })],
    ['setup --for-run: unknown profile', () => ({ argv: s3ab('setup', '--for-run', '--profile', 'nope'), message: /unknown profile "nope"/ })],
    ['clean: missing option', () => ({ argv: s3ab('clean', '--run', '20261128T010000Z-abc123'), message: /required option '--bucket <name>' not specified/ })],
    ['clean: unreachable endpoint', () => ({ argv: s3ab('clean', '--run', '20261128T010000Z-abc123', '--bucket', 'bench', '--endpoint', UNREACHABLE), message: /cannot reach the S3 endpoint/, env: AWS_ENV })],
    ['aws: unknown command', () => ({ argv: s3ab('aws', 'bogus'), message: /unknown command 'bogus'/ })],
    ['aws estimate: unknown profile', () => ({ argv: s3ab('aws', 'estimate', 'nope'), message: /unknown profile "nope"/ })],
    ['aws run: bad runners', () => ({ argv: s3ab('aws', 'run', '--runners', 'c7g.large:x'), message: /c7g\.large:x/ })],
    ['aws query: unreachable AWS', () => ({ argv: s3ab('aws', 'query', 'web_serving'), message: /cannot reach AWS: .*ECONNREFUSED 127\.0\.0\.1:1/, env: AWS_ENV })],
    ['aws pull: unreachable AWS (the stack\'s bucket)', () => ({ argv: s3ab('aws', 'pull'), message: /cannot reach AWS: .*ECONNREFUSED 127\.0\.0\.1:1/, env: AWS_ENV })],
    ['aws pull: unreachable S3 (a bucket by name)', () => ({ argv: s3ab('aws', 'pull', '--bucket', 's3ab-results'), message: /cannot reach AWS: .*ECONNREFUSED 127\.0\.0\.1:1/, env: AWS_ENV })],
    ['aws status: empty region', () => ({ argv: s3ab('aws', 'status'), message: /the AWS region is not a region name/, env: { ...AWS_ENV, AWS_REGION: '' } })],
  ];
  test.each(cases)('%s', async (_name, make) => expectUserError(make()));

  test('report over a folder that holds no readable measurement exits 2 and names the folder', async () => {
    const folder = join(dir, 'unreadable');
    const r = await run(s3ab('report', '--results', folder));
    expect(r.code).toBe(2);
    expect(r.output).toContain(`no readable measurement in ${folder}: 2 unreadable line(s)`);
    expect(r.output).toMatch(/fix: point --results at the folder a run wrote/);
    expect(r.output).not.toMatch(STACK_FRAME);
    // The HTML page of it too: nothing written.
    const html = await run(s3ab('report', '--results', folder, '--html', join(dir, 'page.html')));
    expect(html.code).toBe(2);
    expect(html.output).toContain(`no readable measurement in ${folder}`);
  });
});

describe('npm scripts: a bad input exits non-zero, names the problem and a fix, and prints no stack trace', () => {
  const tsx = (script: string, ...args: string[]) => [TSX, join('scripts', script), ...args];
  const cases: [string, () => Case][] = [
    ['rehearse: unknown flag', () => ({ argv: tsx('rehearse.ts', '--bogus'), message: /Unknown option '--bogus'/ })],
    ['rehearse: unknown profile', () => ({ argv: tsx('rehearse.ts', '--profile', 'nope'), message: /unknown profile "nope"/ })],
    ['rehearse: bad runners', () => ({ argv: tsx('rehearse.ts', '--runners', 'c7g.large:x'), message: /"c7g\.large:x" is not TYPE:COUNT/ })],
    ['cost:aws: unknown flag', () => ({ argv: tsx('cost-model.ts', '--bogus'), message: /Unknown option '--bogus'/ })],
    ['cost:aws: unmeasured profile', () => ({ argv: tsx('cost-model.ts', '--measure', 'nope'), message: /--measure nope: no measured model of this profile/ })],
    ['bench:transfer: bad count', () => ({ argv: tsx('bench/transfer.ts', '--rounds', 'x'), message: /--rounds x is not a whole number/ })],
    ['bench:mounts: bad size', () => ({ argv: tsx('bench/mounts.ts', '--size', '10XB'), message: /--size: "10XB" is not a size/ })],
    ['bench:fs-workloads: unknown flag', () => ({ argv: tsx('bench/fs-workloads.ts', '--bogus'), message: /Unknown option '--bogus'/ })],
    ['bench:series: bad measurement', () => ({ argv: tsx('bench/series-overhead.ts', '--only', 'foo'), message: /--only: foo is not a measurement/ })],
    ['bench:functions: bad count', () => ({ argv: tsx('bench/functions.ts', '--runs', 'x'), message: /--runs x is not a whole number/ })],
    ['bench:report: bad count', () => ({ argv: tsx('bench/report.ts', '--records', 'x'), message: /--records x is not a whole number/ })],
    ['bench:teardown: too few versions', () => ({ argv: tsx('bench/teardown.ts', '--versions', '1'), message: /--versions 1 .*too few/ })],
    ['bench:report-function: unknown flag', () => ({ argv: tsx('bench/report-function.ts', '--bogus'), message: /Unknown option '--bogus'/ })],
    ['bench:runner-setup: missing folder', () => ({ argv: tsx('bench/runner-setup.ts'), message: /--s3fs-src DIR is missing/ })],
    ['bench:quick-run: an argument', () => ({ argv: ['bash', 'scripts/bench/quick-run.sh', '--bogus'], message: /takes no options \(got: --bogus\)/ })],
    ['bench:aws-stack: an argument', () => ({ argv: ['bash', 'scripts/bench/aws-stack.sh', '--bogus'], message: /takes no options/ })],
    ['bench:first-run: an argument', () => ({ argv: ['bash', 'scripts/bench/first-run.sh', '--bogus'], message: /takes no options/ })],
    ['setup: unknown name', () => ({ argv: [process.execPath, 'scripts/setup.mjs', 'nope'], message: /"nope" is not a component, method or workload/ })],
    ['setup: unknown flag', () => ({ argv: [process.execPath, 'scripts/setup.mjs', '--bogus'], message: /unknown option --bogus/ })],
    ['setup: unknown profile', () => ({ argv: [process.execPath, 'scripts/setup.mjs', '--profile=nope'], message: /unknown profile "nope"/ })],
    ['setup: unknown optional name', () => ({ argv: [process.execPath, 'scripts/setup.mjs', '--optional=nope'], message: /"nope" is not a component, method or workload/ })],
    // The base is checked first (present: well under a second), then `s3ab run` refuses the flag.
    ['local: unknown flag', () => ({ argv: ['bash', 'scripts/local.sh', '--bogus'], message: /unknown option '--bogus'/ })],
  ];
  test.each(cases)('%s', async (_name, make) => expectUserError(make()));
});
