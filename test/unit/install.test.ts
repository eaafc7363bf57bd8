import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import install from '../../assets/install.json';
import { installCommand } from '../../runner/core/install';
import { METHOD_DESCRIPTORS } from '../../runner/methods/catalog';
import { WORKLOAD_DESCRIPTORS } from '../../runner/workloads/catalog';
import { ROOT } from '../helpers/cli';

describe('assets/install.json: what each method and workload needs', () => {
  const components = Object.keys(install.components);
  test('every method of the catalog says what it needs, and nothing else is listed', () => {
    expect(Object.keys(install.methods).sort()).toEqual(METHOD_DESCRIPTORS.map((m) => m.name).sort());
  });
  test('workload needs name workloads of the catalog', () => {
    for (const w of Object.keys(install.workloads)) expect(WORKLOAD_DESCRIPTORS.map((d) => d.name)).toContain(w);
  });
  test('every need, the base and the test set name components', () => {
    const named = [...Object.values(install.methods).flat(), ...Object.values(install.workloads).flat(), ...install.base, ...install.tests];
    expect(named.length).toBeGreaterThan(5);
    for (const c of named) expect(components).toContain(c);
  });
  test('the tests install every component a method or workload needs', () => {
    for (const c of [...Object.values(install.methods).flat(), ...Object.values(install.workloads).flat()]) expect(install.tests).toContain(c);
  });
  test('cargo components: a crate with its lockfile (every build is --locked) and the Rust its edition needs', () => {
    const cargo = Object.entries(install.components as Record<string, { kind: string; crate?: string; bin?: string; minRust?: string }>).filter(([, c]) => c.kind === 'cargo');
    expect(cargo.map(([name]) => name)).toEqual(expect.arrayContaining(['mountpoint', 's3-crt-client']));
    for (const [, c] of cargo) {
      for (const f of ['Cargo.toml', 'Cargo.lock', 'build.rs', join('src', 'main.rs')]) expect(existsSync(join(ROOT, c.crate!, f))).toBe(true);
      const [major, minor] = c.minRust!.split('.').map(Number);
      // Edition 2024 came with Rust 1.85.
      if (/^edition = "2024"/m.test(readFileSync(join(ROOT, c.crate!, 'Cargo.toml'), 'utf8'))) expect(major * 1000 + minor).toBeGreaterThanOrEqual(1085);
    }
    // The s3-crt method's client: compiled from crates/s3-crt-client here (scripts/setup.mjs) and on
    // an EC2 runner (lib/runner-fleet.ts, from the copy the runner bundle ships: scripts/build.mjs).
    expect(install.methods['s3-crt']).toEqual(['s3-crt-client']);
    expect(install.components['s3-crt-client']).toMatchObject({ kind: 'cargo', crate: 'crates/s3-crt-client', bin: 's3ab-s3-crt' });
  });
  test('install commands name what needs installing, and nothing for methods without a client here', () => {
    expect(installCommand('s3fs')).toBe('npm run setup -- s3fs');
    expect(installCommand('fio-seq')).toBe('npm run setup -- fio-seq');
    expect(installCommand('s3-api')).toBeNull();
    expect(installCommand('s3files')).toBeNull();
  });
});
