import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crateHash as fleetCrateHash } from '../../lib/runner-setup-script';
import { INSTALL, type InstallRegistry, installCommand, missingRecipes, pinnedVersions } from '../../runner/core/install';
import { crateHash as localCrateHash, failureLines, LINE_COLUMNS, setupLine, shownVersion, wanted } from '../../runner/install/setup.mjs';
import { METHOD_DESCRIPTORS } from '../../runner/methods/catalog';
import { WORKLOAD_DESCRIPTORS } from '../../runner/workloads/catalog';
import { ROOT } from '../helpers/cli';

const components = Object.keys(INSTALL.components);
const methodNeeds = Object.values(INSTALL.methods).flatMap((m) => m.needs);
const workloadNeeds = Object.values(INSTALL.workloads).flat();

describe('assets/install.json: the install registry', () => {
  test('every method of the catalog says what it needs and where it runs, and nothing else is listed', () => {
    expect(Object.keys(INSTALL.methods).sort()).toEqual(METHOD_DESCRIPTORS.map((m) => m.name).sort());
    for (const m of Object.values(INSTALL.methods)) expect(m.runsOn.length).toBeGreaterThan(0);
  });
  test('workload needs name workloads of the catalog', () => {
    for (const w of Object.keys(INSTALL.workloads)) expect(WORKLOAD_DESCRIPTORS.map((d) => d.name)).toContain(w);
  });
  test('every need, the base and the test set name components', () => {
    const named = [...methodNeeds, ...workloadNeeds, ...INSTALL.base, ...INSTALL.tests];
    expect(named.length).toBeGreaterThan(5);
    for (const c of named) expect(components).toContain(c);
  });
  test('the tests install every component a method or workload needs, but a vendor\'s package, which no registry has', () => {
    for (const c of [...methodNeeds, ...workloadNeeds]) {
      if (INSTALL.components[c].local.kind === 'vendor') expect(INSTALL.tests).not.toContain(c);
      else expect(INSTALL.tests).toContain(c);
    }
    // ObjectiveFS: setup looks for the vendor's client and says where it comes from; `s3ab list` offers no install command.
    expect(INSTALL.components.objectivefs.local).toMatchObject({ kind: 'vendor', bin: 'mount.objectivefs', how: expect.stringContaining('objectivefs.com') });
    expect(installCommand('objectivefs')).toBeNull();
  });

  test('every component of a method has a recipe for each place the method claims to run', () => {
    expect(missingRecipes()).toEqual([]);
    // Workloads run wherever their method does: both places.
    for (const c of workloadNeeds) expect([c, INSTALL.components[c].local && INSTALL.components[c].runner ? 'both' : 'not both']).toEqual([c, 'both']);
  });
  test('the check fails on a registry that lacks a recipe for a claimed place', () => {
    const holed = JSON.parse(JSON.stringify(INSTALL)) as InstallRegistry;
    delete holed.components.rclone.runner;
    holed.methods.juicefs.needs.push('nowhere');
    expect(missingRecipes(holed)).toEqual(['rclone runs on runners, but "rclone" has no runner recipe', 'juicefs needs "nowhere", which is not a component']);
  });

  test('one version per client: both places share the pin, or the registry says why not', () => {
    for (const [name, c] of Object.entries(INSTALL.components)) {
      if (!c.runner) continue;
      const differs = [c.local.version, c.runner.version].some((v) => v !== undefined && v !== c.version);
      if (differs || !c.version) expect([name, c.versionNote]).toEqual([name, expect.stringMatching(/.{20}/)]);
    }
    expect(pinnedVersions('rclone')).toEqual(['rclone 1.75.2 (here and on runners)']);
    expect(pinnedVersions('s3fs')).toEqual(['s3fs 1.90 here, 1.95 on runners']);
    expect(pinnedVersions('mountpoint')).toEqual(['mountpoint-s3-fs 0.11.0 here, mount-s3 1.24.0 on runners']);
    expect(pinnedVersions('s3-api')).toEqual([]);
  });
  test('Mountpoint: the launcher\'s mountpoint-s3-fs is the version the runners\' mount-s3 release is built on', () => {
    const toml = readFileSync(join(ROOT, 'crates', 'mount-s3-launcher', 'Cargo.toml'), 'utf8');
    expect(toml).toContain(`mountpoint-s3-fs = "=${INSTALL.components.mountpoint.version}"`);
    expect(INSTALL.components.mountpoint.versionNote).toContain(`mount-s3 ${INSTALL.components.mountpoint.runner!.release}`);
  });

  test('cargo components: a crate with its lockfile (every build is --locked) and the Rust its edition needs', () => {
    const cargo = Object.entries(INSTALL.components).filter(([, c]) => c.local.kind === 'cargo');
    expect(cargo.map(([name]) => name)).toEqual(expect.arrayContaining(['mountpoint', 's3-crt-client']));
    for (const [, { local }] of cargo.filter(([, c]) => !c.local.registryCrate)) {
      for (const f of ['Cargo.toml', 'Cargo.lock', 'build.rs', join('src', 'main.rs')]) expect(existsSync(join(ROOT, local.crate!, f))).toBe(true);
      const [major, minor] = local.minRust!.split('.').map(Number);
      // Edition 2024 came with Rust 1.85.
      if (/^edition = "2024"/m.test(readFileSync(join(ROOT, local.crate!, 'Cargo.toml'), 'utf8'))) expect(major * 1000 + minor).toBeGreaterThanOrEqual(1085);
    }
    // The s3-crt method's client: compiled from crates/s3-crt-client here and on an EC2 runner.
    expect(INSTALL.methods['s3-crt'].needs).toEqual(['s3-crt-client']);
    expect(INSTALL.components['s3-crt-client']).toMatchObject({ local: { kind: 'cargo', crate: 'crates/s3-crt-client', bin: 's3ab-s3-crt' }, runner: { kind: 'cargo' } });
  });
  test('a crates.io crate is pinned to one version and names the Rust it needs', () => {
    const registryCrates = Object.entries(INSTALL.components).filter(([, c]) => c.local.kind === 'cargo' && c.local.registryCrate);
    expect(registryCrates.map(([name]) => name)).toEqual(['zerofs']);
    for (const [name, c] of registryCrates) {
      expect([name, c.version]).toEqual([name, expect.stringMatching(/^\d+\.\d+\.\d+$/)]);
      expect(c.local.minRust).toMatch(/^\d+\.\d+$/);
    }
    // The same pin on runners, built there through the build cache.
    expect(pinnedVersions('zerofs')).toEqual([`zerofs ${INSTALL.components.zerofs.version} (here and on runners)`]);
    expect(INSTALL.components.zerofs.runner).toMatchObject({ kind: 'cargo', cost: [{ term: 'cargo', measured: 'zerofs' }] });
    expect(INSTALL.methods.zerofs.runsOn).toEqual(['local', 'runner']);
  });
  test('a crate is keyed alike by the local installer and the runners\' build cache', () => {
    for (const crate of ['s3-crt-client', 'mount-s3-launcher']) {
      const dir = join(ROOT, 'crates', crate);
      expect(localCrateHash(dir)).toMatch(/^[0-9a-f]{16}$/);
      expect(localCrateHash(dir)).toBe(fleetCrateHash(dir));
    }
  });

  test('install commands name what needs installing, and nothing for methods without a client here', () => {
    expect(installCommand('s3fs')).toBe('npm run setup -- s3fs');
    expect(installCommand('fio-seq')).toBe('npm run setup -- fio-seq');
    expect(installCommand('s3-api')).toBeNull();
    expect(installCommand('s3files')).toBeNull();
  });
  test('setup installs the base first, then what the names need, each once; an unknown name is refused with exit code 2', () => {
    expect(wanted(INSTALL, ['rclone', 'fio-seq', 'rclone'], false)).toEqual(['npm', 'versitygw', 'rclone', 'fio']);
    expect(wanted(INSTALL, [], true)).toEqual([...new Set([...INSTALL.base, ...INSTALL.tests])]);
    expect(() => wanted(INSTALL, ['nosuch'], false)).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringContaining('"nosuch" is not a component, method or workload') }));
  });
});

describe('setup output: one line per component (what, version, time) within 100 columns', () => {
  const longest = 'x'.repeat(300);
  test.each(components)('%s', (name) => {
    const c = INSTALL.components[name];
    const version = shownVersion(c);
    const lines = [
      setupLine(name, version, `installing ${c.what} (~${Math.round(c.estimateSeconds / 60)} min first time)`),
      setupLine(name, version, '1234.5 s of about 9 min'),
      setupLine(name, version, 'installed in 612 s'),
      ...failureLines(name, version, `cargo build --release exited with 101: ${longest}`, `.tools/logs/setup-${name}.log`),
    ];
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(LINE_COLUMNS);
    expect(LINE_COLUMNS).toBe(100);
    // The install line shows what and which version untrimmed; a failure names its log file whole.
    expect(lines[0]).toContain(c.what);
    if (version) expect(lines[0]).toContain(version);
    expect(lines[4]).toBe(`[setup]   full output: .tools/logs/setup-${name}.log`);
  });
});
