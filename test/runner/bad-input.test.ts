import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { s3ab } from '../helpers/cli';

/** Bad input through the real CLI: exit 2, the problem and a fix line, nothing created. */
describe('bad input exits 2 with a fix line', () => {
  let dir: string;
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 's3ab-badcli-')); });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test.each([
    [['run', '--methods', ''], /needs at least one method/],
    [['run', '--bogus'], /unknown option '--bogus'/],
    [['run', '--region', '', '--methods', 's3-api', '--workloads', 'objects'], /--region is empty/],
    [['run', '--matrix', '/tmp'], /is a directory/],
    [['run', '--methods', 's3-api,s3-api', '--workloads', 'objects'], /methods\[1\] repeats methods\[0\]/],
  ])('s3ab %j', async (args, message) => {
    const r = await s3ab([...args as string[], '--results', join(dir, 'results')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stderr).toMatch(/fix: /);
  });

  test('a run whose generated files do not fit the temp folders', async () => {
    const matrix = join(dir, 'huge.json');
    writeFileSync(matrix, JSON.stringify({ methods: ['s3-api'], workloads: { objects: { sizes: ['1KiB', '2TiB'], files: 3 } } }));
    const results = join(dir, 'r-huge');
    const r = await s3ab(['run', '--matrix', matrix, '--results', results]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the run needs about 8(\.0)? TiB of temp space but .* free/);
    expect(r.stderr).toMatch(/the largest step, objects, 8(\.0)? TiB/);
    expect(r.stderr).toMatch(/fix: lower the sizes or file counts/);
    // Nothing created: no results folder, no server started.
    expect(existsSync(results)).toBe(false);
  });

  test('a results folder that is a file', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const r = await s3ab(['run', '--methods', 's3-api', '--workloads', 'objects', '--results', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--results .* is not a folder/);
  });

  test('an endpoint that accepts connections and never answers fails the preflight within its bound', async () => {
    const frozen: Server = createServer((socket) => socket.on('data', () => {}));
    await new Promise<void>((r) => frozen.listen(0, '127.0.0.1', r));
    const port = (frozen.address() as { port: number }).port;
    try {
      const t0 = Date.now();
      const r = await s3ab(['run', '--endpoint', `http://127.0.0.1:${port}`, '--bucket', 'b', '--methods', 's3-api', '--workloads', 'objects', '--results', join(dir, 'r2')],
        { env: { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' } });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/accepted the connection but did not answer/);
      expect(Date.now() - t0).toBeLessThan(30_000);
    } finally {
      frozen.close();
    }
  }, 60_000);
});
