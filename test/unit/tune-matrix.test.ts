import { CATALOG } from '../../runner/catalog';
import { problemOf } from '../helpers/user-error';
import { expandSteps, resolveMatrix } from '../../runner/core/matrix';
import { tuningGrids } from '../../runner/core/tune';


const grid = (tune: Record<string, unknown[]>, extra: object = {}) => ({
  repetitions: 2,
  methods: ['s3-api', { name: 'mountpoint', tune, ...extra }],
  workloads: { 'large-read': { size: '8MiB' } },
});

describe('tune: option grids in the matrix', () => {
  test('a grid expands into one variant per setting, named after its settings, each with its options', () => {
    const m = resolveMatrix(grid({ part_size: ['8MiB', '16MiB'], max_threads: [4, 16] }), 'test', CATALOG);
    const mp = m.methods.filter((c) => c.name === 'mountpoint');
    expect(mp.map((c) => c.variant)).toEqual([
      'part_size=8MiB,max_threads=4', 'part_size=8MiB,max_threads=16', 'part_size=16MiB,max_threads=4', 'part_size=16MiB,max_threads=16',
    ]);
    expect(mp[3].options).toMatchObject({ part_size: '16MiB', max_threads: 16, allow_delete: true, cache: false });
    expect(mp[3].tune).toEqual({ grid: 'mountpoint', settings: { part_size: '16MiB', max_threads: 16 }, halving: true });
    // The whole grid is planned: every setting runs every repetition (halving may cut it short).
    expect(expandSteps(m)).toHaveLength((1 + 4) * 2);
  });

  test('a grid over a named variant keeps that variant\'s options and says so in its names', () => {
    const m = resolveMatrix(grid({ metadata_ttl: ['60', 'indefinite'] }, { variant: 'cached', halving: false }), 'test', CATALOG);
    const mp = m.methods.filter((c) => c.name === 'mountpoint');
    expect(mp.map((c) => c.variant)).toEqual(['cached[metadata_ttl=60]', 'cached[metadata_ttl=indefinite]']);
    expect(mp[1].options).toMatchObject({ cache: true, metadata_ttl: 'indefinite' });
    expect(tuningGrids(m.methods)).toEqual([{
      method: 'mountpoint', grid: 'mountpoint:cached', knobs: ['metadata_ttl'], halving: false, dropped: [],
      settings: [{ variant: 'cached[metadata_ttl=60]', values: { metadata_ttl: '60' } }, { variant: 'cached[metadata_ttl=indefinite]', values: { metadata_ttl: 'indefinite' } }],
    }]);
  });

  test('a knob the variants do not set is tuned through the same option plumbing', () => {
    const m = resolveMatrix({ methods: [{ name: 'rclone', tune: { buffer_size: ['0', '32MiB'] } }], workloads: { 'large-read': {} } }, 'test', CATALOG);
    expect(m.methods.map((c) => [c.variant, c.options.buffer_size, c.options.vfs_cache_mode])).toEqual([['buffer_size=0', '0', 'writes'], ['buffer_size=32MiB', '32MiB', 'writes']]);
  });

  test('a value outside the documented range is refused, naming the range and its source', () => {
    expect(problemOf(() => resolveMatrix(grid({ part_size: ['8MiB', '1MiB'] }), 'm.json', CATALOG)))
      .toBe('m.json: methods[1].tune.part_size: "1MiB" is outside mountpoint\'s documented range for part_size | part_size takes a size from 5MiB to 5GiB (default 8MiB; mount-s3 --help (Mountpoint\'s doc/CONFIGURATION.md); S3\'s part limits, 5 MiB to 5 GiB)');
    expect(problemOf(() => resolveMatrix({ methods: [{ name: 's3fs', tune: { parallel_count: [0, 5] } }], workloads: { 'small-reads': {} } }, 'm.json', CATALOG)))
      .toMatch(/methods\[0\]\.tune\.parallel_count: 0 is outside s3fs's documented range .* \| parallel_count takes a whole number from 1 to 1000/);
  });

  test('an unknown knob, a knob fixed and tuned at once, a method without knobs and a huge grid are refused', () => {
    expect(problemOf(() => resolveMatrix(grid({ partsize: ['8MiB'] }), 'm', CATALOG))).toMatch(/mountpoint has no knob "partsize" \| its knobs are: part_size \(a size from 5MiB to 5GiB, default 8MiB\); max_threads/);
    expect(problemOf(() => resolveMatrix(grid({ max_threads: [4] }, { options: { max_threads: 8 } }), 'm', CATALOG))).toMatch(/max_threads is both fixed in "options" and tuned in "tune"/);
    expect(problemOf(() => resolveMatrix({ methods: [{ name: 's3-api', tune: { concurrency: [1, 2] } }], workloads: { objects: {} } }, 'm', CATALOG))).toMatch(/s3-api has no knob "concurrency" \| s3-api declares no knobs to tune; compare its variants/);
    const many = Array.from({ length: 9 }, (_, i) => i + 1);
    expect(problemOf(() => resolveMatrix(grid({ max_threads: many, metadata_ttl: many }), 'm', CATALOG))).toMatch(/expands to 81 settings, more than 64/);
    expect(problemOf(() => resolveMatrix(grid({ max_threads: [] }), 'm', CATALOG))).toMatch(/tune\.max_threads/);
  });
});
