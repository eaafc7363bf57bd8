/**
 * Cost of recording latencies: what each timed operation pays to put its latency into the
 * measurement's histogram (runner/core/stats.ts LatencyHistogram.recordNs, called once per
 * operation by core/batch.ts and workloads/kit/fs-common.ts), and what each measurement pays once at its end to
 * turn the histogram into the record's latency fields.
 *
 *   npx tsx scripts/bench/latency-recording.ts [--values 1000000] [--rounds 7]
 *
 * Latencies are drawn log-uniformly from 20 µs to 2 s (the span the workloads produce). Each round
 * records them all into a fresh histogram; the median round is printed, next to an empty loop over
 * the same array (the loop's own cost) measured in the same run. The end of a measurement is timed
 * as the summary alone (latency_us, what it was before latency_histogram) and with the buckets.
 */
import { scriptOptions } from '../script-cli';
import { LatencyHistogram } from '../../runner/core/stats';

const values = scriptOptions('latency-recording', { values: { type: 'string', default: '1000000' }, rounds: { type: 'string', default: '7' } }, ['values', 'rounds']);
const count = Number(values.values);
const rounds = Number(values.rounds);

function latencies(n: number): Float64Array {
  const out = new Float64Array(n);
  let seed = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    out[i] = 20_000 * 100_000 ** (seed / 2 ** 32);
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** ns per element of `fn` over the array, median of the rounds. */
function perValue(fn: (xs: Float64Array) => void, xs: Float64Array): number {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    fn(xs);
    times.push(Number(process.hrtime.bigint() - t0) / xs.length);
  }
  return median(times);
}

/** µs per call of `fn`, median of the rounds (each round repeats it `times` times). */
function perCall(fn: () => unknown, times: number): number {
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < times; i++) fn();
    out.push(Number(process.hrtime.bigint() - t0) / times / 1000);
  }
  return median(out);
}

function main(): void {
  const xs = latencies(count);
  let sink = 0;
  const loop = perValue((a) => { for (let i = 0; i < a.length; i++) sink += a[i]; }, xs);
  const record = perValue((a) => { const h = new LatencyHistogram(); for (let i = 0; i < a.length; i++) h.recordNs(a[i]); }, xs);
  process.stdout.write(`recording ${count.toLocaleString('en-US')} latencies, median of ${rounds} rounds\n`);
  process.stdout.write(`  empty loop over the values     ${loop.toFixed(1)} ns per value\n`);
  process.stdout.write(`  LatencyHistogram.recordNs      ${record.toFixed(1)} ns per recorded latency\n`);
  for (const n of [10, 1_000, 100_000]) {
    const h = new LatencyHistogram();
    for (let i = 0; i < n; i++) h.recordNs(xs[i]);
    const times = Math.max(20, Math.round(2_000_000 / (n + 2_000)));
    const summary = perCall(() => h.summary(), times);
    const fields = perCall(() => h.fields(), times);
    process.stdout.write(`  end of a measurement of ${String(n).padStart(7)} ops: summary ${summary.toFixed(0)} µs, summary + buckets ${fields.toFixed(0)} µs ` +
      `(buckets add ${(((fields - summary) * 1000) / n).toFixed(1)} ns per op)\n`);
  }
  if (sink === -1) process.stdout.write('');
}

main();
