/**
 * The layout the layer rule (.dependency-cruiser.cjs) relies on: directly in runner/methods/ and
 * runner/workloads/ lie only descriptors (NAME.ts of a catalog entry), their implementations
 * (NAME.impl.ts, NAME.thread.ts), catalog.ts and index.ts. The rule treats everything else there as
 * descriptor-side, so a helper file dropped next to them would be checked as data; helpers belong
 * in kit/ (implementation) or runner/core (shared with descriptors).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { METHOD_DESCRIPTORS } from '../../runner/methods/catalog';
import { METHODS } from '../../runner/methods';
import { WORKLOAD_DESCRIPTORS } from '../../runner/workloads/catalog';

const RUNNER = join(__dirname, '..', '..', 'runner');

/** What may lie directly in a folder whose catalog lists `names`, and why anything else may not. */
function misplaced(folder: string, names: readonly string[]): string[] {
  const entries = readdirSync(join(RUNNER, folder), { withFileTypes: true });
  const wrong: string[] = [];
  for (const e of entries) {
    if (e.isDirectory()) {
      if (e.name !== 'kit') wrong.push(`${folder}/${e.name}/: the only folder here is kit/`);
      continue;
    }
    if (e.name === 'catalog.ts' || e.name === 'index.ts') continue;
    const m = /^(.+?)(\.impl|\.thread)?\.ts$/.exec(e.name);
    if (!m || !names.includes(m[1])) {
      wrong.push(`${folder}/${e.name}: neither a descriptor, an implementation of a catalog entry, catalog.ts nor index.ts — move it to ${folder}/kit/ (implementation helper) or runner/core/ (shared with descriptors)`);
    }
  }
  return wrong;
}

describe('runner layout', () => {
  test('runner/methods/ holds only descriptors, their implementations, catalog.ts, index.ts and kit/', () => {
    expect(misplaced('methods', METHOD_DESCRIPTORS.map((d) => d.name))).toEqual([]);
  });

  test('runner/workloads/ holds only descriptors, their implementations, catalog.ts, index.ts and kit/', () => {
    expect(misplaced('workloads', WORKLOAD_DESCRIPTORS.map((d) => d.name))).toEqual([]);
  });

  test('every catalog entry has its descriptor and implementation files', () => {
    const has = (folder: string, file: string) => readdirSync(join(RUNNER, folder)).includes(file);
    const missing = [
      ...METHOD_DESCRIPTORS.flatMap((d) => [`${d.name}.ts`, `${d.name}.impl.ts`].filter((f) => !has('methods', f)).map((f) => `methods/${f}`)),
      ...WORKLOAD_DESCRIPTORS.flatMap((d) => [`${d.name}.ts`, `${d.name}.impl.ts`].filter((f) => !has('workloads', f)).map((f) => `workloads/${f}`)),
    ];
    expect(missing).toEqual([]);
  });

  test('the catalog line is a method\'s only registration: each entry\'s client is found in its NAME.impl.ts', () => {
    expect(METHODS.map((m) => m.name)).toEqual(METHOD_DESCRIPTORS.map((d) => d.name));
    for (const m of METHODS) expect([m.name, typeof m.probe, typeof m.open]).toEqual([m.name, 'function', 'function']);
  });
});
