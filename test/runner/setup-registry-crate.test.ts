import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup } from '../../runner/install/setup.mjs';

/**
 * A cargo component that is a crates.io crate (ZeroFS), through setup's real installer with a
 * stand-in `cargo` (a real build takes most of an hour): the pinned `cargo install` command, the
 * build cache keyed by version, and no second build when the binary is cached or installed.
 */
describe('setup: a crates.io crate (cargo install NAME@VERSION --locked), cached by its version', () => {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-test-setup-crate-'));
  const root = join(dir, 'project');
  const calls = join(dir, 'cargo-calls.txt');
  const saved = { cargoHome: process.env.CARGO_HOME, cache: process.env.S3AB_CACHE };

  beforeAll(() => {
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'assets', 'install.json'), JSON.stringify({
      components: { tinyfs: { what: 'a crates.io program', version: '1.2.3', local: { kind: 'cargo', registryCrate: 'tinyfs', bin: 'tinyfs', cacheName: 'tinyfs', minRust: '1.85' }, estimateSeconds: 1 } },
      base: [], methods: {}, workloads: {}, tests: ['tinyfs'],
    }));
    // The stand-in: answers --version like cargo 1.95, and `install` writes ROOT/bin/NAME and logs its arguments.
    const cargoHome = join(dir, 'cargo-home');
    mkdirSync(join(cargoHome, 'bin'), { recursive: true });
    writeFileSync(join(cargoHome, 'bin', 'cargo'), [
      '#!/bin/sh',
      'if [ "$1" = "--version" ]; then echo "cargo 1.95.0 (stand-in)"; exit 0; fi',
      `echo "$@" >> ${calls}`,
      'while [ $# -gt 0 ]; do if [ "$1" = "--root" ]; then ROOT=$2; fi; shift; done',
      'mkdir -p "$ROOT/bin" && printf "#!/bin/sh\\necho tinyfs 1.2.3\\n" > "$ROOT/bin/tinyfs" && chmod 755 "$ROOT/bin/tinyfs"',
    ].join('\n'));
    chmodSync(join(cargoHome, 'bin', 'cargo'), 0o755);
    process.env.CARGO_HOME = cargoHome;
    process.env.S3AB_CACHE = join(dir, 'cache');
  });
  afterAll(() => {
    for (const [name, value] of [['CARGO_HOME', saved.cargoHome], ['S3AB_CACHE', saved.cache]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const cargoCalls = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean) : []);

  test('installs the pinned version with its published lockfile, into the build cache and .tools/bin', async () => {
    const lines: string[] = [];
    expect(await setup(root, ['tinyfs'], (l) => lines.push(l))).toBe(0);
    expect(cargoCalls()).toEqual([expect.stringMatching(new RegExp(`^install tinyfs@1\\.2\\.3 --locked --root \\S+ --target-dir ${join(dir, 'cache', 'tinyfs', 'cargo-target')}$`))]);
    expect(existsSync(join(dir, 'cache', 'tinyfs', '1.2.3', 'tinyfs'))).toBe(true);
    expect(readFileSync(join(root, '.tools', 'bin', 'tinyfs.version'), 'utf8')).toBe('1.2.3\n');
    expect(lines.join('\n')).toMatch(/tinyfs\s+1\.2\.3\s+installed in/);
  });

  test('installed: nothing to do; removed from .tools: copied from the cache, not built again', async () => {
    expect(await setup(root, ['tinyfs'], () => {})).toBe(0);
    rmSync(join(root, '.tools', 'bin', 'tinyfs'));
    expect(await setup(root, ['tinyfs'], () => {})).toBe(0);
    expect(existsSync(join(root, '.tools', 'bin', 'tinyfs'))).toBe(true);
    expect(cargoCalls()).toHaveLength(1);
  });
});
