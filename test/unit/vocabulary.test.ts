import resultSchema from '../../assets/schema/result.schema.json';
import { CACHE_ORDER, cacheRank, fixtureDataPrefix, isRunId, methodCacheLabel, methodLabel, newRunId, runDataPrefix, runDay, runIdOfFile, stepDataPrefix, stepLabel } from '../../runner/core/vocabulary';

describe('the one vocabulary', () => {
  test('cache states: every state of the result schema, least to most warmed', () => {
    expect([...CACHE_ORDER].sort()).toEqual([...resultSchema.properties.cache.enum].sort());
    expect(CACHE_ORDER).toEqual(['none', 'cold', 'warm-disk', 'warm', 'warm-memory']);
    expect(cacheRank('cold')).toBeLessThan(cacheRank('warm'));
    expect(cacheRank('bogus')).toBe(CACHE_ORDER.length);
  });
  test('labels', () => {
    expect(methodLabel({ method: 's3fs', method_variant: 'default' })).toBe('s3fs');
    expect(methodLabel({ method: 's3fs', method_variant: 'seed-000' })).toBe('s3fs:seed-000');
    expect(methodCacheLabel({ method: 's3fs', method_variant: 'seed-000', cache: 'warm' })).toBe('s3fs:seed-000 (warm)');
    expect(methodCacheLabel({ method: 's3-api', method_variant: 'default', cache: 'none' })).toBe('s3-api');
    expect(methodCacheLabel({ method: 's3fs', method_variant: 'default', cache: 'cold' }, false)).toBe('s3fs');
    expect(stepLabel({ method: { name: 'mountpoint', variant: 'cached' }, workload: { name: 'metadata' }, repetition: 2 })).toBe('mountpoint:cached metadata rep 2');
  });
  test('run ids: the schema\'s pattern, their day, and the run a file belongs to', () => {
    const id = newRunId(new Date('2026-11-22T10:15:00Z'));
    expect(id).toMatch(/^20261122T101500Z-[0-9a-f]{6}$/);
    expect(isRunId(id)).toBe(true);
    expect(isRunId('20261122T101500Z-ab12c')).toBe(false);
    expect(runDay(id)).toBe('2026-11-22');
    expect(runIdOfFile('20261122T101500Z-ab12cd--s001--s3-api--objects.jsonl')).toBe('20261122T101500Z-ab12cd');
    expect(runIdOfFile('20261122T101500Z-ab12cd.json')).toBe('20261122T101500Z-ab12cd');
    expect(runIdOfFile('notes.jsonl')).toBeNull();
  });
  test('data prefixes', () => {
    expect(runDataPrefix('20261122T101500Z-ab12cd')).toBe('s3ab/20261122T101500Z-ab12cd/');
    expect(runDataPrefix('20261122T101500Z-ab12cd', 'i-0abc')).toBe('s3ab/20261122T101500Z-ab12cd/i-0abc/');
    expect(stepDataPrefix('s3ab/R/', 7)).toBe('s3ab/R/steps/007/');
    expect(fixtureDataPrefix('s3ab/R/', 'dir-walk-10x1')).toBe('s3ab/R/fixtures/dir-walk-10x1/');
  });
});
