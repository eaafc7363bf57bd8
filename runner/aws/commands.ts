import { AthenaClient, BatchGetNamedQueryCommand, GetQueryExecutionCommand, ListNamedQueriesCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeExecutionCommand, GetExecutionHistoryCommand, ListExecutionsCommand, SFNClient, StartExecutionCommand, type HistoryEvent } from '@aws-sdk/client-sfn';
import Table from 'cli-table3';
import { UserError, errorSummary } from '../core/errors';
import { expandSteps } from '../core/matrix';
import { formatDuration } from '../core/units';
import { athenaRows, missingModelQueries, modelRowsFromAthena, reportModelFromAthena, type ExecutionFacts } from '../report/athena';
import { queryForRun } from '../report/run-query';
import { checkedRunId, printQueryTable, type QueryTable } from '../report/named-query';
import { namedQuery as namedQueryFile } from '../report/results-db';
import { matrixFor, rawMatrixFor } from '../catalog';
import { estimateFor, runnersLine } from './estimate';
import { CapacityUnknown, capacityClients, checkCapacity, type CapacityClients } from './capacity';
import { isRefusal } from '../plan/capacity';
import { summaryLines } from '../report/text/summary';

export interface AwsClients { cfn: CloudFormationClient; sfn: SFNClient; athena: AthenaClient; capacity: CapacityClients }
export type Out = (line: string) => void;

export function defaultClients(region?: string): AwsClients {
  const config = { region, maxAttempts: 5 };
  return { cfn: new CloudFormationClient(config), sfn: new SFNClient(config), athena: new AthenaClient(config), capacity: capacityClients(region) };
}

/** Turns SDK errors a user can fix (no credentials, no stack, no permission) into UserErrors. */
export function explainAws(err: unknown, stack: string): unknown {
  if (err instanceof UserError) return err;
  const e = err as { name?: string; message?: string };
  if (e?.name === 'CredentialsProviderError' || /Could not load credentials|Unable to locate credentials/i.test(e?.message ?? '')) {
    return new UserError('no AWS credentials found', 'configure them (aws configure, AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) and set the region (AWS_REGION or --region)');
  }
  if (e?.name === 'ValidationError' && /does not exist/.test(e.message ?? '')) {
    return new UserError(`stack "${stack}" does not exist in this account and region`, 'deploy it with `npx cdk deploy`, or name it with --stack NAME and the region with --region');
  }
  if (/AccessDenied|UnauthorizedOperation|ExpiredToken/.test(e?.name ?? '')) {
    return new UserError(`AWS refused the request: ${errorSummary(err)}`, 'use credentials allowed to read the stack, the EC2 vCPU quota, instances and instance type offerings, start executions and run Athena queries');
  }
  if (/Region is missing/i.test(e?.message ?? '')) {
    return new UserError('no AWS region set', 'give --region REGION or set AWS_REGION (or a region in the AWS profile)');
  }
  if (/Region not accepted/i.test(e?.message ?? '')) {
    return new UserError(`the AWS region is not a region name: ${errorSummary(err)}`, 'give --region REGION (e.g. us-east-1) or set AWS_REGION to one');
  }
  // No answer from the service: the network, the region's name, or an endpoint override (AWS_ENDPOINT_URL*).
  const code = (err as { code?: string })?.code ?? '';
  if (/^(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)$/.test(code) || e?.name === 'TimeoutError') {
    return new UserError(`cannot reach AWS: ${errorSummary(err)}`, 'check the network connection and the region (--region or AWS_REGION); an AWS_ENDPOINT_URL* override must name a running endpoint');
  }
  return err;
}

export async function stackOutputs(c: Pick<AwsClients, 'cfn'>, stack: string): Promise<Record<string, string>> {
  try {
    const res = await c.cfn.send(new DescribeStacksCommand({ StackName: stack }));
    const outputs = Object.fromEntries((res.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey!, o.OutputValue!]));
    if (!outputs.StateMachineArn) throw new UserError(`stack "${stack}" has no StateMachineArn output`, 'redeploy it from this version with `npx cdk deploy`');
    return outputs;
  } catch (err) {
    throw explainAws(err, stack);
  }
}

async function waitForQuery(c: AwsClients, id: string, sleep: (ms: number) => Promise<void>): Promise<void> {
  for (;;) {
    const q = await c.athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
    const state = q.QueryExecution?.Status?.State;
    if (state === 'SUCCEEDED') return;
    if (state === 'FAILED' || state === 'CANCELLED') throw new Error(`query ${id} ${state}: ${q.QueryExecution?.Status?.StateChangeReason ?? ''}`);
    await sleep(1000);
  }
}

/** Every row of a query's result as text cells ('–' for NULL), with its column names (runner/report/athena.ts reads the pages). */
async function queryRows(c: AwsClients, id: string): Promise<QueryTable> {
  const { columns, rows } = await athenaRows(c.athena, id);
  return { columns, rows: rows.map((r) => columns.map((k) => r[k] ?? '–')) };
}

export interface RunArgs { stack: string; profile?: string; matrix?: string; runners?: { instanceType: string; count: number }[]; pollMs?: number }

/**
 * `s3ab aws run`: validates the matrix here (same validator as the state machine), plans its
 * runners with the measured model (the runners asked for, or the model's own plan, as `s3ab aws
 * estimate` prints it), starts an execution, follows it (state changes), and prints the Athena
 * summary when it succeeds; a failed execution prints its error and cause and exits 1.
 */
export async function awsRun(c: AwsClients, a: RunArgs, out: Out, sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))): Promise<number> {
  const source = { profile: a.profile, matrixFile: a.matrix };
  const resolved = matrixFor(source);
  let plan = estimateFor({ ...source, runners: a.runners });
  const outputs = await stackOutputs(c, a.stack);
  // Before anything is created: the account's vCPU quota less what runs, and the types' offerings in the stack's zones.
  const capacity = await capacityFor(c, a.stack, outputs, plan.runners);
  for (const note of capacity.notes) out(note);
  if (capacity.fallbacks.length) plan = estimateFor({ ...source, runners: capacity.runners });
  out(`capacity: the runners take ${capacity.vcpus.needed} of the ${capacity.vcpus.quota - capacity.vcpus.running} On-Demand Standard vCPUs free (quota ${capacity.vcpus.quota}, ${capacity.vcpus.running} running)`);
  const input = { matrix: rawMatrixFor(source), runners: plan.runners };
  const started = await c.sfn.send(new StartExecutionCommand({ stateMachineArn: outputs.StateMachineArn, input: JSON.stringify(input) }));
  out(`started ${started.executionArn}`);
  out(`  matrix ${resolved.name}, ${expandSteps(resolved).length} steps on ${runnersLine(plan)}: about ${Math.round(plan.wallSeconds / 60)} min and $${plan.executionDollars.toFixed(2)} of its own, modelled`);
  const progress = new ExecutionProgress(c, started.executionArn!);
  const t0 = Date.now();
  for (;;) {
    const ex = await c.sfn.send(new DescribeExecutionCommand({ executionArn: started.executionArn }));
    const line = await progress.poll().catch(() => null);
    if (line) out(`[${formatDuration(Date.now() - t0)}] ${line}`);
    if (ex.status === 'RUNNING') { await sleep(a.pollMs ?? 10_000); continue; }
    out(`execution ${ex.status}`);
    if (ex.status !== 'SUCCEEDED') {
      out(`execution ${ex.status}: ${ex.error ?? 'no error'}: ${ex.cause ?? 'no cause'}`);
      return 1;
    }
    const result = JSON.parse(ex.output ?? '{}') as { report?: { value?: { reportLocation?: string } }; aggregate?: { name: string; queryExecutionId: string }[] };
    await printRunSummary(c, result.aggregate ?? [], { runId: runIdOf(ex.output), matrix: resolved.name, steps: expandSteps(resolved).length, startedAt: new Date(t0).toISOString(), advice: resolved.advice }, out);
    out(`report: ${result.report?.value?.reportLocation ?? '(none)'}`);
    return 0;
  }
}

/** The capacity check of `s3ab aws run` (runner/aws/capacity.ts): the decision, or a UserError naming the figure and the fix. */
async function capacityFor(c: AwsClients, stack: string, outputs: Record<string, string>, runners: { instanceType: string; count: number }[]) {
  const zones = (outputs.RunnerAvailabilityZones ?? '').split(',').filter(Boolean);
  if (!zones.length) throw new UserError(`stack "${stack}" has no RunnerAvailabilityZones output`, 'redeploy it from this version with `npx cdk deploy`');
  let decision;
  try {
    decision = await checkCapacity(c.capacity, runners, zones, 20_000);
  } catch (err) {
    if (err instanceof CapacityUnknown) throw new UserError(err.message, 'try again; `aws service-quotas get-service-quota --service-code ec2 --quota-code L-1216C47A` checks the first of them');
    throw explainAws(err, stack);
  }
  if (isRefusal(decision)) throw new UserError(decision.problem, decision.fix);
  return decision;
}

/** The run id of an execution's output (`run.value.runId`), or a placeholder where it has none. */
function runIdOf(output: string | undefined): string {
  const parsed = JSON.parse(output ?? '{}') as { run?: { value?: { runId?: string } } };
  return parsed.run?.value?.runId ?? 'unknown';
}

/**
 * The closing summary of an execution: the report model built from the Aggregate queries' rows
 * (the same SQL and builder as the local summary and the report Lambda's summary.txt), printed as
 * the same text summary.
 */
async function printRunSummary(c: AwsClients, aggregate: { name: string; queryExecutionId: string }[], execution: ExecutionFacts & { runId: string }, out: Out): Promise<void> {
  const missing = missingModelQueries(aggregate);
  if (missing.length) {
    out(`(no summary: the execution's Aggregate output lacks ${missing.join(', ')}; redeploy the stack from this version)`);
    return;
  }
  const model = reportModelFromAthena({
    runId: execution.runId, rows: await modelRowsFromAthena((id) => athenaRows(c.athena, id), aggregate), source: 'Athena (the execution\'s Aggregate queries)',
    execution, generatedAt: new Date().toISOString(),
  });
  for (const line of summaryLines(model)) out(line);
}

/** The Map state that runs the matrix's benchmark steps, one iteration per runner's share (lib/pipeline/benchmark.ts). */
const STEPS_MAP = 'RunBenchmarkShards';

/**
 * Follows an execution's history page by page (only new events on each poll) and describes where
 * it is: the state it last entered and, inside the benchmark steps, how many runners have
 * finished their share.
 */
export class ExecutionProgress {
  private nextToken: string | undefined;
  private state = '';
  private inSteps = false;
  private stepsTotal: number | null = null;
  private stepsDone = 0;
  private stepsFailed = 0;
  private last = '';
  /** The newest event applied: a page read again (the last page has no nextToken, so a poll starts over from the token before it) is not counted twice. */
  private lastEventId = 0;
  /** States already reported: a poll loop's Wait and check states are named once, not on every lap. */
  private readonly reported = new Set<string>();

  constructor(private readonly c: AwsClients, private readonly executionArn: string) {}

  /** Reads the new events; returns a progress line when there is news since the last call, else null. */
  async poll(): Promise<string | null> {
    for (;;) {
      const page = await this.c.sfn.send(new GetExecutionHistoryCommand({ executionArn: this.executionArn, nextToken: this.nextToken, maxResults: 1000 }));
      for (const e of page.events ?? []) {
        if (e.id !== undefined && e.id <= this.lastEventId) continue;
        this.apply(e);
        if (e.id !== undefined) this.lastEventId = e.id;
      }
      // Keep the last token: the next poll continues after the events already read.
      if (!page.nextToken) break;
      this.nextToken = page.nextToken;
    }
    const line = this.describe();
    if (line === this.last || (!this.inSteps && this.reported.has(this.state))) return null;
    this.last = line;
    this.reported.add(this.state);
    return line;
  }

  private apply(e: HistoryEvent): void {
    // Inside the steps Map the iteration's own states (send, wait, check) are not news: the step count is.
    if (e.stateEnteredEventDetails?.name && !this.inSteps) this.state = e.stateEnteredEventDetails.name;
    if (e.type === 'MapStateStarted' && this.state === STEPS_MAP) {
      this.inSteps = true;
      this.stepsTotal = e.mapStateStartedEventDetails?.length ?? null;
    }
    if (e.stateExitedEventDetails?.name === STEPS_MAP) this.inSteps = false;
    if (e.mapIterationSucceededEventDetails?.name === STEPS_MAP) this.stepsDone++;
    if (e.mapIterationFailedEventDetails?.name === STEPS_MAP) this.stepsFailed++;
  }

  private describe(): string {
    if (!this.state) return 'starting';
    if (!this.inSteps || this.stepsTotal === null) return `state ${this.state}`;
    return `state ${STEPS_MAP} — ${this.stepsDone} of ${this.stepsTotal} runner${this.stepsTotal > 1 ? 's' : ''} finished their steps${this.stepsFailed ? `, ${this.stepsFailed} failed` : ''}`;
  }
}

/**
 * `s3ab report --query NAME --stack STACK` (and `s3ab aws query NAME`): a query named as locally
 * (assets/queries/{model,adhoc}/NAME.sql; an unknown name is refused before any AWS call, listing
 * the names), run from the stack's named query of that name in its workgroup — over every run, or
 * one run restricted as the pipeline restricts it — and printed as `s3ab report --query` prints
 * it locally.
 */
export async function awsQuery(c: AwsClients, stack: string, name: string, out: Out,
  sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)), runId?: string): Promise<number> {
  namedQueryFile(name);
  const run = checkedRunId(runId);
  const outputs = await stackOutputs(c, stack);
  const q = await namedQuery(c, outputs.AthenaWorkGroup, name);
  const sql = run ? queryForRun(q.QueryString!, run, { database: q.Database }) : q.QueryString!;
  const started = await c.athena.send(new StartQueryExecutionCommand({ QueryString: sql, WorkGroup: outputs.AthenaWorkGroup, QueryExecutionContext: { Database: q.Database } }));
  await waitForQuery(c, started.QueryExecutionId!, sleep);
  printQueryTable(run ? `${name}, run ${run}` : name, await queryRows(c, started.QueryExecutionId!), out);
  return 0;
}

/** The named query of the workgroup with this name (a UserError when the deployed stack lacks it). */
async function namedQuery(c: AwsClients, workGroup: string, name: string): Promise<{ QueryString?: string; Database?: string }> {
  const ids: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await c.athena.send(new ListNamedQueriesCommand({ WorkGroup: workGroup, NextToken: nextToken, MaxResults: 50 }));
    ids.push(...(page.NamedQueryIds ?? []));
    nextToken = page.NextToken;
  } while (nextToken);
  const queries: { Name?: string; QueryString?: string; Database?: string }[] = [];
  // BatchGetNamedQuery takes at most 50 ids.
  for (let i = 0; i < ids.length; i += 50) {
    queries.push(...((await c.athena.send(new BatchGetNamedQueryCommand({ NamedQueryIds: ids.slice(i, i + 50) }))).NamedQueries ?? []));
  }
  const q = queries.find((x) => x.Name === name);
  if (!q) throw new UserError(`the stack's workgroup ${workGroup} has no named query "${name}" (it has: ${queries.map((x) => x.Name).sort().join(', ') || 'none'})`, 'redeploy the stack from this version with `npx cdk deploy`');
  return q;
}

/** How long after a run's start S3 server access logs are taken as complete: its longest execution (12 h) and a day of delivery. */
const ACCESS_LOG_SETTLE_MS = 36 * 3600_000;

/**
 * `s3ab aws query requests [--run ID]`: the S3 requests of each step, from the data bucket's
 * server access logs (named query request_attribution). Logs arrive minutes to hours after the
 * requests: it says how many steps have logs so far, and calls the counts final only once the
 * run is old enough for every log to have been delivered.
 */
export async function awsQueryRequests(c: AwsClients, stack: string, runId: string | undefined, out: Out,
  sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)), now = () => Date.now()): Promise<number> {
  checkedRunId(runId);
  const outputs = await stackOutputs(c, stack);
  const q = await namedQuery(c, outputs.AthenaWorkGroup, 'request_attribution');
  const sql = runId ? queryForRun(q.QueryString!, runId, { database: q.Database }) : q.QueryString!;
  const started = await c.athena.send(new StartQueryExecutionCommand({ QueryString: sql, WorkGroup: outputs.AthenaWorkGroup, QueryExecutionContext: { Database: q.Database } }));
  await waitForQuery(c, started.QueryExecutionId!, sleep);
  const { columns: cols, rows } = await queryRows(c, started.QueryExecutionId!);
  const at = (name: string) => cols.indexOf(name);
  const runs = [...new Set(rows.map((r) => r[at('run_id')]))];
  if (!rows.length) {
    out(runId ? `no steps of run ${runId} in the results table and no access-log entries for it` : 'no runs in the results table');
    return runId ? 1 : 0;
  }
  const table = new Table({ head: cols, style: { head: [], border: [] } });
  for (const r of rows) table.push(r);
  out(`requests per step, from S3 server access logs (${rows.length} rows)`);
  out(table.toString());
  for (const run of runs) {
    const mine = rows.filter((r) => r[at('run_id')] === run && r[at('step')] !== '–');
    const logged = mine.filter((r) => Number(r[at('logged')]) > 0).length;
    const startedAt = runStartMs(run);
    const settled = startedAt !== null && now() - startedAt >= ACCESS_LOG_SETTLE_MS;
    out(`run ${run}: ${logged} of ${mine.length} steps have access-log entries so far; ${settled
      ? 'final (every log has had time to arrive)'
      : `NOT FINAL: S3 delivers server access logs minutes to hours after the requests; counts are final ${ACCESS_LOG_SETTLE_MS / 3600_000} h after the run started`}`);
  }
  return 0;
}

/** A run id's start time (RUNIDs begin with it: 20261122T101500Z-…), or null. */
function runStartMs(runId: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(runId);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : null;
}

/** `s3ab aws status`: the stack's resources and its latest executions. */
export async function awsStatus(c: AwsClients, stack: string, out: Out): Promise<number> {
  const outputs = await stackOutputs(c, stack);
  const width = Math.max(0, ...Object.keys(outputs).map((k) => k.length));
  for (const [k, v] of Object.entries(outputs).sort()) out(`${k.padEnd(width)} ${v}`);
  const list = await c.sfn.send(new ListExecutionsCommand({ stateMachineArn: outputs.StateMachineArn, maxResults: 5 }));
  out('latest executions:');
  for (const e of list.executions ?? []) out(`  ${e.startDate?.toISOString() ?? ''}  ${e.status}  ${e.name}`);
  if (!list.executions?.length) out('  (none)');
  return 0;
}
