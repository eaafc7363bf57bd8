import { CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupAll } from '../../runner/core/cleanup';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { recordErrors } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';
import { namedQueries, openResults, query } from '../../runner/report/results-db';
import { S3AB, s3ab } from '../helpers/cli';
import { LocalStepFunctions } from '../../scripts/rehearsal/step-functions';
import { synthesize } from '../../scripts/rehearsal/synthesize';
import { resourcesOf } from '../helpers/stack';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const RESULTS = 's3ab-results';
const RUN = '20261122T101500Z-c0ffee';

/** The run-step document's `s3ab step` line, as synthesized, with the stack's bucket names filled in. */
function runStepLine(names: Record<string, string>): string {
  const s = synthesize();
  const [, doc] = resourcesOf(s, 'AWS::SSM::Document').find(([id]) => id.includes('RunStep'))!;
  const lines = doc.Content.mainSteps[0].inputs.runCommand as unknown[];
  const render = (x: any): string => {
    if (typeof x === 'string') return x;
    if (x.Ref) return names[Object.keys(names).find((k) => x.Ref.startsWith(k))!];
    if (x['Fn::GetAtt']) return names[Object.keys(names).find((k) => x['Fn::GetAtt'][0].startsWith(k))!];
    if (x['Fn::Join']) return x['Fn::Join'][1].map(render).join(x['Fn::Join'][0]);
    throw new Error(`cannot render ${JSON.stringify(x)}`);
  };
  return lines.map(render).find((l) => l.includes('s3ab.js step'))!;
}

describe('step-runner contract: the runner invoked as the SSM run-step document invokes it', () => {
  let server: EmbeddedEndpoint;
  let client: S3Client;
  const dir = mkdtempSync(join(tmpdir(), 's3ab-contract-'));
  let line = '';

  beforeAll(async () => {
    server = await startEmbeddedEndpoint();
    client = makeS3Client(server.target, { maxSockets: 4 });
    await client.send(new CreateBucketCommand({ Bucket: RESULTS }));
    line = runStepLine({ DataBucket: server.target.bucket, ResultsBucket: RESULTS, DataFileSystem: 'fs-0123456789abcdef0' });
    writeFileSync(join(dir, `matrix-${RUN}.json`), JSON.stringify({
      name: 'contract', repetitions: 1, methods: ['s3-api'], workloads: { 'small-reads': { files: 8, size: '256KiB' }, 'dir-walk': { objects: 20, size: '1KiB' } },
    }));
  }, 60_000);
  afterAll(async () => {
    client?.destroy();
    await server?.stop();
    await cleanupAll();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the document's line with {{ parameters }} filled in; local paths and the endpoints are the only changes (no TASK_TOKEN_FILE: no callback). */
  function invoke(steps: string, runnerId: string, env: NodeJS.ProcessEnv = {}, fleet = { client: '0', run: RUN }): Promise<{ status: number | null; stdout: string; stderr: string }> {
    const run = fleet.run;
    const cmd = line
      .replaceAll('{{ runId }}', run).replaceAll('{{ steps }}', steps).replaceAll('{{ heartbeatSeconds }}', '1').replaceAll('{{ fleetClient }}', fleet.client)
      .replace(`/opt/s3ab/reported-${run}`, join(dir, `reported-${runnerId}`))
      .replace(`/opt/s3ab/success-${run}.json`, join(dir, `success-${runnerId}.json`))
      .replace('"$(cat /opt/s3ab/node)"', JSON.stringify(process.execPath))
      .replace('/opt/s3ab/dist/s3ab.js', S3AB)
      .replace(`/opt/s3ab/matrix-${run}.json`, join(dir, `matrix-${run}.json`))
      + ` --endpoint ${server.target.endpointUrl}`;
    const child = spawn('bash', ['-c', cmd], {
      env: {
        ...process.env, TASK_TOKEN_FILE: '', S3AB_RUNNER_ID: runnerId, S3AB_REGION: 'us-east-1', S3AB_INSTANCE_TYPE: 'c7g.large', S3AB_AZ: 'us-east-1a',
        AWS_ACCESS_KEY_ID: server.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: server.target.credentials!.secretAccessKey, AWS_REGION: 'us-east-1',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr })));
  }

  const keys = async (prefix: string) => ((await client.send(new ListObjectsV2Command({ Bucket: RESULTS, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);

  test('the synthesized line runs `s3ab step` with the execution\'s run id, steps, runner and buckets', () => {
    expect(line).toMatch(/s3ab\.js step --matrix \/opt\/s3ab\/matrix-\{\{ runId \}\}\.json --steps \{\{ steps \}\} --run-id \{\{ runId \}\} --runner-id "\$S3AB_RUNNER_ID" --bucket s3ab-bench --region "\$S3AB_REGION" --results s3:\/\/s3ab-results\/results --fleet-client \{\{ fleetClient \}\} --fleet-barrier s3:\/\/s3ab-results\/fleet-barrier --task-token-file "\$TASK_TOKEN_FILE" --heartbeat-seconds \{\{ heartbeatSeconds \}\} --reported-file \/opt\/s3ab\/reported-\{\{ runId \}\} --success-file \/opt\/s3ab\/success-\{\{ runId \}\}\.json$/);
  });

  test('issue 26: a fleet of two runners (clients [1, 2]): client 1 writes the shared fixture, both start step 2 at one instant from the S3 barrier, nothing is left', async () => {
    const run = '20261122T111500Z-f1ee70';
    writeFileSync(join(dir, `matrix-${run}.json`), JSON.stringify({ name: 'contract-fleet', repetitions: 1, clients: [1, 2], methods: ['s3-api'], workloads: { 'small-reads': { files: 8, size: '256KiB' } } }));
    // Both on this host: one clock, said so (never taken for chrony's).
    const oneHost = { S3AB_FLEET_CLOCK: 'one-host' };
    const [a, b] = await Promise.all([invoke('1,2', 'i-0f01', oneHost, { client: '1', run }), invoke('2', 'i-0f02', oneHost, { client: '2', run })]);
    for (const r of [a, b]) expect({ code: r.status, err: r.stderr.slice(-800) }).toEqual({ code: 0, err: expect.any(String) });
    const records: ResultRecord[] = [];
    for (const key of (await keys(`results/dt=2026-11-22/${run}--s002`))) {
      const body = await (await client.send(new GetObjectCommand({ Bucket: RESULTS, Key: key }))).Body!.transformToString();
      records.push(...body.trim().split('\n').map((l) => JSON.parse(l)));
    }
    const reads = records.filter((r) => r.operation === 'read');
    expect(reads.map((r) => [r.host.runner_id, r.clients, r.fleet?.client, r.fleet?.barrier, r.fleet?.clock_source, r.fleet?.clock_offset_ms, r.verified]).sort()).toEqual([
      ['i-0f01', 2, 1, 's3', 'one host', null, true], ['i-0f02', 2, 2, 's3', 'one host', null, true],
    ]);
    // One start instant for both, from the markers' S3 time stamps; their measurements began within half a second of it (one clock, a busy host).
    expect(new Set(reads.map((r) => r.fleet!.start_at)).size).toBe(1);
    for (const r of reads) expect(Math.abs(Date.parse(r.started_at) - Date.parse(r.fleet!.start_at))).toBeLessThan(500);
    // Both read the one fixture client 1 wrote (one fixture of 8 objects written, under s3ab/RUN/fleet/), then nothing is left of it or of the barrier.
    expect(a.stdout + a.stderr).toMatch(/writing fixture small-reads/);
    expect(b.stdout + b.stderr).not.toMatch(/writing fixture/);
    expect(((await client.send(new ListObjectsV2Command({ Bucket: server.target.bucket, Prefix: `s3ab/${run}/` }))).KeyCount ?? 0)).toBe(0);
    expect(await keys(`fleet-barrier/${run}/`)).toEqual([]);
    // This run's records out of the way of the tests that read every record.
    for (const key of [...await keys(`results/dt=2026-11-22/${run}`), ...await keys(`results/_runs/${run}`)]) await client.send(new DeleteObjectCommand({ Bucket: RESULTS, Key: key }));
  }, 120_000);

  test('two runners run step 2 at once: each uploads its own records to results/dt=DAY/ and reports completion', async () => {
    const [a, b] = await Promise.all([invoke('2', 'i-0aaa'), invoke('2', 'i-0bbb')]);
    for (const [r, runner] of [[a, 'i-0aaa'], [b, 'i-0bbb']] as const) {
      expect({ code: r.status, err: r.stderr.slice(-500) }).toEqual({ code: 0, err: expect.any(String) });
      expect(r.stdout).toMatch(new RegExp(`s3ab step: run ${RUN} step 2 complete \\(1 of 1 done, 0 failed\\): \\d+ records uploaded`));
      expect(r.stdout).toContain(`s3://${RESULTS}/results/dt=2026-11-22/${RUN}--s002--s3-api--dir-walk--${runner}.jsonl`);
    }
    const files = await keys('results/');
    expect(files.sort()).toEqual([
      `results/_runs/${RUN}--i-0aaa.json`, `results/_runs/${RUN}--i-0bbb.json`,
      `results/dt=2026-11-22/${RUN}--s002--s3-api--dir-walk--i-0aaa.jsonl`, `results/dt=2026-11-22/${RUN}--s002--s3-api--dir-walk--i-0bbb.jsonl`,
    ]);
    const body = await (await client.send(new GetObjectCommand({ Bucket: RESULTS, Key: files[2] }))).Body!.transformToString();
    const records: ResultRecord[] = body.trim().split('\n').map((l) => JSON.parse(l));
    for (const r of records) {
      expect(recordErrors(r)).toEqual([]);
      expect(r).toMatchObject({ run_id: RUN, step: 2, workload: 'dir-walk', status: 'ok', verified: true, host: { instance_type: 'c7g.large', region: 'us-east-1', availability_zone: 'us-east-1a' } });
    }
    // Benchmark objects are gone from the data bucket; only step 2's workload wrote a fixture.
    expect(((await client.send(new ListObjectsV2Command({ Bucket: server.target.bucket, Prefix: 's3ab/' }))).KeyCount ?? 0)).toBe(0);
  });


  test('two runners (two instance types) each run step 1 on their own (clients 1, no fleet); the summary queries compare the types on DuckDB', async () => {
    const [a, b] = await Promise.all([invoke('1', 'i-0aaa'), invoke('1', 'i-0bbb', { S3AB_INSTANCE_TYPE: 'm7i.large' })]);
    for (const r of [a, b]) expect({ code: r.status, err: r.stderr.slice(-500) }).toEqual({ code: 0, err: expect.any(String) });
    // The results bucket as Athena sees it, copied to a local folder for DuckDB.
    const local = join(dir, 'results');
    for (const key of await keys('results/')) {
      const path = join(local, key.slice('results/'.length));
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, await (await client.send(new GetObjectCommand({ Bucket: RESULTS, Key: key }))).Body!.transformToString());
    }
    const db = await openResults(local, RUN);
    let records: ResultRecord[];
    let scale: Record<string, unknown>[];
    let types: Record<string, unknown>[];
    try {
      records = (await query(db.connection, "SELECT to_json(r) AS j FROM results r WHERE step = 1 AND operation = 'read'")).map((x) => JSON.parse(String(x.j)));
      const sql = Object.fromEntries(namedQueries().map((q) => [q.name, q.sql]));
      scale = (await query(db.connection, sql.fleet_scaling)).filter((r) => r.workload === 'small-reads');
      types = (await query(db.connection, sql.instance_types)).filter((r) => r.workload === 'small-reads');
    } finally {
      db.close();
    }
    expect(records.map((r) => [r.host.runner_id, r.host.instance_type]).sort()).toEqual([['i-0aaa', 'c7g.large'], ['i-0bbb', 'm7i.large']]);
    for (const r of records) expect(Date.parse(r.started_at)).toBeLessThanOrEqual(Date.parse(r.recorded_at));
    const bytes = records.reduce((n, r) => n + r.bytes, 0);
    expect(bytes).toBe(2 * 8 * 256 * 1024);
    expect(scale).toHaveLength(1);
    // DuckDB counts come back as BigInt.
    const row = Object.fromEntries(Object.entries(scale[0]).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]));
    // Not a fleet step (clients 1 on each runner): fleet_scaling.sql still counts both runners, over the window both were measuring.
    expect(row).toMatchObject({ run_id: RUN, method: 's3-api', workload: 'small-reads', operation: 'read', clients: 1, clients_ok: 2, clients_failed: 0 });
    const allRunningS = (Math.min(...records.map((r) => Date.parse(r.recorded_at))) - Math.max(...records.map((r) => Date.parse(r.started_at)))) / 1000;
    expect(Number(row.window_ms) / 1000).toBeCloseTo(allRunningS, 2);
    if (allRunningS <= 0) expect(row.aggregate_mib_s).toBeNull();
    else if (row.aggregate_basis === 'mean rate') expect(Number(row.aggregate_mib_s)).toBeCloseTo(records.reduce((n, r) => n + r.throughput_mib_s!, 0), 1);
    expect([row.client_mib_s_min, row.client_mib_s_max]).toEqual([Math.min(...records.map((r) => r.throughput_mib_s!)), Math.max(...records.map((r) => r.throughput_mib_s!))]);
    // One row per instance type, each its runner's own median.
    expect(types.map((t) => [t.instance_type, Number(t.runners), Number(t.mib_s_median)]).sort()).toEqual(
      records.map((r) => [r.host.instance_type, 1, r.throughput_mib_s]).sort(),
    );
    // The local summary shows the instance types of a run with several runners.
    const report = await s3ab(['report', '--results', local, '--run', RUN]);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('runners: 2 manifests (complete)');
    // Scaling out is for fleet steps (clients > 1) only.
    expect(report.stdout).not.toMatch(/Scaling out/);
    expect(report.stdout).toMatch(/instance types — median/);
    expect(report.stdout).toMatch(/c7g\.large.*m7i\.large/);
  }, 120_000);

  test('one runner\'s share in one command: prepared once (each fixture written once), every step\'s records uploaded, one manifest', async () => {
    const r = await invoke('1,2', 'i-0eee');
    expect({ code: r.status, err: r.stderr.slice(-500) }).toEqual({ code: 0, err: expect.any(String) });
    expect(r.stdout).toMatch(new RegExp(`s3ab step: run ${RUN} steps 1,2 complete \\(2 of 2 done, 0 failed\\): \\d+ records uploaded`));
    // The preparation happened once for both steps: one preflight, each workload's fixture written once.
    expect(r.stdout.match(/writing fixture /g)).toHaveLength(2);
    expect(r.stdout.match(/link limit: /g)).toHaveLength(1);
    const mine = (await keys('results/')).filter((k) => k.includes('i-0eee'));
    expect(mine.sort()).toEqual([
      `results/_runs/${RUN}--i-0eee.json`,
      `results/dt=2026-11-22/${RUN}--s001--s3-api--small-reads--i-0eee.jsonl`, `results/dt=2026-11-22/${RUN}--s002--s3-api--dir-walk--i-0eee.jsonl`,
    ]);
    const manifest = JSON.parse(await (await client.send(new GetObjectCommand({ Bucket: RESULTS, Key: `results/_runs/${RUN}--i-0eee.json` }))).Body!.transformToString());
    expect(manifest).toMatchObject({ status: 'complete', steps_total: 2, steps_done: 2, steps_failed: 0 });
    expect(((await client.send(new ListObjectsV2Command({ Bucket: server.target.bucket, Prefix: 's3ab/' }))).KeyCount ?? 0)).toBe(0);
  });

  test('a step that is not in the matrix fails with exit code 2 and uploads nothing', async () => {
    const before = await keys('results/');
    const r = await invoke('9', 'i-0ccc');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/step 9 is not in the matrix \(it has 2 steps\)/);
    expect(await keys('results/')).toEqual(before);
  });

  test('a results bucket that does not exist is found before the step runs (exit 2, nothing measured)', async () => {
    const cmd = line.replace(`s3://${RESULTS}/results`, 's3://s3ab-no-such-results/results');
    const saved = line;
    line = cmd;
    try {
      const before = await keys('s3ab/');
      const r = await invoke('1', 'i-0ddd');
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/the results location s3:\/\/s3ab-no-such-results\/results cannot be reached before the steps: bucket "s3ab-no-such-results" does not exist/);
      expect(r.stdout).not.toMatch(/step 1\/1/);
      expect(await keys('s3ab/')).toEqual(before);
    } finally {
      line = saved;
    }
  });


  describe('issue 21 (8): with the task token, the runner ends its Step Functions task itself (a local Step Functions endpoint, AWS_ENDPOINT_URL_SFN)', () => {
    const sfn = new LocalStepFunctions();
    beforeAll(() => sfn.start());
    afterAll(() => sfn.stop());
    /** The token in a file, as the run-step document leaves it (never on the command line). */
    const tokenFile = (token: string, runnerId: string) => {
      const file = join(dir, `task-token-${runnerId}`);
      writeFileSync(file, token, { mode: 0o600 });
      return file;
    };
    test('heartbeats while it runs, then SendTaskSuccess with its figures, then the reported file the exit trap checks', async () => {
      const task = sfn.issue('RunShard', 30, 300);
      const r = await invoke('1', 'i-0fff', { TASK_TOKEN_FILE: tokenFile(task.token, 'i-0fff'), AWS_ENDPOINT_URL_SFN: sfn.endpoint });
      expect({ code: r.status, err: r.stderr.slice(-500) }).toEqual({ code: 0, err: expect.any(String) });
      expect(await task.result).toEqual({ runner: 'i-0fff', status: 'complete', stepsDone: 1, stepsTotal: 1, records: expect.any(Number), heartbeats: expect.any(Number) });
      expect(sfn.figures.heartbeats).toBeGreaterThan(0);
      expect(existsSync(join(dir, 'reported-i-0fff'))).toBe(true);
      // The success was written before it was sent: the exit trap would have sent it had the runner not.
      expect(JSON.parse(readFileSync(join(dir, 'success-i-0fff.json'), 'utf8'))).toEqual(await task.result);
    });
    test('a shard that cannot run: SendTaskFailure naming the problem and its fix (RunnerError), the command still exits 2', async () => {
      const task = sfn.issue('RunShard', 30, 300);
      const r = await invoke('9', 'i-0ggg', { TASK_TOKEN_FILE: tokenFile(task.token, 'i-0ggg'), AWS_ENDPOINT_URL_SFN: sfn.endpoint });
      expect(r.status).toBe(2);
      await expect(task.result).rejects.toMatchObject({ name: 'RunnerError', message: expect.stringMatching(/^runner i-0ggg, steps 9: step 9 is not in the matrix \(it has 2 steps\)/) });
      expect(existsSync(join(dir, 'reported-i-0ggg'))).toBe(true);
      expect(existsSync(join(dir, 'success-i-0ggg.json'))).toBe(false);
    });
  });
});
