import { functionBundleContents, implementationFiles, type BundleContent } from '../../scripts/fixtures/function-bundles';

/**
 * Each Lambda bundle holds only what its handler calls (issue 12): the functions that check
 * matrices, poll commands, tear down and sweep runners must not carry the runner's method and
 * workload implementations (mount sessions, child processes, worker threads, tar). Read from
 * esbuild's metafile of the bundles the stack deploys.
 */
describe('function bundles', () => {
  let bundles: BundleContent[];
  let implementations: string[];
  beforeAll(() => {
    bundles = functionBundleContents();
    implementations = implementationFiles();
  }, 120_000);

  test('the implementation files are known (a guard against an empty list that would pass anything)', () => {
    expect(implementations).toEqual(expect.arrayContaining(['runner/methods/kit/mount-session.ts', 'runner/methods/s3-api.impl.ts', 'runner/workloads/metadata.impl.ts']));
    expect(implementations.length).toBeGreaterThan(20);
  });

  test.each(['validate-input', 'teardown', 'janitor'])('%s holds no method or workload implementation', (entry) => {
    const bundle = bundles.find((b) => b.entry === entry);
    expect(bundle).toBeDefined();
    expect(bundle!.files.length).toBeGreaterThan(0);
    expect(bundle!.files.filter((f) => implementations.includes(f))).toEqual([]);
  });

  test('validate-input checks matrices against the descriptors (runner/catalog.ts), nothing more', () => {
    const files = bundles.find((b) => b.entry === 'validate-input')!.files;
    expect(files).toEqual(expect.arrayContaining(['runner/catalog.ts', 'runner/core/matrix.ts', 'runner/methods/catalog.ts', 'runner/workloads/catalog.ts']));
    expect(files.filter((f) => /^runner\/(run|endpoint|report|cli)\//.test(f))).toEqual([]);
  });
});
