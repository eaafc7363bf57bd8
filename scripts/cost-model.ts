// Modeled cost of one execution of a profile on AWS (us-east-1 on-demand prices, 2026; a model,
// not a bill): runner instance hours incl. setup, S3 requests, Lambda, Athena bytes scanned,
// Step Functions transitions. Usage: npx tsx scripts/cost-model.ts [profile] [runners]
import { expandSteps, loadProfile, resolveMatrix } from '../runner/core/matrix';

const PRICE = { c7gLargeHour: 0.0725, ipv4Hour: 0.005, putPer1000: 0.005, getPer1000: 0.0004, lambdaGbSecond: 0.0000133334, athenaPerTb: 5, sfnPer1000Transitions: 0.025 };
const profile = process.argv[2] ?? 'seed';
const runners = Number(process.argv[3] ?? 1);
const m = resolveMatrix(loadProfile(profile), profile);
const steps = expandSteps(m);
// Assumed step durations on c7g.large (from seed 000/001 orders of magnitude): objects 4 min, dir-walk 3 min, large-read 2 min, small-reads 1 min.
const minutesPer: Record<string, number> = { objects: 4, 'dir-walk': 3, 'large-read': 2, 'small-reads': 1 };
const benchMinutes = steps.reduce((n, s) => n + (minutesPer[s.workload.name] ?? 2), 0);
const overheadMinutes = 8; // boot, SSM online, setup (s3fs build), teardown
const hours = ((benchMinutes + overheadMinutes) / 60) * runners;
// Requests: every object written and read once per step (fixtures included), lists negligible.
const objects = steps.reduce((n, s) => {
  const p = s.workload.params as Record<string, unknown>;
  return n + (Array.isArray(p.sizes) ? (p.sizes as unknown[]).length * Number(p.files ?? 10) : Number(p.objects ?? p.files ?? 10));
}, 0) * runners;
const lambda = 2 * 3 * 0.5 * 5; // before+after × 3 repetitions × 0.5 GB × ~5 s
const athenaTb = 3 * 10e6 / 1e12; // 3 summary queries over ~10 MB of results
const transitions = 40 + steps.length * 12;
const cost = {
  'runner instance hours': hours * (PRICE.c7gLargeHour + PRICE.ipv4Hour),
  'S3 requests': (objects / 1000) * (PRICE.putPer1000 + PRICE.getPer1000 * 2),
  'Lambda': lambda * PRICE.lambdaGbSecond,
  'Athena (10 MB minimum per query)': Math.max(athenaTb, 3 * 10e6 / 1e12) * PRICE.athenaPerTb,
  'Step Functions transitions': (transitions / 1000) * PRICE.sfnPer1000Transitions,
};
const total = Object.values(cost).reduce((a, b) => a + b, 0);
console.log(`profile ${profile}: ${steps.length} steps × ${runners} runner(s) c7g.large, ~${Math.round(benchMinutes + overheadMinutes)} min per runner`);
for (const [k, v] of Object.entries(cost)) console.log(`  ${k.padEnd(34)} $${v.toFixed(4)}`);
console.log(`  ${'total per execution'.padEnd(34)} $${total.toFixed(2)}`);
