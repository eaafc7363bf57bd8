import { cacheShares, cacheShareText, undeliveredShare } from '../../runner/report/cache-share';
import { withFlag } from '../../runner/report/html/parts';
import type { Cell } from '../../runner/report/model';
import type { Row } from '../../runner/report/rows';
import { verdicts } from '../../runner/report/verdicts';
import { cell, modelOf } from '../helpers/model';

/**
 * "served from cache" shows the share the server did not send, and warns only where that share
 * could change the verdict: the figure with the cached bytes charged at the rate of the rest
 * (rate × (1 − share)) falls below a method it now equals or beats (docs/honest-numbers.md).
 */
const MiB = 2 ** 20;
const read = (method: string, mibS: number, over: Partial<Cell> = {}): Cell => cell({
  workload: 'web-serving', operation: 'read', object_size_bytes: 64 * 1024, method, cache: 'cold', mib_s_min: mibS, mib_s_median: mibS, mib_s_max: mibS,
  duration_ms_min: 1e5 / mibS, duration_ms_median: 1e5 / mibS, duration_ms_max: 1e5 / mibS, ...over,
});
/** request_counts' row of a cell: the bytes read and the GET bytes the server sent for them. */
const counts = (c: Cell, bytes: number, getBytes: number): Row => ({
  workload: c.workload, operation: c.operation, io: null, object_size_bytes: c.object_size_bytes, method: c.method, method_variant: c.method_variant, cache: c.cache,
  clients: 1, comparable_key: null, bytes, get_bytes: getBytes, served_from_cache: c.served_from_cache,
});

describe('the share of a cold read served from a cache', () => {
  test('1 − GET bytes sent / bytes read: a GET-bytes ratio of 0.989 is 1.1% from cache; none where the server sent every byte', () => {
    expect(undeliveredShare({ bytes: 1000 * MiB, get_bytes: 989 * MiB })).toBeCloseTo(0.011, 6);
    expect(undeliveredShare({ bytes: 1000, get_bytes: 1200 })).toBeNull();
    expect(undeliveredShare(undefined)).toBeNull();
    expect(cacheShareText({ share: 0.011, warn: false })).toBe('1.1% from cache');
    expect(cacheShareText({ share: 0.4, warn: true })).toBe('40% from cache');
    expect(cacheShareText({ share: 0.0004, warn: false })).toBe('0.04% from cache');
    expect(cacheShareText({ share: null, warn: true })).toBe('served from cache (share unknown)');
  });

  test('1.1% from cache that cannot change the ranking: shown, no warning; the same share against a rival within 1.1%: warned', () => {
    const mp = read('mountpoint', 100, { served_from_cache: 3 });
    const far = cacheShares([mp, read('s3fs', 50)], [counts(mp, 1000 * MiB, 989 * MiB)]).get(mp)!;
    expect(far.share).toBeCloseTo(0.011, 6);
    expect(far.warn).toBe(false);
    // s3fs at 99.5: mountpoint's least figure is 98.9, below it — the cache could have made the winner.
    expect(cacheShares([mp, read('s3fs', 99.5)], [counts(mp, 1000 * MiB, 989 * MiB)]).get(mp)).toMatchObject({ warn: true });
    // A method ahead of it is not overtaken by a lower figure: the share changes nothing there.
    expect(cacheShares([mp, read('s3fs', 150)], [counts(mp, 1000 * MiB, 989 * MiB)]).get(mp)).toMatchObject({ warn: false });
  });

  test('a flagged read whose totals show every byte sent (per-object shortfall hidden by over-read), one with no counts, a warm one: share unknown, warned', () => {
    const hidden = read('mountpoint', 100, { served_from_cache: 1 });
    expect(cacheShares([hidden, read('s3fs', 10)], [counts(hidden, 1000, 1200)]).get(hidden)).toEqual({ share: null, warn: true });
    const uncounted = read('rclone', 100, { served_from_cache: 1 });
    expect(cacheShares([uncounted], []).get(uncounted)).toEqual({ share: null, warn: true });
    const warm = read('s3fs', 900, { cache: 'warm', served_from_cache: 3 });
    expect(cacheShares([warm], [counts(warm, 1000, 10)]).get(warm)).toEqual({ share: null, warn: true });
  });

  test('the page: the share beside the figure, ⚠ only where it could change the verdict', () => {
    expect(withFlag('100', { share: 0.011, warn: false })).toEqual({ html: '100 <span class="cache-share" title="the server did not send this share of the bytes read; with them charged at the rate of the rest, the ranking would not change">1.1% from cache</span>', cls: undefined });
    const warned = withFlag('100', { share: 0.011, warn: true });
    expect(warned.cls).toBe('cached');
    expect(warned.html).toContain('⚠ 1.1% from cache');
    expect(withFlag('100', true).html).toContain('⚠ cache');
    expect(withFlag('100', null, true).cls).toBe('capped');
  });

  test('the verdict names the share only where it could change it', () => {
    const mp = read('mountpoint', 100, { served_from_cache: 3 });
    const quiet = modelOf([mp, read('s3fs', 50)], { requests: [counts(mp, 1000 * MiB, 989 * MiB)] });
    expect(verdicts(quiet)[0]).toMatchObject({ best: 'mountpoint', notes: [] });
    const mp2 = read('mountpoint', 100, { served_from_cache: 3 });
    const close = modelOf([mp2, read('s3fs', 99.5)], { requests: [counts(mp2, 1000 * MiB, 989 * MiB)] });
    expect(verdicts(close)[0].notes).toContain('1.1% from cache, enough to change the verdict');
  });
});
