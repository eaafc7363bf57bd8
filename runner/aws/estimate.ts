import Table from 'cli-table3';
import { DEFAULT_RUNNER_INSTANCE_TYPE } from '../../lib/instance-types';
import type { MatrixSource } from '../catalog';
import { matrixFor, rawMatrixFor } from '../catalog';
import { AWS_FACTS } from '../plan/aws-facts';
import { budgetOf, estimateExecution, type ExecutionEstimate, type PlannedShard, type RunnerSpec } from '../plan/execution-model';
import { MEASUREMENTS } from '../plan/measurement';
import type { BuildCache } from '../plan/setup-model';

export type Out = (line: string) => void;

const minutes = (s: number) => (s < 3600 ? `${(s / 60).toFixed(1)} min` : `${(s / 3600).toFixed(1)} h`);
const dollars = (x: number) => `$${x.toFixed(x < 0.1 ? 3 : 2)}`;
const count = (x: number) => Math.round(x).toLocaleString('en-US');
const plain = { style: { head: [], border: [] } };

/** The modelled execution of a matrix (profile or file), with the runners asked for or the model's own, and a warm build cache unless asked otherwise. */
export function estimateFor(source: MatrixSource & { runners?: RunnerSpec[]; defaultType?: string; buildCache?: BuildCache }): ExecutionEstimate {
  const raw = rawMatrixFor(source);
  return estimateExecution({ matrix: matrixFor(source), budgetSeconds: budgetOf(raw), runners: source.runners, defaultType: source.defaultType ?? DEFAULT_RUNNER_INSTANCE_TYPE, buildCache: source.buildCache });
}

/**
 * What the build cache does to the estimate, or null when no runner installs a cargo-built client (s3-crt's, ZeroFS):
 * modelled warm, what a cold one adds; modelled cold (--cold-build-cache), what a warm one saves.
 */
function buildCacheLine(e: Pick<ExecutionEstimate, 'buildCache' | 'coldBuildExtraSeconds' | 'coldWallSeconds' | 'wallSeconds'>): string | null {
  if (e.coldBuildExtraSeconds <= 0) return null;
  const first = 'the first execution after a cargo-built client changes — crates/s3-crt-client, ZeroFS\'s pin — per architecture';
  return e.buildCache === 'warm'
    ? `a cold build cache (${first}) adds up to ${minutes(e.coldBuildExtraSeconds)} to the setup of the runners that build such a client (this plan's wall with it: ${minutes(e.coldWallSeconds)}; --cold-build-cache models it throughout); the timeouts always allow for it`
    : `modelled with a cold build cache (${first}; --cold-build-cache): each runner that installs such a client builds it, up to ${minutes(e.coldBuildExtraSeconds)} more than its download from a warm cache`;
}

/** One line per runner type: "12 × c7g.large". */
export const runnersLine = (e: Pick<ExecutionEstimate, 'runners'>) => e.runners.map((r) => `${r.count} × ${r.instanceType}`).join(' + ');

/** A shard's setup as modelled, and with a cold build cache where that differs (what the timeouts allow for). */
const setupCell = (x: PlannedShard) => (x.coldSetup.seconds > x.setup.seconds ? `${minutes(x.setup.seconds)} (cold ${minutes(x.coldSetup.seconds)})` : minutes(x.setup.seconds));

/**
 * `s3ab aws estimate`: the execution as the measured model plans it — its runners and shards,
 * its wall time by phase, its own cost by item, the measured clients' own requests per method,
 * the steps expected to hit their budget, its history — and the assumptions behind them.
 */
export function printEstimate(e: ExecutionEstimate, out: Out): void {
  const m = MEASUREMENTS[e.measuredProfile];
  const distinct = new Set(e.steps.map((x) => x.index)).size;
  // A fleet step runs on each of its clients' runners: the runs are counted apart from the steps.
  const runs = distinct === e.steps.length ? '' : ` (${e.steps.length} runs: a fleet step on each of its clients' runners, started together)`;
  out(`${e.matrix}: ${distinct} steps${runs} on ${runnersLine(e)} (layout ${e.layout}), modelled from assets/measured/${e.measuredProfile}.json${m.sampleDivisor > 1 ? ` (its sample: counts ÷ ${m.sampleDivisor}, scaled back)` : ''}`);
  const p = e.phases;
  out(`modelled wall: ${minutes(e.wallSeconds)} — runners online ${minutes(p.before)}, then the last runner's setup ${minutes(p.setup)} and shard ${minutes(p.runners)}, the states after it ${minutes(p.after)}, teardown ${minutes(p.teardown)} (${Math.max(1, Math.ceil(p.teardown / 30))} rounds of 30 s of deletes)`);
  const cache = buildCacheLine(e);
  if (cache) out(cache);
  out(`the execution's own cost: ${dollars(e.executionDollars)}`);
  for (const [item, v] of Object.entries(e.items)) out(`  ${item.padEnd(58)} ${dollars(v)}`);
  if (AWS_FACTS.runnersEndWithTheirShard) out(`  (each runner ends with its shard; if every runner lived until Teardown, the runners would cost ${dollars(e.runnersUntilTeardownDollars)})`);
  out(`the measured clients' own requests: ${dollars(e.methodsDollars)} (what the benchmark measures; not the execution's own cost)`);
  const t = new Table({ head: ['method', 'requests', 'tier 1', 'tier 2', 'cost'], ...plain });
  for (const r of e.methodsRequests) t.push([r.method, count(r.requests.total), count(r.requests.tier1), count(r.requests.tier2), dollars(r.dollars)]);
  out(t.toString());
  const hits = e.budgetHits.reduce((a, h) => a + h.steps, 0);
  out(hits ? `steps expected to hit their budget (recorded as did-not-finish): ${hits} — ${e.budgetHits.map((h) => `${h.method} ${h.workload} ×${h.steps}`).join(', ')}` : 'steps expected to hit their budget: none');
  const s = new Table({ head: ['runner', 'type', 'workloads', 'steps', 'modelled', 'timeout', 'setup', 'installs'], ...plain });
  for (const x of e.shards) s.push([x.runner + 1, x.instanceType, x.workloads.join(' '), x.steps.length, minutes(x.modelledSeconds), minutes(x.timeoutSeconds), setupCell(x), x.install.join(' ') || '–']);
  out(s.toString());
  out(`history: about ${count(e.historyEvents)} events of the 25,000 an execution may have; ${count(e.transitions)} state transitions; ${count(e.versionsWritten)} object versions written`);
  out(`assumptions (runner/plan/aws-facts.ts, docs/runner-types.md "What an execution takes"): ${AWS_FACTS.requestSeconds * 1000} ms per S3 request in sequence, each runner type's baseline link, `
    + `boot ${AWS_FACTS.bootSeconds} s + SSM online ${AWS_FACTS.ssmOnlineSeconds} s, dnf metadata ${AWS_FACTS.dnfMetadataSeconds} s, S3 deletes ${count(AWS_FACTS.deletesPerSecond)}/s, us-east-1 prices (assets/prices.json)`);
}
