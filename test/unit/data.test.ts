import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { LatencyHistogram } from '../../runner/core/stats';
import { patternDigest, patternStream } from '../../runner/core/data';
import { Batch } from '../../runner/core/batch';

async function collect(seed: string, size: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of patternStream(seed, size)) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

describe('test data', () => {
  test('is reproducible, seed-specific and of the asked size', async () => {
    const a = await collect('s1', 3 * 1024 * 1024 + 7);
    const b = await collect('s1', 3 * 1024 * 1024 + 7);
    const c = await collect('s2', 3 * 1024 * 1024 + 7);
    expect(a.length).toBe(3 * 1024 * 1024 + 7);
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
    expect(await patternDigest('s1', a.length)).toBe(createHash('sha256').update(a).digest('hex'));
  });

  test('is incompressible, like /dev/urandom in seed 000', async () => {
    const data = await collect('compress', 1024 * 1024);
    expect(gzipSync(data).length / data.length).toBeGreaterThan(0.99);
  });
});

describe('measurement', () => {
  test('the histogram reports percentiles in microseconds', () => {
    const h = new LatencyHistogram();
    for (let i = 1; i <= 100; i++) h.recordNs(i * 1000);
    const s = h.summary()!;
    expect(s.min).toBe(1);
    expect(s.max).toBeCloseTo(100, 0);
    expect(s.p50).toBeCloseTo(50, 0);
    expect(s.p99).toBeCloseTo(99, 0);
    expect(s.mean).toBeCloseTo(50.5, 0);
  });

  test('a batch counts failures and refuses to call wrong data verified', async () => {
    const b = new Batch('download', 10);
    await b.op(async () => 10, (n) => n);
    await b.op(async () => { throw new Error('boom'); });
    b.verify(false, 'checksum mismatch');
    const m = b.finish();
    expect(m).toMatchObject({ ops: 2, ok: 1, failed: 1, bytes: 10, status: 'failed', verified: false, errorSample: 'boom' });
    const good = new Batch('download', 10);
    await good.op(async () => 10, (n) => n);
    good.verify(true);
    expect(good.finish()).toMatchObject({ status: 'ok', verified: true });
    // No verification at all is not "verified".
    const unchecked = new Batch('head', 10);
    await unchecked.op(async () => 1);
    expect(unchecked.finish().verified).toBe(false);
  });
});
