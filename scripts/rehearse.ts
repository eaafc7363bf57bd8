/**
 * `npm run rehearse -- [--profile P | --matrix FILE] [--runners TYPE:COUNT,...] [--layout shard|fleet] [--fail setup|run-step|runner-dies|success-fails-twice|stop-execution] [--drop-grant ROLE:ACTION@RESOURCE]`:
 * a whole AWS execution rehearsed here (scripts/rehearsal/rehearse.ts) — the synthesized state
 * machine, the real Lambda handlers, local runner sandboxes running the SSM documents' own lines
 * against the embedded S3 server, every request evaluated against the template's IAM — then its
 * figures: per state against its timeout, callbacks, history events against their bound, S3
 * requests, IAM, objects, what was left behind, and the final status.
 */
import Table from 'cli-table3';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseDroppedGrant } from './rehearsal/iam';
import { rehearse, type Fault, type RehearsalReport } from './rehearsal/rehearse';
import { FAULTS } from './rehearsal/local-cloud';
import { DEFAULT_RUNNER_INSTANCE_TYPE } from '../lib/instance-types';
import { TASK_TIMEOUT_S } from '../lib/pipeline/tasks';
import { TEARDOWN_MAX_ROUNDS } from '../lib/pipeline/teardown-flow';
import { AWS_FACTS } from '../runner/plan/aws-facts';
import { estimateExecution } from '../runner/plan/execution-model';
import { loadProfile, resolveMatrix } from '../runner/core/matrix';
import { CATALOG } from '../runner/catalog';
import { impliedLayout } from '../runner/core/shards';

const { values } = parseArgs({
  options: {
    profile: { type: 'string', default: 'quick' }, matrix: { type: 'string' }, runners: { type: 'string' },
    layout: { type: 'string' }, fail: { type: 'string' }, 'poll-seconds': { type: 'string', default: '0' }, json: { type: 'string' },
    'drop-grant': { type: 'string' }, heartbeat: { type: 'string' },
    documents: { type: 'string', default: '5' }, 'server-on-disk': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log([
    'usage: npm run rehearse -- [options]',
    '  --profile P         quick (default), mounts, seed or full',
    '  --matrix FILE       a matrix file instead of a profile',
    `  --runners SPEC      TYPE:COUNT,... (default ${DEFAULT_RUNNER_INSTANCE_TYPE}:1; a fleet: one per client of its largest, as ValidateInput derives them)`,
    '  --layout L          shard (each runner runs all methods of its workloads) or fleet (runner r runs the steps with clients > r,',
    '                      started together at an S3 barrier; the sandboxes share this host\'s clock and CPU); default: the matrix\'s',
    '  --fail WHAT         inject a failure: the first runner\'s setup or run-step command fails (setup, run-step),',
    '                      or its run-step processes are killed mid-steps, no exit trap (runner-dies: fails at the heartbeat timeout),',
    '                      or the first two SendTaskSuccess calls of a shard fail (success-fails-twice: the shard must still succeed),',
    '                      or StopExecution while a shard runs (stop-execution: EventBridge\'s teardown must leave nothing)',
    '  --drop-grant G      take a grant out of the template\'s IAM first: ROLE:ACTION[@RESOURCE], e.g.',
    '                      RunnersRole:s3:ListBucket@s3ab-rehearsal-results (the rehearsal must fail naming it)',
    '  --heartbeat I/T     runners\' heartbeat interval and the tasks\' heartbeat timeout here, in seconds (default: the definition\'s)',
    '  --poll-seconds N    seconds between readiness checks here (default 0: the sandboxes are online at once)',
    '  --documents N       documents per Lambda repetition (default 5)',
    '  --json FILE         also write the figures as JSON',
    '  --server-on-disk    keep the embedded server\'s objects on disk, not in RAM (seed: the versioned bucket keeps every',
    '                      version until Teardown, more than this machine\'s memory; the default for seed and full)',
  ].join('\n'));
  process.exit(0);
}
const rawMatrix = (values.matrix ? JSON.parse(readFileSync(values.matrix, 'utf8')) : loadProfile(values.profile!)) as { clients?: number[] };
// A fleet's runners are its clients: left to ValidateInput unless asked for.
const fleet = (values.layout ?? impliedLayout(rawMatrix.clients ?? [1])) === 'fleet';
const runners = values.runners ?? (fleet ? undefined : `${DEFAULT_RUNNER_INSTANCE_TYPE}:1`);
const runnerSpecs = runners?.split(',').map((spec) => {
  const [instanceType, count] = spec.split(':');
  return { instanceType, count: Number(count ?? 1) };
});
if (values.fail && !FAULTS.includes(values.fail as Fault)) {
  console.error(`--fail ${values.fail}: give one of ${FAULTS.join(", ")}`);
  process.exit(2);
}
const heartbeat = values.heartbeat ? /^(\d+)\/(\d+)$/.exec(values.heartbeat) : null;
if (values.heartbeat && !heartbeat) {
  console.error(`--heartbeat ${values.heartbeat}: give INTERVAL/TIMEOUT in seconds, e.g. 1/6`);
  process.exit(2);
}
let dropGrant;
try {
  dropGrant = values['drop-grant'] ? parseDroppedGrant(values['drop-grant']) : undefined;
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}
const input = {
  ...(values.matrix ? { matrix: rawMatrix } : { profile: values.profile }),
  ...(runnerSpecs ? { runners: runnerSpecs } : {}), ...(values.layout ? { layout: values.layout } : {}), lambdas: { documents: Number(values.documents), repetitions: 1 },
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function print(r: RehearsalReport): void {
  const states = new Table({ head: ['state', 'runs', 'longest', 'total', 'timeout', 'longest / timeout'] });
  for (const s of r.states) states.push([s.name, s.count, seconds(s.longestMs), seconds(s.totalMs), s.timeoutS ? `${s.timeoutS} s` : '–', s.timeoutS ? `${((s.longestMs / 1000 / s.timeoutS) * 100).toFixed(1)}%` : '–']);
  console.log(states.toString());
  const cmds = new Table({ head: ['command', 'runner', 'steps', 'status', 'took', 'its timeout', 'took / timeout'] });
  for (const c of r.commands) cmds.push([c.document, c.runner, c.steps || '–', c.status, seconds(c.ms), `${c.timeoutS} s`, `${((c.ms / 1000 / c.timeoutS) * 100).toFixed(1)}%`]);
  console.log(cmds.toString());
  const longest = r.states.filter((s) => s.timeoutS).sort((a, b) => b.longestMs / b.timeoutS! - a.longestMs / a.timeoutS!)[0];
  if (longest) console.log(`longest state against its timeout: ${longest.name} ${seconds(longest.longestMs)} of ${longest.timeoutS} s (${((longest.longestMs / 1000 / longest.timeoutS!) * 100).toFixed(1)}%)`);
  console.log(`callbacks: ${r.callbacks.tasks} tasks ended by their runners — ${r.callbacks.successes} successes, ${r.callbacks.failures} failures, ${r.callbacks.heartbeats} heartbeats, ${r.callbacks.heartbeatTimeouts} heartbeat timeouts${r.callbacks.successCallsFailed ? `, ${r.callbacks.successCallsFailed} SendTaskSuccess calls failed on purpose` : ''}; readiness checks: ${r.polls}`);
  if (r.ending) console.log(`ended ${r.ending.status}: EventBridge invoked ${r.ending.invoked.map((i) => `${i.function} (${i.rule}): ${i.error ?? JSON.stringify(i.result)}`).join('; ') || 'nothing (no rule matched)'}`);
  console.log(`history events (as Step Functions counts them): ${r.historyEvents}; this shape's bound ${r.historyBound}; an execution may have 25,000`);
  console.log(`IAM: ${r.iam.requests} requests evaluated against the template (${r.iam.evaluations} distinct evaluations by iam-simulate), ${r.iam.denials.length} denied${r.iam.unseen ? `; ${r.iam.unseen} DeleteObjects of runner processes name their keys in the body only, unseen` : ''}`);
  for (const d of r.iam.denials) console.log(`  DENIED ${d.principal} ${d.action} on ${d.resource} (${d.decision}; ${d.count}×, ${d.source})`);
  console.log(`S3 requests: ${r.s3.requests} (${Object.entries(r.s3.byOperation).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k.replace(/^s3_/, '')} ${v}`).join(', ')})`);
  console.log(`objects: ${r.s3.versionsCreated} versions written in the data bucket, ${r.s3.versionsDeleted} versions and delete markers deleted by Teardown`);
  for (const f of r.fleet) {
    console.log(`fleet step ${f.step} (${f.cache}): ${f.runners} of ${f.clients} clients recorded, ${f.startInstants} common start instant(s), first measurements ${f.spreadMs} ms apart; clock: ${f.clockSources.join(', ')}`);
  }
  console.log(`left behind: ${r.leftovers.runnerProcesses} runner processes, ${r.leftovers.mounts} mounts, ${r.leftovers.versions} versions of the run`);
  atSeedScale(r);
  console.log(`status: ${r.status}${r.error ? ` — ${r.error.name}: ${r.error.message}` : ''}; report: ${r.reportLocation ?? '(none)'}; wall ${seconds(r.wallMs)}`);
}

/**
 * What a rehearsal here cannot reach, at a `seed` execution's scale (the measured model of it,
 * runner/plan/): Teardown of the versions it writes (at the rate measured here and at S3's),
 * against its rounds and the function's timeout; the runner setup the model takes, against the
 * setup command's own timeout (the part of setup that runs here is in the commands table above).
 */
function atSeedScale(r: RehearsalReport): void {
  const raw = loadProfile('seed') as { budget_s?: number };
  const model = estimateExecution({ matrix: resolveMatrix(raw, 'seed', CATALOG), budgetSeconds: raw.budget_s ?? null, defaultType: DEFAULT_RUNNER_INSTANCE_TYPE });
  const versions = 2 * model.versionsWritten; // every version and about as many delete markers
  const teardown = r.states.find((s) => s.name === 'Teardown');
  const roundWork = TASK_TIMEOUT_S.teardown / 3; // the function starts requests for a third of its timeout
  const line = (label: string, perSecond: number) => {
    const seconds = versions / perSecond;
    const rounds = Math.max(1, Math.ceil(seconds / roundWork));
    return `${label} ${Math.round(perSecond).toLocaleString('en-US')} versions/s: ${Math.round(seconds)} s in ${rounds} round(s) of ≤ ${roundWork} s (⅓ of its ${TASK_TIMEOUT_S.teardown} s timeout), ${rounds <= TEARDOWN_MAX_ROUNDS ? 'within' : 'BEYOND'} the ${TEARDOWN_MAX_ROUNDS}-round bound`;
  };
  console.log(`seed scale (\`s3ab aws estimate seed\`: ${model.shards.length} runners): Teardown of ~${versions.toLocaleString('en-US')} versions and delete markers —`);
  if (teardown && r.s3.versionsDeleted > 0 && teardown.totalMs > 0) console.log(`  ${line('at the rate measured here (versitygw):', r.s3.versionsDeleted / (teardown.totalMs / 1000))}`);
  console.log(`  ${line("at S3's per-prefix write rate,", AWS_FACTS.deletesPerSecond)}`);
  const setup = r.commands.find((c) => c.document === 'setup');
  const longest = Math.max(...model.shards.map((s) => s.setup.seconds));
  if (setup) console.log(`  runner setup: ${seconds(longest * 1000)} modelled on AWS for the longest shard's install list (runner/plan/setup-model.ts), ${((longest / setup.timeoutS) * 100).toFixed(0)}% of the setup command's ${setup.timeoutS} s timeout; its host-neutral part took ${seconds(setup.ms)} here`);
}

const serverOnDisk = values['server-on-disk'] ?? (!values.matrix && ['seed', 'full'].includes(values.profile!));
rehearse({
  input, fault: values.fail as Fault | undefined, pollSeconds: Number(values['poll-seconds']), serverOnDisk, dropGrant, log: (l) => console.log(l),
  heartbeat: heartbeat ? { intervalSeconds: Number(heartbeat[1]), timeoutSeconds: Number(heartbeat[2]) } : undefined,
})
  .then((r) => {
    print(r);
    if (values.json) writeFileSync(values.json, JSON.stringify(r, null, 2));
    const clean = r.leftovers.runnerProcesses + r.leftovers.mounts + r.leftovers.versions === 0;
    process.exitCode = r.status === 'SUCCEEDED' && clean ? 0 : 1;
  })
  .catch((err) => {
    console.error(`rehearsal could not run: ${(err as Error).stack ?? err}`);
    process.exitCode = 2;
  })
  // Everything the rehearsal started is stopped and checked by now (its "left behind" line); after a
  // failed execution one child handle stays open in this process — tsx's own esbuild service, the
  // only child left — and would hold the exit for minutes.
  .finally(() => process.exit());
