import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOG } from '../../runner/catalog';
import { UserError } from '../../runner/core/errors';
import { loadMatrixFile, resolveMatrix } from '../../runner/core/matrix';
import { checkEnvironment, checkRunOptions } from '../../runner/run/policy';

const resolve = (m: unknown) => resolveMatrix(m, 'matrix.json', CATALOG);
const problem = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof UserError) return `${err.problem} | ${err.fix}`;
    throw err;
  }
  throw new Error('no UserError');
};

describe('bad input is refused before anything is created, naming the problem and the fix', () => {
  test('a size with an unknown unit lists the valid units', () => {
    expect(problem(() => resolve({ methods: ['s3-api'], workloads: { objects: { sizes: ['10XB'] } } })))
      .toMatch(/sizes\.0 is not a size: write bytes, or a number with one of the units B, KB, MB, GB, TB .* KiB, MiB, GiB, TiB/);
  });
  test('a size above S3\'s 5 TiB object maximum', () => {
    expect(problem(() => resolve({ methods: ['s3-api'], workloads: { objects: { sizes: ['1KiB', '6TiB'] } } }))).toMatch(/sizes\[1\] is 6TiB, above S3's largest object \(5 TiB\)/);
    expect(() => resolve({ methods: ['s3-api'], workloads: { objects: { sizes: ['5TiB'] } } })).not.toThrow();
  });
  test('a oneOf error names the alternative the input resembles', () => {
    // {"optional":"yes"} is the object form of a method: the complaint is about "optional", not "must be string".
    expect(problem(() => resolve({ methods: [{ name: 's3-api', optional: 'yes' }], workloads: { objects: {} } }))).toMatch(/methods\.0\.optional must be boolean/);
  });
  test('a method listed twice with the same options is refused', () => {
    expect(problem(() => resolve({ methods: ['s3-api', 's3-api'], workloads: { objects: {} } }))).toMatch(/methods\[1\] repeats methods\[0\] \(s3-api, variant default/);
  });
  test('listed twice with different options, both run under labels that tell them apart', () => {
    const m = resolve({ methods: [{ name: 's3-api', options: { concurrency: 1 } }, { name: 's3-api', options: { concurrency: 16 } }, 'aws-cli'], workloads: { objects: {} } });
    expect(m.methods.map((x) => x.variant)).toEqual(['default[concurrency=1]', 'default[concurrency=16]', 'default']);
  });
  test('a matrix file that is a folder, unreadable, or missing says which', () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-badinput-'));
    try {
      expect(problem(() => loadMatrixFile(dir))).toMatch(/is a directory \| give the path of a matrix JSON file/);
      expect(problem(() => loadMatrixFile(join(dir, 'none.json')))).toMatch(/does not exist/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test('an empty region and S3AB_* variables that make no sense', () => {
    expect(problem(() => checkRunOptions({ region: '' }))).toMatch(/--region is empty/);
    expect(() => checkRunOptions({ region: 'auto' })).not.toThrow();
    expect(problem(() => checkEnvironment({ S3AB_LINK_LIMIT_MIBS: 'lots' }, () => true))).toMatch(/S3AB_LINK_LIMIT_MIBS="lots" is not a positive number/);
    expect(problem(() => checkEnvironment({ S3AB_TMP: '/nowhere' }, () => false))).toMatch(/S3AB_TMP="\/nowhere" is not a directory/);
    expect(() => checkEnvironment({ S3AB_LINK_LIMIT_MIBS: '1192', S3AB_TMP: '/dev/shm' }, () => true)).not.toThrow();
  });
});
