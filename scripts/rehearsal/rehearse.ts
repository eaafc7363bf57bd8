/**
 * A rehearsal of a whole AWS execution on this machine: the synthesized state machine definition
 * runs under aws-local-stepfunctions; its Lambda tasks call the real handlers, whose S3 clients
 * point at the embedded versitygw (a versioned data bucket and a results bucket); EC2, SSM and
 * Athena are the local stand-ins of local-cloud.ts, and the SSM documents' own shell lines run
 * the real runner bundle in local runner sandboxes. What it measures (per state, polls, history,
 * S3 requests, what is left behind) is what `npm run rehearse` prints.
 */
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, ListObjectVersionsCommand, PutBucketVersioningCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { StateMachine } from 'aws-local-stepfunctions';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resourcesOf, synthesize } from '../../test/helpers/stack';
import { synthesizedDefinition } from '../../test/helpers/definition';
import { cleanupAll } from '../../runner/core/cleanup';
import { loadProfile, resolveMatrix } from '../../runner/core/matrix';
import { runDataPrefix, runVolumePrefix } from '../../runner/core/vocabulary';
import { CATALOG } from '../../runner/catalog';
import { findMethod } from '../../runner/methods';
import { methodOfUserAgent } from '../../runner/methods/catalog';
import { parseAccessLogLine } from '../../runner/endpoint/access-log';
import { startEmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { DOCS_PREFIX } from '../../lib/document-prefixes';
import { bundleAllFunctions } from '../../lib/function-bundles';
import { LocalCloud, type Sandbox } from './local-cloud';
import { stepFigures, type PreparationFigure, type StepFigure, type StepRecord } from './step-figures';

/** The part of Lambda's context object the functions read. */
type LambdaContext = Pick<Context, 'functionName' | 'functionVersion' | 'invokedFunctionArn' | 'memoryLimitInMB' | 'awsRequestId' | 'getRemainingTimeInMillis'>;

const ROOT = join(__dirname, '..', '..');
const RESULTS_BUCKET = 's3ab-rehearsal-results';
const FILE_SYSTEM_ID = 'fs-0rehearsal000000';

// aws-local-stepfunctions needs Promise.withResolvers (Node 22).
if (!(Promise as unknown as { withResolvers?: unknown }).withResolvers) {
  (Promise as unknown as { withResolvers: () => unknown }).withResolvers = () => {
    let resolve!: (v: unknown) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  };
}

export interface RehearsalOptions {
  /** The execution's input, as `s3ab aws run` sends it: profile or matrix, runners, layout, lambdas. */
  input: Record<string, unknown>;
  /** Seconds between a command's status checks here (the definition's own wait is kept for the model). @default 1 */
  pollSeconds?: number;
  /** Inject a failure: a command of this document fails on the first runner. */
  failCommand?: 'setup' | 'run-step';
  log?: (line: string) => void;
  /**
   * Keep the server's objects on disk, not in RAM: a seed sample writes more versions than this
   * machine has memory (they stay until Teardown). @default false
   */
  serverOnDisk?: boolean;
}

export interface StateFigure { name: string; count: number; longestMs: number; totalMs: number; timeoutS: number | null }

export interface RehearsalReport {
  status: 'SUCCEEDED' | 'FAILED';
  error: { name: string; message: string } | null;
  runId: string | null;
  reportLocation: string | null;
  wallMs: number;
  states: StateFigure[];
  /** Command-status checks (one per runner command and poll lap). */
  polls: number;
  /** The execution's history events as Step Functions counts them (estimated from the states run). */
  historyEvents: number;
  commands: { document: string; runner: string; ms: number; timeoutS: number; status: string; steps: number }[];
  s3: { requests: number; byOperation: Record<string, number>; versionsCreated: number; versionsDeleted: number };
  /** What the run left: must all be zero. */
  leftovers: { runnerProcesses: number; mounts: number; versions: number; sandboxes: number };
  /** Each step's wall time and S3 requests, and the runner's preparation (with one runner; null with several). */
  measured: { steps: StepFigure[]; preparation: PreparationFigure } | null;
}

/** The Task states of the definition with their TimeoutSeconds, Map item processors included. */
function timeouts(states: Record<string, any>, out: Record<string, number | null> = {}): Record<string, number | null> {
  for (const [name, st] of Object.entries(states)) {
    out[name] = st.TimeoutSeconds ?? null;
    if (st.ItemProcessor) timeouts(st.ItemProcessor.States, out);
  }
  return out;
}

/** A document's runCommand lines with CloudFormation references filled in. */
function documentLines(doc: Record<string, any>, names: Record<string, string>): string[] {
  const render = (x: any): string => {
    if (typeof x === 'string') return x;
    const ref = x.Ref ?? x['Fn::GetAtt']?.[0];
    if (ref) {
      const key = Object.keys(names).find((k) => ref.startsWith(k));
      if (!key) throw new Error(`rehearsal: no local name for ${ref}`);
      return names[key];
    }
    if (x['Fn::Join']) return x['Fn::Join'][1].map(render).join(x['Fn::Join'][0]);
    if (x['Fn::Sub'] || x['Fn::Select']) return 'unused-by-the-rehearsal';
    throw new Error(`rehearsal: cannot render ${JSON.stringify(x).slice(0, 120)}`);
  };
  return (doc.Content.mainSteps[0].inputs.runCommand as unknown[]).map(render);
}

export async function rehearse(opts: RehearsalOptions): Promise<RehearsalReport> {
  // A function's failure names lambda/*.ts lines, not the minified bundle's.
  process.setSourceMapsEnabled(true);
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), 's3ab-rehearsal-'));
  // A versioned bucket keeps every version until Teardown: a large rehearsal's server goes on disk.
  const server = await startEmbeddedEndpoint(undefined, { baseDir: opts.serverOnDisk ? tmpdir() : undefined });
  const s3: S3Client = makeS3Client(server.target, { maxSockets: 16 });
  const dataBucket = server.target.bucket;
  let cloud: LocalCloud | null = null;
  try {
    await s3.send(new PutBucketVersioningCommand({ Bucket: dataBucket, VersioningConfiguration: { Status: 'Enabled' } }));
    await s3.send(new CreateBucketCommand({ Bucket: RESULTS_BUCKET }));
    // A function's /tmp, and the folder standing in for the "after" function's S3 Files mount.
    for (const d of ['lambda-tmp', 's3files']) mkdirSync(join(root, d), { recursive: true });
    const endpoint = server.target.endpointUrl!;
    const creds = server.target.credentials!;
    // The functions' environment, as the stack sets it, with the local endpoint (lambda/shared/s3.ts).
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: creds.accessKeyId, AWS_SECRET_ACCESS_KEY: creds.secretAccessKey, AWS_REGION: 'us-east-1', S3AB_S3_ENDPOINT: endpoint,
      RESULTS_BUCKET, DATA_BUCKET: dataBucket, STACK_NAME: 'S3AccessBench', ACCESS_POINT_PREFIX: 'lambda/', DOCS_PREFIX, DEFAULT_INSTANCE_TYPE: 'c7g.large',
      // The "after" function's file system: a local folder here (its records say local-fs, not S3 Files).
      MOUNT_PATH: join(root, 's3files'), MOUNT_METHOD: 'local-fs', MOUNT_VERSION: 'local folder (rehearsal)', S3AB_TMP_DIR: join(root, 'lambda-tmp'),
      S3AB_HOME: ROOT, POWERTOOLS_LOG_LEVEL: 'ERROR', POWERTOOLS_METRICS_DISABLED: 'true', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
    // The functions as deployed: the stack's own esbuild bundles (lib/function-bundles.ts), loaded
    // after their environment is set (their clients are made at load, as in a Lambda cold start).
    const bundles = bundleAllFunctions();
    const fn = (entry: string) => {
      // A fresh copy per rehearsal, so a fresh load (a cold start): a cached module would keep the
      // clients of an earlier rehearsal's endpoint.
      const path = join(root, 'functions', entry, 'index.js');
      mkdirSync(join(path, '..'), { recursive: true });
      copyFileSync(join(bundles, entry, 'index.js'), path);
      copyFileSync(join(bundles, entry, 'index.js.map'), `${path}.map`);
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require(path) as { handler: (event: any, ...rest: any[]) => Promise<any> };
    };
    const [validate, commandStatus, before, after, report, teardown] = ['validate-input', 'command-status', 'before', 'after', 'report', 'teardown'].map(fn);

    const definition = synthesizedDefinition();
    const stack = synthesize();
    const docs = Object.fromEntries(resourcesOf(stack, 'AWS::SSM::Document').map(([id, d]) => [id.includes('RunStep') ? 'run-step' : 'setup', d]));
    const names = { DataBucket: dataBucket, ResultsBucket: RESULTS_BUCKET, DataFileSystem: FILE_SYSTEM_ID };
    const runStepLines = documentLines(docs['run-step'], names);
    // Setup's host-neutral part: the bundle unpacked into the runner's /opt/s3ab, its node recorded,
    // and the document's own `list --require` for the matrix's methods available on this machine.
    const matrixInput = (opts.input.matrix ?? loadProfile(String(opts.input.profile ?? 'quick'))) as object;
    const matrix = resolveMatrix(matrixInput, 'rehearsal', CATALOG);
    const here: string[] = [];
    for (const m of new Set(matrix.methods.map((x) => x.name))) if ((await findMethod(m)!.probe()).available) here.push(m);
    const requireLine = documentLines(docs.setup, { ...names, RunnerBundle: 'bundle', RunnerAssets: 'assets' }).find((l) => l.includes('s3ab.js list --require'))!
      .replace(/--require \S+/, `--require ${here.join(',')}`);
    const setupLines = [
      'set -euo pipefail',
      `rm -rf /opt/s3ab && mkdir -p /opt/s3ab && cp -r ${ROOT}/dist /opt/s3ab/dist && ln -s ${ROOT}/assets /opt/s3ab/assets && ln -s ${ROOT}/.tools /opt/s3ab/.tools`,
      `NODE=${process.execPath}`, 'echo "$NODE" > /opt/s3ab/node', requireLine,
    ];
    const localize = (line: string, box: Sandbox) => line
      .replaceAll('/opt/s3ab', join(box.dir, 'opt', 's3ab'))
      .replace(/^TOKEN=\$\(curl .*$/, 'TOKEN=local')
      .replace(/^md\(\) \{.*$/, `md() { case "$1" in instance-type) echo ${box.instanceType};; placement/region) echo us-east-1;; placement/availability-zone) echo us-east-1a;; instance-id) echo ${box.id};; esac; }`)
      .replace('export TMPDIR=/var/tmp/s3ab', `export TMPDIR=${join(box.dir, 'tmp')}`)
      .replace(/\baws s3 cp\b/, `aws --endpoint-url ${endpoint} s3 cp`)
      .replace(/(s3ab\.js step .*)$/, `$1 --endpoint ${endpoint}`);
    cloud = new LocalCloud({
      root: join(root, 'runners'), s3, resultsBucket: RESULTS_BUCKET, runStepLines, setupLines, localize, failCommand: opts.failCommand,
      env: { AWS_ACCESS_KEY_ID: creds.accessKeyId, AWS_SECRET_ACCESS_KEY: creds.secretAccessKey, AWS_REGION: 'us-east-1', AWS_EC2_METADATA_DISABLED: 'true' },
    });
    const c = cloud;
    const namedIds = Object.fromEntries((definition.States.ListSummaryQueries.Result as { name: string; id: string }[]).map((q) => [q.id, q.name]));
    // Each function is called as Lambda calls it, handler(event, context), with a context whose
    // deadline is the function's own Timeout in the template; the local clients come third.
    const functions = Object.fromEntries(resourcesOf(stack, 'AWS::Lambda::Function').map(([id, f]) => [id, { timeoutMs: Number(f.Timeout ?? 3) * 1000, memoryMb: Number(f.MemorySize ?? 128) }]));
    const lambda = (fn: (p: any, context: LambdaContext) => Promise<unknown>) => async ({ Payload, FunctionName }: { Payload: any; FunctionName: string }) => {
      const name = String(FunctionName).split(':').pop()!;
      const f = functions[name];
      if (!f) throw new Error(`the state machine invokes ${FunctionName}, which is not a function of the template`);
      const deadline = Date.now() + f.timeoutMs;
      const context: LambdaContext = {
        functionName: name, functionVersion: '$LATEST', invokedFunctionArn: FunctionName, memoryLimitInMB: String(f.memoryMb),
        awsRequestId: randomUUID(), getRemainingTimeInMillis: () => deadline - Date.now(),
      };
      try {
        return { Payload: await fn(Payload, context) };
      } catch (err) {
        if (process.env.S3AB_REHEARSAL_DEBUG) process.stderr.write(`function failed: ${(err as Error).stack}\n`);
        throw err;
      }
    };
    const clients = { ec2: c.ec2Client() as never, ssm: c.ssmClient() as never, athena: c.athenaClient() as never, s3 };
    const handlers: Record<string, (input: any) => Promise<unknown>> = {
      ValidateInput: lambda((p, ctx) => validate.handler(p, ctx)),
      RunInstances: async (p) => c.runInstances(p),
      CheckRunnersOnline: async (p) => ({ InstanceInformationList: (p.Filters[0].Values as string[]).filter((id) => c.sandboxes.get(id)?.state === 'running').map((InstanceId) => ({ InstanceId, PingStatus: 'Online' })) }),
      SetupRunners: async (p) => c.sendCommand('setup', p.InstanceIds, p.Parameters),
      RunShard: async (p) => c.sendCommand('run-step', p.InstanceIds, p.Parameters),
      SetupRunnersCheck: lambda((p, ctx) => { c.polls++; return commandStatus.handler(p, ctx, clients); }),
      RunShardCheck: lambda((p, ctx) => { c.polls++; return commandStatus.handler(p, ctx, clients); }),
      InvokeBefore: lambda((p, ctx) => before.handler(p, ctx)),
      InvokeAfter: lambda((p, ctx) => after.handler(p, ctx)),
      GetNamedQuery: async (p) => c.getNamedQuery(p.NamedQueryId, namedIds),
      RunSummaryQuery: async (p) => c.runQuery(p.QueryString),
      Report: lambda((p, ctx) => report.handler(p, ctx, clients)),
      Teardown: lambda((p, ctx) => teardown.handler(p, ctx, clients)),
    };
    const waitMs = (opts.pollSeconds ?? 1) * 1000;
    const machine = new StateMachine(definition as never, { validationOptions: { checkArn: false } });
    const execution = machine.run(opts.input as never, {
      overrides: {
        taskResourceLocalHandlers: handlers as never,
        waitTimeOverrides: { ReadyWait: 0, SetupRunnersWait: waitMs, RunShardWait: waitMs },
      },
      context: { Execution: { Id: 'arn:aws:states:us-east-1:123456789012:execution:rehearsal:local', StartTime: new Date().toISOString() } },
    });
    // Per state: how often it ran and its longest run, from the execution's own events.
    const limit = timeouts(definition.States);
    const figures = new Map<string, StateFigure>();
    const open = new Map<string, number[]>();
    let historyEvents = 2; // ExecutionStarted, and its end
    const events = (async () => {
      for await (const e of execution.eventLogs as AsyncIterable<any>) {
        const name: string | undefined = e.state?.name;
        const key = `${name}#${e.index ?? ''}`;
        if (e.type === 'StateEntered') {
          open.set(key, [...(open.get(key) ?? []), e.timestamp]);
          // As Step Functions counts: a Task state 5 events (entered, scheduled, started, succeeded, exited), others 2.
          historyEvents += e.state.type === 'Task' ? 5 : 2;
        }
        if (e.type === 'StateRetried') historyEvents += 3;
        if (process.env.S3AB_REHEARSAL_DEBUG && (e.type === 'StateFailed' || e.type === 'StateCaught' || e.type === 'StateRetried')) process.stderr.write(`${e.type} ${name}: ${JSON.stringify([e.Error, e.Cause, e.error?.message, e.error?.stack]).slice(0, 1500)}\n`);
        if (e.type === 'MapIterationStarted' || e.type === 'MapIterationSucceeded' || e.type === 'MapIterationFailed') historyEvents += 1;
        if ((e.type === 'StateExited' || e.type === 'StateFailed' || e.type === 'StateCaught') && name) {
          const t0 = open.get(key)?.pop();
          if (t0 === undefined) continue;
          const f = figures.get(name) ?? { name, count: 0, longestMs: 0, totalMs: 0, timeoutS: limit[name] ?? null };
          f.count++;
          f.longestMs = Math.max(f.longestMs, e.timestamp - t0);
          f.totalMs += e.timestamp - t0;
          figures.set(name, f);
        }
      }
    })();
    let output: any = null;
    let error: RehearsalReport['error'] = null;
    try {
      output = await execution.result;
    } catch (err) {
      const cause = (err as { cause?: { name: string; message: string; stack?: string } }).cause;
      error = { name: cause?.name ?? (err as Error).name, message: cause?.message ?? (err as Error).message };
      if (process.env.S3AB_REHEARSAL_DEBUG) process.stderr.write(`${String(cause?.stack ?? (err as Error).stack)}\n`);
    }
    await events.catch(() => {});
    log(`execution ${error ? 'FAILED' : 'SUCCEEDED'}${error ? `: ${error.name}: ${error.message}` : ''}`);

    const runId: string | null = output?.run?.value?.runId ?? runIdOf(c);
    // What the run left behind, then the sandboxes themselves (a runner's folder is its disk).
    const running = c.runningCommands();
    let versions = 0;
    if (runId) {
      for (const prefix of [runDataPrefix(runId), runVolumePrefix(runId), `${DOCS_PREFIX}${runId}/`]) {
        const page = await s3.send(new ListObjectVersionsCommand({ Bucket: dataBucket, Prefix: prefix }));
        versions += (page.Versions?.length ?? 0) + (page.DeleteMarkers?.length ?? 0);
      }
    }
    // Per step, measured (one runner only: the runners share this server's log).
    const runSteps = [...c.commands.values()].filter((cmd) => cmd.document === 'run-step').flatMap((cmd) => [...cmd.invocations.values()]);
    let measured: RehearsalReport['measured'] = null;
    if (runId && runSteps.length === 1 && runSteps[0].endedAt) {
      const records = await resultRecords(s3, RESULTS_BUCKET, runId);
      measured = stepFigures(records, readFileSync(server.accessLog, 'utf8'), { runner: runSteps[0].instanceId, startedAt: runSteps[0].startedAt, endedAt: runSteps[0].endedAt }, dataBucket, (ua) => methodOfUserAgent(ua)?.name ?? null);
    }
    c.terminate([...c.sandboxes.keys()]);
    const { mountsDetached } = c.removeSandboxes();
    const teardownOut = output?.teardown?.value;
    return {
      status: error ? 'FAILED' : 'SUCCEEDED', error, runId, reportLocation: output?.report?.value?.reportLocation ?? null, wallMs: Date.now() - started,
      states: [...figures.values()], polls: c.polls, historyEvents,
      commands: [...c.commands.values()].flatMap((cmd) => [...cmd.invocations.values()].map((inv) => ({
        document: cmd.document, runner: inv.instanceId, ms: (inv.endedAt ?? Date.now()) - inv.startedAt, timeoutS: cmd.timeoutSeconds, status: inv.status,
        steps: cmd.parameters.steps ? cmd.parameters.steps[0].split(',').length : 0,
      }))),
      s3: { ...requestsOf(server.accessLog, dataBucket), versionsDeleted: teardownOut?.deletedVersions ?? 0 },
      leftovers: { runnerProcesses: running, mounts: mountsDetached, versions, sandboxes: 0 },
      measured,
    };
  } finally {
    s3.destroy();
    await server.stop();
    await cleanupAll();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Every result record of the run in the results bucket (the runners' uploads). */
async function resultRecords(s3: S3Client, bucket: string, runId: string): Promise<StepRecord[]> {
  const records: StepRecord[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken }));
    for (const o of page.Contents ?? []) {
      if (!o.Key!.endsWith('.jsonl') || !o.Key!.includes(runId)) continue;
      const body = await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key }))).Body!.transformToString();
      for (const line of body.split('\n')) if (line.trim()) records.push(JSON.parse(line));
    }
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return records;
}

/** The run id of a failed execution: from a runner's tags. */
function runIdOf(c: LocalCloud): string | null {
  for (const b of c.sandboxes.values()) if (b.tags['s3ab:run-id']) return b.tags['s3ab:run-id'];
  return null;
}

/** S3 requests the rehearsal made (every client: runners, functions, Athena's reads), from the server's access log. */
function requestsOf(accessLog: string, dataBucket: string): { requests: number; byOperation: Record<string, number>; versionsCreated: number } {
  const byOperation: Record<string, number> = {};
  let requests = 0;
  let versionsCreated = 0;
  for (const line of readFileSync(accessLog, 'utf8').split('\n')) {
    const e = parseAccessLogLine(line);
    if (!e) continue;
    requests++;
    byOperation[e.operation] = (byOperation[e.operation] ?? 0) + 1;
    // The bucket is the second field of an access-log line; a new version per object written.
    if (line.split(' ')[1] === dataBucket && e.status < 300 && /^(s3_PutObject|s3_CompleteMultipartUpload|s3_CopyObject)$/.test(e.operation)) versionsCreated++;
  }
  return { requests, byOperation, versionsCreated };
}
