import { applyOverrides, loadProfile, resolveMatrix } from '../../runner/core/matrix';
import { parseSize } from '../../runner/core/units';
import { UserError } from '../../runner/core/errors';
import { findWorkload } from '../../runner/workloads';
import { planTree } from '../../runner/core/tree-plan';
import { CATALOG } from '../../runner/catalog';

/**
 * What `s3ab run --profile P --workloads W` really runs: the profile's parameters for W when it
 * lists W, else W's schema defaults. `quick` lists none of issue 4's file-system workloads, so their
 * defaults must be the small sizes (issue 4: "quick keeps each workload to seconds"), and the seed
 * sizes must come from the seed and full profiles themselves.
 */
function effective(profile: string, workload: string): Record<string, unknown> {
  const m = resolveMatrix(applyOverrides(loadProfile(profile), { workloads: [workload] }), profile, CATALOG);
  expect(m.workloads.map((w) => w.name)).toEqual([workload]);
  return m.workloads[0].params;
}

/** Bytes the workload's fixture puts in the bucket (read-scaling, web-serving). */
function fixtureBytes(workload: string, params: Record<string, unknown>): number {
  const spec = findWorkload(workload)!.fixture!(params);
  let total = 0;
  for (let i = 0; i < spec.count; i++) total += spec.sizeOf ? spec.sizeOf(i) : spec.size;
  return total;
}

const FS_WORKLOADS = ['metadata', 'git-clone', 'tar-extract', 'web-serving', 'read-scaling'];
const MB = 1_000_000;

describe('issue 4 workloads: sizes per profile', () => {
  test.each(['quick', 'mounts'])('%s keeps every file-system workload to seconds, listed in the profile or not', (profile) => {
    const p = Object.fromEntries(FS_WORKLOADS.map((w) => [w, effective(profile, w)]));
    expect(p.metadata.ops).toBeLessThanOrEqual(50);
    expect(p['git-clone'].files).toBeLessThanOrEqual(100);
    expect(p['git-clone'].commits).toBeLessThanOrEqual(10);
    expect(p['tar-extract'].files).toBeLessThanOrEqual(500);
    expect(parseSize(p['tar-extract'].totalSize as string)).toBeLessThanOrEqual(8 * MB);
    expect(p['web-serving'].files).toBeLessThanOrEqual(500);
    expect(p['web-serving'].reads).toBeLessThanOrEqual(2000);
    expect(fixtureBytes('web-serving', p['web-serving'])).toBeLessThanOrEqual(8 * MB);
    expect(Math.max(...(p['read-scaling'].sizes as string[]).map(parseSize))).toBeLessThanOrEqual(16 * MB);
    expect(fixtureBytes('read-scaling', p['read-scaling'])).toBeLessThanOrEqual(128 * MB);
  });

  test('seed carries the seeds\' sizes', () => {
    expect(effective('seed', 'metadata')).toMatchObject({ ops: 100 });
    expect(effective('seed', 'tar-extract')).toMatchObject({ files: 4280 });
    expect(effective('seed', 'web-serving')).toMatchObject({ files: 10000, readers: 16 });
    const rs = effective('seed', 'read-scaling');
    const sizes = (rs.sizes as string[]).map(parseSize);
    expect([Math.min(...sizes), Math.max(...sizes)]).toEqual([1 * MB, 1000 * MB]);
    expect(parseSize(rs.concurrentSize as string)).toBe(200 * MB);
    expect(rs.readers).toEqual([1, 4, 16]);
  });

  test('full carries the largest sizes: 10,000 metadata ops, seed 004\'s kernel tree', () => {
    expect(effective('full', 'metadata')).toMatchObject({ ops: 10000 });
    const tar = effective('full', 'tar-extract');
    expect(tar.files).toBeGreaterThanOrEqual(54000);
    expect(parseSize(tar.totalSize as string)).toBe(726 * MB);
    expect(effective('full', 'web-serving')).toMatchObject({ files: 10000, readers: 16 });
    const rs = effective('full', 'read-scaling');
    expect(Math.max(...(rs.sizes as string[]).map(parseSize))).toBe(1000 * MB);
    expect(parseSize(rs.concurrentSize as string)).toBe(200 * MB);
    expect(rs.readers).toEqual(expect.arrayContaining([1, 4, 16]));
  });
});

describe('parameters that cannot be met are refused before anything runs', () => {
  const resolveWith = (workload: string, params: object) => () => resolveMatrix({ methods: ['s3fs'], workloads: { [workload]: params } }, 'm.json', CATALOG);
  function refusal(fn: () => unknown): UserError {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(UserError);
      return err as UserError;
    }
    throw new Error('expected a UserError');
  }

  test('tar-extract: 10 files under 2 MB cannot make 100 MB (it used to write 18 MB and record "100 MB")', () => {
    const e = refusal(resolveWith('tar-extract', { files: 10, dirs: 2, totalSize: '100MB', maxSize: '2MB' }));
    expect(e.problem).toMatch(/workloads\.tar-extract: 10 files each smaller than 2 MB cannot hold totalSize 100 MB/);
    expect(e.fix).toMatch(/raise files to at least 51, raise maxSize to at least 9.5 MiB \(10000001 bytes\), or lower totalSize to at most 19.1 MiB/);
    // Exactly at capacity, and the profiles' own sizes, are accepted.
    expect(() => resolveWith('tar-extract', { files: 10, dirs: 2, totalSize: 10 * 1999, maxSize: 2000 })()).not.toThrow();
  });

  test('web-serving: a mean size at or above the largest size is refused', () => {
    const e = refusal(resolveWith('web-serving', { meanSize: '2MB', maxSize: '1MB' }));
    expect(e.problem).toMatch(/mean size 2 MB cannot all be smaller than maxSize 1 MB/);
    expect(e.fix).toMatch(/raise maxSize|lower meanSize/);
  });

  test.each([
    [10, 10 * 1999, 2000], [100, 150 * MB, 2 * MB], [200, 2 * MB, 2 * MB], [4280, 57 * MB, 2 * MB], [54000, 726 * MB, 2 * MB],
  ])('a tree of %d files holds the total asked for (%d bytes), every file under the cap', (files, totalBytes, maxFileBytes) => {
    const plan = planTree({ id: 'tar-extract', files, dirs: 3, totalBytes, maxFileBytes });
    expect(Math.abs(plan.totalBytes - totalBytes)).toBeLessThanOrEqual(files);
    expect(Math.max(...plan.files.map((f) => f.size))).toBeLessThan(maxFileBytes);
  });
});
