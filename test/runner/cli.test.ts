import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { cleanupAll } from '../../runner/core/cleanup';
import { kernelHasNfs } from '../../runner/core/mounts-table';
import { S3AB, alive, s3ab } from '../helpers/cli';
import { profileNames } from '../../runner/core/matrix';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const tmp = () => mkdtempSync(join(tmpdir(), 's3ab-cli-'));

/** A loopback port with nothing listening. */
async function deadPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Asserts the bad-input contract: exit 2, a message naming the problem and the fix, no results. */
function expectRejected(r: { code: number | null; stderr: string }, results: string, problem: RegExp, fix: RegExp) {
  expect(r.stderr).toMatch(problem);
  expect(r.stderr).toMatch(fix);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(r.code).toBe(2);
  expect(existsSync(results)).toBe(false);
}

describe('s3ab CLI', () => {
  test('--help lists the commands and run\'s flags', async () => {
    const top = await s3ab(['--help']);
    expect(top.code).toBe(0);
    for (const c of ['run', 'report', 'list']) expect(top.stdout).toContain(c);
    const run = await s3ab(['run', '--help']);
    for (const f of ['--profile', '--matrix', '--methods', '--workloads', '--repetitions', '--results', '--endpoint', '--bucket', '--region']) {
      expect(run.stdout).toContain(f);
    }
  });

  test('list shows methods with availability, workloads and profiles', async () => {
    const r = await s3ab(['list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/s3-api\s+│ object\s+│ yes/);
    expect(r.stdout).toMatch(/aws-cli\s+│ object\s+│ yes\s+│ aws-cli 2\./);
    for (const w of ['objects', 'dir-walk', 'large-read', 'small-reads', 'quick', 'seed', 'full']) expect(r.stdout).toContain(w);
    expect(r.stdout).toMatch(/juicefs\s+│ mount\s+│ yes\s+│ juicefs 1\.4\.2/);
    // ZeroFS mounts with the kernel's NFS client, which this host's kernel lacks: the row says so.
    if (!kernelHasNfs()) expect(r.stdout).toMatch(/zerofs\s+│ mount\s+│ no\s+│ needs a kernel NFS client, and this kernel has none/);
  });

  test('list explains why a method is missing on this host', async () => {
    const r = await s3ab(['list'], { env: { S3AB_AWS_CLI: '/nonexistent/aws' } });
    expect(r.stdout).toMatch(/aws-cli\s+│ object\s+│ no\s+│ S3AB_AWS_CLI=\/nonexistent\/aws is not an AWS CLI v2/);
  });

  test('list --require passes when the methods are here and fails naming each missing one and why', async () => {
    const ok = await s3ab(['list', '--require', 's3-api,aws-cli']);
    expect(ok.code).toBe(0);
    const missing = await s3ab(['list', '--require', 's3-api,aws-cli'], { env: { S3AB_AWS_CLI: '/nonexistent/aws' } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/required methods are not available on this host: aws-cli: S3AB_AWS_CLI=\/nonexistent\/aws is not an AWS CLI v2/);
    expect(missing.stderr).not.toMatch(/s3-api:/);
    const typo = await s3ab(['list', '--require', 's3fss']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/"s3fss" is not a method.*\n.*use one of: s3-api, s3-crt, aws-cli, s3fs/);
  });

  describe('bad input: one clear line, exit 2, nothing created', () => {
    const results = join(tmpdir(), `s3ab-never-${process.pid}`);
    test('unknown method', async () => {
      expectRejected(await s3ab(['run', '--methods', 's3-apii', '--results', results]), results, /"s3-apii" is not a method/, /use one of: s3-api, s3-crt, aws-cli/);
    });
    test('unknown workload', async () => {
      expectRejected(await s3ab(['run', '--workloads', 'walk', '--results', results]), results, /workloads\.walk is not a workload/, /objects, dir-walk/);
    });
    test('unknown profile', async () => {
      expectRejected(await s3ab(['run', '--profile', 'fast', '--results', results]), results, /unknown profile "fast"/, new RegExp(`use one of: ${profileNames().join(', ')} `));
    });
    test('malformed matrix file', async () => {
      const dir = tmp();
      const file = join(dir, 'm.json');
      writeFileSync(file, '{ "methods": ["s3-api"], ');
      expectRejected(await s3ab(['run', '--matrix', file, '--results', results]), results, /is not valid JSON/, /fix the JSON syntax/);
      writeFileSync(file, JSON.stringify({ methods: ['s3-api'], workloads: { objects: { sizes: ['1KiB'], files: -1 } } }));
      expectRejected(await s3ab(['run', '--matrix', file, '--results', results]), results, /workloads\.objects\.files must be >= 1/, /parameters of objects/);
      rmSync(dir, { recursive: true });
    });
    test('missing matrix file', async () => {
      expectRejected(await s3ab(['run', '--matrix', '/nonexistent.json', '--results', results]), results, /does not exist/, /check the path/);
    });
    test('bad repetitions', async () => {
      const r = await s3ab(['run', '--repetitions', 'zero', '--results', results]);
      expect(r.stderr).toMatch(/must be a whole number/);
      expect(r.code).not.toBe(0);
      expect(existsSync(results)).toBe(false);
    });
    test('a method missing on this host', async () => {
      expectRejected(await s3ab(['run', '--results', results], { env: { S3AB_AWS_CLI: '/nonexistent/aws' } }), results,
        /method "aws-cli" is not available on this host/, /leave it out with --methods s3-api/);
    });
    test('a method missing on this host that the user names is not optional: s3files with --methods', async () => {
      // The seed profile lists s3files as optional; naming it with --methods asks for it.
      expectRejected(await s3ab(['run', '--profile', 'seed', '--methods', 's3-api,s3files', '--results', results]), results,
        /method "s3files" is not available on this host: needs an NFS client: AWS only/, /leave it out with --methods s3-api/);
    });
    test('a matrix whose every method is optional and missing here measures nothing: rejected', async () => {
      const dir = tmp();
      const file = join(dir, 'm.json');
      writeFileSync(file, JSON.stringify({ methods: [{ name: 's3files', optional: true }], workloads: { 'small-reads': {} } }));
      expectRejected(await s3ab(['run', '--matrix', file, '--results', results]), results,
        /nothing to measure here: every method of the matrix is optional and not available on this host \(s3files: needs an NFS client: AWS only/, /add a method that runs here/);
      rmSync(dir, { recursive: true });
    });
    test('--endpoint without --bucket, and a URL that is not one', async () => {
      expectRejected(await s3ab(['run', '--endpoint', 'http://127.0.0.1:9', '--results', results]), results, /--endpoint needs --bucket/, /--bucket NAME/);
      expectRejected(await s3ab(['run', '--endpoint', '127.0.0.1:9000', '--bucket', 'b', '--results', results]), results, /is not a URL/, /http:\/\/HOST:PORT/);
    });
    test('an unreachable endpoint', async () => {
      const port = await deadPort();
      expectRejected(await s3ab(['run', '--endpoint', `http://127.0.0.1:${port}`, '--bucket', 'bench', '--results', results],
        { env: { AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y' } }), results, /cannot reach the S3 endpoint http:\/\/127\.0\.0\.1:\d+/, /check the URL/);
    });

    describe('against a live server', () => {
      let server: EmbeddedEndpoint;
      beforeAll(async () => {
        server = await startEmbeddedEndpoint();
      });
      afterAll(async () => {
        await server.stop();
        await cleanupAll();
      });
      const creds = () => ({ AWS_ACCESS_KEY_ID: server.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: server.target.credentials!.secretAccessKey });

      test('wrong credentials', async () => {
        expectRejected(await s3ab(['run', '--endpoint', server.target.endpointUrl!, '--bucket', server.target.bucket, '--results', results],
          { env: { AWS_ACCESS_KEY_ID: 'wrong', AWS_SECRET_ACCESS_KEY: 'wrong-secret' } }), results, /refused the credentials/, /AWS_ACCESS_KEY_ID/);
      });
      test('a missing bucket', async () => {
        expectRejected(await s3ab(['run', '--endpoint', server.target.endpointUrl!, '--bucket', 'no-such-bucket', '--results', results], { env: creds() }),
          results, /bucket "no-such-bucket" does not exist/, /create it first/);
      });
      test('a named endpoint works with the standard credential chain and is left clean', async () => {
        const dir = tmp();
        const r = await s3ab(['run', '--endpoint', server.target.endpointUrl!, '--bucket', server.target.bucket, '--workloads', 'small-reads',
          '--repetitions', '1', '--results', dir], { env: creds() });
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/COMPLETE/);
        expect(r.stdout).toMatch(/small-reads/);
        const { ReferenceStore } = await import('../../runner/endpoint/reference');
        const { makeS3Client } = await import('../../runner/endpoint/s3-client');
        const client = makeS3Client(server.target, { maxSockets: 2 });
        expect(await new ReferenceStore(client, server.target.bucket).list('s3ab/')).toEqual([]);
        client.destroy();
        rmSync(dir, { recursive: true });
      });
    });
  });

  test('an optional method missing here (s3files, as the seed profile lists it) is skipped: announced, named in the summary and the manifest, not failed', async () => {
    const results = tmp();
    // The seed profile's own s3files entry next to the SDK, at a small size (the profile's mount clients and sizes would take minutes).
    const seed = JSON.parse(readFileSync(join(__dirname, '..', '..', 'assets', 'profiles', 'seed.json'), 'utf8'));
    const s3files = seed.methods.find((m: { name?: string }) => m.name === 's3files');
    expect(s3files).toEqual({ name: 's3files', optional: true });
    const file = join(results, 'm.json');
    writeFileSync(file, JSON.stringify({ name: 'seed-style', repetitions: 1, methods: [s3files, 's3-api'], workloads: { 'small-reads': { files: 4, size: '8KiB' } } }));
    const r = await s3ab(['run', '--matrix', file, '--results', join(results, 'out'), '--no-html']);
    expect({ code: r.code, err: r.stderr }).toEqual({ code: 0, err: '' });
    // Announced before the run starts, then named in the summary.
    const announce = r.stdout.indexOf('s3files skipped (optional in the matrix): needs an NFS client: AWS only');
    expect(announce).toBeGreaterThanOrEqual(0);
    expect(announce).toBeLessThan(r.stdout.indexOf('starting the embedded S3 endpoint'));
    expect(r.stdout).toMatch(/1 steps \(2 methods, 1 optional skipped × 1 workloads × 1 repetitions\)/);
    expect(r.stdout).toContain('COMPLETE');
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/SKIPPED \(not measured, not failed\): s3files — needs an NFS client: AWS only.*\(1 steps; optional in the matrix\)/);
    expect(r.stdout).toMatch(/integrity: all 1 measurements verified/);
    // The manifest: complete, the skipped method with its reason, only the SDK's step counted; no s3files record.
    const runs = join(results, 'out', '_runs');
    const manifest = JSON.parse(readFileSync(join(runs, readdirSync(runs)[0]), 'utf8'));
    expect(manifest).toMatchObject({ status: 'complete', steps_total: 1, steps_done: 1, steps_failed: 0, skipped: [{ method: 's3files', variant: 'default', reason: expect.stringMatching(/^needs an NFS client: AWS only/), steps: 1 }] });
    const day = readdirSync(join(results, 'out')).find((d) => d.startsWith('dt='))!;
    expect(readdirSync(join(results, 'out', day))).toEqual([expect.stringMatching(/--s002--s3-api--small-reads\.jsonl$/)]);
    rmSync(results, { recursive: true, force: true });
  }, 120_000);

  test('Ctrl-C mid-run: exit 130, run marked interrupted, server stopped', async () => {
    const dir = tmp();
    const child = spawn(process.execPath, [S3AB, 'run', '--methods', 'aws-cli', '--workloads', 'objects', '--results', dir], { env: process.env });
    let out = '';
    let pid = 0;
    const code = await new Promise<number | null>((resolve) => {
      child.stdout.on('data', (c) => {
        out += c;
        pid ||= Number(/\(pid (\d+)\)/.exec(out)?.[1] ?? 0);
        if (/step 1\/3 aws-cli objects rep 1\n/.test(out) && !child.killed) setTimeout(() => child.kill('SIGINT'), 1500);
      });
      child.once('close', resolve);
    });
    expect(code).toBe(130);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
    const manifest = JSON.parse(readFileSync(join(dir, '_runs', readdirSync(join(dir, '_runs'))[0]), 'utf8'));
    expect(manifest.status).toBe('interrupted');
    expect(out).toMatch(/INTERRUPTED — results\s+incomplete/);
    rmSync(dir, { recursive: true });
  }, 60_000);
});
