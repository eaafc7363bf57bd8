import { AthenaClient, BatchGetNamedQueryCommand, GetQueryExecutionCommand, GetQueryResultsCommand, ListNamedQueriesCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeExecutionCommand, ListExecutionsCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import Table from 'cli-table3';
import { UserError, errorSummary } from '../core/errors';
import { loadMatrixFile, loadProfile, resolveMatrix } from '../core/matrix';

export interface AwsClients { cfn: CloudFormationClient; sfn: SFNClient; athena: AthenaClient }
export type Out = (line: string) => void;

export function defaultClients(region?: string): AwsClients {
  const config = { region, maxAttempts: 5 };
  return { cfn: new CloudFormationClient(config), sfn: new SFNClient(config), athena: new AthenaClient(config) };
}

/** Turns SDK errors a user can fix (no credentials, no stack, no permission) into UserErrors. */
export function explainAws(err: unknown, stack: string): unknown {
  const e = err as { name?: string; message?: string };
  if (e?.name === 'CredentialsProviderError' || /Could not load credentials|Unable to locate credentials/i.test(e?.message ?? '')) {
    return new UserError('no AWS credentials found', 'configure them (aws configure, AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) and set the region (AWS_REGION or --region)');
  }
  if (e?.name === 'ValidationError' && /does not exist/.test(e.message ?? '')) {
    return new UserError(`stack "${stack}" does not exist in this account and region`, 'deploy it with `npx cdk deploy`, or name it with --stack NAME and the region with --region');
  }
  if (/AccessDenied|UnauthorizedOperation|ExpiredToken/.test(e?.name ?? '')) {
    return new UserError(`AWS refused the request: ${errorSummary(err)}`, 'use credentials allowed to read the stack, start executions and run Athena queries');
  }
  return err;
}

export async function stackOutputs(c: AwsClients, stack: string): Promise<Record<string, string>> {
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

export async function printQueryResults(c: AwsClients, id: string, title: string, out: Out): Promise<number> {
  const res = await c.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id }));
  const cols = (res.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((x) => x.Name!);
  const rows = (res.ResultSet?.Rows ?? []).slice(1).map((r) => (r.Data ?? []).map((d) => d.VarCharValue ?? '–'));
  out(`${title} (${rows.length} rows)`);
  const table = new Table({ head: cols, style: { head: [], border: [] } });
  for (const r of rows) table.push(r);
  out(table.toString());
  return rows.length;
}

export interface RunArgs { stack: string; profile?: string; matrix?: string; runners?: { instanceType: string; count: number }[]; pollMs?: number }

/**
 * `s3ab aws run`: validates the matrix here (same validator as the state machine), starts an
 * execution, follows it (state changes), and prints the Athena summary when it succeeds; a failed
 * execution prints its error and cause and exits 1.
 */
export async function awsRun(c: AwsClients, a: RunArgs, out: Out, sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))): Promise<number> {
  if (a.profile && a.matrix) throw new UserError('--profile and --matrix were both given', 'use one of them');
  const raw = a.matrix ? loadMatrixFile(a.matrix) : loadProfile(a.profile ?? 'quick');
  const resolved = resolveMatrix(raw, a.matrix ?? `profile ${a.profile ?? 'quick'}`);
  const outputs = await stackOutputs(c, a.stack);
  const input = { matrix: raw, ...(a.runners ? { runners: a.runners } : {}) };
  const started = await c.sfn.send(new StartExecutionCommand({ stateMachineArn: outputs.StateMachineArn, input: JSON.stringify(input) }));
  out(`started ${started.executionArn} (matrix ${resolved.name})`);
  let last = '';
  for (;;) {
    const ex = await c.sfn.send(new DescribeExecutionCommand({ executionArn: started.executionArn }));
    const line = `${ex.status}${ex.redriveStatus ? '' : ''}`;
    if (line !== last) out(`execution ${line}`);
    last = line;
    if (ex.status === 'RUNNING') { await sleep(a.pollMs ?? 10_000); continue; }
    if (ex.status !== 'SUCCEEDED') {
      out(`execution ${ex.status}: ${ex.error ?? 'no error'}: ${ex.cause ?? 'no cause'}`);
      return 1;
    }
    const result = JSON.parse(ex.output ?? '{}') as { report?: { value?: { reportLocation?: string } }; aggregate?: { name: string; queryExecutionId: string }[] };
    for (const q of result.aggregate ?? []) await printQueryResults(c, q.queryExecutionId, q.name, out);
    out(`report: ${result.report?.value?.reportLocation ?? '(none)'}`);
    return 0;
  }
}

/** `s3ab aws query NAME`: runs a named query in the stack's workgroup and prints the table. */
export async function awsQuery(c: AwsClients, stack: string, name: string, out: Out, sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))): Promise<number> {
  const outputs = await stackOutputs(c, stack);
  const ids = (await c.athena.send(new ListNamedQueriesCommand({ WorkGroup: outputs.AthenaWorkGroup }))).NamedQueryIds ?? [];
  const queries = ids.length ? (await c.athena.send(new BatchGetNamedQueryCommand({ NamedQueryIds: ids }))).NamedQueries ?? [] : [];
  const q = queries.find((x) => x.Name === name);
  if (!q) throw new UserError(`no named query "${name}" in workgroup ${outputs.AthenaWorkGroup}`, `use one of: ${queries.map((x) => x.Name).sort().join(', ') || '(none)'}`);
  const started = await c.athena.send(new StartQueryExecutionCommand({ QueryString: q.QueryString, WorkGroup: outputs.AthenaWorkGroup, QueryExecutionContext: { Database: q.Database } }));
  await waitForQuery(c, started.QueryExecutionId!, sleep);
  await printQueryResults(c, started.QueryExecutionId!, name, out);
  return 0;
}

/** `s3ab aws status`: the stack's resources and its latest executions. */
export async function awsStatus(c: AwsClients, stack: string, out: Out): Promise<number> {
  const outputs = await stackOutputs(c, stack);
  for (const [k, v] of Object.entries(outputs).sort()) out(`${k.padEnd(22)} ${v}`);
  const list = await c.sfn.send(new ListExecutionsCommand({ stateMachineArn: outputs.StateMachineArn, maxResults: 5 }));
  out('latest executions:');
  for (const e of list.executions ?? []) out(`  ${e.startDate?.toISOString() ?? ''}  ${e.status}  ${e.name}`);
  if (!list.executions?.length) out('  (none)');
  return 0;
}
