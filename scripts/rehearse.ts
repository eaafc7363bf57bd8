/**
 * `npm run rehearse -- [--profile P | --matrix FILE] [--runners TYPE:COUNT,...] [--layout shard|fleet] [--fail setup|run-step|runner-dies|success-fails-twice|stop-execution] [--drop-grant ROLE:ACTION@RESOURCE] [--vcpu-quota N] [--running-vcpus N] [--not-offered TYPES] [--pull DIR]`:
 * a whole AWS execution rehearsed here (scripts/rehearsal/rehearse.ts) — the synthesized state
 * machine, the real Lambda handlers, local runner sandboxes running the SSM documents' own lines
 * against the embedded S3 server, every request evaluated against the template's IAM — then its
 * figures: per state against its timeout, callbacks, history events against their bound, S3
 * requests, IAM, objects, what was left behind, and the final status.
 */
import Table from 'cli-table3';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseDroppedGrant } from './rehearsal/iam';
import { rehearse, type RehearsalReport } from './rehearsal/rehearse';
import { DEFAULT_ACCOUNT, FAULTS, type Fault } from './rehearsal/local-cloud';
import { DEFAULT_RUNNER_INSTANCE_TYPE } from '../lib/instance-types';
import { TASK_TIMEOUT_S } from '../lib/pipeline/tasks';
import { TEARDOWN_MAX_ROUNDS } from '../lib/pipeline/teardown-flow';
import { AWS_FACTS } from '../runner/plan/aws-facts';
import { estimateExecution } from '../runner/plan/execution-model';
import { loadMatrixFile, loadProfile, resolveMatrix } from '../runner/core/matrix';
import { RunError, UserError } from '../runner/core/errors';
import { installForRehearsal } from './rehearsal/setup';
import { CATALOG } from '../runner/catalog';
import { impliedLayout } from '../runner/core/shards';

/** A usage error of this script: its message and the fix, exit 2, no stack trace. */
const usage = (problem: string, fix = 'see `npm run rehearse -- --help` for the options and their values') => new UserError(problem, fix);

function parseOptions() {
  try {
    return parseArgs({
      options: {
        profile: { type: 'string', default: 'quick' }, matrix: { type: 'string' }, runners: { type: 'string' },
        layout: { type: 'string' }, fail: { type: 'string' }, 'poll-seconds': { type: 'string', default: '0' }, 'slow-runner': { type: 'string', default: '0' }, json: { type: 'string' },
        'drop-grant': { type: 'string' }, heartbeat: { type: 'string' }, 'skip-setup': { type: 'boolean' },
        'vcpu-quota': { type: 'string' }, 'running-vcpus': { type: 'string' }, 'not-offered': { type: 'string' },
        documents: { type: 'string', default: '5' }, 'server-on-disk': { type: 'boolean' }, pull: { type: 'string' }, help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (err) {
    // node:util's messages name the option ("Unknown option '--bogus'"); its stack says nothing more.
    throw usage((err as Error).message.split('\n')[0]);
  }
}
type Options = ReturnType<typeof parseOptions>;

function printHelp(): void {
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
    '  --vcpu-quota N      the account\'s Standard vCPU quota as Service Quotas answers it (ec2 L-1216C47A; default 1000)',
    '  --running-vcpus N   vCPUs of other On-Demand instances already running in the account (default 0)',
    '  --not-offered T,... instance types the stack\'s runner zones do not offer (DescribeInstanceTypeOfferings)',
    '  --heartbeat I/T     runners\' heartbeat interval and the tasks\' heartbeat timeout here, in seconds (default: the definition\'s)',
    '  --slow-runner N     the first runner\'s steps start N seconds late, as if its earlier steps were slow (a fleet:',
    '                      the other runners wait for it at the barrier, and each still gets its whole step budget)',
    '  --poll-seconds N    seconds between readiness checks here (default 0: the sandboxes are online at once)',
    '  --documents N       documents per Lambda repetition (default 5)',
    '  --json FILE         also write the figures as JSON',
    '  --pull DIR          after the execution, `s3ab aws pull` its run from the results bucket into DIR, as a user does',
    '  --server-on-disk    keep the embedded server\'s objects on disk, not in RAM (seed: the versioned bucket keeps every',
    '                      version until Teardown, more than this machine\'s memory; the default for seed and full)',
    '  --skip-setup        do not install first what the rehearsal needs (the base, the AWS CLI, the matrix\'s clients:',
    '                      `s3ab setup --for-run`, as `npm run local` does; each present component is skipped in under a second)',
  ].join('\n'));
}

/** The execution's input and the rehearsal's options, from the command line; bad input throws a UserError. */
function rehearsalInput(values: Options) {
  const rawMatrix = (values.matrix ? loadMatrixFile(values.matrix) : loadProfile(values.profile!)) as { clients?: number[] };
  if (values.layout && !['shard', 'fleet'].includes(values.layout)) throw usage(`--layout ${values.layout} is not a layout`, 'give shard or fleet');
  // A fleet's runners are its clients: left to ValidateInput unless asked for.
  const fleet = (values.layout ?? impliedLayout(rawMatrix.clients ?? [1])) === 'fleet';
  const runners = values.runners ?? (fleet ? undefined : `${DEFAULT_RUNNER_INSTANCE_TYPE}:1`);
  const runnerSpecs = runners?.split(',').map((spec) => {
    const [instanceType, count] = spec.split(':');
    if (!instanceType || !/^[1-9]\d*$/.test(count ?? '1')) throw usage(`--runners ${runners}: "${spec}" is not TYPE:COUNT`, `give instance types with a positive count, e.g. ${DEFAULT_RUNNER_INSTANCE_TYPE}:2`);
    return { instanceType, count: Number(count ?? 1) };
  });
  if (values.fail && !FAULTS.includes(values.fail as Fault)) throw usage(`--fail ${values.fail} is not a failure the rehearsal injects`, `give one of ${FAULTS.join(', ')}`);
  const heartbeat = values.heartbeat ? /^(\d+)\/(\d+)$/.exec(values.heartbeat) : null;
  if (values.heartbeat && !heartbeat) throw usage(`--heartbeat ${values.heartbeat} is not INTERVAL/TIMEOUT`, 'give both in seconds, e.g. 1/6');
  for (const name of ['poll-seconds', 'documents', 'slow-runner'] as const) {
    if (!/^\d+$/.test(values[name]!)) throw usage(`--${name} ${values[name]} is not a whole number`, `give a count, e.g. --${name} 5`);
  }
  let dropGrant;
  try {
    dropGrant = values['drop-grant'] ? parseDroppedGrant(values['drop-grant']) : undefined;
  } catch (err) {
    throw usage((err as Error).message, 'give ROLE:ACTION[@RESOURCE], e.g. RunnersRole:s3:ListBucket@s3ab-rehearsal-results');
  }
  const input = {
    ...(values.matrix ? { matrix: rawMatrix } : { profile: values.profile }),
    ...(runnerSpecs ? { runners: runnerSpecs } : {}), ...(values.layout ? { layout: values.layout } : {}), lambdas: { documents: Number(values.documents), repetitions: 1 },
  };
  const whole = (name: string, text: string | undefined, fallback: number) => {
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(n) || n < 0) throw usage(`--${name} ${text} is not a whole number of vCPUs`, 'give a whole number, e.g. 32');
    return n;
  };
  const account = {
    vcpuQuota: whole('vcpu-quota', values['vcpu-quota'], DEFAULT_ACCOUNT.vcpuQuota),
    runningVcpus: whole('running-vcpus', values['running-vcpus'], DEFAULT_ACCOUNT.runningVcpus),
    notOffered: values['not-offered']?.split(',').filter(Boolean),
  };
  return { input, dropGrant, account, heartbeat: heartbeat ? { intervalSeconds: Number(heartbeat[1]), timeoutSeconds: Number(heartbeat[2]) } : undefined };
}

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
    console.log(`fleet step ${f.step} (${f.cache}): ${f.runners} of ${f.clients} clients recorded, ${f.startInstants} common start instant(s), first measurements ${f.spreadMs} ms apart; clock: ${f.clockSources.join(', ')}; ${f.didNotFinish} did-not-finish, ${f.failed} failed record(s)`);
  }
  console.log(`left behind: ${r.leftovers.runnerProcesses} runner processes, ${r.leftovers.mounts} mounts, ${r.leftovers.versions} versions of the run`);
  atSeedScale(r);
  if (r.pulled) console.log(`s3ab aws pull into ${r.pulled.dir}: exit ${r.pulled.code}\n${r.pulled.output.replace(/^/gm, '  ')}`);
  if (r.reportSectionsWithoutData) console.log(`report sections without data: ${r.reportSectionsWithoutData.join(', ') || 'none'}`);
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

async function main(): Promise<void> {
  // The SDK warns on Node 20 about its releases from 2027 on; the lockfile pins this one.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const values = parseOptions();
  if (values.help) return printHelp();
  const { input, dropGrant, account, heartbeat } = rehearsalInput(values);
  if (!values['skip-setup']) installForRehearsal({ profile: values.profile, matrixFile: values.matrix });
  const serverOnDisk = values['server-on-disk'] ?? (!values.matrix && ['seed', 'full'].includes(values.profile!));
  const r = await rehearse({ input, fault: values.fail as Fault | undefined, pollSeconds: Number(values['poll-seconds']), slowRunnerS: Number(values['slow-runner']), serverOnDisk, dropGrant, account, heartbeat, pullInto: values.pull, log: (l) => console.log(l) });
  print(r);
  if (values.json) writeFileSync(values.json, JSON.stringify(r, null, 2));
  const clean = r.leftovers.runnerProcesses + r.leftovers.mounts + r.leftovers.versions === 0;
  process.exitCode = r.status === 'SUCCEEDED' && clean && (r.pulled?.code ?? 0) === 0 ? 0 : 1;
}

main()
  .catch((err) => {
    // A problem the user can fix (a bad option, a missing tool, a failed install) is its message and
    // its fix; anything else is a defect of the rehearsal, with its stack for whoever fixes it.
    if (err instanceof UserError || err instanceof RunError) {
      console.error(`rehearsal: ${err.problem}\n  fix: ${err.fix}`);
      process.exitCode = err instanceof UserError ? 2 : 1;
    } else {
      console.error(`rehearsal could not run: ${(err as Error).stack ?? err}`);
      process.exitCode = 1;
    }
  })
  // Everything the rehearsal started is stopped and checked by now (its "left behind" line); after a
  // failed execution one child handle stays open in this process — tsx's own esbuild service, the
  // only child left — and would hold the exit for minutes.
  .finally(() => process.exit());
