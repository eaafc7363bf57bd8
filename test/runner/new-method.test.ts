/**
 * A new method is its descriptor, its implementation, one catalog line and one install entry.
 * This test adds the test-only method of test/fixtures/method/ to a copy of the shipped tree in
 * exactly those four places, builds that copy's bundle, and measures the method with a real
 * `s3ab run` against the embedded versitygw: it mounts, reads and is recorded like any method.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { recordErrors } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';
import { ECHO_FS_INSTALL } from '../fixtures/method/registry';
import { ROOT } from '../helpers/cli';

const run = promisify(execFile);
const FIXTURE = join(ROOT, 'test', 'fixtures', 'method');
const CRATE = join('crates', 's3-crt-client');

/** A copy of what the bundle is built from; the tools and packages are the checkout's own. */
function copyOfTree(dir: string): void {
  for (const part of ['runner', 'lib', 'assets', join('scripts', 'build.mjs'), 'package.json', 'tsconfig.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  for (const f of ['Cargo.toml', 'Cargo.lock', 'build.rs', 'src']) cpSync(join(ROOT, CRATE, f), join(dir, CRATE, f), { recursive: true });
  for (const link of ['node_modules', '.tools']) symlinkSync(join(ROOT, link), join(dir, link));
}

/** The fixture's file as it lies in runner/methods/: its imports of the checkout become the folder's own. */
function asMethodFile(name: string): string {
  return readFileSync(join(FIXTURE, name), 'utf8').replaceAll("'../../../runner/methods/", "'./").replaceAll("'../../../runner/", "'../");
}

/** The four places of a new method, and nothing else. */
function addEchoFs(dir: string): void {
  const methods = join(dir, 'runner', 'methods');
  for (const file of ['echo-fs.ts', 'echo-fs.impl.ts']) writeFileSync(join(methods, file), asMethodFile(file));
  const catalogPath = join(methods, 'catalog.ts');
  const catalog = readFileSync(catalogPath, 'utf8');
  const withLine = catalog.replace(/(export const METHOD_DESCRIPTORS = \[\n[^\n]*)/, '$1 echoFsDescriptor,');
  expect(withLine).not.toBe(catalog);
  writeFileSync(catalogPath, `import { echoFsDescriptor } from './echo-fs';\n${withLine}`);
  const installPath = join(dir, 'assets', 'install.json');
  const install = JSON.parse(readFileSync(installPath, 'utf8'));
  install.methods['echo-fs'] = ECHO_FS_INSTALL;
  writeFileSync(installPath, `${JSON.stringify(install, null, 2)}\n`);
}

function readRecords(dir: string): ResultRecord[] {
  return readdirSync(dir).filter((d) => d.startsWith('dt=')).flatMap((part) => readdirSync(join(dir, part))
    .flatMap((f) => readFileSync(join(dir, part, f), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as ResultRecord)));
}

describe('a method added in its four places runs end to end', () => {
  let dir = '';
  let records: ResultRecord[] = [];
  let output = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-test-new-method-'));
    const tree = join(dir, 'tree');
    mkdirSync(tree);
    copyOfTree(tree);
    addEchoFs(tree);
    await run(process.execPath, [join(tree, 'scripts', 'build.mjs')], { cwd: tree, timeout: 240_000 });
    const results = join(dir, 'results');
    const r = await run(process.execPath, [join(tree, 'dist', 's3ab.js'), 'run', '--methods', 'echo-fs', '--workloads', 'small-reads',
      '--cache', 'cold,warm', '--repetitions', '1', '--results', results, '--no-html'], { cwd: dir, timeout: 300_000, maxBuffer: 16 << 20 });
    output = r.stdout + r.stderr;
    records = readRecords(results);
  }, 600_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the run measures it: cold and warm small reads through its mount, verified, in the result schema', () => {
    const mine = records.filter((r) => r.method === 'echo-fs');
    for (const r of mine) expect(recordErrors(r)).toEqual([]);
    const reads = mine.filter((r) => r.operation === 'read');
    expect(reads.map((r) => r.cache).sort()).toEqual(['cold', 'warm']);
    for (const r of reads) {
      expect({ status: r.status, verified: r.verified, error: r.error_sample }).toEqual({ status: 'ok', verified: true, error: null });
      expect(r.ops).toBeGreaterThan(0);
      expect(r.bytes).toBe(r.ops * r.object_size_bytes!);
    }
    expect(mine[0].method_version).toMatch(/^echo-fs 0\.1\.0 \(rclone v1\./);
    expect(mine[0].method_options).toMatchObject({ vfs_cache_mode: 'off' });
    expect(output).toMatch(/echo-fs/);
  });
});
