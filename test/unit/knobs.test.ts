import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KNOBS_BLOCK, knobsTable, withKnobsTable } from '../../runner/cli/knobs-table';
import { knobAccepts, knobRange, type Knob } from '../../runner/core/knobs';
import { METHOD_DESCRIPTORS } from '../../runner/methods/catalog';
import type { MethodDescriptor } from '../../runner/core/method';

const descriptors: readonly MethodDescriptor[] = METHOD_DESCRIPTORS;

describe('method knobs', () => {
  test('the methods the tuning grids cover declare their documented knobs', () => {
    const knobsOf = (name: string) => Object.keys(descriptors.find((m) => m.name === name)?.knobs ?? {}).sort();
    expect(knobsOf('mountpoint')).toEqual(['cache', 'max_threads', 'metadata_ttl', 'part_size']);
    expect(knobsOf('s3fs')).toEqual(['max_stat_cache_size', 'multipart_size', 'parallel_count', 'stat_cache_expire']);
    expect(knobsOf('rclone')).toEqual(['buffer_size', 'vfs_cache_mode', 'vfs_read_ahead', 'vfs_read_chunk_streams']);
    expect(knobsOf('juicefs')).toEqual(['buffer_size', 'cache_size', 'prefetch']);
    expect(knobsOf('s3-crt')).toEqual(['part_size', 'target_throughput_gbps']);
  });

  test('every knob\'s documented default, and every variant\'s value of it, is within its range', () => {
    for (const m of descriptors) {
      for (const [name, knob] of Object.entries(m.knobs ?? {})) {
        expect([m.name, name, knobAccepts(knob, knob.default)]).toEqual([m.name, name, true]);
        expect(knob.source.length).toBeGreaterThan(0);
        for (const [variant, options] of Object.entries(m.variants)) {
          if (name in options) expect([m.name, variant, name, knobAccepts(knob, options[name])]).toEqual([m.name, variant, name, true]);
        }
      }
    }
  });

  test('values outside a knob\'s range are refused, and the range reads as people write it', () => {
    const size: Knob = { kind: 'size', min: '5MiB', max: '5GiB', default: '8MiB', summary: '', source: 'x' };
    expect(knobAccepts(size, '8MiB')).toBe(true);
    expect(knobAccepts(size, 8388608)).toBe(true);
    expect(knobAccepts(size, '4MiB')).toBe(false);
    expect(knobAccepts(size, '6GiB')).toBe(false);
    expect(knobAccepts(size, 'big')).toBe(false);
    expect(knobRange(size)).toBe('a size from 5MiB to 5GiB');
    const count: Knob = { kind: 'integer', min: 1, max: 64, default: 5, summary: '', source: 'x' };
    expect([knobAccepts(count, 1), knobAccepts(count, '16'), knobAccepts(count, 0), knobAccepts(count, 2.5), knobAccepts(count, true)]).toEqual([true, true, false, false, false]);
    const ttl: Knob = { kind: 'number-or', keywords: ['minimal', 'indefinite'], min: 1, max: 100, integer: true, unit: 's', default: 'minimal', summary: '', source: 'x' };
    expect([knobAccepts(ttl, 'minimal'), knobAccepts(ttl, '60'), knobAccepts(ttl, 0), knobAccepts(ttl, 'forever')]).toEqual([true, true, false, false]);
    expect(knobRange(ttl)).toBe('minimal, indefinite or a whole number from 1 to 100 s');
    const mode: Knob = { kind: 'choice', values: ['off', 'full'], default: 'off', summary: '', source: 'x' };
    expect([knobAccepts(mode, 'full'), knobAccepts(mode, 'on')]).toEqual([true, false]);
    expect(knobRange(mode)).toBe('one of off, full');
  });
});

describe('docs/usage.md: the knobs table comes from the descriptors', () => {
  test('the generated block is current (`npm run gen` writes it) and names every knob', () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'usage.md'), 'utf8');
    expect(doc).toContain(KNOBS_BLOCK.begin);
    expect(withKnobsTable(doc, knobsTable(descriptors))).toBe(doc);
    for (const m of descriptors) for (const k of Object.keys(m.knobs ?? {})) expect(doc).toContain(`| \`${m.name}\` | \`${k}\` |`);
  });
});
