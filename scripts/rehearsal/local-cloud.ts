/**
 * The AWS control plane of a rehearsal, on this machine: EC2 instances are local runner sandboxes
 * (a folder, an instance id, a process group), SSM Run Command runs the synthesized documents'
 * own shell lines with bash in a sandbox, Athena runs the named query's SQL on DuckDB over the
 * results bucket (read, and its result written, with the caller's S3 key, as Athena does). Every
 * call is made as a role of the template and evaluated against its IAM first (iam.ts): a denied
 * call fails as AWS fails it. Everything else is real: the Lambda handlers (called with these
 * clients), the S3 traffic (the embedded versitygw), the runner processes.
 */
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { athenaCsv, athenaResultKey, athenaResultOf } from '../fixtures/athena-results';
import { mountTable } from '../../runner/core/mounts-table';
import { namedQueries, openResults } from '../../runner/report/results-db';
import { AwsError, type IamCheck, type IamRequest } from './iam';
import { ACCOUNT, REGION } from './template';

/** A command's output as SSM keeps it for GetCommandInvocation: the last 24,000 characters. */
const SSM_OUTPUT_LIMIT = 24_000;
const arn = (service: string, resource: string, region = REGION, account = ACCOUNT) => `arn:aws:${service}:${region}:${account}:${resource}`;

export interface Sandbox {
  id: string;
  dir: string;
  instanceType: string;
  subnet: string;
  tags: Record<string, string>;
  state: 'running' | 'terminated';
  launchedAt: number;
}

interface Invocation {
  instanceId: string;
  status: 'InProgress' | 'Success' | 'Failed' | 'Cancelled' | 'TimedOut';
  output: string;
  child: ChildProcess | null;
  startedAt: number;
  endedAt: number | null;
}

export interface CommandRecord {
  id: string;
  document: 'setup' | 'run-step';
  parameters: Record<string, string[]>;
  invocations: Map<string, Invocation>;
  timeoutSeconds: number;
}

/**
 * An injected fault: a command of this document fails on the first runner (after its exit trap is
 * set); `runner-dies`: its run-step processes are killed, no trap runs; `success-fails-twice`: the
 * first two SendTaskSuccess calls of a shard fail (the Step Functions stand-in); `stop-execution`:
 * StopExecution while a shard runs (the rehearsal).
 */
export type Fault = 'setup' | 'run-step' | 'runner-dies' | 'success-fails-twice' | 'stop-execution';
export const FAULTS: Fault[] = ['setup', 'run-step', 'runner-dies', 'success-fails-twice', 'stop-execution'];

export interface LocalCloudOptions {
  /** Folder of the sandboxes (one sub-folder per runner). */
  root: string;
  iam: IamCheck;
  /** An S3 client with a role's key (the embedded server knows every role's key). */
  s3As: (roleId: string) => S3Client;
  resultsBucket: string;
  /** The documents' lines, as the sandbox runs them (rendered; the rehearsal's stand-ins in place of the parts that install on the host). */
  lines: Record<'setup' | 'run-step', string[]>;
  /** IAM requests of a document's parts the sandbox does not run (the bundle download, the S3 Files mount), as the runner would make them. */
  skipped: Record<'setup' | 'run-step', (box: Sandbox) => IamRequest[]>;
  /** Replaces the AWS-only parts of a document line (IMDS, the AWS CLI's endpoint, /opt/s3ab, /var/log) with this machine's. */
  localize: (line: string, sandbox: Sandbox) => string;
  /** Environment of every sandbox command (the runner role's key, the endpoints). */
  env: NodeJS.ProcessEnv;
  /** The launch template's security group and instance role, for RunInstances' IAM. */
  launch: { template: string; securityGroup: string; roleArn: string };
  fault?: Fault;
  /** The first runner's run-step command starts its steps this many seconds late: the others wait for it at a fleet's barrier. */
  slowRunnerS?: number;
  /** The account beyond the stack: its Standard vCPU quota, what else runs there, which types its zones do not offer. */
  account?: RehearsalAccount;
}

/**
 * The rehearsal's account as the capacity check reads it: Service Quotas answers `vcpuQuota` for
 * the Standard vCPU quota; DescribeInstances also lists `runningVcpus` worth of other On-Demand
 * c7g.large instances (2 vCPUs each, no stack tag: Teardown and the janitor never see them); every
 * type is offered in every runner zone but those in `notOffered`.
 */
export interface RehearsalAccount { vcpuQuota: number; runningVcpus: number; notOffered?: string[] }
export const DEFAULT_ACCOUNT: RehearsalAccount = { vcpuQuota: 1000, runningVcpus: 0 };

/** An SDK command's operation name (from its schema: the bundled functions' class names are minified). */
function operationOf(cmd: { constructor: { name: string }; schema?: unknown }): string {
  const schema = cmd.schema as unknown[] | undefined;
  return typeof schema?.[2] === 'string' ? schema[2] : cmd.constructor.name.replace(/Command$/, '');
}

type SdkCommand = { constructor: { name: string }; schema?: unknown; input: any };

/** The local EC2, SSM and Athena of a rehearsal, with what a report of it needs counted. */
export class LocalCloud {
  readonly sandboxes = new Map<string, Sandbox>();
  readonly commands = new Map<string, CommandRecord>();
  private readonly launches = new Map<string, string[]>();
  /** Each finished query's result file (its key in the results bucket). */
  private readonly queryResults = new Map<string, { key: string }>();
  /** The results bucket's records as the queries read them, copied once per caller (they do not change while Aggregate runs). */
  private readonly records = new Map<string, Promise<string>>();
  private n = 0;
  /** The injected fault goes to the first command of its document only. */
  private faulted = false;
  /** The delay goes to the first run-step command only. */
  private slowed = false;

  constructor(private readonly o: LocalCloudOptions) {
    mkdirSync(o.root, { recursive: true });
  }

  private require(principal: string, source: string, requests: Omit<IamRequest, 'principal' | 'source'>[], errorName: string): Promise<void[]> {
    return Promise.all(requests.map((r) => this.o.iam.require({ ...r, principal, source }, errorName)));
  }

  // --- EC2 ------------------------------------------------------------------------------------

  /** RunInstances as the state machine's role: every resource it touches, from the stack's launch template. */
  async runInstances(principal: string, p: { InstanceType: string; ImageId: string; SubnetId: string; MinCount: number; ClientToken?: string; TagSpecifications: { Tags: { Key: string; Value: string }[] }[] }) {
    const lt = { 'ec2:LaunchTemplate': arn('ec2', `launch-template/${this.o.launch.template}`) };
    await this.require(principal, 'EC2 stand-in', [
      ...['instance/i-launching', `subnet/${p.SubnetId}`, `security-group/${this.o.launch.securityGroup}`, 'network-interface/eni-launching', 'volume/vol-launching', `launch-template/${this.o.launch.template}`]
        .map((r) => ({ action: 'ec2:RunInstances', resource: arn('ec2', r), context: lt })),
      { action: 'ec2:RunInstances', resource: arn('ec2', 'image/ami-al2023', REGION, ''), context: lt },
      { action: 'ec2:CreateTags', resource: arn('ec2', 'instance/i-launching'), context: { 'ec2:CreateAction': 'RunInstances' } },
      { action: 'iam:PassRole', resource: this.o.launch.roleArn, context: { 'iam:PassedToService': 'ec2.amazonaws.com' } },
      // Not evaluated here: ssm:GetParameters on AWS's public AL2023 parameter (`resolve:ssm:` image
      // ids). Its ARN has no account, which iam-simulate cannot type; test/aws/stack.test.ts checks the grant.
    ], 'Ec2.UnauthorizedOperation');
    const known = p.ClientToken ? this.launches.get(p.ClientToken) : undefined;
    if (known) return { Instances: known.map((InstanceId) => ({ InstanceId })) };
    const tags = Object.fromEntries(p.TagSpecifications[0].Tags.map((t) => [t.Key, t.Value]));
    const ids: string[] = [];
    for (let i = 0; i < p.MinCount; i++) {
      const id = `i-${(++this.n).toString(16).padStart(17, '0')}`;
      const dir = join(this.o.root, id);
      for (const d of ['tmp', 'log', 'lock']) mkdirSync(join(dir, d), { recursive: true });
      this.sandboxes.set(id, { id, dir, instanceType: p.InstanceType, subnet: p.SubnetId, tags, state: 'running', launchedAt: Date.now() });
      ids.push(id);
    }
    if (p.ClientToken) this.launches.set(p.ClientToken, ids);
    return { Instances: ids.map((InstanceId) => ({ InstanceId })) };
  }

  /** Terminating a sandbox kills its processes (their process groups) and detaches anything mounted in it. */
  terminate(ids: string[]): void {
    for (const id of ids) {
      const box = this.sandboxes.get(id);
      if (!box || box.state === 'terminated') continue;
      box.state = 'terminated';
      for (const cmd of this.commands.values()) {
        const inv = cmd.invocations.get(id);
        if (inv) this.kill(inv, 'Cancelled');
      }
    }
  }

  private kill(inv: Invocation, status: Invocation['status']): void {
    if (!inv.child || inv.child.exitCode !== null || inv.child.signalCode !== null) return;
    try {
      process.kill(-inv.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    inv.status = inv.status === 'InProgress' ? status : inv.status;
  }

  /**
   * Waits (at most `ms`) until the killed processes of terminated sandboxes have exited, as a
   * terminated instance's are gone: a SIGKILL is reaped asynchronously. A process that outlives
   * its sandbox's termination still counts in runningCommands().
   */
  async reaped(ms = 5000): Promise<void> {
    const alive = () => [...this.commands.values()].some((c) => [...c.invocations.values()].some((inv) => this.sandboxes.get(inv.instanceId)?.state === 'terminated'
      && inv.child && inv.child.exitCode === null && inv.child.signalCode === null));
    for (const until = Date.now() + ms; alive() && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 100));
  }

  /** After the processes are gone: mounts left in a sandbox are detached, its folder removed. */
  removeSandboxes(): { mountsDetached: number } {
    let mountsDetached = 0;
    for (const box of this.sandboxes.values()) {
      for (const m of mountTable().filter((e) => e.mountPoint.startsWith(box.dir))) {
        spawn('fusermount', ['-uz', m.mountPoint]);
        mountsDetached++;
      }
      rmSync(box.dir, { recursive: true, force: true });
    }
    return { mountsDetached };
  }

  describeInstances(p: { InstanceIds?: string[]; Filters?: { Name: string; Values: string[] }[] }) {
    // The account's other instances: running, untagged, outside the rehearsal's sandboxes.
    const others = Array.from({ length: Math.ceil((this.o.account ?? DEFAULT_ACCOUNT).runningVcpus / 2) }, (_, i) => ({
      id: `i-other${String(i).padStart(12, '0')}`, instanceType: 'c7g.large', tags: {} as Record<string, string>, state: 'running', launchedAt: 0,
    }));
    let boxes: { id: string; instanceType: string; tags: Record<string, string>; state: string; launchedAt: number }[] = [...this.sandboxes.values(), ...others];
    if (p.InstanceIds) boxes = boxes.filter((b) => p.InstanceIds!.includes(b.id));
    for (const f of p.Filters ?? []) {
      if (f.Name.startsWith('tag:')) boxes = boxes.filter((b) => f.Values.includes(b.tags[f.Name.slice(4)]));
      if (f.Name === 'instance-state-name') boxes = boxes.filter((b) => f.Values.includes(b.state));
    }
    return { Reservations: [{ Instances: boxes.map((b) => ({ InstanceId: b.id, InstanceType: b.instanceType, State: { Name: b.state }, LaunchTime: new Date(b.launchedAt), Tags: Object.entries(b.tags).map(([Key, Value]) => ({ Key, Value })), CpuOptions: { CoreCount: 2, ThreadsPerCore: 1 } })) }] };
  }

  /** The EC2 client a function gets, acting as its role (the calls the pipeline's functions make). */
  ec2Client(principal: string) {
    return {
      send: async (cmd: SdkCommand) => {
        const op = operationOf(cmd);
        if (op === 'DescribeInstances') {
          await this.require(principal, 'EC2 stand-in', [{ action: 'ec2:DescribeInstances', resource: '*' }], 'UnauthorizedOperation');
          return this.describeInstances(cmd.input);
        }
        if (op === 'TerminateInstances') {
          const ids: string[] = cmd.input.InstanceIds;
          // The condition keys of a termination: the instance's own tags (the stack tag limits it).
          await this.require(principal, 'EC2 stand-in', ids.map((id) => ({
            action: 'ec2:TerminateInstances', resource: arn('ec2', `instance/${id}`),
            context: Object.fromEntries(Object.entries(this.sandboxes.get(id)?.tags ?? {}).map(([k, v]) => [`ec2:ResourceTag/${k}`, v])),
          })), 'UnauthorizedOperation');
          this.terminate(ids);
          return { TerminatingInstances: ids.map((InstanceId) => ({ InstanceId })) };
        }
        if (op === 'DescribeInstanceTypeOfferings') {
          await this.require(principal, 'EC2 stand-in', [{ action: 'ec2:DescribeInstanceTypeOfferings', resource: '*' }], 'UnauthorizedOperation');
          const values = (name: string): string[] => cmd.input.Filters?.find((f: { Name: string }) => f.Name === name)?.Values ?? [];
          const notOffered = (this.o.account ?? DEFAULT_ACCOUNT).notOffered ?? [];
          const offered = values('instance-type').filter((t) => !notOffered.includes(t));
          return { InstanceTypeOfferings: offered.flatMap((t) => values('location').map((Location) => ({ InstanceType: t, LocationType: 'availability-zone', Location }))) };
        }
        throw new Error(`local EC2: ${op} is not part of the rehearsal`);
      },
    };
  }

  // --- Service Quotas -------------------------------------------------------------------------

  /** The Service Quotas client a function gets, acting as its role: GetServiceQuota answers the account's configured quota. */
  quotasClient(principal: string) {
    return {
      getServiceQuota: async (input: { ServiceCode: string; QuotaCode: string }) => {
        await this.require(principal, 'Service Quotas stand-in', [{ action: 'servicequotas:GetServiceQuota', resource: arn('servicequotas', `${input.ServiceCode}/${input.QuotaCode}`) }], 'AccessDeniedException');
        if (input.ServiceCode !== 'ec2' || input.QuotaCode !== 'L-1216C47A') throw new AwsError('NoSuchResourceException', `the rehearsal's Service Quotas knows ec2 L-1216C47A only, not ${input.ServiceCode} ${input.QuotaCode}`);
        return { Quota: { ServiceCode: 'ec2', QuotaCode: 'L-1216C47A', QuotaName: 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances', Value: (this.o.account ?? DEFAULT_ACCOUNT).vcpuQuota, Unit: 'None' } };
      },
    };
  }

  // --- SSM ------------------------------------------------------------------------------------

  /** DescribeInstanceInformation as the state machine: the running sandboxes are online. */
  async describeInstanceInformation(principal: string, ids: string[]) {
    await this.require(principal, 'SSM stand-in', [{ action: 'ssm:DescribeInstanceInformation', resource: '*' }], 'Ssm.AccessDeniedException');
    return { InstanceInformationList: ids.filter((id) => this.sandboxes.get(id)?.state === 'running').map((InstanceId) => ({ InstanceId, PingStatus: 'Online' })) };
  }

  /**
   * SendCommand as the state machine: the document's own lines, localized, with its {{ parameters }}
   * filled in, run with bash in each sandbox; the IAM requests of the parts left out are checked as the runner's.
   */
  async sendCommand(principal: string, document: 'setup' | 'run-step', documentName: string, instanceIds: string[], parameters: Record<string, string[]>) {
    await this.require(principal, 'SSM stand-in', [arn('ssm', `document/${documentName}`), ...instanceIds.map((id) => arn('ec2', `instance/${id}`))]
      .map((resource) => ({ action: 'ssm:SendCommand', resource })), 'Ssm.AccessDeniedException');
    const id = `cmd-${(++this.n).toString(16).padStart(8, '0')}`;
    const timeoutSeconds = Number(parameters.executionTimeout?.[0] ?? 3600);
    const record: CommandRecord = { id, document, parameters, invocations: new Map(), timeoutSeconds };
    this.commands.set(id, record);
    for (const instanceId of instanceIds) {
      const box = this.sandboxes.get(instanceId);
      if (!box || box.state !== 'running') throw new AwsError('Ssm.InvalidInstanceIdException', `instance ${instanceId} is not running`);
      await Promise.all(this.o.skipped[document](box).map((r) => this.o.iam.decide(r)));
      // Terminated meanwhile (Teardown runs while a failed Map's other iterations still send): SSM refuses.
      if (box.state !== 'running') throw new AwsError('Ssm.InvalidInstanceIdException', `instance ${instanceId} is not running`);
      const fault = !this.faulted && (this.o.fault === document || (this.o.fault === 'runner-dies' && document === 'run-step')) ? this.o.fault : undefined;
      if (fault) this.faulted = true;
      const delayS = document === 'run-step' && !this.slowed && this.o.slowRunnerS ? this.o.slowRunnerS : 0;
      if (delayS) this.slowed = true;
      record.invocations.set(instanceId, this.run(document, id, box, parameters, fault, delayS));
    }
    return { Command: { CommandId: id } };
  }

  private run(document: 'setup' | 'run-step', id: string, box: Sandbox, parameters: Record<string, string[]>, fault?: Fault, delayS = 0): Invocation {
    const lines = this.o.lines[document].map((l) => this.o.localize(l, box));
    // A slow runner: its steps start late, as if its earlier steps had taken that much longer.
    if (delayS) {
      const at = lines.findIndex((l) => /s3ab\.js step /.test(l));
      if (at < 0) throw new Error('rehearsal: the run-step document has no `s3ab.js step` line to delay');
      lines.splice(at, 0, `sleep ${delayS}`);
    }
    // An injected failure comes after the exit trap, so the command reports it as a real one would.
    if (fault === document) lines.splice(lines.findIndex((l) => l.startsWith('trap ')) + 1, 0, `echo "s3ab rehearsal: injected failure in ${document}" >&2; exit 42`);
    let script = lines.join('\n');
    for (const [k, v] of Object.entries(parameters)) script = script.replaceAll(`{{ ${k} }}`, v.join(','));
    writeFileSync(join(box.dir, `${id}.sh`), script);
    const inv: Invocation = { instanceId: box.id, status: 'InProgress', output: '', child: null, startedAt: Date.now(), endedAt: null };
    // Its own process group, as the SSM agent runs it: terminating the sandbox kills the whole tree.
    // The runner's own environment: the document sets S3AB_HOME and TMPDIR itself.
    // Each sandbox its own mount lock, as each runner is its own host: a fleet's sandboxes mount at
    // once and meet at the barrier (one lock for all would hold the others off until it timed out).
    const env: NodeJS.ProcessEnv = { ...process.env, ...this.o.env, TMPDIR: join(box.dir, 'tmp'), S3AB_LOCK_DIR: join(box.dir, 'lock') };
    delete env.S3AB_HOME;
    const child = spawn('bash', [join(box.dir, `${id}.sh`)], { cwd: box.dir, detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (c: Buffer) => { inv.output = (inv.output + c.toString()).slice(-SSM_OUTPUT_LIMIT); };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const timer = setTimeout(() => this.kill(inv, 'TimedOut'), Number(parameters.executionTimeout?.[0] ?? 3600) * 1000);
    // A runner that dies mid-steps: its whole process tree is killed, no exit trap runs (as when an instance fails).
    const death = fault === 'runner-dies' && document === 'run-step' ? setTimeout(() => this.kill(inv, 'Failed'), 1000) : null;
    child.once('close', (code) => {
      clearTimeout(timer);
      if (death) clearTimeout(death);
      inv.endedAt = Date.now();
      if (inv.status === 'InProgress') inv.status = code === 0 ? 'Success' : 'Failed';
    });
    inv.child = child;
    return inv;
  }

  /** Processes of the rehearsal's commands still running (a clean end has none). */
  runningCommands(): number {
    let n = 0;
    for (const c of this.commands.values()) for (const inv of c.invocations.values()) if (inv.child && inv.child.exitCode === null && inv.child.signalCode === null) n++;
    return n;
  }

  // --- Athena ---------------------------------------------------------------------------------

  private athenaRequests(workGroup: string, actions: string[]) {
    return actions.map((action) => ({ action, resource: arn('athena', `workgroup/${workGroup}`) }));
  }

  async getNamedQuery(principal: string, id: string, workGroup: string, names: Record<string, string>) {
    await this.require(principal, 'Athena stand-in', this.athenaRequests(workGroup, ['athena:GetNamedQuery']), 'Athena.AccessDeniedException');
    const name = names[id];
    const q = namedQueries().find((x) => x.name === name);
    if (!q) throw new AwsError('Athena.InvalidRequestException', `no named query ${id}`);
    return { NamedQuery: { QueryString: q.sql } };
  }

  /**
   * StartQueryExecution (.sync) as the state machine: Glue and the workgroup's Athena calls checked,
   * the SQL on DuckDB over a copy of the results bucket's records (read with the caller's key, as
   * Athena reads them), its result written under athena/ with the caller's key too.
   */
  async runQuery(principal: string, p: { QueryString: string; WorkGroup: string; QueryExecutionContext: { Database: string } }): Promise<{ QueryExecution: { QueryExecutionId: string } }> {
    const db = p.QueryExecutionContext.Database;
    await this.require(principal, 'Athena stand-in', [
      ...this.athenaRequests(p.WorkGroup, ['athena:StartQueryExecution', 'athena:GetQueryExecution']),
      ...[arn('glue', 'catalog'), arn('glue', `database/${db}`)].map((resource) => ({ action: 'glue:GetDatabase', resource })),
      ...[arn('glue', 'catalog'), arn('glue', `database/${db}`), arn('glue', `table/${db}/results`), arn('glue', `table/${db}/intervals`)].map((resource) => ({ action: 'glue:GetTable', resource })),
    ], 'Athena.AccessDeniedException');
    // Queries run side by side (the Aggregate Map): the id is taken before any await.
    const id = `qe-${++this.n}`;
    const s3 = this.o.s3As(principal);
    let records = this.records.get(principal);
    if (!records) {
      records = this.copyRecords(s3, join(this.o.root, 'athena', `records-${principal}`));
      this.records.set(principal, records);
    }
    const local = await records;
    const duck = await openResults(local);
    try {
      // The query names the Glue database (the run filter reads its day partition of database.results and database.intervals).
      if (!/^[a-z0-9_]+$/.test(db)) throw new AwsError('Athena.InvalidRequestException', `database ${db} is not a Glue database name`);
      await duck.connection.run(`CREATE SCHEMA ${db}; CREATE VIEW ${db}.results AS SELECT * FROM main.results; CREATE VIEW ${db}.intervals AS SELECT * FROM main.intervals`);
      const result = await athenaResultOf(duck.connection, p.QueryString);
      const key = athenaResultKey(id);
      // Athena's result file: OUTPUT/QUERY_ID.csv, read by the report function with its own key.
      await s3.send(new PutObjectCommand({ Bucket: this.o.resultsBucket, Key: key, Body: athenaCsv(result), ContentType: 'text/csv' }));
      this.queryResults.set(id, { key });
      return { QueryExecution: { QueryExecutionId: id } };
    } finally {
      duck.close();
    }
  }

  /** The results bucket's records/ into a local folder, read with the caller's key (Athena reads the table's files as the caller). */
  private async copyRecords(s3: S3Client, local: string): Promise<string> {
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: this.o.resultsBucket, Prefix: 'results/', ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        const path = join(local, o.Key!.slice('results/'.length));
        mkdirSync(join(path, '..'), { recursive: true });
        writeFileSync(path, await (await s3.send(new GetObjectCommand({ Bucket: this.o.resultsBucket, Key: o.Key! }))).Body!.transformToString());
      }
      token = page.NextContinuationToken;
    } while (token);
    mkdirSync(local, { recursive: true });
    return local;
  }

  /**
   * The Athena client a function gets, acting as its role: GetQueryExecution, whose
   * ResultConfiguration names the query's result file (the function reads it from S3 with its
   * own key, so the rehearsal's IAM check sees that GetObject).
   */
  athenaClient(principal: string, workGroup: string) {
    return {
      send: async (cmd: SdkCommand) => {
        if (operationOf(cmd) !== 'GetQueryExecution') throw new Error(`local Athena: ${operationOf(cmd)} is not part of the rehearsal`);
        await this.require(principal, 'Athena stand-in', this.athenaRequests(workGroup, ['athena:GetQueryExecution']), 'AccessDeniedException');
        const q = this.queryResults.get(cmd.input.QueryExecutionId);
        if (!q) throw new AwsError('InvalidRequestException', `no query ${cmd.input.QueryExecutionId}`);
        return {
          QueryExecution: {
            QueryExecutionId: cmd.input.QueryExecutionId, Status: { State: 'SUCCEEDED' },
            ResultConfiguration: { OutputLocation: `s3://${this.o.resultsBucket}/${q.key}` },
          },
        };
      },
    };
  }
}
