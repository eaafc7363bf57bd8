import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RehearsalReport } from '../../scripts/rehearsal/rehearse';
import { ROOT, s3ab } from '../helpers/cli';
import { estimateFor } from '../../runner/aws/estimate';

/** A small matrix: two workloads, so layout "shard" gives each of two runners its own. */
const MATRIX = { name: 'rehearsal', repetitions: 1, methods: ['s3-api', 'aws-cli'], workloads: { 'small-reads': { files: 4, size: '64KiB' }, 'dir-walk': { objects: 20, size: '1KiB' } } };
/** Smaller still, one runner: for the rehearsals that prove a failure is caught. */
const ONE = { name: 'rehearsal-one', repetitions: 1, methods: ['s3-api'], workloads: { 'dir-walk': { objects: 10, size: '1KiB' } } };
const NOTHING_LEFT = { runnerProcesses: 0, mounts: 0, versions: 0, sandboxes: 0 };

/** `npm run rehearse` as a user runs it (its own process), its figures read from --json. */
function rehearse(args: string[], matrix: object | string = MATRIX, runners = 'c7g.large:2'): { code: number | null; out: string; report: RehearsalReport } {
  const dir = mkdtempSync(join(tmpdir(), 's3ab-rehearse-test-'));
  try {
    writeFileSync(join(dir, 'matrix.json'), JSON.stringify(matrix));
    // A matrix, or a profile by name.
    const source = typeof matrix === 'string' ? ['--profile', matrix] : ['--matrix', join(dir, 'matrix.json')];
    const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'scripts', 'rehearse.ts'), ...source, '--runners', runners, '--documents', '3', '--json', join(dir, 'r.json'), ...args],
      { cwd: ROOT, encoding: 'utf8', timeout: 280_000, env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } });
    return { code: r.status, out: `${r.stdout}${r.stderr}`, report: JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a rehearsal of a whole execution: the synthesized state machine, the real functions, runner sandboxes running the documents\' own lines, the template\'s IAM on every request', () => {
  test('two runners, one workload each: success, a report, every step\'s records, every request allowed, nothing of the run left behind; `s3ab aws pull` brings the run home and `s3ab report` reads it', async () => {
    const history = mkdtempSync(join(tmpdir(), 's3ab-rehearse-pulled-'));
    try {
      const { code, out, report: r } = rehearse(['--pull', history]);
      expect({ code, status: r.status, error: r.error }).toEqual({ code: 0, status: 'SUCCEEDED', error: null });
      expect(r.reportLocation).toMatch(/^s3:\/\/s3ab-rehearsal-results\/reports\/\d{8}T\d{6}Z-[0-9a-f]{6}\/report\.html$/);
      // One setup and one run-step command per runner, each ended by its runner's callback; each runner ran its own two steps.
      expect(r.commands.filter((c) => c.document === 'run-step').map((c) => [c.status, c.steps])).toEqual([['Success', 2], ['Success', 2]]);
      expect(r.commands.filter((c) => c.document === 'setup').map((c) => c.status)).toEqual(['Success', 'Success']);
      expect(r.callbacks).toMatchObject({ tasks: 4, successes: 4, failures: 0, heartbeatTimeouts: 0 });
      // Every state within a third of its timeout; the history within this shape's bound.
      for (const s of r.states) if (s.timeoutS) expect(s.longestMs / 1000).toBeLessThanOrEqual(s.timeoutS / 3);
      expect(r.historyEvents).toBeGreaterThan(100);
      expect(r.historyEvents).toBeLessThanOrEqual(r.historyBound);
      // The template's IAM judged every request (S3 from the server's log, the rest at the stand-ins).
      expect(r.iam.requests).toBeGreaterThan(r.s3.requests / 2);
      expect(r.iam.denials).toEqual([]);
      expect(r.s3.versionsCreated).toBeGreaterThan(0);
      expect(r.s3.versionsDeleted).toBeGreaterThanOrEqual(r.s3.versionsCreated);
      expect(r.leftovers).toEqual(NOTHING_LEFT);
      // The printed figures.
      expect(out).toMatch(/history events \(as Step Functions counts them\): \d+; this shape's bound \d+; an execution may have 25,000/);
      expect(out).toMatch(/callbacks: 4 tasks ended by their runners — 4 successes, 0 failures, \d+ heartbeats/);
      expect(out).toMatch(/IAM: \d+ requests evaluated against the template \(\d+ distinct evaluations by iam-simulate\), 0 denied/);
      expect(out).toMatch(/status: SUCCEEDED; report: s3:\/\//);
      // The user's pull: every step's records and both runners' manifests, in the local layout, read by the local report.
      expect({ code: r.pulled!.code, output: r.pulled!.output }).toEqual({ code: 0, output: expect.stringContaining(`run ${r.runId}: `) });
      const day = `${r.runId!.slice(0, 4)}-${r.runId!.slice(4, 6)}-${r.runId!.slice(6, 8)}`;
      expect(readdirSync(join(history, `dt=${day}`)).filter((f) => f.startsWith(`${r.runId}--s`) && f.endsWith('.jsonl'))).toHaveLength(4);
      expect(readdirSync(join(history, '_runs')).filter((f) => f.startsWith(r.runId!))).toHaveLength(2);
      const local = await s3ab(['report', '--results', history, '--run', r.runId!]);
      expect({ code: local.code, err: local.stderr }).toEqual({ code: 0, err: '' });
      expect(local.stdout).toContain(r.runId!);
    } finally {
      rmSync(history, { recursive: true, force: true });
    }
  }, 400_000);

  test('issue 26: a fleet of three sandboxes (scripts/rehearsal/fleet.json: clients 1 and 3) starts each fleet step together at the S3 barrier, every request allowed, nothing left; one runner 30 s late, every client still gets its whole budget', () => {
    // A budget shorter than the late runner's delay: the others wait at the barrier longer than it,
    // and their budget counts only from the barrier's release (a wait that counted would end them did-not-finish).
    const fleet = { ...JSON.parse(readFileSync(join(ROOT, 'scripts', 'rehearsal', 'fleet.json'), 'utf8')), budget_s: 20 };
    const { code, out, report: r } = rehearse(['--slow-runner', '30'], fleet, 'c7g.large:3');
    expect({ code, status: r.status, error: r.error }).toEqual({ code: 0, status: 'SUCCEEDED', error: null });
    // Runner 1 runs all four steps, runners 2 and 3 the two 3-client ones.
    expect(r.commands.filter((c) => c.document === 'run-step').map((c) => c.steps).sort()).toEqual([2, 2, 4]);
    // The late runner's command took its delay; the others waited for it at the barrier of their first step.
    const runSteps = r.commands.filter((c) => c.document === 'run-step');
    expect(Math.max(...runSteps.map((c) => c.ms))).toBeGreaterThan(30_000);
    // Each fleet step's pass: recorded by all three clients, from one start instant, their first measurements close (one host's clock), none cut short.
    expect(r.fleet.map((f) => [f.step, f.runners, f.clients, f.startInstants, f.clockSources, f.didNotFinish, f.failed]))
      .toEqual([[3, 3, 3, 1, ['one host'], 0, 0], [4, 3, 3, 1, ['one host'], 0, 0]]);
    for (const f of r.fleet) expect(f.spreadMs).toBeLessThan(1000);
    // The barrier's markers (PUT, listed, deleted in the results bucket) were judged with the rest; the fixtures and markers are gone.
    expect(r.iam.denials).toEqual([]);
    expect(r.leftovers).toEqual(NOTHING_LEFT);
    expect(out).toMatch(/fleet step 3 \(none\): 3 of 3 clients recorded, 1 common start instant\(s\), .*; 0 did-not-finish, 0 failed record\(s\)/);
  }, 300_000);

  test('one runner, a matrix that asks advice: the Report state answers it (the Advice section has data), and each step\'s figures come from the streamed access log', () => {
    const { code, out, report: r } = rehearse([], { ...ONE, methods: ['s3-api', 'aws-cli'], advice: { needs: [], priority: 'throughput' } }, 'c7g.large:1');
    expect({ code, status: r.status, error: r.error }).toEqual({ code: 0, status: 'SUCCEEDED', error: null });
    expect(r.reportSectionsWithoutData).not.toBeNull();
    expect(r.reportSectionsWithoutData).not.toContain('Advice');
    expect(out).toMatch(/^report sections without data: /m);
    // One runner: its steps' requests, placed from the server's log, read line by line.
    expect(r.measured!.steps.map((st) => st.method)).toEqual(['s3-api', 'aws-cli']);
    for (const st of r.measured!.steps) expect(Object.values(st.requests).reduce((n, k) => n + (k ?? 0), 0)).toBeGreaterThan(0);
  }, 300_000);

  test('a runner\'s command that fails mid-steps: its exit trap reports the failure, the execution fails naming it, exit 1, and still nothing is left behind', () => {
    const { code, report: r } = rehearse(['--fail', 'run-step']);
    expect(code).toBe(1);
    expect(r.status).toBe('FAILED');
    expect(r.error).toEqual({ name: 'CommandFailed', message: expect.stringMatching(/^run-step exited 42 on .* before it reported: (.|\n)*injected failure in run-step/) });
    expect(r.reportLocation).toBeNull();
    expect(r.leftovers).toEqual(NOTHING_LEFT);
  }, 300_000);

  test('issue 21 (8): a runner that dies mid-steps (no exit trap, no report) fails at its heartbeat timeout as RunnerLost and goes to Teardown', () => {
    const { code, report: r } = rehearse(['--fail', 'runner-dies', '--heartbeat', '1/15'], ONE, 'c7g.large:1');
    expect(code).toBe(1);
    expect(r.error).toEqual({ name: 'RunnerLost', message: expect.stringMatching(/^runner i-\w+ sent no heartbeat for 600 s during its steps: it stopped, hangs or lost its network$/) });
    expect(r.callbacks.heartbeatTimeouts).toBe(1);
    expect(r.states.find((s) => s.name === 'Teardown')!.count).toBeGreaterThanOrEqual(1);
    expect(r.leftovers).toEqual(NOTHING_LEFT);
  }, 300_000);

  test('issue 21 deliverable 2: with defect 1 put back (the runner\'s ListBucket on the results bucket taken out), the rehearsal fails naming s3:ListBucket and the results bucket', () => {
    const { code, out, report: r } = rehearse(['--drop-grant', 'RunnersRole:s3:ListBucket@s3ab-rehearsal-results'], ONE, 'c7g.large:1');
    expect(code).toBe(1);
    expect(r.status).toBe('FAILED');
    expect(r.iam.denials).toEqual([{ principal: 'RunnersRole', action: 's3:ListBucket', resource: 'arn:aws:s3:::s3ab-rehearsal-results', decision: 'ImplicitlyDenied', source: 'S3 access log', count: expect.any(Number) }]);
    expect(r.error).toEqual({ name: 'AccessDenied', message: expect.stringContaining('RunnersRole may not s3:ListBucket on arn:aws:s3:::s3ab-rehearsal-results (ImplicitlyDenied') });
    expect(out).toContain('DENIED RunnersRole s3:ListBucket on arn:aws:s3:::s3ab-rehearsal-results');
    expect(r.leftovers).toEqual(NOTHING_LEFT);
  }, 300_000);

  test('ZeroFS and ObjectiveFS in the matrix: the stack is rehearsed as deployed with an ObjectiveFS license, the runner\'s read of the license needs its grant, and with it the execution succeeds (both methods skipped here, not failed)', () => {
    const subjects = { name: 'rehearsal-subjects', repetitions: 1, methods: ['s3-api', { name: 'zerofs', optional: true }, { name: 'objectivefs', optional: true }], workloads: { 'dir-walk': { objects: 10, size: '1KiB' } } };
    const { code, out, report: r } = rehearse(['--drop-grant', 'RunnersRole:ssm:GetParameter'], subjects, 'c7g.large:1');
    expect(code).toBe(1);
    expect(r.iam.denials).toEqual([{
      principal: 'RunnersRole', action: 'ssm:GetParameter', resource: 'arn:aws:ssm:us-east-1:123456789012:parameter/s3ab-rehearsal/objectivefs-license',
      decision: 'ImplicitlyDenied', source: 'setup document (left out here)', count: 1,
    }]);
    expect(out).toContain('DENIED RunnersRole ssm:GetParameter');
    expect(r.leftovers).toEqual(NOTHING_LEFT);
    // With the grant, the execution succeeds: the two are skipped, not failed.
    const ok = rehearse([], subjects, 'c7g.large:1');
    expect([ok.code, ok.report.status, ok.report.iam.denials]).toEqual([0, 'SUCCEEDED', []]);
    expect(ok.report.leftovers).toEqual(NOTHING_LEFT);
  }, 600_000);

  describe('the account\'s capacity, checked by ValidateInput before anything is created (Service Quotas and EC2 stand-ins, their IAM enforced)', () => {
    const seedRunners = () => estimateFor({ profile: 'seed' }).runners.map((r) => `${r.instanceType}:${r.count}`).join(',');

    test('32 vCPUs of quota with 8 running: seed (`s3ab aws estimate seed`\'s 16 runners, 32 vCPUs) is refused naming the quota and the fix; nothing launched, every request allowed', () => {
      const { code, report: r } = rehearse(['--vcpu-quota', '32', '--running-vcpus', '8'], 'seed', seedRunners());
      expect(code).toBe(1);
      expect(r.status).toBe('FAILED');
      expect(r.error).toEqual({ name: 'InsufficientCapacity', message: expect.stringMatching(/Service Quotas ec2 L-1216C47A.* is 32 vCPUs and 8 are running: 24 free, and this execution's runners \(.*\) need 32 — request an increase to at least 40 vCPUs/) });
      // Refused in ValidateInput: no launch, no command, nothing of the run anywhere.
      expect(r.states.map((s) => s.name)).toEqual(['ValidateInput', 'InputRejected']);
      expect(r.commands).toEqual([]);
      expect(r.iam.denials).toEqual([]);
      expect(r.leftovers).toEqual(NOTHING_LEFT);
    }, 300_000);

    test('the quota read needs its grant: with servicequotas:GetServiceQuota taken from ValidateInput\'s role the rehearsal fails naming it', () => {
      const { code, out, report: r } = rehearse(['--drop-grant', 'PipelineValidateInputFn:servicequotas:GetServiceQuota'], ONE, 'c7g.large:1');
      expect(code).toBe(1);
      expect(r.iam.denials).toEqual([expect.objectContaining({ action: 'servicequotas:GetServiceQuota', resource: 'arn:aws:servicequotas:us-east-1:123456789012:ec2/L-1216C47A', decision: 'ImplicitlyDenied', source: 'Service Quotas stand-in' })]);
      expect(out).toContain('servicequotas:GetServiceQuota');
      expect(r.commands).toEqual([]);
    }, 300_000);

    test('c8gn.large not offered in the runner zones: the runner launches as c7gn.large, its documented equivalent, and the execution succeeds', () => {
      const { code, report: r } = rehearse(['--not-offered', 'c8gn.large'], ONE, 'c8gn.large:1');
      expect({ code, status: r.status, error: r.error }).toEqual({ code: 0, status: 'SUCCEEDED', error: null });
      expect(r.launched).toEqual(['c7gn.large']);
      expect(r.iam.denials).toEqual([]);
      expect(r.leftovers).toEqual(NOTHING_LEFT);
    }, 300_000);
  });

  test('the Report function reads each query\'s result file with its own role: with its s3:GetObject taken out, the rehearsal fails naming it and the result file', () => {
    const { code, out, report: r } = rehearse(['--drop-grant', 'PipelineReportFn:s3:GetObject'], ONE, 'c7g.large:1');
    expect(code).toBe(1);
    expect(r.status).toBe('FAILED');
    // The result files are read at once: each read is denied, and nothing else is.
    expect(r.iam.denials.length).toBeGreaterThan(0);
    for (const d of r.iam.denials) expect(d).toMatchObject({ principal: 'PipelineReportFnRole', action: 's3:GetObject', resource: expect.stringMatching(/^arn:aws:s3:::s3ab-rehearsal-results\/athena\/qe-\d+\.csv$/), source: 'S3 access log' });
    expect(out).toMatch(/DENIED PipelineReportFnRole s3:GetObject on arn:aws:s3:::s3ab-rehearsal-results\/athena\/qe-\d+\.csv/);
    expect(r.leftovers).toEqual(NOTHING_LEFT);
  }, 300_000);

  test('callbacks that cannot lie: the shard\'s first two SendTaskSuccess calls fail (every attempt of each) and the third goes through — the task ends as a success, never as "exited before it reported"', () => {
    const { code, out, report: r } = rehearse(['--fail', 'success-fails-twice'], ONE, 'c7g.large:1');
    expect({ code, status: r.status, error: r.error }).toEqual({ code: 0, status: 'SUCCEEDED', error: null });
    expect(r.callbacks).toMatchObject({ tasks: 2, successes: 2, failures: 0, successCallsFailed: 2 });
    expect(r.commands.find((c) => c.document === 'run-step')!.status).toBe('Success');
    expect(r.ending).toBeNull();
    expect(r.leftovers).toEqual(NOTHING_LEFT);
    expect(out).toMatch(/2 SendTaskSuccess calls failed on purpose/);
  }, 300_000);

  test('teardown on every ending: StopExecution while a shard runs skips the state machine\'s Teardown; the EventBridge rule on ABORTED runs it, and nothing of the run is left', () => {
    // A shard that runs for seconds (its 2,000 fixtures alone), so the stop lands while it runs
    // however fast this host is: the stand-in checks every 100 ms.
    const { code, out, report: r } = rehearse(['--fail', 'stop-execution'], { ...ONE, workloads: { 'dir-walk': { objects: 2000, size: '1KiB' } } }, 'c7g.large:1');
    expect(code).toBe(1);
    expect(r.error).toEqual({ name: 'ExecutionAborted', message: expect.stringMatching(/^StopExecution while run \S+'s shard was running, with objects under s3:\/\/s3ab-bench\/s3ab\//) });
    // The state machine's own Teardown never ran: the rule's did, finding the run in the execution's history.
    expect(r.states.find((s) => s.name === 'Teardown')).toBeUndefined();
    expect(r.ending).toEqual({ status: 'ABORTED', invoked: [{ rule: expect.stringMatching(/^TeardownOnFailure/), function: 'teardown', error: null, result: expect.objectContaining({ done: true, terminated: [expect.stringMatching(/^i-/)] }) }] });
    expect((r.ending!.invoked[0].result as { deletedVersions: number }).deletedVersions).toBeGreaterThan(0);
    expect(r.iam.denials).toEqual([]);
    expect(r.leftovers).toEqual(NOTHING_LEFT);
    expect(out).toMatch(/ended ABORTED: EventBridge invoked teardown/);
  }, 300_000);
});
