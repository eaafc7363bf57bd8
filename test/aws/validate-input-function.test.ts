import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { expandSteps, loadProfile, profileNames, resolveMatrix } from '../../runner/core/matrix';
import { METHOD_DESCRIPTORS as METHODS } from '../../runner/methods/catalog';
import matrixSchema from '../../assets/schema/matrix.schema.json';
import { cleanupAll } from '../../runner/core/cleanup';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { RUNNER_IMAGE } from '../../lib/instance-types';
import { shardTimeoutSeconds } from '../../runner/plan/execution-model';

/** A shard's command timeout is the model's for its modelled time (which ValidateInput rounds to whole seconds). */
const followsFromModel = (s: { modelledSeconds: number; timeoutSeconds: number }) =>
  [shardTimeoutSeconds(s.modelledSeconds - 0.5), shardTimeoutSeconds(s.modelledSeconds), shardTimeoutSeconds(s.modelledSeconds + 0.5)].includes(s.timeoutSeconds);
import { installFor } from '../../runner/plan/setup-model';
import { CATALOG } from '../../runner/catalog';
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import type { CapacityClients } from '../../runner/aws/capacity';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const RESULTS = 's3ab-results';
const MATRIX = { name: 'two-methods', methods: ['s3-api', 'aws-cli'], repetitions: 2, workloads: { 'small-reads': { files: 4 }, 'dir-walk': { objects: 10 } } };

describe('ValidateInput: the runner\'s matrix validator before anything exists; the matrix stored for the runners', () => {
  let server: EmbeddedEndpoint;
  let s3: S3Client;
  let validate: typeof import('../../lambda/validate-input');

  beforeAll(async () => {
    server = await startEmbeddedEndpoint();
    s3 = makeS3Client(server.target, { maxSockets: 4 });
    await s3.send(new CreateBucketCommand({ Bucket: RESULTS }));
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: server.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: server.target.credentials!.secretAccessKey,
      AWS_REGION: 'us-east-1', S3AB_S3_ENDPOINT: server.target.endpointUrl, RESULTS_BUCKET: RESULTS, DEFAULT_INSTANCE_TYPE: 'm7g.large', POWERTOOLS_LOG_LEVEL: 'SILENT',
      RUNNER_AVAILABILITY_ZONES: 'us-east-1a,us-east-1b',
    });
    validate = await import('../../lambda/validate-input');
  }, 60_000);

  afterAll(async () => {
    s3?.destroy();
    await server?.stop();
    await cleanupAll();
  });

  /**
   * The account as EC2 and Service Quotas answer it (the handler's capacity clients): the Standard
   * vCPU quota, the instances running, the zones that offer each type. Plenty by default.
   */
  const ZONES = ['us-east-1a', 'us-east-1b'];
  const account = { quota: 640, running: [] as { InstanceType: string; CpuOptions: { CoreCount: number; ThreadsPerCore: number } }[], offeredIn: (_type: string) => ZONES, hang: false };
  type Answer = Awaited<ReturnType<CapacityClients['ec2']['send']>>;
  const capacity: CapacityClients = {
    ec2: {
      send: async (cmd: any) => {
        if (account.hang) await new Promise(() => {});
        if (cmd instanceof DescribeInstancesCommand) return { Reservations: [{ Instances: account.running }] } as Answer;
        const types: string[] = cmd.input.Filters.find((f: { Name: string }) => f.Name === 'instance-type').Values;
        return { InstanceTypeOfferings: types.flatMap((t) => account.offeredIn(t).map((Location) => ({ InstanceType: t, LocationType: 'availability-zone', Location }))) } as Answer;
      },
    },
    quotas: { getServiceQuota: async () => ({ Quota: { Value: account.quota } }) },
  };
  const handle = (event: { input?: unknown }, context?: { getRemainingTimeInMillis: () => number }) => validate.handler(event, context, { capacity });
  beforeEach(() => Object.assign(account, { quota: 640, running: [], offeredIn: () => ZONES, hang: false }));

  const stored = async () => ((await s3.send(new ListObjectsV2Command({ Bucket: RESULTS, Prefix: 'executions/' }))).Contents ?? []).map((o) => o.Key!).sort();

  test('a good matrix: a new run id, its steps labelled in run order, defaults filled in, the matrix stored as given', async () => {
    const run = await handle({ input: { matrix: MATRIX } });
    expect(run.runId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
    expect(run.matrixKey).toBe(`executions/${run.runId}/matrix.json`);
    // The day of the run's records: the summary queries read that partition only.
    expect(run.day).toBe(`${run.runId.slice(0, 4)}-${run.runId.slice(4, 6)}-${run.runId.slice(6, 8)}`);
    expect(run.matrixName).toBe('two-methods');
    expect(run.steps).toEqual([
      { step: '1', label: 's3-api small-reads rep 1' }, { step: '2', label: 'aws-cli small-reads rep 1' },
      { step: '3', label: 's3-api small-reads rep 2' }, { step: '4', label: 'aws-cli small-reads rep 2' },
      { step: '5', label: 's3-api dir-walk rep 1' }, { step: '6', label: 'aws-cli dir-walk rep 1' },
      { step: '7', label: 's3-api dir-walk rep 2' }, { step: '8', label: 'aws-cli dir-walk rep 2' },
    ]);
    // No runners asked for: the measured model's plan — a small matrix on one runner of the stack's
    // type (m7g.large has no cheaper type priced beside it); seed 001's Lambda benchmark size.
    expect(run).toMatchObject({ runners: [{ instanceType: 'm7g.large', count: 1, architecture: 'arm64', imageId: RUNNER_IMAGE.arm64 }], runnerCount: 1, documents: 20, lambdaRepetitions: [1, 2, 3] });
    // One runner: every step in one command, its modelled time, the timeout that follows from it, what its setup installs.
    expect(run.layout).toBe('shard');
    expect(run.shards).toEqual([{
      runner: 0, steps: '1,2,3,4,5,6,7,8', count: 8, workloads: ['small-reads', 'dir-walk'],
      modelledSeconds: expect.any(Number), timeoutSeconds: expect.any(Number), instanceType: 'm7g.large', imageId: RUNNER_IMAGE.arm64, install: ['awscli'], fleetClient: 0,
    }]);
    expect(run.shards[0].modelledSeconds).toBeGreaterThan(0);
    expect(followsFromModel(run.shards[0])).toBe(true);
    expect(run).not.toHaveProperty('matrix');
    const body = await (await s3.send(new GetObjectCommand({ Bucket: RESULTS, Key: run.matrixKey }))).Body!.transformToString();
    expect(JSON.parse(body)).toEqual(MATRIX);
    // A matrix that names no advice: null, so the Report state's parameter is always there.
    expect(run.advice).toBeNull();
  });

  test('a matrix\'s advice is output resolved (times in µs and ms, the default priority): the Report state\'s Advice section asks it', async () => {
    const run = await handle({ input: { matrix: { ...MATRIX, advice: { needs: ['rename'], p99_under: '20ms', max_delay: '2s' } } } });
    expect(run.advice).toEqual({ needs: ['rename'], priority: 'throughput', max_cost_per_million: null, p99_under_us: 20_000, max_delay_ms: 2000 });
  });

  test('layout "shard": each (workload, repetition) on one runner with all its methods, placed by modelled time; more runners than units is refused', async () => {
    const run = await handle({ input: { matrix: MATRIX, runners: [{ instanceType: 'c7g.large', count: 2 }] } });
    expect(run.shards.map((x) => x.instanceType)).toEqual(['c7g.large', 'c7g.large']);
    const units = [[1, 2], [3, 4], [5, 6], [7, 8]];
    for (const shard of run.shards) {
      const steps = shard.steps.split(',').map(Number);
      // Whole units only: the two methods of a repetition of a workload always share a runner.
      for (const unit of units) expect([0, 2]).toContain(unit.filter((i) => steps.includes(i)).length);
      expect(followsFromModel(shard)).toBe(true);
    }
    expect(run.shards.flatMap((x) => x.steps.split(',')).map(Number).sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await expect(handle({ input: { matrix: MATRIX, runners: [{ instanceType: 'c7g.large', count: 5 }] } }))
      .rejects.toThrow(/5 runners but the matrix has 2 workload\(s\) × 2 repetition\(s\) for them: 1 runner\(s\) would measure nothing under layout "shard" — launch at most one runner per \(workload, repetition\)/);
    await expect(handle({ input: { matrix: MATRIX, layout: 'spread' } })).rejects.toThrow(/input.layout "spread" is not a layout — use one of shard, fleet/);
  });

  test('layout "fleet": one runner per client of the largest fleet, derived or checked; "shard" cannot run a fleet', async () => {
    const fleet = { ...MATRIX, clients: [1, 3] };
    const derived = await handle({ input: { matrix: fleet } });
    expect(derived.layout).toBe('fleet');
    expect(derived.runnerCount).toBe(3);
    expect(derived.shards.map((x) => x.fleetClient)).toEqual([1, 2, 3]);
    await expect(handle({ input: { matrix: fleet, runners: [{ instanceType: 'c7g.large', count: 2 }] } }))
      .rejects.toThrow(/layout "fleet" with clients \[1, 3\] needs 3 runner\(s\), one per client of its largest fleet; input.runners asks for 2 — give 3 runners/);
    await expect(handle({ input: { matrix: fleet, layout: 'shard' } }))
      .rejects.toThrow(/the matrix's clients \[1, 3\] ask for fleets of up to 3 runners at once, which layout "shard" cannot run — leave "layout" out or give "layout": "fleet"/);
    await expect(handle({ input: { matrix: { ...MATRIX, clients: [1, 32] } } })).rejects.toThrow(/the matrix's largest fleet has 32 clients: as many runners, more than the 20 an execution may have — give "clients" up to 20/);
    // A plain matrix: shard, and no runner is a fleet's client.
    expect((await handle({ input: { matrix: MATRIX } })).shards.every((x) => x.fleetClient === 0)).toBe(true);
  });

  test('a profile by name, runner specs and the Lambda benchmark\'s size', async () => {
    const run = await handle({ input: { profile: 'fleet', runners: [{ instanceType: 'c7g.large', count: 2 }, { instanceType: 'm7i.xlarge', count: 2 }], lambdas: { documents: 50, repetitions: 2 } } });
    expect(run.matrixName).toBe('fleet');
    // The fleet profile's clients [1, 2, 4] imply layout "fleet": runner 1 runs every step, runner 2 the 2- and 4-client ones, runners 3–4 the 4-client ones.
    const steps = expandSteps(resolveMatrix(loadProfile('fleet'), 'fleet', CATALOG));
    expect(run.layout).toBe('fleet');
    expect(run.shards.map((x) => x.count)).toEqual([steps.length, (steps.length * 2) / 3, steps.length / 3, steps.length / 3]);
    expect(run.shards.map((x) => x.fleetClient)).toEqual([1, 2, 3, 4]);
    expect(run.steps).toHaveLength(steps.length);
    expect(run).toMatchObject({ runnerCount: 4, documents: 50, lambdaRepetitions: [1, 2] });
    // Graviton and x86 side by side: each spec records its architecture and the image it launches.
    expect(run.runners).toEqual([
      { instanceType: 'c7g.large', count: 2, architecture: 'arm64', imageId: RUNNER_IMAGE.arm64 },
      { instanceType: 'm7i.xlarge', count: 2, architecture: 'x86_64', imageId: RUNNER_IMAGE.x86_64 },
    ]);
    // Each shard's runner: the specs expanded in order, each with its image; the fleet profile's methods' components.
    expect(run.shards.map((x) => [x.instanceType, x.imageId])).toEqual([
      ['c7g.large', RUNNER_IMAGE.arm64], ['c7g.large', RUNNER_IMAGE.arm64], ['m7i.xlarge', RUNNER_IMAGE.x86_64], ['m7i.xlarge', RUNNER_IMAGE.x86_64],
    ]);
    expect(run.shards[0].install).toEqual(installFor(steps.map((s) => ({ method: s.method.name, workload: s.workload.name }))));
    expect(run.shards[0].install.length).toBeGreaterThan(0);
    const body = await (await s3.send(new GetObjectCommand({ Bucket: RESULTS, Key: run.matrixKey }))).Body!.transformToString();
    expect(JSON.parse(body)).toEqual(loadProfile('fleet'));
  });

  test('a plan whose shard would outlast what the execution leaves it is refused, naming the fix', async () => {
    // full without its step budget, on one runner: days of steps.
    const { budget_s: _b, ...unbounded } = loadProfile('full') as Record<string, unknown>;
    const err = await handle({ input: { matrix: unbounded, runners: [{ instanceType: 'c8gn.large', count: 1 }] } }).catch((e) => e);
    expect(err.name).toBe('InvalidInput');
    expect(err.message).toMatch(/^runner 1's shard \(objects, .*\) is modelled at \d+ min, so its command timeout is \d+ min — longer than the \d+ min the execution leaves for a shard — add runners .*give the matrix a step budget \("budget_s"\), or run a part of it/);
    // The stack's own limit (MAX_SHARD_SECONDS) is held too.
    process.env.MAX_SHARD_SECONDS = '600';
    try {
      await expect(handle({ input: { profile: 'mounts' } })).rejects.toThrow(/longer than the 10 min the execution leaves for a shard/);
    } finally {
      delete process.env.MAX_SHARD_SECONDS;
    }
  });

  describe('a bad input fails with the field at fault and what to write instead, and stores nothing', () => {
    // The valid values come from the registries, as the messages do.
    const methodList = METHODS.map((m) => m.name).join(', ');
    const runner = (r: unknown) => ({ matrix: MATRIX, runners: [r] });
    const cases: [string, unknown, string, RegExp][] = [
      ['unknown method', { matrix: { ...MATRIX, methods: ['ftp'] } }, 'InvalidMatrix', new RegExp(`^input\\.matrix: methods\\[0\\] "ftp" is not a method — use one of: ${methodList}$`)],
      ['no methods', { matrix: { ...MATRIX, methods: [] } }, 'InvalidMatrix', new RegExp(`matrix\\.methods must NOT have fewer than 1 items — methods is a list of one or more of: ${methodList}`)],
      ['unknown variant', { matrix: { ...MATRIX, methods: [{ name: 's3-api', variant: 'turbo' }] } }, 'InvalidMatrix', /methods\[0\] s3-api has no variant "turbo" — use one of: default, single-stream/],
      ['unknown method option', { matrix: { ...MATRIX, methods: [{ name: 's3-api', options: { warp: 9 } }] } }, 'InvalidMatrix', /methods\[0\] s3-api has no option "warp" — its options are: /],
      ['unknown workload', { matrix: { ...MATRIX, workloads: { nope: {} } } }, 'InvalidMatrix', /workloads\.nope is not a workload — use one of: objects, dir-walk, large-read, small-reads/],
      ['missing workloads', { matrix: { methods: ['s3-api'] } }, 'InvalidMatrix', /matrix must have required property 'workloads' — workloads maps one or more of objects, /],
      ['parameter out of range', { matrix: { ...MATRIX, workloads: { 'small-reads': { files: 0 } } } }, 'InvalidMatrix', /workloads\.small-reads\.files must be >= 1 — parameters of small-reads: files, /],
      ['unknown parameter', { matrix: { ...MATRIX, workloads: { 'small-reads': { filez: 3 } } } }, 'InvalidMatrix', /workloads\.small-reads has an unknown field "filez" — parameters of small-reads: files/],
      ['repetitions not a number', { matrix: { ...MATRIX, repetitions: 'three' } }, 'InvalidMatrix', /matrix\.repetitions must be integer — repetitions is a whole number from 1 to 100/],
      ['unknown matrix field', { matrix: { ...MATRIX, threads: 4 } }, 'InvalidMatrix', new RegExp(`matrix has an unknown field "threads" — a matrix has the fields ${Object.keys(matrixSchema.properties).join(', ').replace('$', '\\$')}`)],
      ['both matrix and profile', { matrix: MATRIX, profile: 'quick' }, 'InvalidInput', /^the input has both "matrix" and "profile" — give one of them$/],
      ['unknown profile', { profile: 'huge' }, 'InvalidInput', new RegExp(`^unknown profile "huge" — use one of: ${profileNames().join(', ')}`)],
      ['runners not a list', { matrix: MATRIX, runners: { instanceType: 'c7g.large' } }, 'InvalidInput', /^input\.runners must be a non-empty list — e\.g\. \[\{"instanceType":"c7g\.large","count":1\}\], or leave it out for the model's own plan$/],
      ['a type the model has no link for', runner({ instanceType: 'c7g.metal', count: 1 }), 'InvalidInput', /^the execution cannot be modelled: no network figures for c7g\.metal in assets\/instance-network\.json/],
      ['bad instance type', runner({ instanceType: 'big', count: 1 }), 'InvalidInput', /^input\.runners\[0\]\.instanceType "big" is not an EC2 instance type that runs Amazon Linux 2023 — use <family><generation>\[<attributes>\]\.<size>, e\.g\. c7g\.large \(Graviton, arm64\) or m7i\.large \(x86_64\)$/],
      ['instance type without a size', runner({ instanceType: 'c7g', count: 1 }), 'InvalidInput', /^input\.runners\[0\]\.instanceType "c7g" is not an EC2 instance type .* — use <family>/],
      ['unknown instance family', runner({ instanceType: 'q9.large', count: 1 }), 'InvalidInput', /^input\.runners\[0\]\.instanceType "q9\.large" is not an EC2 instance type/],
      ['a Mac instance type (macOS only)', runner({ instanceType: 'mac2.metal', count: 1 }), 'InvalidInput', /^input\.runners\[0\]\.instanceType "mac2\.metal" is not an EC2 instance type that runs Amazon Linux 2023/],
      ['instance type not a string', runner({ instanceType: 7, count: 1 }), 'InvalidInput', /^input\.runners\[0\]\.instanceType "7" is not an EC2 instance type/],
      ['runner count 0', runner({ instanceType: 'c7g.large', count: 0 }), 'InvalidInput', /^input\.runners\[0\]\.count must be a whole number from 1 to 20, got 0 — e\.g\. "count": 1$/],
      ['runner count 21', runner({ instanceType: 'c7g.large', count: 21 }), 'InvalidInput', /^input\.runners\[0\]\.count must be a whole number from 1 to 20, got 21 — at most 20 runners per execution$/],
      ['too many runners in all', { matrix: MATRIX, runners: [{ instanceType: 'c7g.large', count: 15 }, { instanceType: 'm7i.large', count: 10 }] }, 'InvalidInput', /^25 runners in total — at most 20 per execution$/],
      ['documents out of range', { matrix: MATRIX, lambdas: { documents: 5000 } }, 'InvalidInput', /^input\.lambdas\.documents must be 1–1000, got 5000 — seed 001 used 20$/],
      ['Lambda repetitions not whole', { matrix: MATRIX, lambdas: { repetitions: 1.5 } }, 'InvalidInput', /^input\.lambdas\.repetitions must be 1–20, got 1\.5 — seed 001 used 3$/],
    ];
    for (const [name, input, error, message] of cases) {
      test(name, async () => {
        const before = await stored();
        const err = await handle({ input }).catch((e) => e);
        expect({ name: err.name, message: err.message }).toEqual({ name: error, message: expect.stringMatching(message) });
        expect(await stored()).toEqual(before);
      });
    }
  });

  describe('the account\'s capacity, checked before anything is created', () => {
    const large = (InstanceType: string) => ({ InstanceType, CpuOptions: { CoreCount: 2, ThreadsPerCore: 1 } });
    const SEED_RUNNERS = [{ instanceType: 'c8gn.large', count: 4 }, { instanceType: 'c7g.large', count: 12 }];

    test('32 vCPUs of quota with 8 running: seed\'s 16 runners are refused, naming the quota, the figures and the fix; nothing stored', async () => {
      account.quota = 32;
      account.running = [large('c7g.large'), large('c7g.large'), large('m7i.large'), large('t4g.large')];
      const before = await stored();
      const err = await handle({ input: { profile: 'seed', runners: SEED_RUNNERS } }).catch((e) => e);
      expect(err.name).toBe('InsufficientCapacity');
      expect(err.message).toMatch(/^the account's On-Demand Standard vCPU quota \(Service Quotas ec2 L-1216C47A, .*\) is 32 vCPUs and 8 are running: 24 free, and this execution's runners \(4 × c8gn\.large \+ 12 × c7g\.large\) need 32 — request an increase to at least 40 vCPUs/);
      expect(await stored()).toEqual(before);
    });

    test('c8gn offered in neither zone: the plan runs c7gn and says so in $.run.capacity', async () => {
      account.offeredIn = (t) => (t.startsWith('c8gn.') ? [] : ZONES);
      const run = await handle({ input: { matrix: MATRIX, runners: [{ instanceType: 'c8gn.large', count: 2 }] } });
      expect(run.runners).toMatchObject([{ instanceType: 'c7gn.large', count: 2 }]);
      expect(run.shards.map((s) => s.instanceType)).toEqual(['c7gn.large', 'c7gn.large']);
      // The types swapped in the plan are the plan made for c7gn itself: the equivalence keeps the shards.
      expect(run.shards).toEqual(validate.validateInput({ matrix: MATRIX, runners: [{ instanceType: 'c7gn.large', count: 2 }] }, 'm7g.large').shards);
      expect(run.capacity).toMatchObject({ vcpus: { quota: 640, running: 0, needed: 4 }, fallbacks: [{ from: 'c8gn.large', to: 'c7gn.large' }], notes: [expect.stringMatching(/^c8gn\.large is not offered in the stack's runner Availability Zones \(us-east-1a, us-east-1b\): its 2 runner\(s\) run as c7gn\.large/)] });
    });

    test('reads that do not answer within the function\'s time: refused as CapacityUnknown, naming the fix, before its timeout', async () => {
      account.hang = true;
      const t0 = Date.now();
      const err = await handle({ input: { matrix: MATRIX } }, { getRemainingTimeInMillis: () => 3500 - (Date.now() - t0) }).catch((e) => e);
      expect(err.name).toBe('CapacityUnknown');
      expect(err.message).toMatch(/did not all answer within 1\.\d s — start the execution again/);
      expect(Date.now() - t0).toBeLessThan(3500);
    });

    test('a matrix whose state would outgrow 256 KiB once its runners are provisioned is refused with the figure and the fix', async () => {
      // 3,000 steps of cheap workloads: their labels are what ValidateInput's plan carries.
      const many = { name: 'many-steps', repetitions: 100, methods: ['s3-api', { name: 's3-api', variant: 'single-stream' }, 'aws-cli', { name: 's3fs', variant: 'seed-000' }, 's3fs', 'mountpoint', { name: 'mountpoint', variant: 'cached' }, 'rclone', { name: 'rclone', variant: 'off' }, 'juicefs'],
        workloads: { objects: { sizes: ['1KiB'], files: 1 }, 'dir-walk': { objects: 1, size: '1KiB' }, 'small-reads': { files: 1, size: '1KiB' } } };
      const before = await stored();
      const err = await handle({ input: { matrix: many, runners: [{ instanceType: 'c7g.large', count: 20 }] } }).catch((e) => e);
      expect(err.name).toBe('InvalidInput');
      expect(err.message).toMatch(/^the execution's state could reach \d+ KiB once its 20 runner\(s\) are provisioned — .*ValidateInput's plan of 3000 steps \d+ KiB.* more than the 256 KiB Step Functions allows .* — run the matrix as several executions/);
      expect(await stored()).toEqual(before);
    }, 60_000);
  });

  test('a shard whose command timeout the execution cannot hold is refused, naming the fix (MAX_SHARD_SECONDS: what the stack\'s execution leaves)', async () => {
    // Less than any shard's command timeout (the model's floor is minutes).
    process.env.MAX_SHARD_SECONDS = '60';
    try {
      const before = await stored();
      const err = await handle({ input: { matrix: MATRIX } }).catch((e) => e);
      expect({ name: err.name, message: err.message }).toEqual({ name: 'InvalidInput',
        message: expect.stringMatching(/^runner 1's shard \(small-reads, dir-walk\) is modelled at \d+ min, so its command timeout is \d+ min — longer than the 1 min the execution leaves for a shard — add runners .*give the matrix a step budget \("budget_s"\)/) });
      expect(await stored()).toEqual(before);
    } finally {
      delete process.env.MAX_SHARD_SECONDS;
    }
  });
});
