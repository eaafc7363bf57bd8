import prices from '../../assets/prices.json';
import { renderHtmlReport } from '../../runner/report/html/render';
import { s3filesFigures } from '../../runner/report/requests';
import { requestsLines } from '../../runner/report/sections/requests';
import { modelOf } from '../helpers/model';
import {
  DATA_MINIMUM_BYTES, DIRECT_READ_CUTOFF_BYTES, GB, IMPORT_SIZE_LESS_THAN_BYTES, METADATA_BYTES, meteredBytes, meterS3Files, s3filesRule,
  type S3FilesMeasurement, type S3FilesMetering, type S3FilesModel,
} from '../../runner/report/s3files-metering';
import { WORKLOAD_DESCRIPTORS } from '../../runner/workloads/catalog';

const KiB = 1024;
const MiB = 1024 * KiB;
const READ = prices.s3Files.readPerGB;
const WRITE = prices.s3Files.writePerGB;

/** An s3files measurement of `ops` operations of `size` bytes each (bytes = ops × per-op bytes). */
function s3files(workload: string, operation: string, size: number | null, over: Partial<S3FilesMeasurement> = {}): S3FilesMeasurement {
  const ops = over.ops ?? 10;
  return { method: 's3files', workload, operation, objectSizeBytes: size, ops, bytes: ops * (size ?? 0), ...over };
}

function modelled(m: S3FilesModel | null): S3FilesMetering {
  expect(m).not.toBeNull();
  if (!m!.modelled) throw new Error(`not modelled: ${m!.reason}`);
  return m!;
}

/** The four categories as [ops, bytes] per operation, for compact expectations. */
const categories = (m: S3FilesMetering) => Object.fromEntries(Object.entries(m.perOp).filter(([, v]) => v.ops > 0).map(([k, v]) => [k, [v.ops, v.bytes]]));

/** The modelled cost per 1,000 operations of metered read and write bytes per operation. */
const cost = (readBytes: number, writeBytes: number) => (1000 * (readBytes * READ + writeBytes * WRITE)) / GB;

describe('the S3 Files metering model', () => {
  test('its facts come from assets/prices.json, with date, source and region', () => {
    expect(prices.s3Files).toMatchObject({ region: 'us-east-1', readPerGB: 0.03, writePerGB: 0.06 });
    expect(prices.s3Files.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(prices.s3Files.source).toContain('https://aws.amazon.com/s3/pricing/');
    expect(prices.s3Files.meteringFromAwsDocs.source).toContain('https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-metering.html');
    expect([DATA_MINIMUM_BYTES, METADATA_BYTES, DIRECT_READ_CUTOFF_BYTES, IMPORT_SIZE_LESS_THAN_BYTES]).toEqual([32 * KiB, 4 * KiB, MiB, 128 * KiB]);
  });

  test('metered sizes: data rounded up to 1 KiB and at least 32 KiB; metadata always 4 KiB', () => {
    expect(meteredBytes('dataRead', 1)).toBe(32 * KiB);
    expect(meteredBytes('dataWrite', 32 * KiB)).toBe(32 * KiB);
    expect(meteredBytes('dataRead', 33 * KiB + 1)).toBe(34 * KiB);
    expect(meteredBytes('metadataRead', 0)).toBe(4 * KiB);
    expect(meteredBytes('metadataWrite', 10 * MiB)).toBe(4 * KiB);
  });

  test('a 1 KiB read is metered as a 32 KiB data read (and the open\'s 4 KiB metadata read)', () => {
    // small-reads: fixture files from the S3 API, smaller than the import threshold: on the file system.
    const small = modelled(meterS3Files(s3files('small-reads', 'read', KiB)));
    expect(categories(small)).toEqual({ dataRead: [1, 32 * KiB], metadataRead: [1, 4 * KiB] });
    expect(small.directReadsPerOp).toBe(0);
    expect(small.writeBytesPerOp).toBe(0);
    expect(small.costPer1000Ops).toBeCloseTo(cost(36 * KiB, 0), 12);
    // fio: one 1 KiB I/O per 1 KiB file.
    expect(categories(modelled(meterS3Files(s3files('fio-seq', 'read', KiB))))).toEqual({ dataRead: [1, 32 * KiB], metadataRead: [1, 4 * KiB] });
  });

  test('a 4 MiB read above the direct-read cutoff is charged no S3 Files data read', () => {
    // fio-seq reads its own files after they are in the bucket: on high-performance storage and
    // exported, so a 4 MiB I/O streams from the bucket however the data is held.
    const fio = modelled(meterS3Files(s3files('fio-seq', 'read', 4 * MiB)));
    expect(fio.perOp.dataRead).toEqual({ ops: 0, bytes: 0 });
    expect(fio.directReadsPerOp).toBe(4); // the NFS client's four 1 MiB reads
    // Only the direct stream's 4 KiB metadata read (AWS: "an S3 Files metadata read (4 KiB), with no file read charges").
    expect(categories(fio)).toEqual({ metadataRead: [1, 4 * KiB] });
    expect(fio.costPer1000Ops).toBeCloseTo(cost(4 * KiB, 0), 12);
    // A 4 MiB fixture file read through the mount: four 1 MiB NFS reads, each from the bucket.
    const large = modelled(meterS3Files(s3files('large-read', 'read', 4 * MiB)));
    expect(large.perOp.dataRead.ops).toBe(0);
    expect(large.directReadsPerOp).toBe(4);
    // Below the cutoff, data on high-performance storage is read from it: 256 KiB fio I/Os of a 4 MiB file.
    const below = s3files('fio-seq', 'read', 4 * MiB, { bytes: 10 * 256 * KiB });
    expect(modelled(meterS3Files(below)).perOp.dataRead).toEqual({ ops: 1, bytes: 256 * KiB });
    // ...unless the cutoff is version B's 128 KB.
    expect(modelled(meterS3Files(below, { directReadCutoffBytes: 128 * KiB })).perOp.dataRead.ops).toBe(0);
    // Data written moments before and not yet exported is always served by the file system.
    const download = modelled(meterS3Files(s3files('objects', 'download', 4 * MiB)));
    expect(download.perOp.dataRead).toEqual({ ops: 4, bytes: 4 * MiB });
    expect(download.directReadsPerOp).toBe(0);
  });

  test('a stat is one 4 KiB metadata read', () => {
    const head = modelled(meterS3Files(s3files('objects', 'head', 100 * MiB, { bytes: 0 })));
    expect(categories(head)).toEqual({ metadataRead: [1, 4 * KiB] });
    expect(head.costPer1000Ops).toBeCloseTo((1000 * 4096 * 0.03) / 1024 ** 3, 12);
    expect(categories(modelled(meterS3Files(s3files('dir-walk', 'walk', KiB, { ops: 10_000, bytes: 0 }))))).toEqual({ metadataRead: [1, 4 * KiB] });
    // A listing: readdir and a stat of each of the workload's files.
    expect(categories(modelled(meterS3Files(s3files('objects', 'list', KiB, { ops: 1, bytes: 0, files: 10 }))))).toEqual({ metadataRead: [11, 44 * KiB] });
  });

  test('a write is charged as a write and again as a read when exported', () => {
    const upload = modelled(meterS3Files(s3files('objects', 'upload', MiB)));
    expect(categories(upload)).toEqual({
      dataWrite: [1, MiB], metadataWrite: [2, 8 * KiB], // create and commit
      dataRead: [1, MiB], metadataRead: [1, 4 * KiB], // the export to the bucket
    });
    expect(upload.writeBytesPerOp).toBe(MiB + 8 * KiB);
    expect(upload.readBytesPerOp).toBe(MiB + 4 * KiB);
    expect(upload.costPer1000Ops).toBeCloseTo(cost(MiB + 4 * KiB, MiB + 8 * KiB), 12);
    // A small write: 32 KiB each way.
    expect(modelled(meterS3Files(s3files('large-read', 'write-digest', 64))).perOp).toMatchObject({ dataWrite: { ops: 1, bytes: 32 * KiB }, dataRead: { ops: 1, bytes: 32 * KiB } });
    // fio: one operation is one I/O; the file's create, commit and export are shared by its I/Os.
    const fio = modelled(meterS3Files(s3files('fio-seq', 'write', 100 * MiB, { bytes: 10 * MiB })));
    expect(fio.perOp.dataWrite).toEqual({ ops: 1, bytes: MiB });
    expect(fio.perOp.metadataWrite.ops).toBeCloseTo(0.02, 12);
    expect(fio.perOp.dataRead.ops).toBeCloseTo(0.01, 12);
    expect(fio.perOp.dataRead.bytes).toBeCloseTo(MiB, 6);
  });

  test('metadata operations: create, unlink and rename are metadata writes (version A)', () => {
    expect(categories(modelled(meterS3Files(s3files('metadata', 'deletion', 0))))).toEqual({ metadataWrite: [1, 4 * KiB] });
    expect(categories(modelled(meterS3Files(s3files('metadata', 'empty-directories', 0))))).toEqual({ metadataWrite: [1, 4 * KiB] });
    expect(categories(modelled(meterS3Files(s3files('metadata', 'empty-files', 0))))).toEqual({ metadataWrite: [1, 4 * KiB], metadataRead: [1, 4 * KiB] });
    expect(categories(modelled(meterS3Files(s3files('metadata', 'file-moves', 4 * KiB, { bytes: 0 }))))).toMatchObject({ metadataRead: [2, 8 * KiB], metadataWrite: [1, 4 * KiB] });
    expect(categories(modelled(meterS3Files(s3files('metadata', 'traversal', null, { ops: 1, bytes: 0 }))))).toEqual({ metadataRead: [40, 160 * KiB] });
  });

  test('other methods get no S3 Files figure; operations without a rule say why', () => {
    for (const method of ['s3-api', 'mountpoint', 'efs', 's3fs']) expect(meterS3Files({ ...s3files('small-reads', 'read', KiB), method })).toBeNull();
    expect(meterS3Files(s3files('semantics', 'rename-file', null, { ops: 1 }))).toEqual({ modelled: false, reason: expect.stringContaining('probe') });
    expect(meterS3Files(s3files('git-clone', 'clone', null, { ops: 1 }))).toMatchObject({ modelled: false });
    expect(meterS3Files(s3files('no-such-workload', 'read', KiB))).toEqual({ modelled: false, reason: 'no metering rule for no-such-workload read' });
    expect(meterS3Files(s3files('small-reads', 'read', KiB, { ops: 0 }))).toEqual({ modelled: false, reason: 'no operations' });
  });

  test('every operation a workload declares has a row in the table (a new workload needs one)', () => {
    const missing = WORKLOAD_DESCRIPTORS.flatMap((w) => (w.operations as readonly string[]).filter((op) => !s3filesRule(w.name, op)).map((op) => `${w.name} ${op}`));
    expect(missing).toEqual([]);
  });
});

/** request_counts rows: s3-api counted locally, s3files as on AWS (no counts: the model needs none). */
const counts = { get: 0, get_ranged: 0, put: 0, mpu_create: 0, mpu_part: 0, mpu_complete: 0, mpu_abort: 0, head: 0, list: 0, delete_requests: 0, copy: 0, other: 0, get_bytes: 0, served_from_cache: 0, not_warm: 0 };
const ROWS: Record<string, unknown>[] = [
  { ...counts, run_id: 'r', workload: 'small-reads', operation: 'read', object_size_bytes: 8192, method: 's3-api', method_variant: 'default', cache: 'none',
    measurements: 1, not_counted: 0, ops: 10, bytes: 81920, all_ops: 10, all_bytes: 81920, files: 10, get: 10, get_bytes: 81920 },
  { ...counts, run_id: 'r', workload: 'small-reads', operation: 'read', object_size_bytes: 8192, method: 's3files', method_variant: 'default', cache: 'cold',
    measurements: 1, not_counted: 1, ops: null, bytes: null, all_ops: 10, all_bytes: 81920, files: 10, get: null, get_bytes: null },
  { ...counts, run_id: 'r', workload: 'objects', operation: 'head', object_size_bytes: 1024, method: 's3files', method_variant: 'default', cache: 'cold',
    measurements: 1, not_counted: 1, ops: null, bytes: null, all_ops: 10, all_bytes: 0, files: 10 },
  // Not modelled and not counted: not shown.
  { ...counts, run_id: 'r', workload: 'semantics', operation: 'flock', object_size_bytes: null, method: 's3files', method_variant: 'default', cache: 'none',
    measurements: 1, not_counted: 1, ops: null, bytes: null, all_ops: 1, all_bytes: 0, files: null },
];

describe('the modelled S3 Files figure in the summary and the page', () => {
  test('Athena\'s text values model the same as DuckDB\'s numbers', () => {
    const athena = Object.fromEntries(Object.entries(ROWS[1]).map(([k, v]) => [k, v === null ? null : String(v)]));
    expect(s3filesFigures(athena)).toEqual(s3filesFigures(ROWS[1]));
    expect(s3filesFigures(ROWS[0])).toBeNull();
  });

  test('text summary: the modelled figures for s3files rows in their own table, the measured ones apart; none without s3files rows', () => {
    const lines = requestsLines({ model: modelOf([], { requests: ROWS }), width: 100, wide: false });
    const text = lines.join('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
    const measured = text.slice(0, text.indexOf('S3 Files metering, modelled'));
    const modelled = text.slice(text.indexOf('S3 Files metering, modelled'));
    // s3-api's requests were counted: measured; s3files' were not (as on AWS): modelled only.
    expect(measured).toMatch(/small-reads read 8 KiB\s+s3-api\s+10\s+GET 1\s+1\s+\$0\.00040/);
    expect(measured).not.toContain('s3files');
    expect(modelled).toMatch(/small-reads read 8 KiB\s+s3files \(cold\)\s+10\s+data read 1 \(32 KiB\), metadata read 1 \(4 KiB\)\s+\$0\.0010/);
    expect(modelled).toMatch(/objects head 1 KiB\s+s3files \(cold\)\s+10\s+metadata read 1 \(4 KiB\)\s+\$0\.00011/);
    expect(text).not.toContain('flock');
    expect(text).toMatch(/^modelled \(S3 Files metering\): [^]* not a bill/m);
    // No rule between the rows: one rule, under the header.
    expect(measured.split('\n').filter((l) => /^─/.test(l))).toHaveLength(1);
    expect(requestsLines({ model: modelOf([], { requests: [ROWS[0]] }), width: 100, wide: false }).join('\n')).not.toContain('S3 Files');
  });

  test('HTML page: the same figure in the s3files rows only, marked modelled', async () => {
    const out = await renderHtmlReport(modelOf([], { requests: ROWS }));
    expect(out.sections.find((s) => s.id === 'requests')!.hasData).toBe(true);
    const section = out.html.slice(out.html.indexOf('<section id="requests"'), out.html.indexOf('</section>', out.html.indexOf('<section id="requests"')));
    expect(section).toContain('<th>S3 Files $ per 1,000 ops — modelled (S3 Files metering)</th>');
    const tbody = section.slice(section.indexOf('<tbody>'));
    const rows = [...tbody.matchAll(/<tr><th>([^<]*)<\/th>(.*?)<\/tr>/g)].map((m) => m[2]);
    expect(rows).toHaveLength(3);
    const s3api = rows.find((r) => r.includes('<td>s3-api</td>'))!;
    expect(s3api).toMatch(/<td>\$0\.00040<\/td><td>–<\/td><td>–<\/td>$/);
    const s3filesRead = rows.find((r) => r.includes('s3files (cold)') && r.includes('data read'))!;
    expect(s3filesRead).toContain('<td>data read 1 (32 KiB), metadata read 1 (4 KiB)</td><td class="modelled" title="modelled (S3 Files metering): not measured">$0.0010</td>');
    expect(section).toContain('modelled (S3 Files metering): S3 Files&#39; own charge');
    expect(section).not.toContain('flock');
  });
});
