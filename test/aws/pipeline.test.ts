import aslValidator from 'asl-validator';
import { StateMachine } from 'aws-local-stepfunctions';
import { validateInput } from '../../lambda/validate-input';
import { MAX_RUNNERS, RUNNER_IMAGE } from '../../lib/instance-types';
import { MAX_LAMBDA_REPETITIONS, NON_BENCHMARK_BOUND } from '../../lib/pipeline';
import { TRANSIENT_ERRORS } from '../../lib/pipeline/tasks';
import { COUNTED_STATES, HISTORY_EVENT_LIMIT, historyEventBound } from '../../lib/pipeline/history';
import { TEARDOWN_MAX_ROUNDS } from '../../lib/pipeline/teardown-flow';
import { profileNames } from '../../runner/core/matrix';
import { METHOD_DESCRIPTORS as METHODS } from '../../runner/methods/catalog';
import { MODEL_QUERIES } from '../../runner/report/model-queries.generated';
import { modelQueries, namedQueries } from '../../runner/report/results-db';
import { queryForRun } from '../../runner/report/run-query';
import { shardTimeoutSeconds } from '../../runner/plan/execution-model';
import { newRunId, runDay } from '../../runner/core/vocabulary';
import { withoutTimeoutPaths } from '../../scripts/rehearsal/synthesize';
import { synthesizedDefinition } from '../helpers/definition';

// aws-local-stepfunctions needs Promise.withResolvers (Node 22); without it every Task throws and
// a States.ALL catch would hide that.
if (!(Promise as unknown as { withResolvers?: unknown }).withResolvers) {
  (Promise as unknown as { withResolvers: () => unknown }).withResolvers = () => {
    let resolve!: (v: unknown) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  };
}

const definition = synthesizedDefinition();

/** Every Task state of the definition, Map item processors included, by name. */
function taskStates(states: Record<string, any> = definition.States): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [name, st] of Object.entries(states)) {
    if (st.Type === 'Task') out[name] = st;
    if (st.ItemProcessor) Object.assign(out, taskStates(st.ItemProcessor.States));
    for (const b of st.Branches ?? []) Object.assign(out, taskStates(b.States));
  }
  return out;
}
const TASK_STATES = taskStates();
const TASKS = Object.keys(TASK_STATES);

test('the task states are read from the definition and include every known one', () => {
  expect(TASKS.length).toBeGreaterThan(0);
  expect(TASKS).toEqual(expect.arrayContaining(['ValidateInput', 'RunInstancesInSubnet1', 'RunInstancesInSubnet2', 'CheckRunnersOnline', 'SendSetupCommand', 'SetupRunner', 'SendShardCommand', 'RunShard',
    'InvokeBefore', 'InvokeAfter', 'GetNamedQuery', 'RunSummaryQuery', 'Report', 'Teardown']));
});

/** The instance types these tests launch, with their architecture (AWS's documentation). */
const ARCHITECTURE: Record<string, 'arm64' | 'x86_64'> = { 'c7g.large': 'arm64', 'm7g.large': 'arm64', 'm7i.large': 'x86_64', 'c6i.large': 'x86_64' };

class Named extends Error {
  constructor(name: string, message: string) { super(message); this.name = name; }
}

/** The SQL file behind a named query id of the definition (ListSummaryQueries holds name and id). */
function sqlOfNamedQuery(id: string): string {
  const entry = definition.States.ListSummaryQueries.Result.find((q: any) => q.id === id);
  if (!entry) throw new Error(`no named query ${id}`);
  return namedQueries().find((q) => q.name === entry.name)!.sql;
}

interface FakeOptions {
  /** Task states that fail (InjectedFailure) every time they run. */
  failAt?: string | string[];
  /** Task states whose first call fails with this transient error name, e.g. { RunInstances: 'Ec2.Ec2Exception' }. */
  transientOnce?: Record<string, string>;
  neverOnline?: boolean;
  /** RunInstances of this instance type fails in every subnet (InsufficientInstanceCapacity). */
  launchFailsFor?: string;
  /** RunInstances in the first subnet fails for every type: its AZ does not offer it (Unsupported). */
  firstSubnetUnsupported?: boolean;
  /** A runner's callback task: the runner reports this failure, or goes silent (States.HeartbeatTimeout). */
  runnerFails?: { error: string; cause: string } | 'silent';
  /** RunInstances of this instance type answers only after this many ms. */
  slowLaunch?: { instanceType: string; ms: number };
  /** Versions the run left in the data bucket; each Teardown round deletes up to `perRound` of them. @default 0, 1,000 */
  dataLeft?: { versions: number; perRound: number };
}

/** A small stand-in for the AWS services the pipeline calls: instances, SSM, Athena, the functions. */
function fakeCloud(opts: FakeOptions = {}) {
  const instances = new Map<string, { state: string; tags: Record<string, string>; instanceType: string; imageId: string }>();
  const calls: string[] = [];
  const stepsRun: string[] = [];
  const setups: string[] = [];
  const shardTimeouts: number[] = [];
  const queriesSent: string[] = [];
  const reportEvents: any[] = [];
  const launches = new Map<string, string[]>(); // ClientToken → instance ids (EC2's idempotency)
  const failAt = new Set([opts.failAt ?? []].flat());
  const transient = new Map(Object.entries(opts.transientOnce ?? {}));
  const teardownRounds: { runId: string; deletedVersions: number; done: boolean }[] = [];
  let versionsLeft = opts.dataLeft?.versions ?? 0;
  let n = 0;
  const step = (name: string, fn: (input: any) => unknown) => async (input: any) => {
    calls.push(name);
    if (failAt.has(name)) throw new Named('InjectedFailure', `injected failure in ${name}`);
    const once = transient.get(name);
    if (once) transient.delete(name);
    // A launch's answer can be lost after EC2 acted on it: the retry must not launch again.
    if (once && name.startsWith('RunInstances')) {
      await fn(input);
      throw new Named(once, `transient ${once} in ${name} (after the launch)`);
    }
    if (once) throw new Named(once, `transient ${once} in ${name}`);
    return fn(input);
  };
  const subnets = Object.keys(TASK_STATES).filter((t) => t.startsWith('RunInstancesInSubnet'));
  const runInstances = async (p: any) => {
      if (opts.slowLaunch?.instanceType === p.InstanceType) await new Promise((r) => setTimeout(r, opts.slowLaunch!.ms));
      if (opts.firstSubnetUnsupported && p.SubnetId === TASK_STATES.RunInstancesInSubnet1.Parameters.SubnetId) {
        throw new Named('Ec2.Ec2Exception', `Unsupported: Your requested instance type (${p.InstanceType}) is not supported in your requested Availability Zone`);
      }
      if (opts.launchFailsFor === p.InstanceType) throw new Named('Ec2.InsufficientInstanceCapacityException', `no capacity for ${p.InstanceType}`);
      // The launch template's image is arm64: an image of the other architecture fails the launch, as on EC2.
      const wanted = RUNNER_IMAGE[ARCHITECTURE[p.InstanceType]];
      if ((p.ImageId ?? RUNNER_IMAGE.arm64) !== wanted) throw new Named('Ec2.Ec2Exception', `The architecture of the image does not match instance type ${p.InstanceType}`);
      const known = launches.get(p.ClientToken);
      if (known) return { Instances: known.map((InstanceId) => ({ InstanceId })) };
      const ids = Array.from({ length: p.MinCount }, () => `i-${String(++n).padStart(8, '0')}`);
      const tags = Object.fromEntries(p.TagSpecifications[0].Tags.map((t: any) => [t.Key, t.Value]));
      for (const id of ids) instances.set(id, { state: 'running', tags, instanceType: p.InstanceType, imageId: p.ImageId });
      if (p.ClientToken) launches.set(p.ClientToken, ids);
      return { Instances: ids.map((InstanceId) => ({ InstanceId })) };
  };
  // A runner's callback task: the handler answers as the runner's SendTaskSuccess / SendTaskFailure would end it.
  const callback = (result: unknown) => async () => {
    if (opts.runnerFails === 'silent') throw new Named('States.HeartbeatTimeout', '');
    if (opts.runnerFails) throw new Named(opts.runnerFails.error, opts.runnerFails.cause);
    return result;
  };
  const handlers: Record<string, (input: any) => Promise<unknown>> = {
    ValidateInput: step('ValidateInput', ({ Payload: { input } }) => {
      const v = validateInput(input, 'c7g.large');
      const { matrix: _m, ...rest } = v;
      void _m;
      const runId = newRunId();
      return { Payload: { runId, day: runDay(runId), matrixKey: `executions/${runId}/matrix.json`, ...rest } };
    }),
    ...Object.fromEntries(subnets.map((name) => [name, step(name, runInstances)])),
    // SSM answers one page: MaxResults items (10 when not given), as DescribeInstanceInformation does.
    CheckRunnersOnline: step('CheckRunnersOnline', (p) => ({
      InstanceInformationList: opts.neverOnline ? [] : p.Filters[0].Values.slice(0, p.MaxResults ?? 10).map((InstanceId: string) => ({ InstanceId, PingStatus: 'Online' })),
    })),
    SendSetupCommand: step('SendSetupCommand', (p) => {
      setups.push(`${p.Parameters.install[0]}@${p.InstanceIds[0]}`);
      expect(p.Parameters.taskTokenKey).toEqual([expect.stringMatching(new RegExp(`^task-tokens/[^/]+/${p.InstanceIds[0]}/setup$`))]);
      return { Command: { CommandId: `cmd-setup-${p.InstanceIds[0]}` } };
    }),
    // The token goes to the key the command was told, never into the command's parameters.
    SetupRunner: step('SetupRunner', (p) => {
      expect(p).toEqual({ Bucket: expect.any(String), Key: expect.stringMatching(/^task-tokens\/.*\/setup$/), Body: 'token-of-the-task' });
      return callback({ setup: 'done' })();
    }),
    // One command per runner with its share of the steps: "STEPS@INSTANCE".
    SendShardCommand: step('SendShardCommand', (p) => {
      expect(p.InstanceIds).toHaveLength(1);
      expect(JSON.stringify(p)).not.toContain('token-of-the-task');
      stepsRun.push(`${p.Parameters.steps[0]}@${p.InstanceIds[0]}`);
      shardTimeouts.push(Number(p.Parameters.executionTimeout[0]));
      return { Command: { CommandId: `cmd-run-step-${p.InstanceIds[0]}` } };
    }),
    RunShard: step('RunShard', (p) => {
      expect(p.Body).toBe('token-of-the-task');
      return callback({ status: 'complete', stepsDone: 1 })();
    }),
    InvokeBefore: step('InvokeBefore', ({ Payload: p }) => ({ Payload: { method: 's3-api', repetition: p.repetition, files: p.documents, verified: true } })),
    InvokeAfter: step('InvokeAfter', ({ Payload: p }) => ({ Payload: { method: 's3-files', repetition: p.repetition, files: p.documents, verified: true } })),
    // Athena: the named queries hold the SQL files; each run of one is recorded as sent.
    GetNamedQuery: step('GetNamedQuery', (p) => ({ NamedQuery: { QueryString: sqlOfNamedQuery(p.NamedQueryId) } })),
    RunSummaryQuery: step('RunSummaryQuery', (p) => {
      queriesSent.push(p.QueryString);
      return { QueryExecution: { QueryExecutionId: `qe-${queriesSent.length}` } };
    }),
    Report: step('Report', ({ Payload: p }) => {
      reportEvents.push(p);
      return { Payload: { reportLocation: `s3://results/reports/${p.runId}/report.html`, files: [] } };
    }),
    // One round of lambda/teardown.ts: runners terminated (idempotent), then as many versions as its time allows.
    Teardown: step('Teardown', ({ Payload: p }) => {
      const ids = [...instances].filter(([, i]) => i.tags['s3ab:run-id'] === p.runId && i.state === 'running').map(([id]) => id);
      for (const id of ids) instances.get(id)!.state = 'terminated';
      const deletedVersions = Math.min(versionsLeft, opts.dataLeft?.perRound ?? 1000);
      versionsLeft -= deletedVersions;
      const done = versionsLeft === 0;
      teardownRounds.push({ runId: p.runId, deletedVersions, done });
      return { Payload: { done, terminated: ids, deletedVersions, prefixes: [`s3ab/${p.runId}/`], left: done ? '' : `s3://data/s3ab/${p.runId}/` } };
    }),
  };
  return { instances, calls, stepsRun, setups, shardTimeouts, queriesSent, reportEvents, handlers, teardownRounds };
}

async function execute(input: unknown, cloud: ReturnType<typeof fakeCloud>) {
  const machine = new StateMachine(withoutTimeoutPaths(definition) as never, { validationOptions: { checkArn: false } });
  const zero = (names: string[]) => Object.fromEntries(names.map((k) => [k, 0]));
  const run = machine.run(input as never, {
    overrides: {
      taskResourceLocalHandlers: cloud.handlers as never,
      waitTimeOverrides: zero(['ReadyWait']),
      retryIntervalOverrides: zero(TASKS),
    },
    context: { Execution: { Id: 'arn:aws:states:us-east-1:123456789012:execution:sm:test' }, Task: { Token: 'token-of-the-task' } },
  });
  if (process.env.DEBUG_PIPELINE) void (async () => { for await (const e of run.eventLogs as AsyncIterable<any>) if (/Failed|Caught/.test(e.type)) console.error(e.type, e.state?.name, JSON.stringify(e).slice(0, 600)); })();
  try {
    return { output: await run.result as any, error: null };
  } catch (err) {
    const cause = (err as { cause?: { name: string; message: string } }).cause;
    if (process.env.DEBUG_PIPELINE) console.error((cause as any)?.stack ?? err);
    return { output: null, error: { name: cause?.name ?? (err as Error).name, message: cause?.message ?? (err as Error).message } };
  }
}

const MATRIX = { methods: ['s3-api'], repetitions: 1, workloads: { 'small-reads': { files: 4 }, 'dir-walk': { objects: 10 } } };
const INPUT = { matrix: MATRIX, runners: [{ instanceType: 'c7g.large', count: 2 }], lambdas: { documents: 5, repetitions: 2 } };
// A fleet of three on mixed types: steps 1–2 (small-reads with 1 and 3 clients), 3–4 (dir-walk).
const MIXED = { ...INPUT, matrix: { ...MATRIX, clients: [1, 3] }, layout: 'fleet', runners: [{ instanceType: 'c7g.large', count: 2 }, { instanceType: 'm7i.large', count: 1 }] };

test('the synthesized definition is valid ASL (asl-validator) and uses JSONPath only', () => {
  const { isValid, errorsText } = aslValidator(definition);
  expect(errorsText()).toBe('');
  expect(isValid).toBe(true);
  expect(JSON.stringify(definition)).not.toContain('JSONata');
});

test('happy path: every state in order, each runner its own workloads in one command, a report location, runners terminated', async () => {
  const cloud = fakeCloud();
  const { output, error } = await execute(INPUT, cloud);
  expect(error).toBeNull();
  const firstOf = (name: string) => cloud.calls.indexOf(name);
  const order = ['ValidateInput', 'RunInstancesInSubnet1', 'CheckRunnersOnline', 'SendSetupCommand', 'SetupRunner', 'SendShardCommand', 'RunShard', 'InvokeBefore', 'InvokeAfter', 'GetNamedQuery', 'RunSummaryQuery', 'Report', 'Teardown'];
  expect(order.map(firstOf)).toEqual([...order.map(firstOf)].sort((a, b) => a - b));
  expect(order.every((s) => firstOf(s) >= 0)).toBe(true);
  // Layout "shard": small-reads (step 1) on the first runner, dir-walk (step 2) on the second, at once.
  expect(cloud.stepsRun.sort()).toEqual(['1@i-00000001', '2@i-00000002']);
  expect([...cloud.instances.values()].map((i) => i.imageId)).toEqual(Array(2).fill(RUNNER_IMAGE.arm64));
  // Each runner set up with what its own shard needs (s3-api needs nothing installed), its command with its shard's timeout.
  expect(cloud.setups.sort()).toEqual(['[]@i-00000001', '[]@i-00000002']);
  expect(cloud.shardTimeouts).toEqual(output.run.value.shards.map((x: any) => x.timeoutSeconds));
  expect(cloud.calls.filter((c) => c === 'InvokeBefore')).toHaveLength(2);
  expect(output.report.value.reportLocation).toMatch(/^s3:\/\/results\/reports\/\d{8}T\d{6}Z-[0-9a-f]{6}\/report\.html$/);
  // Aggregate sends each model query's SQL file (assets/queries/model/; the adhoc ones are left to
  // users) restricted to the run, its ORDER BY repeated outside (Athena drops an ORDER BY inside a
  // subquery), exactly as runner/report/run-query.ts writes it.
  const runId = output.run.value.runId;
  expect(cloud.queriesSent.sort()).toEqual(modelQueries().map((q) => queryForRun(q.sql, runId, { database: 's3ab_s3accessbench' })).sort());
  expect(modelQueries().map((q) => q.name)).toEqual([...MODEL_QUERIES]);
  const cells = cloud.queriesSent.find((q) => q.includes(`SELECT * FROM (${namedQueries().find((x) => x.name === 'report_cells')!.sql}`))!;
  expect(cells.endsWith(`\n) AS q WHERE run_id = '${runId}' ORDER BY run_id, workload, operation, io, object_size_bytes, method, method_variant, cache, comparable_key`)).toBe(true);
  // Report gets every query's execution id and what the execution knows about the run.
  expect(cloud.reportEvents).toEqual([{
    runId, queries: modelQueries().map((q) => ({ name: q.name, queryExecutionId: expect.stringMatching(/^qe-\d+$/) })),
    execution: { matrix: output.run.value.matrixName, steps: 2, startedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/), advice: null },
  }]);
  expect(output.aggregate.map((q: any) => q.name).sort()).toEqual([...MODEL_QUERIES].sort());
  expect([...cloud.instances.values()].map((i) => i.state)).toEqual(['terminated', 'terminated']);
  expect([...cloud.instances.values()][0].tags).toMatchObject({ 's3ab:stack': 'S3AccessBench', 's3ab:execution': expect.stringContaining(':execution:') });
});

describe('a failure injected in each task state ends in Teardown with the runners terminated and the original cause', () => {
  // A launch that fails in the first subnet is tried in the next (tested below): the last subnet's failure is the one that ends the run.
  for (const task of TASKS.filter((t) => t !== 'ValidateInput' && t !== 'Teardown' && t !== 'RunInstancesInSubnet1')) {
    test(task, async () => {
      const cloud = fakeCloud({ failAt: task, firstSubnetUnsupported: task === 'RunInstancesInSubnet2' });
      const { error } = await execute(INPUT, cloud);
      expect(error).toEqual({ name: 'InjectedFailure', message: `injected failure in ${task}` });
      expect(cloud.calls[cloud.calls.length - 1]).toBe('Teardown');
      expect([...cloud.instances.values()].every((i) => i.state === 'terminated')).toBe(true);
    });
  }

  test('ValidateInput: fails at once, nothing provisioned, no teardown needed', async () => {
    const cloud = fakeCloud({ failAt: 'ValidateInput' });
    const { error } = await execute(INPUT, cloud);
    expect(error).toEqual({ name: 'InjectedFailure', message: 'injected failure in ValidateInput' });
    expect(cloud.calls).toEqual(['ValidateInput']);
  });

  test('Teardown itself, after a clean run: the execution fails as TeardownFailed with the teardown\'s error in the cause', async () => {
    const cloud = fakeCloud({ failAt: 'Teardown' });
    const { error } = await execute(INPUT, cloud);
    expect(error!.name).toBe('TeardownFailed');
    expect(error!.message).toMatch(/^Teardown did not finish: InjectedFailure: .*injected failure in Teardown.*; the janitor and the runner lifetime limit will terminate what is left$/);
  });

  test('Teardown itself, after another failure: the original error and cause are kept, the teardown\'s error added', async () => {
    const cloud = fakeCloud({ failAt: ['RunShard', 'Teardown'] });
    const { error } = await execute(INPUT, cloud);
    expect(error!.name).toBe('InjectedFailure');
    expect(error!.message).toMatch(/^injected failure in RunShard \[and Teardown failed: InjectedFailure: .*injected failure in Teardown.*; the janitor and the runner lifetime limit will terminate what is left\]$/);
  });
});

describe('Teardown runs in rounds while the function reports done:false, at most the bound of TeardownDone?, then ends the execution as before', () => {
  const bound = (definition.States['TeardownDone?']?.Choices[0].And as any[] | undefined)?.find((c) => c.Variable === '$.teardownProgress.rounds').NumericGreaterThanEquals;

  test('2,500 versions, 1,000 a round: three rounds, then success; $.teardown holds the last round only, $.teardownProgress the counts', async () => {
    const cloud = fakeCloud({ dataLeft: { versions: 2500, perRound: 1000 } });
    const { output, error } = await execute(INPUT, cloud);
    expect(error).toBeNull();
    expect(cloud.teardownRounds).toEqual([1000, 1000, 500].map((deletedVersions, i) => ({ runId: output.run.value.runId, deletedVersions, done: i === 2 })));
    expect(cloud.calls.slice(-3)).toEqual(['Teardown', 'Teardown', 'Teardown']);
    expect(output.teardownProgress).toEqual({ rounds: 3, deletedVersions: 2500 });
    // Nothing accumulates per round: the state holds one small round result.
    expect(output.teardown.value).toEqual({ done: true, terminated: [], deletedVersions: 500, prefixes: [`s3ab/${output.run.value.runId}/`], left: '' });
    expect([...cloud.instances.values()].every((i) => i.state === 'terminated')).toBe(true);
  });

  test('after an earlier failure, the rounds run to done and the execution fails with the original error and cause only', async () => {
    const cloud = fakeCloud({ failAt: 'Report', dataLeft: { versions: 1500, perRound: 1000 } });
    const { error } = await execute(INPUT, cloud);
    expect(cloud.teardownRounds.map((r) => r.done)).toEqual([false, true]);
    expect(error).toEqual({ name: 'InjectedFailure', message: 'injected failure in Report' });
  });

  test(`data that never goes: after the bound the execution fails as TeardownFailed, naming the rounds, the versions, what is left, the lifecycle rule and the fix`, async () => {
    expect(bound).toBe(TEARDOWN_MAX_ROUNDS);
    const cloud = fakeCloud({ dataLeft: { versions: 10_000_000, perRound: 1000 } });
    const { output, error } = await execute(INPUT, cloud);
    expect(output).toBeNull();
    expect(cloud.teardownRounds).toHaveLength(bound);
    const runId = cloud.teardownRounds[0].runId;
    expect(error!.name).toBe('TeardownFailed');
    const left = `${bound} rounds deleted ${bound * 1000} versions and delete markers but versions are left under s3://data/s3ab/${runId}/\\. `
      + 'The data bucket lifecycle rule expire-noncurrent-versions removes the noncurrent versions and delete markers left there; current objects stay until deleted: '
      + 'invoke the function ref-PipelineTeardownFn\\w+ again with this runId, it continues where it stopped; the janitor and the runner lifetime limit will terminate what is left';
    expect(error!.message).toMatch(new RegExp(`^Teardown did not finish: TeardownIncomplete: ${left}$`));
    expect([...cloud.instances.values()].every((i) => i.state === 'terminated')).toBe(true);
  });

  test('out of rounds after an earlier failure: the original error and cause kept, the teardown\'s added', async () => {
    const cloud = fakeCloud({ failAt: 'RunShard', dataLeft: { versions: 10_000_000, perRound: 1000 } });
    const { error } = await execute(INPUT, cloud);
    expect(cloud.teardownRounds).toHaveLength(bound);
    expect(error!.name).toBe('InjectedFailure');
    expect(error!.message).toMatch(new RegExp(`^injected failure in RunShard \\[and Teardown failed: TeardownIncomplete: ${bound} rounds deleted ${bound * 1000} versions .* expire-noncurrent-versions .*; the janitor and the runner lifetime limit will terminate what is left\\]$`));
  });
});

describe('bad input stops at ValidateInput with nothing provisioned', () => {
  const cases: [string, unknown, RegExp][] = [
    ['unknown method', { matrix: { ...MATRIX, methods: ['ftp'] } }, new RegExp(`methods\\[0\\] "ftp" is not a method — use one of: ${METHODS.map((m) => m.name).join(', ')}`)],
    ['unknown workload', { matrix: { ...MATRIX, workloads: { nope: {} } } }, /workloads\.nope is not a workload — use one of: objects/],
    ['bad parameter', { matrix: { ...MATRIX, workloads: { 'small-reads': { files: 0 } } } }, /workloads\.small-reads/],
    ['missing methods', { matrix: { workloads: { objects: {} } } }, /must have required property 'methods'/],
    ['unknown profile', { profile: 'huge' }, new RegExp(`unknown profile "huge" — use one of: ${profileNames().join(', ')}`)],
    ['bad runner type', { matrix: MATRIX, runners: [{ instanceType: 'big', count: 1 }] }, /runners\[0\]\.instanceType "big" is not an EC2 instance type .* e\.g\. c7g\.large \(Graviton, arm64\) or m7i\.large \(x86_64\)/],
    ['too many runners', { matrix: MATRIX, runners: [{ instanceType: 'c7g.large', count: 51 }] }, new RegExp(`count must be a whole number from 1 to ${MAX_RUNNERS}`)],
    ['unknown instance family', { matrix: MATRIX, runners: [{ instanceType: 'c7g.large', count: 1 }, { instanceType: 'mac2.metal', count: 1 }] }, /runners\[1\]\.instanceType "mac2\.metal" is not an EC2 instance type that runs Amazon Linux 2023 — use <family><generation>/],
  ];
  for (const [name, input, message] of cases) {
    test(name, async () => {
      const cloud = fakeCloud();
      const { error } = await execute(input, cloud);
      expect(error!.name).toMatch(/^Invalid(Matrix|Input)$/);
      expect(error!.message).toMatch(message);
      expect(cloud.calls).toEqual(['ValidateInput']);
      expect(cloud.instances.size).toBe(0);
    });
  }
});

test('a runner that never comes online: bounded wait, then Teardown terminates it and the execution fails with RunnersNotReady', async () => {
  const cloud = fakeCloud({ neverOnline: true });
  const { error } = await execute({ matrix: MATRIX }, cloud);
  const polls = definition.States['RunnersReady?'].Choices.find((c: any) => c.Variable === '$.ready.attempts').NumericGreaterThanEquals;
  expect(polls).toBeGreaterThan(1);
  expect(error!.name).toBe('RunnersNotReady');
  expect(error!.message).toMatch(new RegExp(`not every runner was online in SSM after ${polls} checks ${definition.States.ReadyWait.Seconds} s apart`));
  expect(cloud.calls.filter((c) => c === 'CheckRunnersOnline')).toHaveLength(polls);
  expect(cloud.calls[cloud.calls.length - 1]).toBe('Teardown');
  expect([...cloud.instances.values()].map((i) => i.state)).toEqual(['terminated']);
});

describe('the non-benchmark part is bounded by its timeouts; the runners\' tasks by theirs and by heartbeats', () => {
  const S = definition.States;
  /** Worst case of a Task: every attempt runs to its timeout, plus the retry delays. */
  const task = (st: any): number => {
    expect(st.TimeoutSeconds).toBeGreaterThan(0);
    let total = st.TimeoutSeconds;
    for (const r of st.Retry ?? []) {
      for (let i = 0; i < r.MaxAttempts; i++) total += Math.min(r.IntervalSeconds * r.BackoffRate ** i, r.MaxDelaySeconds ?? Infinity) + st.TimeoutSeconds;
    }
    return total;
  };
  /** A poll loop: its Choice's attempts bound × (wait + the checks in between). */
  const loop = (choice: string, wait: string, checks: string[]): number => {
    const bound = S[choice].Choices.find((c: any) => c.Variable?.endsWith('.attempts')).NumericGreaterThanEquals;
    expect(bound).toBeGreaterThan(0);
    return bound * (S[wait].Seconds + checks.reduce((n, c) => n + task(S[c]), 0));
  };
  const inner = (map: string) => S[map].ItemProcessor.States;
  const launches = Object.keys(inner('ProvisionRunners')).filter((t) => t.startsWith('RunInstancesInSubnet'));
  const phases: Record<string, number> = {
    ValidateInput: task(S.ValidateInput),
    // Runners launch in parallel (MaxConcurrency 0); each tries the subnets one after another.
    ProvisionRunners: launches.reduce((n, t) => n + task(inner('ProvisionRunners')[t]), 0),
    WaitUntilReady: loop('RunnersReady?', 'ReadyWait', ['CheckRunnersOnline']),
    Aggregate: task(inner('Aggregate').GetNamedQuery) + task(inner('Aggregate').RunSummaryQuery), // queries in parallel
    Report: task(S.Report),
    Teardown: task(S.Teardown), // the first round; later rounds (large runs) are bounded below
  };
  const total = Object.values(phases).reduce((a, b) => a + b, 0);
  const teardownRounds = (S['TeardownDone?']?.Choices[0].And as any[] | undefined)?.find((c) => c.Variable === '$.teardownProgress.rounds').NumericGreaterThanEquals;

  test(`worst case within NON_BENCHMARK_BOUND besides the runners and the teardown rounds after the first (printed per phase)`, () => {
    process.stdout.write(`non-benchmark worst case: ${Object.entries(phases).map(([k, v]) => `${k} ${v} s`).join(', ')}; total ${total} s of ${NON_BENCHMARK_BOUND.toSeconds()} s; `
      + `teardown of a large run: at most ${teardownRounds} rounds, ${teardownRounds * S.Teardown.TimeoutSeconds} s of ${S.Teardown.TimeoutSeconds}-s rounds, ${teardownRounds * phases.Teardown} s with every retry\n`);
    // Teardown rounds beyond the first happen only when a run left more versions than one round deletes.
    expect(teardownRounds).toBeGreaterThan(1);
    expect(teardownRounds * phases.Teardown).toBeLessThanOrEqual(3 * 3600);
    expect(S.Aggregate.MaxConcurrency ?? 0).toBe(0);
    expect(S.ProvisionRunners.MaxConcurrency ?? 0).toBe(0);
    expect(total).toBeLessThanOrEqual(NON_BENCHMARK_BOUND.toSeconds());
  });

  test('a runner\'s setup and steps are bounded by their commands\' own timeouts and a heartbeat, and a silent runner by HeartbeatSeconds', () => {
    const { SendSetupCommand: sendSetup, SetupRunner: setup, RunShard: run } = inner('RunBenchmarkShards');
    // Issue 13: a fresh 2-vCPU runner installs and compiles for minutes; its command has 30.
    const commandTimeout = Number(sendSetup.Parameters.Parameters.executionTimeout[0]);
    expect(commandTimeout).toBeGreaterThanOrEqual(900);
    expect(setup.TimeoutSeconds).toBe(commandTimeout + setup.HeartbeatSeconds);
    expect(S.RunBenchmarkShards.ItemSelector['taskTimeoutSeconds.$']).toBe(`States.MathAdd($$.Map.Item.Value.timeoutSeconds, ${run.HeartbeatSeconds})`);
    for (const st of [setup, run]) expect(st.HeartbeatSeconds).toBeLessThanOrEqual(15 * 60);
  });

  test('read-only calls retry a timeout; calls that change something never do (the call may have taken effect)', () => {
    for (const readOnly of [S.CheckRunnersOnline, inner('Aggregate').GetNamedQuery, inner('Aggregate').RunSummaryQuery]) {
      expect(readOnly.Retry.flatMap((r: any) => r.ErrorEquals)).toContain('States.Timeout');
    }
    for (const changing of [S.ValidateInput, ...launches.map((t) => inner('ProvisionRunners')[t]), inner('RunBenchmarkShards').SendSetupCommand, inner('RunBenchmarkShards').SetupRunner, inner('RunBenchmarkShards').SendShardCommand, inner('RunBenchmarkShards').RunShard, S.Report, S.Teardown]) {
      expect((changing.Retry ?? []).flatMap((r: any) => r.ErrorEquals)).not.toContain('States.Timeout');
    }
  });

  test('every Task state has a timeout; the execution as a whole too', () => {
    const all: any[] = [];
    const walk = (states: Record<string, any>) => {
      for (const st of Object.values(states)) {
        if (st.Type === 'Task') all.push(st);
        if (st.ItemProcessor) walk(st.ItemProcessor.States);
      }
    };
    walk(S);
    expect(all.length).toBeGreaterThanOrEqual(TASKS.length);
    // A runner's steps: the shard's own timeout (TimeoutSecondsPath, from the plan).
    for (const st of all) expect(st.TimeoutSeconds ?? (st.TimeoutSecondsPath && 1)).toBeGreaterThan(0);
    expect(definition.TimeoutSeconds).toBe(12 * 3600);
  });
});

test('mixed architectures: each runner spec launches the Amazon Linux 2023 image of its own architecture', async () => {
  const cloud = fakeCloud();
  const { output, error } = await execute(MIXED, cloud);
  expect(error).toBeNull();
  expect(output.run.value.runners).toEqual([
    { instanceType: 'c7g.large', count: 2, architecture: 'arm64', imageId: RUNNER_IMAGE.arm64 },
    { instanceType: 'm7i.large', count: 1, architecture: 'x86_64', imageId: RUNNER_IMAGE.x86_64 },
  ]);
  const byType = (t: string) => [...cloud.instances.values()].filter((i) => i.instanceType === t).map((i) => i.imageId);
  expect(byType('c7g.large')).toEqual([RUNNER_IMAGE.arm64, RUNNER_IMAGE.arm64]);
  expect(byType('m7i.large')).toEqual([RUNNER_IMAGE.x86_64]);
  // Layout "fleet": runner r runs the steps with more than r clients.
  expect(cloud.stepsRun.sort()).toEqual(['1,2,3,4@i-00000001', '2,4@i-00000002', '2,4@i-00000003']);
  expect([...cloud.instances.values()].every((i) => i.state === 'terminated')).toBe(true);
});

test('more runners than SSM\'s default page (10): all are seen online at the first check', async () => {
  const cloud = fakeCloud();
  const { error } = await execute({ ...INPUT, matrix: { ...MATRIX, clients: [1, 12] }, layout: 'fleet', runners: [{ instanceType: 'c7g.large', count: 8 }, { instanceType: 'c6i.large', count: 4 }] }, cloud);
  expect(error).toBeNull();
  expect(cloud.calls.filter((c) => c === 'CheckRunnersOnline')).toHaveLength(1);
  expect(cloud.stepsRun).toHaveLength(12);
  expect(new Set(cloud.stepsRun.map((r) => r.split('@')[1])).size).toBe(12);
  expect(TASK_STATES.CheckRunnersOnline.Parameters.MaxResults).toBe(50);
  expect(MAX_RUNNERS).toBeLessThanOrEqual(TASK_STATES.CheckRunnersOnline.Parameters.MaxResults);
});

test('a shard\'s runner that cannot launch in any subnet, after another launched: Teardown terminates the launched one', async () => {
  // The c7g runners' RunInstances answer late, the m7i runner fails in every subnet: Teardown must still see the c7g instances.
  const cloud = fakeCloud({ slowLaunch: { instanceType: 'c7g.large', ms: 150 }, launchFailsFor: 'm7i.large' });
  const { error } = await execute(MIXED, cloud);
  expect(error).toEqual({ name: 'Ec2.InsufficientInstanceCapacityException', message: 'no capacity for m7i.large' });
  expect(cloud.calls.filter((c) => c === 'RunInstancesInSubnet1')).toHaveLength(3);
  expect(cloud.calls.filter((c) => c === 'RunInstancesInSubnet2')).toHaveLength(1);
  expect(cloud.calls[cloud.calls.length - 1]).toBe('Teardown');
  expect(cloud.calls).not.toContain('CheckRunnersOnline');
  const launched = [...cloud.instances.values()];
  expect(launched.map((i) => [i.instanceType, i.state])).toEqual([['c7g.large', 'terminated'], ['c7g.large', 'terminated']]);
});

test('issue 21 (4): an AZ that does not offer the type (Unsupported in the first subnet): every runner launches in the next subnet and the run succeeds', async () => {
  const cloud = fakeCloud({ firstSubnetUnsupported: true });
  const { error } = await execute(INPUT, cloud);
  expect(error).toBeNull();
  // EC2's errors reach the integration as Ec2.Ec2Exception, which is retried (3 times, 7 s) before the next subnet.
  expect(cloud.calls.filter((c) => c === 'RunInstancesInSubnet1')).toHaveLength(2 * 4);
  expect(cloud.calls.filter((c) => c === 'RunInstancesInSubnet2')).toHaveLength(2);
  expect(cloud.stepsRun.sort()).toEqual(['1@i-00000001', '2@i-00000002']);
});

test('issue 21 (2): each shard\'s runner is launched with the shard\'s type and image, set up with the shard\'s install list, its command with the shard\'s timeout', async () => {
  const cloud = fakeCloud();
  const input = { ...INPUT, matrix: { ...MATRIX, methods: ['s3-api', 'aws-cli'] }, runners: [{ instanceType: 'c7g.large', count: 1 }, { instanceType: 'm7i.large', count: 1 }] };
  const { output, error } = await execute(input, cloud);
  expect(error).toBeNull();
  const shards = output.run.value.shards;
  expect(shards.map((x: any) => [x.instanceType, x.imageId, x.install])).toEqual([
    ['c7g.large', RUNNER_IMAGE.arm64, ['awscli']], ['m7i.large', RUNNER_IMAGE.x86_64, ['awscli']],
  ]);
  // Each command's timeout follows from its shard's modelled time (the model's margin over it, at least its floor).
  for (const x of shards) expect(x.timeoutSeconds).toBeGreaterThanOrEqual(Math.max(x.modelledSeconds, shardTimeoutSeconds(0)));
  expect([...cloud.instances.values()].map((i) => i.instanceType)).toEqual(['c7g.large', 'm7i.large']);
  expect(cloud.setups.sort()).toEqual(['["awscli"]@i-00000001', '["awscli"]@i-00000002']);
  expect(cloud.shardTimeouts.sort()).toEqual(shards.map((x: any) => x.timeoutSeconds).sort());
});

describe('issue 21 (8): runners end their tasks by callback; a runner that dies fails at its heartbeat timeout and goes to Teardown', () => {
  test('a runner\'s reported failure ends the execution with its error and cause, after Teardown', async () => {
    const cloud = fakeCloud({ runnerFails: { error: 'StepsFailed', cause: 'runner i-1, steps 1: failed (0 of 1 done, 1 failed): boom' } });
    const { error } = await execute(INPUT, cloud);
    expect(error).toEqual({ name: 'StepsFailed', message: 'runner i-1, steps 1: failed (0 of 1 done, 1 failed): boom' });
    expect(cloud.calls[cloud.calls.length - 1]).toBe('Teardown');
    expect([...cloud.instances.values()].every((i) => i.state === 'terminated')).toBe(true);
  });
  test('a silent runner (States.HeartbeatTimeout): RunnerLost naming it, then Teardown', async () => {
    const cloud = fakeCloud({ runnerFails: 'silent' });
    const { error } = await execute(INPUT, cloud);
    expect(error!.name).toBe('RunnerLost');
    expect(error!.message).toMatch(/^runner i-0000000\d sent no heartbeat for 600 s during its setup: it stopped, hangs or lost its network$/);
    expect(cloud.calls[cloud.calls.length - 1]).toBe('Teardown');
    expect([...cloud.instances.values()].every((i) => i.state === 'terminated')).toBe(true);
  });
});

describe('issue 21 (8): the history is a function of runners and rounds, bounded below 25,000 by construction', () => {
  const names = (states: Record<string, any>): string[] => Object.entries(states).flatMap(([n, st]) => [n, ...(st.ItemProcessor ? names(st.ItemProcessor.States) : [])]);
  const subnets = names(definition.States).filter((n) => n.startsWith('RunInstancesInSubnet')).length;
  const readyChecks = definition.States['RunnersReady?'].Choices.find((c: any) => c.Variable === '$.ready.attempts').NumericGreaterThanEquals;
  const shape = { subnets, readyChecks, lambdaRepetitions: MAX_LAMBDA_REPETITIONS, queries: modelQueries().length, teardownRounds: TEARDOWN_MAX_ROUNDS };
  test('the bound counts every state of the definition (a new state must be counted)', () => {
    const counted = COUNTED_STATES.map((n) => new RegExp(`^${n.replace(/[?]/g, '\\?').replace(/\*/g, '\\d+')}$`));
    expect(names(definition.States).filter((n) => !counted.some((c) => c.test(n)))).toEqual([]);
    expect(COUNTED_STATES.filter((c) => !names(definition.States).some((n) => new RegExp(`^${c.replace(/[?]/g, '\\?').replace(/\*/g, '\\d+')}$`).test(n)))).toEqual([]);
  });
  test(`the largest execution (${MAX_RUNNERS} runners, every loop at its bound, every retry) fits; the bound grows by a fixed amount per runner, not with time`, () => {
    const bound = historyEventBound({ ...shape, runners: MAX_RUNNERS });
    const perRunner = historyEventBound({ ...shape, runners: 2 }) - historyEventBound({ ...shape, runners: 1 });
    process.stdout.write(`history bound: ${bound} events at ${MAX_RUNNERS} runners (${perRunner} per runner; ${historyEventBound({ ...shape, runners: 0 })} besides the runners) of ${HISTORY_EVENT_LIMIT}\n`);
    expect(bound).toBeLessThanOrEqual(HISTORY_EVENT_LIMIT);
    expect(historyEventBound({ ...shape, runners: 3 }) - historyEventBound({ ...shape, runners: 2 })).toBe(perRunner);
  });
  test('an execution counts its events as the bound does, and stays within it (a happy two-runner run)', async () => {
    const cloud = fakeCloud();
    const { error } = await execute(INPUT, cloud);
    expect(error).toBeNull();
    // The rehearsal counts the same events from a real execution (test/aws/rehearsal.test.ts).
    expect(historyEventBound({ ...shape, runners: 2, lambdaRepetitions: 2 })).toBeLessThan(HISTORY_EVENT_LIMIT / 10);
  });
});

describe('retries: every task retries throttling and transient errors with backoff, at least 3 times', () => {
  const expected: Record<string, string[]> = {
    'arn:aws:states:::lambda:invoke': ['Lambda.ServiceException', 'Lambda.TooManyRequestsException', 'Lambda.SdkClientException'],
    'arn:aws:states:::aws-sdk:ec2:runInstances': ['Ec2.RequestLimitExceededException', 'Ec2.Ec2Exception'],
    'arn:aws:states:::aws-sdk:ssm:describeInstanceInformation': ['Ssm.ThrottlingException'],
    'arn:aws:states:::aws-sdk:ssm:sendCommand': ['Ssm.ThrottlingException'],
    'arn:aws:states:::aws-sdk:s3:putObject.waitForTaskToken': ['S3.S3Exception'],
    'arn:aws:states:::aws-sdk:athena:getNamedQuery': ['Athena.TooManyRequestsException', 'Athena.InternalServerException'],
    'arn:aws:states:::athena:startQueryExecution.sync': ['Athena.TooManyRequestsException', 'Athena.InternalServerException'],
  };
  /** Calls that only read: a timed-out one is retried (issue 21 (5), (6)). */
  const READ_ONLY = ['CheckRunnersOnline', 'GetNamedQuery', 'RunSummaryQuery'];
  for (const [name, st] of Object.entries(TASK_STATES)) {
    test(name, () => {
      expect(Object.keys(expected)).toContain(st.Resource);
      expect(st.Retry).toHaveLength(1);
      const [retry] = st.Retry;
      expect(retry).toEqual({ ErrorEquals: expect.arrayContaining(expected[st.Resource]), IntervalSeconds: 1, MaxAttempts: 3, BackoffRate: 2 });
      // A timed-out call may have taken effect (a launch, a command): it is not retried — unless it only reads.
      if (READ_ONLY.includes(name)) expect(retry.ErrorEquals).toContain('States.Timeout');
      else expect(retry.ErrorEquals).not.toContain('States.Timeout');
      expect(retry.ErrorEquals).not.toContain('States.ALL');
    });
  }
  test('the error lists are the per-service ones of lib/pipeline/tasks.ts', () => {
    expect(TASK_STATES.RunSummaryQuery.Retry[0].ErrorEquals).toEqual([...TRANSIENT_ERRORS.athena, 'States.Timeout']);
    expect(TASK_STATES.RunInstancesInSubnet1.Retry[0].ErrorEquals).toEqual(TRANSIENT_ERRORS.ec2);
  });

  test('transient errors are retried; a RunInstances whose answer was lost is retried with the same ClientToken: no runner launched twice', async () => {
    const cloud = fakeCloud({ transientOnce: { RunInstancesInSubnet1: 'Ec2.Ec2Exception', CheckRunnersOnline: 'Ssm.ThrottlingException', Report: 'Lambda.TooManyRequestsException' } });
    const { output, error } = await execute(INPUT, cloud);
    expect(error).toBeNull();
    expect(cloud.calls.filter((c) => c === 'RunInstancesInSubnet1')).toHaveLength(3);
    expect(cloud.calls).not.toContain('RunInstancesInSubnet2');
    expect(cloud.instances.size).toBe(2);
    expect(output.report.value.reportLocation).toMatch(/report\.html$/);
  });
});
