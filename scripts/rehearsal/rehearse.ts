/**
 * A rehearsal of a whole AWS execution on this machine: the synthesized state machine definition
 * runs under aws-local-stepfunctions; its Lambda tasks call the real handlers, whose S3 clients
 * point at the embedded versitygw (a versioned data bucket and a results bucket); EC2, SSM, Athena
 * and Step Functions' callbacks are the local stand-ins (local-cloud.ts, step-functions.ts), and
 * the SSM documents' own shell lines run the real runner bundle in local runner sandboxes. Every
 * request is made with the key of the role that makes it on AWS and evaluated against the
 * template's IAM (iam.ts): any deny fails the rehearsal, naming principal, action and resource.
 * What it measures (per state, callbacks, history, S3 requests, what is left behind) is what
 * `npm run rehearse` prints.
 *
 * The phases: startServer → loadFunctions → the cloud (stand-ins) → runExecution → inspectRun →
 * checkS3Requests → pullAsUser (with `pullInto`) → the report.
 */
import { RESULTS_LAYOUT } from '../../lib/results-layout';
import { ONE_HOST_CLOCK_ENV } from '../../runner/core/clock';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, ListObjectVersionsCommand, PutBucketVersioningCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import type { Context } from 'aws-lambda';
import { StateMachine } from 'aws-local-stepfunctions';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { synthesize, withoutTimeoutPaths } from './synthesize';
import { objectivefsDeploy } from '../../lib/objectivefs-deploy';
import { matrixFor } from '../../runner/catalog';
import { cleanupAll } from '../../runner/core/cleanup';
import { runDataPrefix, runVolumePrefix } from '../../runner/core/vocabulary';
import { methodOfUserAgent } from '../../runner/methods/catalog';
import { parseAccessLogLine } from '../../runner/endpoint/access-log';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { DOCS_PREFIX } from '../../lib/document-prefixes';
import { bundleAllFunctions } from '../../lib/function-bundles';
import { EVENTS_PER_STATE, historyEventBound } from '../../lib/pipeline/history';
import { TEARDOWN_MAX_ROUNDS } from '../../lib/pipeline/teardown-flow';
import { RUN_ID_STATE, STATUS_CHANGE } from '../../lib/execution-run';
import { lambdaTargetsOf, type ExecutionStatusEvent } from './event-rules';
import { sandboxDocuments } from './documents';
import { IamCheck, type DroppedGrant, type IamDenial, type IamRequest } from './iam';
import { LocalCloud, type Fault, type RehearsalAccount } from './local-cloud';
import { iamRequestsOf, parseLoggedRequest, recordBodyResources } from './s3-iam';
import { mountRequests, ruleRequests, syncRequests } from './s3-files';
import { LocalStepFunctions, type CallbackFigures } from './step-functions';
import { fleetFigures, type FleetPassFigure, type FleetRecord } from './fleet-figures';
import { fileLines } from './file-lines';
import { stepFigures, type StepRecord } from './step-figures';
import type { PreparationFigure, StepFigure } from '../../runner/plan/measurement';
import { ACCOUNT, REGION, RehearsalTemplate } from './template';


/** The part of Lambda's context object the functions read. */
type LambdaContext = Pick<Context, 'functionName' | 'functionVersion' | 'invokedFunctionArn' | 'memoryLimitInMB' | 'awsRequestId' | 'getRemainingTimeInMillis'>;

const RESULTS_BUCKET = 's3ab-rehearsal-results';
/** The embedded server's benchmark bucket (runner/endpoint/embedded.ts), the data bucket here. */
const DATA_BUCKET = 's3ab-bench';
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
  /** Seconds of each wait between readiness checks here (the sandboxes are online at once). @default 0 */
  pollSeconds?: number;
  /** Inject a fault: a command of this document fails on the first runner, or that runner dies mid-steps. */
  fault?: Fault;
  /** The first runner's steps start this many seconds late (a fleet's others wait for it at the barrier). @default 0 */
  slowRunnerS?: number;
  /** Take a grant out of the template's IAM for this rehearsal (the injected-defect test). */
  dropGrant?: DroppedGrant;
  /** The runners' heartbeat interval and the tasks' heartbeat timeout here. @default the definition's */
  heartbeat?: { intervalSeconds: number; timeoutSeconds: number };
  log?: (line: string) => void;
  /**
   * Keep the server's objects on disk, not in RAM: a seed sample writes more versions than this
   * machine has memory (they stay until Teardown). @default false
   */
  serverOnDisk?: boolean;
  /** The account's Standard vCPU quota, what else runs there, the types its zones do not offer. @default a quota of 1,000 vCPUs, nothing else running, every type offered */
  account?: RehearsalAccount;
  /** After the execution, `s3ab aws pull` its run from the results bucket into this folder, as a user does. @default no pull */
  pullInto?: string;
}

export interface StateFigure { name: string; count: number; longestMs: number; totalMs: number; timeoutS: number | null }

export interface RehearsalReport {
  status: 'SUCCEEDED' | 'FAILED';
  error: { name: string; message: string } | null;
  runId: string | null;
  reportLocation: string | null;
  /** The Report state's sections without data in this run (null: no report). */
  reportSectionsWithoutData: string[] | null;
  wallMs: number;
  states: StateFigure[];
  /** Readiness checks (WaitUntilReady): the only poll loop; the runners end their tasks by callback. */
  polls: number;
  /** The execution's history events as Step Functions counts them (from the states run). */
  historyEvents: number;
  /** The most this execution's shape can write (lib/pipeline/history.ts). */
  historyBound: number;
  callbacks: CallbackFigures;
  commands: { document: string; runner: string; ms: number; timeoutS: number; status: string; steps: number }[];
  s3: { requests: number; byOperation: Record<string, number>; versionsCreated: number; versionsDeleted: number };
  /** Every request evaluated against the template's IAM; `unseen`: S3 requests whose resources only their body names (a runner's DeleteObjects). */
  iam: { requests: number; evaluations: number; unseen: number; denials: IamDenial[] };
  /** What the run left: must all be zero. */
  leftovers: { runnerProcesses: number; mounts: number; versions: number; sandboxes: number };
  /** Each step's wall time and S3 requests, and the runner's preparation (with one runner; null with several). */
  measured: { steps: StepFigure[]; preparation: PreparationFigure } | null;
  /** A fleet execution's steps with clients > 1, per pass: runners that recorded it, their common start, how far apart they began. */
  fleet: FleetPassFigure[];
  /** The instance type of each runner launched, in launch order. */
  launched: string[];
  /**
   * An execution that ended FAILED or ABORTED: the EventBridge rules its status change matched and
   * what their teardown answered (on AWS a timeout, StopExecution or a data limit skips the
   * state machine's own Teardown; this one runs anyway).
   */
  ending: { status: 'FAILED' | 'ABORTED'; invoked: { rule: string; function: string; result: unknown; error: string | null }[] } | null;
  /** `s3ab aws pull` of the run into `pullInto` (null without it, or with no run): its exit code and output. */
  pulled: { dir: string; code: number | null; output: string } | null;
}

/** What the phases share. */
interface Rehearsal {
  opts: RehearsalOptions;
  root: string;
  template: RehearsalTemplate;
  iam: IamCheck;
  server: EmbeddedEndpoint;
  /** The rehearsal's own client (the server's root key: not a role; its requests are not checked). */
  admin: S3Client;
  /** Keys no role has: the functions' default clients use it, so a request the rehearsal gave no role fails. */
  unassigned: { accessKeyId: string; secretAccessKey: string };
  s3As: (roleId: string) => S3Client;
  /** Requests only the rehearsal's own clients see (DeleteObjects keys, copy sources), and the stand-ins' S3 Files requests. */
  extra: IamRequest[];
  sfn: LocalStepFunctions;
  cloud: LocalCloud;
  /** The stack's function bundles by entry, once loaded (taskHandlers). */
  functions: Record<string, Handler> | null;
}

export async function rehearse(opts: RehearsalOptions): Promise<RehearsalReport> {
  // A function's failure names lambda/*.ts lines, not the minified bundle's.
  process.setSourceMapsEnabled(true);
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), 's3ab-rehearsal-'));
  const stops: (() => unknown)[] = [];
  try {
    const r = await startServer(opts, root, stops);
    const run = await runExecution(r);
    const inspected = await inspectRun(r, run.runId);
    const s3Iam = await checkS3Requests(r);
    const pulled = opts.pullInto && run.runId ? await pullAsUser(r, run.runId, opts.pullInto) : null;
    // Counted last: the pull's requests are the rehearsal's too.
    const requests = await requestsOf(r.server.accessLog, r.server.target.bucket);
    return { ...reportOf(r, run, inspected, { ...s3Iam, requests }, Date.now() - started), pulled };
  } finally {
    for (const stop of stops.reverse()) await stop();
    await cleanupAll();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The stack as deployed for this execution: with an ObjectiveFS license when its matrix runs
 * objectivefs (a stand-in parameter name and checksums: the install lines are left out here), so
 * that the runner's read of the license is checked against the template's IAM like every request.
 */
function rehearsedStack(input: Record<string, unknown>) {
  const methods = input.matrix ? ((input.matrix as { methods?: unknown[] }).methods ?? []) : matrixFor({ profile: input.profile as string | undefined }).methods;
  const runsObjectivefs = methods.some((m) => (typeof m === 'string' ? m : (m as { name?: string }).name) === 'objectivefs');
  return synthesize(runsObjectivefs ? { objectivefs: objectivefsDeploy('/s3ab-rehearsal/objectivefs-license', `x86_64=${'0'.repeat(64)},aarch64=${'0'.repeat(64)}`) } : {});
}

/** The embedded server (one account per role of the template), its buckets, the stand-ins; each registers how it stops. */
async function startServer(opts: RehearsalOptions, root: string, stops: (() => unknown)[]): Promise<Rehearsal> {
  const template = new RehearsalTemplate(rehearsedStack(opts.input), { dataBucket: DATA_BUCKET, resultsBucket: RESULTS_BUCKET, fileSystemId: FILE_SYSTEM_ID });
  const iam = new IamCheck(template, opts.dropGrant);
  const unassigned = { accessKeyId: `UNASSIGNED${randomBytes(6).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(24).toString('base64url') };
  // A versioned bucket keeps every version until Teardown: a large rehearsal's server goes on disk.
  const server = await startEmbeddedEndpoint(undefined, { baseDir: opts.serverOnDisk ? tmpdir() : undefined, accounts: [...iam.allCredentials(), unassigned] });
  stops.push(() => server.stop());
  if (server.target.bucket !== DATA_BUCKET) throw new Error(`rehearsal: the embedded server's bucket is ${server.target.bucket}, not ${DATA_BUCKET}`);
  const admin = makeS3Client(server.target, { maxSockets: 16 });
  stops.push(() => admin.destroy());
  await admin.send(new PutBucketVersioningCommand({ Bucket: server.target.bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  await admin.send(new CreateBucketCommand({ Bucket: RESULTS_BUCKET }));
  const extra: IamRequest[] = [];
  const clients = new Map<string, S3Client>();
  const s3As = (roleId: string) => {
    let c = clients.get(roleId);
    if (!c) {
      c = makeS3Client({ ...server.target, credentials: iam.credentialsOf(roleId) }, { maxSockets: 16 });
      stops.push(() => c!.destroy());
      recordBodyResources(c, roleId, (req) => extra.push(req));
      clients.set(roleId, c);
    }
    return c;
  };
  // The first two calls of a shard's SendTaskSuccess fail, every attempt of each: the runner's own retries must carry it.
  const sfn = new LocalStepFunctions(iam, opts.fault === 'success-fails-twice' ? { state: 'RunShard', calls: 2 } : undefined);
  stops.push(() => sfn.stop());
  await sfn.start();
  const r: Rehearsal = { opts, root, template, iam, server, admin, unassigned, s3As, extra, sfn, cloud: null as never, functions: null };
  r.cloud = localCloud(r);
  // S3 Files' own rule for the bucket, made with its service role when the file system is created.
  extra.push(...ruleRequests(iam.role('DataS3FilesRole').id, FILE_SYSTEM_ID));
  return r;
}

/** EC2, SSM and Athena as stand-ins; runner sandboxes that run the documents as the runner role. */
function localCloud(r: Rehearsal): LocalCloud {
  const { template, iam, server } = r;
  const endpoint = server.target.endpointUrl!;
  const subnets = template.idsOf('AWS::EC2::Subnet').filter((id) => id.includes('runners')).map((id) => template.ref(id));
  const [lt] = template.idsOf('AWS::EC2::LaunchTemplate');
  const ltData = template.resolve(template.resources[lt].Properties!.LaunchTemplateData) as Record<string, any>;
  const runner = iam.role('RunnersRole');
  const fileSystemArn = template.getAtt(template.idsOf('AWS::S3Files::FileSystem')[0], 'FileSystemArn');
  const docs = sandboxDocuments(template, { endpoint, runnerRole: runner.id, fileSystemArn, subnets });
  const creds = iam.credentialsOf(runner.id);
  return new LocalCloud({
    root: join(r.root, 'runners'), iam, s3As: r.s3As, resultsBucket: RESULTS_BUCKET, ...docs, fault: r.opts.fault, slowRunnerS: r.opts.slowRunnerS, account: r.opts.account,
    launch: { template: template.ref(lt), securityGroup: ltData.SecurityGroupIds[0], roleArn: runner.arn },
    env: {
      AWS_ACCESS_KEY_ID: creds.accessKeyId, AWS_SECRET_ACCESS_KEY: creds.secretAccessKey, AWS_REGION: 'us-east-1', AWS_DEFAULT_REGION: 'us-east-1',
      AWS_EC2_METADATA_DISABLED: 'true', AWS_ENDPOINT_URL_SFN: r.sfn.endpoint, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // Every sandbox runs on this one host, so one clock serves a fleet's clients: said so in their
      // records (clock_source "one host", no offset), never taken for chrony's.
      [ONE_HOST_CLOCK_ENV]: 'one-host',
    },
  });
}

type Handler = (event: any, context: LambdaContext, deps: Record<string, unknown>) => Promise<unknown>;

/** The stack's own function bundles, each a fresh copy (a cold start), loaded with its environment set as the stack sets it. */
function loadFunctions(r: Rehearsal): Record<string, Handler> {
  const creds = r.unassigned;
  // The functions' environment, as the stack sets it, with the local endpoint (lambda/shared/s3.ts).
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: creds.accessKeyId, AWS_SECRET_ACCESS_KEY: creds.secretAccessKey, AWS_REGION: 'us-east-1', S3AB_S3_ENDPOINT: r.server.target.endpointUrl,
    RESULTS_BUCKET, DATA_BUCKET: r.server.target.bucket, STACK_NAME: 'S3AccessBench', ACCESS_POINT_PREFIX: 'lambda/', DOCS_PREFIX, DEFAULT_INSTANCE_TYPE: 'c7g.large',
    // The "after" function's file system: a local folder here (its records say local-fs, not S3 Files).
    MOUNT_PATH: join(r.root, 's3files'), MOUNT_METHOD: 'local-fs', MOUNT_VERSION: 'local folder (rehearsal)', S3AB_TMP_DIR: join(r.root, 'lambda-tmp'),
    S3AB_HOME: join(__dirname, '..', '..'), POWERTOOLS_LOG_LEVEL: 'ERROR', POWERTOOLS_METRICS_DISABLED: 'true', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  // The runner zones ValidateInput checks the offerings in, as the stack sets them (its runner subnets' zones).
  const validateFn = r.template.idsOf('AWS::Lambda::Function').find((id) => r.template.resources[id].Properties?.Environment?.Variables?.RUNNER_AVAILABILITY_ZONES);
  if (!validateFn) throw new Error('rehearsal: no function of the template has RUNNER_AVAILABILITY_ZONES (ValidateInput\'s runner zones)');
  process.env.RUNNER_AVAILABILITY_ZONES = String(r.template.resolve(r.template.resources[validateFn].Properties!.Environment.Variables.RUNNER_AVAILABILITY_ZONES));
  for (const d of ['lambda-tmp', 's3files']) mkdirSync(join(r.root, d), { recursive: true });
  const bundles = bundleAllFunctions();
  return Object.fromEntries(['validate-input', 'before', 'after', 'report', 'teardown'].map((entry) => {
    // A fresh copy per rehearsal, so a fresh load: a cached module would keep an earlier rehearsal's clients.
    const path = join(r.root, 'functions', entry, 'index.js');
    mkdirSync(join(path, '..'), { recursive: true });
    copyFileSync(join(bundles, entry, 'index.js'), path);
    copyFileSync(join(bundles, entry, 'index.js.map'), `${path}.map`);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return [entry, (require(path) as { handler: Handler }).handler];
  }));
}

/**
 * The handler of each Task state: a function called as Lambda calls it (the state machine's role
 * may invoke it; a context with the function's own timeout; its role's clients third), the SDK
 * tasks on the stand-ins as the state machine's role, the callback tasks through the local Step
 * Functions: a fresh token in the command's parameters, the task ended by the runner.
 */
function taskHandlers(r: Rehearsal, timeouts: Record<string, number | null>): Record<string, (input: any) => Promise<unknown>> {
  const fn = loadFunctions(r);
  r.functions = fn;
  const { template, iam, cloud } = r;
  const sm = template.roleOf(template.idsOf('AWS::StepFunctions::StateMachine')[0]);
  const functions = template.functions();
  const definition = template.definition();
  const workGroup = String(findState(definition.States, 'RunSummaryQuery').Parameters.WorkGroup);
  const namedIds = Object.fromEntries((definition.States.ListSummaryQueries.Result as { name: string; id: string }[]).map((q) => [q.id, q.name]));
  let afterMounted = false;
  const lambda = (entry: string, deps: (role: string) => Record<string, unknown> = (role) => ({ s3: r.s3As(role) })) => async ({ Payload, FunctionName }: { Payload: any; FunctionName: string }) => {
    await iam.require({ principal: sm, action: 'lambda:InvokeFunction', resource: FunctionName, source: 'Lambda stand-in' }, 'Lambda.AccessDeniedException');
    const name = String(FunctionName).split(':').pop()!;
    const f = functions[name];
    if (!f) throw new Error(`the state machine invokes ${FunctionName}, which is not a function of the template`);
    const deadline = Date.now() + f.timeoutMs;
    const context: LambdaContext = {
      functionName: name, functionVersion: '$LATEST', invokedFunctionArn: FunctionName, memoryLimitInMB: String(f.memoryMb),
      awsRequestId: randomUUID(), getRemainingTimeInMillis: () => deadline - Date.now(),
    };
    if (entry === 'after' && !afterMounted) {
      afterMounted = true;
      // The function mounts the S3 Files access point at its cold start.
      const ap = template.getAtt(template.idsOf('AWS::S3Files::AccessPoint')[0], 'AccessPointArn');
      r.extra.push(...mountRequests(f.roleId, ap.replace(/\/access-point\/.*$/, ''), { accessPoint: ap }));
    }
    try {
      return { Payload: await fn[entry](Payload, context, deps(f.roleId)) };
    } catch (err) {
      if (process.env.S3AB_REHEARSAL_DEBUG) process.stderr.write(`function failed: ${(err as Error).stack}\n`);
      throw err;
    }
  };
  // A callback's command is sent first (its parameters say where its token will be), then the
  // waiting state puts a fresh token there with the state machine's key: the runner reads it.
  const shardTimeouts = new Map<string, number>();
  const send = (document: 'setup' | 'run-step') => async (p: any) => {
    const parameters = { ...p.Parameters, ...(r.opts.heartbeat ? { heartbeatSeconds: [String(r.opts.heartbeat.intervalSeconds)] } : {}) };
    // A shard's task timeout is its command's and a heartbeat (the definition's ItemSelector adds them).
    if (document === 'run-step') shardTimeouts.set(p.Parameters.taskTokenKey[0], Number(p.Parameters.executionTimeout[0]));
    return cloud.sendCommand(sm, document, p.DocumentName, p.InstanceIds, parameters);
  };
  const callback = (state: string) => async (p: { Bucket: string; Key: string }) => {
    const st = findState(definition.States, state);
    const heartbeat = r.opts.heartbeat?.timeoutSeconds ?? st.HeartbeatSeconds;
    const timeout = st.TimeoutSeconds ?? shardTimeouts.get(p.Key)! + st.HeartbeatSeconds;
    const task = r.sfn.issue(state, heartbeat, timeout);
    timeouts[state] = Math.max(timeouts[state] ?? 0, timeout);
    await r.s3As(sm).send(new PutObjectCommand({ Bucket: p.Bucket, Key: p.Key, Body: task.token }));
    return task.result;
  };
  const runInstances = async (p: any) => cloud.runInstances(sm, p);
  return {
    ValidateInput: lambda('validate-input', (role) => ({ s3: r.s3As(role), capacity: { ec2: cloud.ec2Client(role), quotas: cloud.quotasClient(role) } })),
    ...Object.fromEntries(subnetStates(definition).map((s) => [s, runInstances])),
    CheckRunnersOnline: async (p) => cloud.describeInstanceInformation(sm, p.Filters[0].Values),
    SendSetupCommand: send('setup'),
    SetupRunner: callback('SetupRunner'),
    SendShardCommand: send('run-step'),
    RunShard: callback('RunShard'),
    InvokeBefore: lambda('before'),
    InvokeAfter: async (input) => {
      const out = await lambda('after')(input);
      // S3 Files exports what the function wrote through the mount, with its service role.
      r.extra.push(...syncRequests(iam.role('DataS3FilesRole').id, r.server.target.bucket, 'lambda/', filesUnder(join(r.root, 's3files'))));
      return out;
    },
    GetNamedQuery: async (p) => cloud.getNamedQuery(sm, p.NamedQueryId, workGroup, namedIds),
    RunSummaryQuery: async (p) => cloud.runQuery(sm, p),
    Report: lambda('report', (role) => ({ s3: r.s3As(role), athena: cloud.athenaClient(role, workGroup) })),
    Teardown: lambda('teardown', (role) => ({ s3: r.s3As(role), ec2: cloud.ec2Client(role) })),
  };
}

/** A state of the definition by name, Map item processors included. */
function findState(states: Record<string, any>, name: string): any {
  for (const [n, st] of Object.entries(states)) {
    if (n === name) return st;
    const inner = st.ItemProcessor ? findState(st.ItemProcessor.States, name) : null;
    if (inner) return inner;
  }
  return null;
}

/** The launch states, one per runner subnet. */
function subnetStates(definition: Record<string, any>): string[] {
  return Object.keys(definition.States.ProvisionRunners.ItemProcessor.States).filter((s) => s.startsWith('RunInstancesInSubnet'));
}

/** Every file under a folder, relative to it. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

/** The Task states with their TimeoutSeconds, Map item processors included. */
function timeoutsOf(states: Record<string, any>, out: Record<string, number | null> = {}): Record<string, number | null> {
  for (const [name, st] of Object.entries(states)) {
    out[name] = st.TimeoutSeconds ?? null;
    if (st.ItemProcessor) timeoutsOf(st.ItemProcessor.States, out);
  }
  return out;
}

interface ExecutionOutcome {
  output: any; error: RehearsalReport['error']; runId: string | null; states: StateFigure[]; historyEvents: number; historyBound: number; polls: number;
  ending: RehearsalReport['ending'];
}

/** The execution under aws-local-stepfunctions: its outcome, and per state how often it ran and its longest run. */
async function runExecution(r: Rehearsal): Promise<ExecutionOutcome> {
  const definition = r.template.definition();
  const limit = timeoutsOf(definition.States);
  const handlers = taskHandlers(r, limit);
  const machine = new StateMachine(withoutTimeoutPaths(definition) as never, { validationOptions: { checkArn: false } });
  const stateMachineId = r.template.idsOf('AWS::StepFunctions::StateMachine')[0];
  const executionArn = `arn:aws:states:${REGION}:${ACCOUNT}:execution:${r.template.stateMachineName(stateMachineId)}:rehearsal`;
  const startDate = Date.now();
  const execution = machine.run(r.opts.input as never, {
    overrides: { taskResourceLocalHandlers: handlers as never, waitTimeOverrides: { ReadyWait: (r.opts.pollSeconds ?? 0) * 1000 } },
    // Step Functions gives each callback task its token; the handler asks the local Step Functions for one.
    context: { Execution: { Id: executionArn, StartTime: new Date(startDate).toISOString() }, Task: { Token: 'issued-by-the-local-step-functions' } },
  });
  // The history Step Functions keeps (what the teardown of an ended execution reads): each state's exit with its output.
  r.sfn.record(executionArn, { type: 'ExecutionStarted' });
  let validatedRunId: string | null = null;
  const onExit = (name: string, type: string, output: unknown) => {
    r.sfn.record(executionArn, { type: `${type}StateExited`, stateExitedEventDetails: { name, output: JSON.stringify(output) } });
    if (name === RUN_ID_STATE) validatedRunId = (output as any)?.run?.value?.runId ?? null;
  };
  const counted = countEvents(execution.eventLogs as AsyncIterable<any>, definition, limit, onExit);
  const stopped = r.opts.fault === 'stop-execution' ? stopMidRun(r, () => validatedRunId, () => execution.abort()) : null;
  let output: any = null;
  let error: RehearsalReport['error'] = null;
  try {
    output = await execution.result;
  } catch (err) {
    const cause = (err as { cause?: { name: string; message: string; stack?: string } }).cause;
    error = stopped?.done() ? { name: 'ExecutionAborted', message: stopped.done()! } : { name: cause?.name ?? (err as Error).name, message: cause?.message ?? (err as Error).message };
    if (process.env.S3AB_REHEARSAL_DEBUG) process.stderr.write(`${String(cause?.stack ?? (err as Error).stack)}\n`);
  } finally {
    stopped?.cancel();
  }
  const { states, historyEvents } = await counted;
  let ending: RehearsalReport['ending'] = null;
  if (error) {
    // The execution is over: the tasks it waited for are closed, and EventBridge delivers its status change.
    r.sfn.endTasks();
    const status = stopped?.done() ? 'ABORTED' : 'FAILED';
    ending = { status, invoked: await statusChanged(r, { executionArn, stateMachineArn: r.template.ref(stateMachineId), startDate, status }) };
    await r.cloud.reaped();
    for (const i of ending.invoked) r.opts.log?.(`EventBridge: ${status} matched ${i.rule}: ${i.function} ${i.error ? `failed: ${i.error}` : `answered ${JSON.stringify(i.result)}`}`);
  }
  r.opts.log?.(`execution ${error ? 'FAILED' : 'SUCCEEDED'}${error ? `: ${error.name}: ${error.message}` : ''}`);
  const runId: string | null = output?.run?.value?.runId ?? runIdOf(r.cloud);
  const shards = (output?.run?.value?.shards ?? []).length || r.cloud.sandboxes.size;
  const readyChecks = definition.States['RunnersReady?'].Choices.find((c: any) => c.Variable === '$.ready.attempts').NumericGreaterThanEquals;
  const historyBound = historyEventBound({
    runners: shards, subnets: subnetStates(definition).length, readyChecks, lambdaRepetitions: (output?.run?.value?.lambdaRepetitions ?? [1]).length,
    queries: definition.States.ListSummaryQueries.Result.length, teardownRounds: TEARDOWN_MAX_ROUNDS,
  });
  return { output, error, runId: runId ?? validatedRunId, states, historyEvents, historyBound, polls: states.find((s) => s.name === 'CheckRunnersOnline')?.count ?? 0, ending };
}

/**
 * StopExecution in the middle of the run: once a shard's command runs and the run's data bucket
 * prefix holds objects (polled every 250 ms). `done()` says why it stopped the execution, once it did.
 */
function stopMidRun(r: Rehearsal, runId: () => string | null, abort: () => void): { done: () => string | null; cancel: () => void } {
  let reason: string | null = null;
  let busy = false;
  const timer = setInterval(async () => {
    const id = runId();
    if (reason || busy || !id) return;
    busy = true;
    try {
      const running = [...r.cloud.commands.values()].some((c) => c.document === 'run-step' && [...c.invocations.values()].some((i) => i.status === 'InProgress'));
      if (!running) return;
      const page = await r.admin.send(new ListObjectVersionsCommand({ Bucket: r.server.target.bucket, Prefix: runDataPrefix(id), MaxKeys: 1 }));
      if (!(page.Versions?.length ?? 0)) return;
      reason = `StopExecution while run ${id}'s shard was running, with objects under s3://${r.server.target.bucket}/${runDataPrefix(id)}`;
      abort();
    } finally {
      busy = false;
    }
  }, 100);
  return { done: () => reason, cancel: () => clearInterval(timer) };
}

/**
 * The execution's status change as EventBridge delivers it: every rule of the template it matches
 * invokes its Lambda target with it (as Lambda calls a function: its timeout in the context, its
 * role's clients — Step Functions' the local one).
 */
async function statusChanged(r: Rehearsal, e: { executionArn: string; stateMachineArn: string; startDate: number; status: string }): Promise<NonNullable<RehearsalReport['ending']>['invoked']> {
  const event: ExecutionStatusEvent = {
    version: '0', id: randomUUID(), source: 'aws.states', 'detail-type': STATUS_CHANGE, account: ACCOUNT, region: REGION, time: new Date().toISOString(), resources: [e.executionArn],
    detail: { executionArn: e.executionArn, stateMachineArn: e.stateMachineArn, name: e.executionArn.split(':').pop()!, status: e.status, startDate: e.startDate, stopDate: Date.now() },
  };
  const functions = r.template.functions();
  const invoked: NonNullable<RehearsalReport['ending']>['invoked'] = [];
  for (const { rule, functionId } of lambdaTargetsOf(r.template, event)) {
    const entry = String(r.template.resources[functionId].Properties!.Environment.Variables.POWERTOOLS_SERVICE_NAME);
    const handler = r.functions?.[entry];
    if (!handler) throw new Error(`rehearsal: rule ${rule} invokes the ${entry} function, which the rehearsal does not load`);
    const f = functions[functionId];
    const deadline = Date.now() + f.timeoutMs;
    const context: LambdaContext = {
      functionName: functionId, functionVersion: '$LATEST', invokedFunctionArn: r.template.getAtt(functionId, 'Arn'), memoryLimitInMB: String(f.memoryMb),
      awsRequestId: randomUUID(), getRemainingTimeInMillis: () => deadline - Date.now(),
    };
    const sfn = new SFNClient({ region: REGION, endpoint: r.sfn.endpoint, credentials: r.iam.credentialsOf(f.roleId), maxAttempts: 2 });
    try {
      const result = await handler(event, context, { s3: r.s3As(f.roleId), ec2: r.cloud.ec2Client(f.roleId), sfn });
      invoked.push({ rule, function: entry, result, error: null });
    } catch (err) {
      invoked.push({ rule, function: entry, result: null, error: `${(err as Error).name}: ${(err as Error).message}` });
    } finally {
      sfn.destroy();
    }
  }
  return invoked;
}

/**
 * The execution's own events, counted as Step Functions writes history (EVENTS_PER_STATE, the
 * same figures as the bound), and per state its runs and longest run.
 */
async function countEvents(events: AsyncIterable<any>, definition: Record<string, any>, limit: Record<string, number | null>,
  onExit: (name: string, type: string, output: unknown) => void): Promise<{ states: StateFigure[]; historyEvents: number }> {
  const E = EVENTS_PER_STATE;
  const figures = new Map<string, StateFigure>();
  const open = new Map<string, number[]>();
  let historyEvents = E.execution;
  for await (const e of events) {
    const name: string | undefined = e.state?.name;
    const key = `${name}#${e.index ?? ''}`;
    const st = name ? findState(definition.States, name) : null;
    const waits = /\.(sync|waitForTaskToken)$/.test(String(st?.Resource ?? ''));
    if (e.type === 'StateEntered') {
      open.set(key, [...(open.get(key) ?? []), e.timestamp]);
      historyEvents += e.state.type === 'Task' ? (waits ? E.waitingTask : E.task) : e.state.type === 'Map' ? E.map : E.flow;
    }
    if (e.type === 'StateRetried') historyEvents += waits ? E.waitingRetry : E.retry;
    if (process.env.S3AB_REHEARSAL_DEBUG && /StateFailed|StateCaught|StateRetried/.test(e.type)) process.stderr.write(`${e.type} ${name}: ${JSON.stringify([e.Error, e.Cause, e.error?.message, e.error?.stack]).slice(0, 1500)}\n`);
    // An iteration's start and its end: one event each.
    if (e.type === 'MapIterationStarted' || e.type === 'MapIterationSucceeded' || e.type === 'MapIterationFailed') historyEvents += E.mapIteration / 2;
    if (e.type === 'StateExited' && name) onExit(name, e.state.type, e.state.output);
    if ((e.type === 'StateExited' || e.type === 'StateFailed' || e.type === 'StateCaught') && name) {
      const t0 = open.get(key)?.pop();
      if (t0 === undefined) continue;
      const f = figures.get(name) ?? { name, count: 0, longestMs: 0, totalMs: 0, timeoutS: null };
      f.count++;
      f.longestMs = Math.max(f.longestMs, e.timestamp - t0);
      f.totalMs += e.timestamp - t0;
      figures.set(name, f);
    }
  }
  // Timeouts known only once a state ran (a callback task's comes from its shard) are read at the end.
  for (const f of figures.values()) f.timeoutS = limit[f.name] ?? null;
  return { states: [...figures.values()], historyEvents };
}

interface Inspection { versions: number; runnerProcesses: number; mounts: number; measured: RehearsalReport['measured']; records: StepRecord[] }

/** What the run left behind, each step's figures (one runner), then the sandboxes themselves (a runner's folder is its disk). */
async function inspectRun(r: Rehearsal, runId: string | null): Promise<Inspection> {
  const c = r.cloud;
  const runnerProcesses = c.runningCommands();
  let versions = 0;
  if (runId) {
    for (const prefix of [runDataPrefix(runId), runVolumePrefix(runId), `${DOCS_PREFIX}${runId}/`]) {
      const page = await r.admin.send(new ListObjectVersionsCommand({ Bucket: r.server.target.bucket, Prefix: prefix }));
      versions += (page.Versions?.length ?? 0) + (page.DeleteMarkers?.length ?? 0);
    }
    // A fleet's barrier markers and the callbacks' task tokens in the results bucket: removed by the runners and Teardown.
    for (const prefix of [`${RESULTS_LAYOUT.fleetBarrier}${runId}/`, `${RESULTS_LAYOUT.taskTokens}${runId}/`]) {
      const left = await r.admin.send(new ListObjectVersionsCommand({ Bucket: RESULTS_BUCKET, Prefix: prefix }));
      versions += (left.Versions?.length ?? 0) + (left.DeleteMarkers?.length ?? 0);
    }
  }
  const records = runId ? await resultRecords(r.admin, RESULTS_BUCKET, runId) : [];
  // Per step, measured (one runner only: the runners share this server's log).
  const runSteps = [...c.commands.values()].filter((cmd) => cmd.document === 'run-step').flatMap((cmd) => [...cmd.invocations.values()]);
  let measured: RehearsalReport['measured'] = null;
  if (runId && runSteps.length === 1 && runSteps[0].endedAt) {
    measured = await stepFigures(records, fileLines(r.server.accessLog), { runner: runSteps[0].instanceId, startedAt: runSteps[0].startedAt, endedAt: runSteps[0].endedAt },
      r.server.target.bucket, (ua) => methodOfUserAgent(ua)?.name ?? null);
  }
  c.terminate([...c.sandboxes.keys()]);
  const { mountsDetached } = c.removeSandboxes();
  return { versions, runnerProcesses, mounts: mountsDetached, measured, records };
}

/**
 * Every S3 request of the rehearsal, from the server's access log, evaluated as its role's (the
 * key it was signed with); then what only the rehearsal's own clients and stand-ins saw. The
 * rehearsal's own requests (the server's root key: buckets, leftovers) are not the stack's.
 */
async function checkS3Requests(r: Rehearsal): Promise<{ unseen: number }> {
  const root = r.server.target.credentials!.accessKeyId;
  const withBodies = new Set(r.extra.filter((x) => x.source.startsWith('S3 request body')).map((x) => x.principal));
  let unseen = 0;
  for await (const line of fileLines(r.server.accessLog)) {
    const req = parseLoggedRequest(line);
    if (!req || req.requester === root) continue;
    const principal = r.iam.roleOfKey(req.requester);
    const mapped = iamRequestsOf(req);
    if (!principal) {
      r.iam.recordUnknownPrincipal(req.requester, req.operation, `arn:aws:s3:::${req.bucket}/${req.key}`, 'S3 access log');
      continue;
    }
    if (mapped === 'unseen') {
      if (!withBodies.has(principal)) unseen++;
      continue;
    }
    for (const m of mapped) await r.iam.decide({ ...m, principal, source: 'S3 access log' });
  }
  for (const x of r.extra) await r.iam.decide(x);
  return { unseen };
}

/** The report: the execution's outcome, and FAILED naming every IAM deny even when the execution itself succeeded. */
function reportOf(r: Rehearsal, run: ExecutionOutcome, seen: Inspection, s3Log: { unseen: number; requests: S3Requests }, wallMs: number): Omit<RehearsalReport, 'pulled'> {
  const denials = r.iam.denials();
  const iamError = denials.length
    ? { name: 'AccessDenied', message: `the template's IAM denies ${denials.length} request kind(s): ${denials.map((d) => `${d.principal} may not ${d.action} on ${d.resource} (${d.decision}; ${d.count} request(s), seen in the ${d.source})`).join('; ')}` }
    : null;
  // A fleet step whose clients did not all record it, or not from one start instant, did not run as a fleet.
  const fleet = fleetFigures(seen.records as FleetRecord[]);
  const apart = fleet.filter((f) => f.runners !== f.clients || f.startInstants !== 1);
  const fleetError = !run.error && apart.length
    ? { name: 'FleetApart', message: apart.map((f) => `step ${f.step} (${f.cache}): ${f.runners} of ${f.clients} clients recorded it, from ${f.startInstants} start instant(s)`).join('; ') }
    : null;
  const error = run.error && iamError ? { name: run.error.name, message: `${run.error.message} [and ${iamError.message}]` } : run.error ?? iamError ?? fleetError;
  const endingFailed = run.ending?.invoked.filter((i) => i.error) ?? [];
  if (error && endingFailed.length) error.message += ` [and the teardown EventBridge started failed: ${endingFailed.map((i) => i.error).join('; ')}]`;
  const teardownOut = run.output?.teardown?.value;
  return {
    status: error ? 'FAILED' : 'SUCCEEDED', error, runId: run.runId, reportLocation: run.output?.report?.value?.reportLocation ?? null,
    reportSectionsWithoutData: run.output?.report?.value?.sectionsWithoutData ?? null, wallMs,
    states: run.states, polls: run.polls, historyEvents: run.historyEvents, historyBound: run.historyBound, callbacks: r.sfn.figures,
    commands: [...r.cloud.commands.values()].flatMap((cmd) => [...cmd.invocations.values()].map((inv) => ({
      document: cmd.document, runner: inv.instanceId, ms: (inv.endedAt ?? Date.now()) - inv.startedAt, timeoutS: cmd.timeoutSeconds, status: inv.status,
      steps: cmd.parameters.steps ? cmd.parameters.steps[0].split(',').length : 0,
    }))),
    s3: { ...s3Log.requests, versionsDeleted: teardownOut?.deletedVersions ?? 0 },
    iam: { requests: r.iam.requests, evaluations: r.iam.evaluations, unseen: s3Log.unseen, denials },
    leftovers: { runnerProcesses: seen.runnerProcesses, mounts: seen.mounts, versions: seen.versions, sandboxes: 0 },
    measured: seen.measured,
    fleet,
    launched: [...r.cloud.sandboxes.values()].map((b) => b.instanceType),
    ending: run.ending,
  };
}

/**
 * `s3ab aws pull` of the run, as a user runs it after an execution: the bundled CLI in its own
 * process, the results bucket named as the stack's ResultsBucketName output names it, the S3
 * endpoint given as AWS_ENDPOINT_URL_S3 (the standard override) and the account owner's keys
 * (the server's own: a user is no role of the template).
 */
async function pullAsUser(r: Rehearsal, runId: string, dir: string): Promise<{ dir: string; code: number | null; output: string }> {
  const t = r.server.target;
  const env = {
    ...process.env, AWS_ENDPOINT_URL_S3: t.endpointUrl, AWS_ACCESS_KEY_ID: t.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: t.credentials!.secretAccessKey,
    AWS_REGION: REGION, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const cli = join(__dirname, '..', '..', 'dist', 's3ab.js');
  // Not spawnSync: the embedded server's output must keep flowing while the CLI talks to it.
  const child = spawn(process.execPath, [cli, 'aws', 'pull', '--bucket', RESULTS_BUCKET, '--run', runId, '--results', dir], { env });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((res, rej) => { child.once('error', rej); child.once('close', res); }).finally(() => clearTimeout(timer));
  return { dir, code, output: output.trim() };
}

/** Every result record of the run in the results bucket (the runners' uploads). */
async function resultRecords(s3: S3Client, bucket: string, runId: string): Promise<StepRecord[]> {
  const records: StepRecord[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken }));
    for (const o of page.Contents ?? []) {
      // Result records only: not the interval series beside them (results/intervals/), nor other files.
      if (!o.Key!.startsWith(RESULTS_LAYOUT.records) || o.Key!.startsWith(RESULTS_LAYOUT.intervals) || !o.Key!.endsWith('.jsonl') || !o.Key!.includes(runId)) continue;
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

interface S3Requests { requests: number; byOperation: Record<string, number>; versionsCreated: number }

/** S3 requests the rehearsal made (every client: runners, functions, Athena's reads), from the server's access log, streamed. */
async function requestsOf(accessLog: string, dataBucket: string): Promise<S3Requests> {
  const byOperation: Record<string, number> = {};
  let requests = 0;
  let versionsCreated = 0;
  for await (const line of fileLines(accessLog)) {
    const e = parseAccessLogLine(line);
    if (!e) continue;
    requests++;
    byOperation[e.operation] = (byOperation[e.operation] ?? 0) + 1;
    // The bucket is the second field of an access-log line; a new version per object written.
    if (line.split(' ')[1] === dataBucket && e.status < 300 && /^(s3_PutObject|s3_CompleteMultipartUpload|s3_CopyObject)$/.test(e.operation)) versionsCreated++;
  }
  return { requests, byOperation, versionsCreated };
}
