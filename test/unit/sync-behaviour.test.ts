import { DIRECT_READ_CUTOFF_BYTES, IMPORT_SIZE_LESS_THAN_BYTES, meterS3Files } from '../../runner/report/s3files-metering';
import { DIRECT_READ_THRESHOLDS, syncBehaviourDescriptor as d, type SyncBehaviourParams } from '../../runner/workloads/sync-behaviour';

const KiB = 1024;
const DEFAULTS: SyncBehaviourParams = { per_size: 5, read_sizes: ['64KiB', '127KiB', '128KiB', '256KiB'], write_sizes: ['120KiB', '128KiB', '1020KiB', '1MiB', '8MiB'], files: 100, list_repeats: 5, timeout_s: 30 };

describe('sync-behaviour, the facts it is built on', () => {
  test('its thresholds are the metering model\'s: the import rule and both direct-read cutoffs of AWS\'s pages', () => {
    expect(d.describe(DEFAULTS).s3files_import_below).toBe('128 KiB');
    expect(IMPORT_SIZE_LESS_THAN_BYTES).toBe(128 * KiB);
    expect(DIRECT_READ_THRESHOLDS.map((t) => t.bytes)).toEqual([128 * KiB, DIRECT_READ_CUTOFF_BYTES]);
  });

  test('the default sizes sit below, at and above the import threshold, and just below and at each direct-read threshold', () => {
    const reads = d.fixture(DEFAULTS);
    const sizes = Array.from({ length: reads.count }, (_, i) => reads.sizeOf!(i));
    expect(sizes.some((s) => s < IMPORT_SIZE_LESS_THAN_BYTES) && sizes.includes(IMPORT_SIZE_LESS_THAN_BYTES) && sizes.some((s) => s > IMPORT_SIZE_LESS_THAN_BYTES)).toBe(true);
    expect(d.validate(DEFAULTS)).toBeNull();
  });

  test('write sizes on one side of a threshold only: refused with the problem and the fix', () => {
    const bad = d.validate({ ...DEFAULTS, write_sizes: ['1MiB', '8MiB'] })!;
    expect(bad.problem).toMatch(/write_sizes needs a size below 131072 bytes and one at or above it, to tell whether direct-read-128KB holds/);
    expect(bad.fix).toMatch(/both sides of 128 KiB and of 1 MiB/);
    expect(d.validate({ ...DEFAULTS, write_sizes: ['120KiB', '128KiB'] })!.problem).toMatch(/direct-read-1MiB/);
  });

  test('S3 Files meters the reads of exported files at and above the 1 MiB cutoff as direct reads, below it as data reads', () => {
    const at = (size: number) => meterS3Files({ method: 's3files', workload: d.name, operation: 'read-exported', objectSizeBytes: size, ops: 1, bytes: size });
    const below = at(1020 * KiB);
    const above = at(1024 * KiB);
    expect(below?.modelled && below.directReadsPerOp).toBe(0);
    expect(above?.modelled && above.directReadsPerOp).toBe(1);
    // A folder rename is one metadata write, then each file's export (a metadata read and a file read).
    const rename = meterS3Files({ method: 's3files', workload: d.name, operation: 'rename-dir', objectSizeBytes: 4096, ops: 1, bytes: 0, files: 10 });
    expect(rename?.modelled && [rename.perOp.metadataWrite.ops, rename.perOp.metadataRead.ops, rename.perOp.dataRead.ops]).toEqual([1, 10, 10]);
  });
});
