import { problemOf } from '../helpers/user-error';
import { applyOverrides, expandSteps, loadProfile, profileNames, resolveMatrix } from '../../runner/core/matrix';
import { parseSize, formatSize } from '../../runner/core/units';
import matrixSchema from '../../assets/schema/matrix.schema.json';
import { CATALOG } from '../../runner/catalog';
import { PRIORITIES } from '../../runner/report/advice';
import { NEED_NAMES } from '../../runner/report/advice-needs';


describe('matrix validation', () => {
  test('every profile is a valid matrix covering every method and workload it names', () => {
    expect(profileNames()).toEqual(expect.arrayContaining(['quick', 'seed', 'full']));
    for (const name of profileNames()) {
      const m = resolveMatrix(loadProfile(name), name, CATALOG);
      expect(m.methods.length).toBeGreaterThan(0);
      expect(expandSteps(m)).toHaveLength(m.methods.length * m.workloads.length * m.repetitions * m.clients.length);
    }
  });

  test('the seed profile carries the seeds\' parameters', () => {
    const m = resolveMatrix(loadProfile('seed'), 'seed', CATALOG);
    const params = Object.fromEntries(m.workloads.map((w) => [w.name, w.params]));
    expect(params.objects).toEqual({ sizes: ['1KiB', '100KiB', '1MiB', '10MiB', '100MiB'], files: 10 });
    expect(params['dir-walk']).toMatchObject({ objects: 10000 });
    expect(params['large-read']).toMatchObject({ files: 5, size: '1GiB' });
    expect(params['small-reads']).toMatchObject({ files: 1000 });
  });

  test('defaults are filled in from each workload\'s parameter schema', () => {
    const m = resolveMatrix({ methods: ['s3-api'], workloads: { 'small-reads': {} } }, 'test', CATALOG);
    expect(m.repetitions).toBe(3);
    expect(m.workloads[0].params).toEqual({ files: 1000, size: '8KiB', concurrency: 1 });
    expect(m.methods[0]).toMatchObject({ name: 's3-api', variant: 'default', options: { part_size: '8MiB', concurrency: 10 } });
  });

  test.each([
    [{ methods: ['s3fs-typo'], workloads: { objects: {} } }, /methods\[0\] "s3fs-typo" is not a method.*use one of: s3-api, s3-crt, aws-cli/],
    [{ methods: ['s3-api'], workloads: { walk: {} } }, /workloads\.walk is not a workload.*objects, dir-walk, large-read, small-reads/],
    [{ methods: ['s3-api'], workloads: { objects: { files: 0 } } }, /workloads\.objects\.files must be >= 1/],
    [{ methods: ['s3-api'], workloads: { objects: { sizes: ['ten'] } } }, /workloads\.objects\.sizes\.0/],
    [{ methods: ['s3-api'], workloads: { objects: { count: 3 } } }, /unknown field "count".*parameters of objects: sizes, files/],
    [{ methods: [{ name: 's3-api', variant: 'fast' }], workloads: { objects: {} } }, /no variant "fast".*default, single-stream/],
    [{ methods: [{ name: 's3-api', options: { threads: 4 } }], workloads: { objects: {} } }, /no option "threads".*part_size, concurrency, checksums/],
    [{ methods: [], workloads: { objects: {} } }, /matrix\.methods must NOT have fewer than 1 items/],
    [{ methods: ['s3-api'], workloads: {}, repetitions: 0 }, /matrix\.repetitions must be >= 1/],
    [{ methods: ['s3-api'], workloads: { objects: {} }, extra: true }, /unknown field "extra"/],
    [[1, 2], /matrix must be object/],
  ])('rejects %j naming the field and the valid values', (input, message) => {
    expect(problemOf(() => resolveMatrix(input, 'm.json', CATALOG))).toMatch(message);
  });

  test('a method can be optional (skipped where unavailable); --methods makes a named method wanted again', () => {
    for (const name of ['seed', 'full', 'mounts']) {
      const m = resolveMatrix(loadProfile(name), name, CATALOG);
      expect(m.methods.filter((x) => x.optional)).toEqual([expect.objectContaining({ name: 's3files', variant: 'default', optional: true })]);
    }
    // The quick profile's s3-crt is optional: its client is a cargo build of minutes, which a first
    // run does not wait for; so is its s3fs mount, skipped where the host cannot mount.
    expect(resolveMatrix(loadProfile('quick'), 'quick', CATALOG).methods.map((x) => [x.name, x.optional])).toEqual([['s3-api', false], ['s3-crt', true], ['aws-cli', false], ['s3fs', true]]);
    const named = resolveMatrix(applyOverrides(loadProfile('seed'), { methods: ['s3-api', 's3files'] }), 'seed', CATALOG);
    expect(named.methods.map((x) => [x.name, x.optional])).toEqual([['s3-api', false], ['s3files', false]]);
    expect(problemOf(() => resolveMatrix({ methods: [{ name: 's3files', optional: 'yes' }], workloads: { objects: {} } }, 'm.json', CATALOG))).toMatch(/matrix\.methods\.0/);
  });

  test('CLI overrides select methods, variants, workloads and repetitions', () => {
    const raw = loadProfile('quick');
    const m = resolveMatrix(applyOverrides(raw, { methods: ['s3-api:single-stream'], workloads: ['objects'], repetitions: 1 }), 'quick', CATALOG);
    expect(m.methods).toEqual([expect.objectContaining({ name: 's3-api', variant: 'single-stream' })]);
    expect(m.workloads.map((w) => w.name)).toEqual(['objects']);
    // The profile's own parameters are kept for the chosen workload.
    expect(m.workloads[0].params).toEqual(resolveMatrix(raw, 'quick', CATALOG).workloads.find((w) => w.name === 'objects')!.params);
    expect(m.repetitions).toBe(1);
  });
});

describe('sizes', () => {
  test.each([
    ['1KiB', 1024], ['100 KiB', 102400], ['1MB', 1_000_000], ['1GiB', 1024 ** 3], ['512', 512], [4096, 4096], ['1.5MiB', 1572864],
  ])('parses %p', (text, bytes) => expect(parseSize(text)).toBe(bytes));
  test.each(['ten', '1 XB', '-1', ''])('rejects %p', (text) => expect(() => parseSize(text)).toThrow(/is not a size/));
  test('formats', () => {
    expect(formatSize(1024)).toBe('1 KiB');
    expect(formatSize(100 * 1024)).toBe('100 KiB');
    expect(formatSize(1_000_000)).toBe('1 MB');
    expect(formatSize(1024 ** 3)).toBe('1 GiB');
  });
});

describe('the cache dimension and mount methods in matrices', () => {
  const base = { methods: ['s3fs', { name: 'mountpoint', variant: 'cached' }], workloads: { 'fio-seq': {} } };

  test('cache states default to cold, run cold before warm, and take --cache', () => {
    expect(resolveMatrix(base, 'm', CATALOG).cache).toEqual(['cold']);
    expect(resolveMatrix({ ...base, cache: ['warm', 'cold'] }, 'm', CATALOG).cache).toEqual(['cold', 'warm']);
    expect(resolveMatrix(applyOverrides(base, { cache: ['warm'] }), 'm', CATALOG).cache).toEqual(['warm']);
  });

  test('a bad cache state, variant or option is named with the valid values', () => {
    expect(problemOf(() => resolveMatrix({ ...base, cache: ['hot'] }, 'm', CATALOG))).toMatch(/matrix\.cache\.0 must be one of cold, warm/);
    expect(problemOf(() => resolveMatrix({ methods: [{ name: 's3fs', variant: 'tuned' }], workloads: { 'fio-seq': {} } }, 'm', CATALOG)))
      .toMatch(/s3fs has no variant "tuned" \| use one of: default, seed-000/);
    expect(problemOf(() => resolveMatrix({ methods: [{ name: 'rclone', options: { vfs_cache_mod: 'full' } }], workloads: { semantics: {} } }, 'm', CATALOG)))
      .toMatch(/rclone has no option "vfs_cache_mod"/);
    expect(problemOf(() => resolveMatrix({ methods: ['s3fs'], workloads: { 'fio-seq': { io: ['sync'] } } }, 'm', CATALOG)))
      .toMatch(/workloads\.fio-seq\.io\.0 must be one of direct, buffered/);
  });

  test('fio-seq defaults to seed 000\'s sizes, 10 files, libaio, O_DIRECT, blocks up to 1 MiB', () => {
    const m = resolveMatrix({ methods: ['s3fs'], workloads: { 'fio-seq': {} } }, 'm', CATALOG);
    expect(m.workloads[0].params).toEqual({ sizes: ['1KiB', '100KiB', '1MiB', '10MiB', '100MiB'], files: 10, io: ['direct'], ioengine: 'libaio', max_block_size: '1MiB' });
  });
});

describe('the matrix\'s advice (what the report\'s Advice section is asked)', () => {
  const base = { methods: ['s3fs', 'mountpoint'], workloads: { 'small-reads': {}, semantics: {} } };

  test('is null where the matrix names none', () => {
    expect(resolveMatrix(base, 'm', CATALOG).advice).toBeNull();
  });

  test('resolves needs and limits with the CLI\'s names, times to µs and ms, the priority\'s default applied', () => {
    expect(resolveMatrix({ ...base, advice: { needs: ['rename', 'append'] } }, 'm', CATALOG).advice)
      .toEqual({ needs: ['rename', 'append'], priority: 'throughput', max_cost_per_million: null, p99_under_us: null, max_delay_ms: null });
    expect(resolveMatrix({ ...base, advice: { needs: [], priority: 'cost', max_cost_per_million: 5, p99_under: '800us', max_delay: '1.5s' } }, 'm', CATALOG).advice)
      .toEqual({ needs: [], priority: 'cost', max_cost_per_million: 5, p99_under_us: 800, max_delay_ms: 1500 });
    // A bare number is milliseconds, as on the command line.
    expect(resolveMatrix({ ...base, advice: { needs: ['locks'], p99_under: 20 } }, 'm', CATALOG).advice?.p99_under_us).toBe(20_000);
  });

  test('an unknown need is refused with the valid list, as `s3ab advise --needs` refuses it', () => {
    const p = problemOf(() => resolveMatrix({ ...base, advice: { needs: ['rename', 'teleport'] } }, 'm', CATALOG));
    expect(p).toMatch(/matrix\.advice\.needs\.1 must be one of create, overwrite, append, .*, sees-s3-writes \|/);
    expect(p).toContain(`needs are any of: ${NEED_NAMES.join(', ')}`);
  });

  test('a bad priority, time, field or a missing needs list is named with the fix', () => {
    expect(problemOf(() => resolveMatrix({ ...base, advice: { needs: [], priority: 'speed' } }, 'm', CATALOG))).toMatch(/matrix\.advice\.priority must be one of throughput, p99, cost/);
    expect(problemOf(() => resolveMatrix({ ...base, advice: { needs: [], p99_under: '5 min' } }, 'm', CATALOG))).toMatch(/matrix\.advice\.p99_under is not a time: write a time above zero with us, ms or s/);
    expect(problemOf(() => resolveMatrix({ ...base, advice: { needs: [], max_delay: '0s' } }, 'm', CATALOG))).toMatch(/matrix\.advice\.max_delay is "0s", not a time above zero \| write a time/);
    expect(problemOf(() => resolveMatrix({ ...base, advice: { needs: [], p99: '5ms' } }, 'm', CATALOG))).toMatch(/matrix\.advice has an unknown field "p99" \| advice is \{"needs"/);
    expect(problemOf(() => resolveMatrix({ ...base, advice: { priority: 'cost' } }, 'm', CATALOG))).toMatch(/matrix\.advice must have required property 'needs'/);
  });

  test('the advisor\'s needs and priorities are the format\'s', () => {
    const schema = matrixSchema as unknown as { definitions: { Need: { enum: string[] }; AdvicePriority: { enum: string[] } } };
    expect([...NEED_NAMES].sort()).toEqual([...schema.definitions.Need.enum].sort());
    expect(PRIORITIES).toEqual(schema.definitions.AdvicePriority.enum);
  });
});
