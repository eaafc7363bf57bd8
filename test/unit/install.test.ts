import install from '../../assets/install.json';
import { installCommand } from '../../runner/core/install';
import { METHOD_DESCRIPTORS } from '../../runner/methods/catalog';
import { WORKLOAD_DESCRIPTORS } from '../../runner/workloads/catalog';

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
  test('install commands name what needs installing, and nothing for methods without a client here', () => {
    expect(installCommand('s3fs')).toBe('npm run setup -- s3fs');
    expect(installCommand('fio-seq')).toBe('npm run setup -- fio-seq');
    expect(installCommand('s3-api')).toBeNull();
    expect(installCommand('s3files')).toBeNull();
  });
});
