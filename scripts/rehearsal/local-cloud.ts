/**
 * The AWS control plane of a rehearsal, on this machine: EC2 instances are local runner sandboxes
 * (a folder, an instance id, a process group), SSM Run Command runs the synthesized documents'
 * own shell lines with bash in a sandbox, Athena runs the named query's SQL on DuckDB over the
 * results bucket. Everything else is real: the Lambda handlers (called with these clients), the
 * S3 traffic (the embedded versitygw), the runner processes.
 */
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { athenaPages, athenaResultOf } from '../fixtures/athena-results';
import { mountTable } from '../../runner/core/mounts-table';
import { openResults } from '../../runner/report/results-db';
import { namedQueries } from '../../runner/report/results-db';

/** A command's output as SSM keeps it for GetCommandInvocation: the last 24,000 characters. */
const SSM_OUTPUT_LIMIT = 24_000;

export interface Sandbox {
  id: string;
  dir: string;
  instanceType: string;
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

export interface LocalCloudOptions {
  /** Folder of the sandboxes (one sub-folder per runner). */
  root: string;
  s3: S3Client;
  resultsBucket: string;
  /** The run-step document's runCommand lines, rendered (bucket names filled in). */
  runStepLines: string[];
  /** The host-neutral part of setup: shell lines run in each sandbox. */
  setupLines: string[];
  /** Replaces the AWS-only parts of a document line (IMDS, the AWS CLI's endpoint, /opt/s3ab) with this machine's. */
  localize: (line: string, sandbox: Sandbox) => string;
  /** Environment of every sandbox command (credentials of the embedded endpoint). */
  env: NodeJS.ProcessEnv;
  /** Inject a failure: a command of this document fails on its first runner. */
  failCommand?: 'setup' | 'run-step';
}

/** An SDK command's operation name (from its schema: the bundled functions' class names are minified). */
function operationOf(cmd: { constructor: { name: string }; schema?: unknown }): string {
  const schema = cmd.schema as unknown[] | undefined;
  return typeof schema?.[2] === 'string' ? schema[2] : cmd.constructor.name.replace(/Command$/, '');
}

type SdkCommand = { constructor: { name: string }; schema?: unknown; input: any };

class Named extends Error {
  constructor(name: string, message: string) { super(message); this.name = name; }
}

/** The local EC2, SSM and Athena of a rehearsal, with what a report of it needs counted. */
export class LocalCloud {
  readonly sandboxes = new Map<string, Sandbox>();
  readonly commands = new Map<string, CommandRecord>();
  private readonly launches = new Map<string, string[]>();
  private readonly queryPages = new Map<string, ReturnType<typeof athenaPages>>();
  private n = 0;
  /** Polls of a command's status (command-status invocations). */
  polls = 0;

  constructor(private readonly o: LocalCloudOptions) {
    mkdirSync(o.root, { recursive: true });
  }

  // --- EC2 ------------------------------------------------------------------------------------

  runInstances(p: { InstanceType: string; MinCount: number; ClientToken?: string; TagSpecifications: { Tags: { Key: string; Value: string }[] }[] }) {
    const known = p.ClientToken ? this.launches.get(p.ClientToken) : undefined;
    if (known) return { Instances: known.map((InstanceId) => ({ InstanceId })) };
    const tags = Object.fromEntries(p.TagSpecifications[0].Tags.map((t) => [t.Key, t.Value]));
    const ids: string[] = [];
    for (let i = 0; i < p.MinCount; i++) {
      const id = `i-${(++this.n).toString(16).padStart(17, '0')}`;
      const dir = join(this.o.root, id);
      mkdirSync(join(dir, 'tmp'), { recursive: true });
      this.sandboxes.set(id, { id, dir, instanceType: p.InstanceType, tags, state: 'running', launchedAt: Date.now() });
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
        if (inv?.child && inv.child.exitCode === null && inv.child.signalCode === null) {
          try {
            process.kill(-inv.child.pid!, 'SIGKILL');
          } catch {
            // already gone
          }
          inv.status = inv.status === 'InProgress' ? 'Cancelled' : inv.status;
        }
      }
    }
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
    let boxes = [...this.sandboxes.values()];
    if (p.InstanceIds?.length) {
      const missing = p.InstanceIds.filter((id) => !this.sandboxes.has(id));
      if (missing.length) throw new Named('InvalidInstanceID.NotFound', `The instance IDs '${missing.join(', ')}' do not exist`);
      boxes = boxes.filter((b) => p.InstanceIds!.includes(b.id));
    }
    for (const f of p.Filters ?? []) {
      if (f.Name.startsWith('tag:')) boxes = boxes.filter((b) => f.Values.includes(b.tags[f.Name.slice(4)]));
      if (f.Name === 'instance-state-name') boxes = boxes.filter((b) => f.Values.includes(b.state));
    }
    return { Reservations: [{ Instances: boxes.map((b) => ({ InstanceId: b.id, InstanceType: b.instanceType, State: { Name: b.state }, LaunchTime: new Date(b.launchedAt), Tags: Object.entries(b.tags).map(([Key, Value]) => ({ Key, Value })) })) }] };
  }

  /** The EC2 client a handler gets (only the calls the pipeline's handlers make). */
  ec2Client() {
    return {
      send: async (cmd: SdkCommand) => {
        if (operationOf(cmd) === 'DescribeInstances') return this.describeInstances(cmd.input);
        if (operationOf(cmd) === 'TerminateInstances') {
          this.terminate(cmd.input.InstanceIds);
          return { TerminatingInstances: cmd.input.InstanceIds.map((InstanceId: string) => ({ InstanceId })) };
        }
        throw new Error(`local EC2: ${operationOf(cmd)} is not part of the rehearsal`);
      },
    };
  }

  // --- SSM ------------------------------------------------------------------------------------

  /** SendCommand: the document's own lines, localized, with its {{ parameters }} filled in, run with bash in each sandbox. */
  sendCommand(document: 'setup' | 'run-step', instanceIds: string[], parameters: Record<string, string[]>) {
    const id = `cmd-${(++this.n).toString(16).padStart(8, '0')}`;
    const timeoutSeconds = Number(parameters.executionTimeout?.[0] ?? 3600);
    const record: CommandRecord = { id, document, parameters, invocations: new Map(), timeoutSeconds };
    this.commands.set(id, record);
    const lines = document === 'setup' ? this.o.setupLines : this.o.runStepLines;
    for (const [i, instanceId] of instanceIds.entries()) {
      const box = this.sandboxes.get(instanceId);
      if (!box || box.state !== 'running') throw new Named('Ssm.InvalidInstanceIdException', `instance ${instanceId} is not running`);
      let script = lines.map((l) => this.o.localize(l, box)).join('\n');
      for (const [k, v] of Object.entries(parameters)) script = script.replaceAll(`{{ ${k} }}`, v.join(','));
      if (this.o.failCommand === document && i === 0) script = `echo "s3ab rehearsal: injected failure in ${document}" >&2; exit 42\n${script}`;
      writeFileSync(join(box.dir, `${id}.sh`), script);
      const inv: Invocation = { instanceId, status: 'InProgress', output: '', child: null, startedAt: Date.now(), endedAt: null };
      // Its own process group, as the SSM agent runs it: terminating the sandbox kills the whole tree.
      // The runner's own environment: the document sets S3AB_HOME and TMPDIR itself.
      const env: NodeJS.ProcessEnv = { ...process.env, ...this.o.env, TMPDIR: join(box.dir, 'tmp') };
      delete env.S3AB_HOME;
      const child = spawn('bash', [join(box.dir, `${id}.sh`)], {
        cwd: box.dir, detached: true, env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const keep = (c: Buffer) => { inv.output = (inv.output + c.toString()).slice(-SSM_OUTPUT_LIMIT); };
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      const timer = setTimeout(() => { inv.status = 'TimedOut'; try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, timeoutSeconds * 1000);
      child.once('close', (code) => {
        clearTimeout(timer);
        inv.endedAt = Date.now();
        if (inv.status === 'InProgress') inv.status = code === 0 ? 'Success' : 'Failed';
      });
      inv.child = child;
      record.invocations.set(instanceId, inv);
    }
    return { Command: { CommandId: id } };
  }

  /** The SSM client the command-status handler gets: ListCommandInvocations and DescribeInstanceInformation. */
  ssmClient() {
    return {
      send: async (cmd: SdkCommand) => {
        if (operationOf(cmd) === 'ListCommandInvocations') {
          const record = this.commands.get(cmd.input.CommandId);
          if (!record) throw new Named('InvalidCommandId', `no command ${cmd.input.CommandId}`);
          return {
            CommandInvocations: [...record.invocations.values()].map((inv) => ({
              InstanceId: inv.instanceId, Status: inv.status, StatusDetails: inv.status,
              CommandPlugins: [{ Output: inv.output.slice(-2500) }],
            })),
          };
        }
        if (operationOf(cmd) === 'DescribeInstanceInformation') {
          const ids: string[] = cmd.input.Filters?.[0]?.Values ?? [];
          return { InstanceInformationList: ids.filter((i) => this.sandboxes.get(i)?.state === 'running').map((InstanceId) => ({ InstanceId, PingStatus: 'Online' })) };
        }
        throw new Error(`local SSM: ${operationOf(cmd)} is not part of the rehearsal`);
      },
    };
  }

  /** Processes of the rehearsal's commands still running (a clean end has none). */
  runningCommands(): number {
    let n = 0;
    for (const c of this.commands.values()) for (const inv of c.invocations.values()) if (inv.child && inv.child.exitCode === null && inv.child.signalCode === null) n++;
    return n;
  }

  // --- Athena ---------------------------------------------------------------------------------

  /** StartQueryExecution (.sync): the SQL on DuckDB over a copy of the results bucket's records. */
  async runQuery(sql: string): Promise<{ QueryExecution: { QueryExecutionId: string } }> {
    // Queries run side by side (the Aggregate Map): the id is taken before any await.
    const id = `qe-${++this.n}`;
    const local = join(this.o.root, 'athena', id);
    let token: string | undefined;
    do {
      const page = await this.o.s3.send(new ListObjectsV2Command({ Bucket: this.o.resultsBucket, Prefix: 'results/', ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        const path = join(local, o.Key!.slice('results/'.length));
        mkdirSync(join(path, '..'), { recursive: true });
        writeFileSync(path, await (await this.o.s3.send(new GetObjectCommand({ Bucket: this.o.resultsBucket, Key: o.Key! }))).Body!.transformToString());
      }
      token = page.NextContinuationToken;
    } while (token);
    mkdirSync(local, { recursive: true });
    const db = await openResults(local);
    try {
      this.queryPages.set(id, athenaPages(await athenaResultOf(db.connection, sql), 1000));
      return { QueryExecution: { QueryExecutionId: id } };
    } finally {
      db.close();
      rmSync(local, { recursive: true, force: true });
    }
  }

  getNamedQuery(id: string, names: Record<string, string>) {
    const name = names[id];
    const q = namedQueries().find((x) => x.name === name);
    if (!q) throw new Named('Athena.InvalidRequestException', `no named query ${id}`);
    return { NamedQuery: { QueryString: q.sql } };
  }

  /** The Athena client the report handler gets: GetQueryResults, paged. */
  athenaClient() {
    return {
      send: async (cmd: SdkCommand) => {
        if (operationOf(cmd) !== 'GetQueryResults') throw new Error(`local Athena: ${operationOf(cmd)} is not part of the rehearsal`);
        const pages = this.queryPages.get(cmd.input.QueryExecutionId);
        if (!pages) throw new Named('InvalidRequestException', `no query ${cmd.input.QueryExecutionId}`);
        return pages[cmd.input.NextToken ? Number(String(cmd.input.NextToken).replace('page-', '')) : 0];
      },
    };
  }
}
