import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESTIMATE_MARKERS, ESTIMATE_PAGE, ESTIMATE_PROFILES, estimateTable, withTable } from '../../scripts/cost-model';
import { FLEET_BARRIER } from '../../runner/core/barrier';
import { expandSteps, loadProfile, resolveMatrix, type ResolvedMatrix } from '../../runner/core/matrix';
import { fixtureWrites, type WorkFacts } from '../../runner/core/workload';
import { CATALOG } from '../../runner/catalog';
import { findMethodDescriptor } from '../../runner/methods/catalog';
import { notApplicableReason } from '../../runner/run/policy';
import { findWorkloadDescriptor, WORKLOAD_DESCRIPTORS } from '../../runner/workloads/catalog';
import { estimateFor } from '../../runner/aws/estimate';
import { AWS_FACTS, baselineMiBps } from '../../runner/plan/aws-facts';
import {
  budgetOf, cheaperType, EXECUTION_TIMEOUT_SECONDS, estimateExecution, shardLimitSeconds, shardTimeoutSeconds, stateMachineCounts, WALL_TARGET_SECONDS, type PlanInput,
} from '../../runner/plan/execution-model';
import { MEASURED_PROFILES, MEASUREMENTS, measurementFor, sampleOf, type Measurement } from '../../runner/plan/measurement';
import { installFor, s3CrtClientBuildSeconds, setupSeconds } from '../../runner/plan/setup-model';
import { modelSteps, sampleMatrix, total } from '../../runner/plan/step-model';
import { ROOT } from '../helpers/cli';
import runnerSetup from '../../assets/measured/runner-setup.json';

const profileJson = (name: string) => {
  const { $schema: _schema, ...json } = JSON.parse(readFileSync(join(ROOT, 'assets', 'profiles', `${name}.json`), 'utf8'));
  return json;
};
const profile = (name: string): ResolvedMatrix => resolveMatrix(loadProfile(name), name, CATALOG);
const input = (name: string, extra: Partial<PlanInput> = {}): PlanInput => ({ matrix: profile(name), budgetSeconds: budgetOf(loadProfile(name)), defaultType: 'c8gn.large', ...extra });
const seed = MEASUREMENTS.seed;

describe('the measured model of an AWS execution (runner/plan/)', () => {
  test('the AWS table in docs/runner-types.md is the model\'s (regenerate with `npm run cost:aws -- --docs`)', () => {
    const page = readFileSync(join(ROOT, ESTIMATE_PAGE), 'utf8');
    expect(page).toContain(ESTIMATE_MARKERS[0]);
    expect(withTable(page, estimateTable())).toBe(page);
  });

  test('`s3ab aws estimate fleet`: 4 runners, runner 1 runs every step, runner 4 only the 4-client ones; the wall is runner 1\'s', () => {
    const e = estimateFor({ profile: 'fleet' });
    const steps = expandSteps(profile('fleet'));
    expect(e.layout).toBe('fleet');
    expect(e.runners).toEqual([{ instanceType: 'c8gn.large', count: 4 }]);
    const clientsOf = (i: number) => steps[i - 1].clients;
    expect(e.shards[0].steps).toEqual(steps.map((s) => s.index));
    expect(e.shards[1].steps).toEqual(steps.filter((s) => s.clients >= 2).map((s) => s.index));
    for (const r of [2, 3]) expect(e.shards[r].steps.map(clientsOf).every((c) => c === 4)).toBe(true);
    expect(e.shards[3].steps).toHaveLength(steps.filter((s) => s.clients === 4).length);
    // Runner 1 writes the fixtures and runs every step: the longest shard, the one the wall waits for.
    expect(e.phases.runners).toBe(Math.max(...e.shards.map((s) => s.modelledSeconds)));
    expect(e.phases.runners).toBe(e.shards[0].modelledSeconds);
    // A fleet step costs one client's time plus the barrier's lead: 3 s more than the same step alone.
    const alone = estimateExecution(input('fleet', { matrix: { ...profile('fleet'), clients: [1] } }));
    const one = e.steps.find((s) => s.clients === 1)!;
    const four = e.steps.find((s) => s.clients === 4 && s.workload === one.workload && s.method === one.method && s.repetition === one.repetition)!;
    expect(four.seconds - one.seconds).toBeCloseTo(FLEET_BARRIER.s3.leadMs / 1000, 6);
    expect(alone.layout).toBe('shard');
    // Every client's requests are counted: 1 + 2 + 4 clients' runs of each step of one client.
    expect(e.methodsDollars).toBeGreaterThan(alone.methodsDollars * 6.9);
    expect(e.wallSeconds).toBeGreaterThan(e.phases.runners);
  });

  test('the target: a seed execution in ≤ 45 min and ≤ $1.10 of its own cost, as `s3ab aws estimate seed` prints it (a warm build cache)', () => {
    const e = estimateFor({ profile: 'seed' });
    expect(e.buildCache).toBe('warm');
    expect(e.wallSeconds).toBeLessThanOrEqual(45 * 60);
    expect(e.executionDollars).toBeLessThanOrEqual(1.1);
    // Every profile of the table fits the history limit of one execution by construction (callbacks).
    for (const p of ESTIMATE_PROFILES) expect(estimateFor({ profile: p }).historyEvents).toBeLessThan(25_000);
  });

  test('a cold build cache: the timeouts allow for it whatever the estimate models; its wall is at most the warm one\'s plus the cold build', async () => {
    const build = s3CrtClientBuildSeconds();
    const { checkPipelineProps } = await import('../../lib/pipeline/index');
    const setupTimeout = checkPipelineProps({}).setupTimeout.toSeconds();
    const warm = estimateFor({ profile: 'seed' });
    const cold = estimateFor({ profile: 'seed', buildCache: 'cold' });
    expect(cold.buildCache).toBe('cold');
    const building = warm.shards.filter((s) => s.install.includes('s3-crt-client'));
    expect(building.length).toBeGreaterThan(0);
    for (const e of [warm, cold]) {
      for (const s of e.shards) {
        // Each shard's setup budget is its cold setup: the build where it installs the client, within the setup document's timeout.
        expect(s.coldSetup.seconds).toBeGreaterThanOrEqual(s.setup.seconds);
        if (s.install.includes('s3-crt-client')) expect(s.coldSetup.seconds).toBeGreaterThanOrEqual(build);
        expect(s.coldSetup.seconds).toBeLessThanOrEqual(setupTimeout);
        expect(e.setupBudgetSeconds).toBeGreaterThanOrEqual(s.coldSetup.seconds);
        // The command timeout is the steps' alone (setup has its own): the cache does not move it.
        expect(s.timeoutSeconds).toBe(shardTimeoutSeconds(s.modelledSeconds));
      }
      // What the execution leaves a shard's command allows for a cold build, warm or cold.
      expect(shardLimitSeconds(e)).toBeLessThanOrEqual(EXECUTION_TIMEOUT_SECONDS - e.phases.before - build - e.phases.after - e.phases.teardown);
    }
    // Warm, those shards download the client; the same plan cold adds at most the build, and the cold plan is no slower than that.
    for (const s of building) expect(s.setup.longest).not.toBe('s3-crt-client build');
    expect(warm.coldBuildExtraSeconds).toBeGreaterThan(0);
    expect(warm.coldBuildExtraSeconds).toBeLessThanOrEqual(build);
    expect(warm.coldWallSeconds).toBeGreaterThan(warm.wallSeconds);
    expect(warm.coldWallSeconds).toBeLessThanOrEqual(warm.wallSeconds + build);
    expect(cold.wallSeconds).toBeLessThanOrEqual(warm.wallSeconds + build);
    expect(cold.coldWallSeconds).toBe(cold.wallSeconds);
    expect(cold.phases.setup).toBeGreaterThanOrEqual(build);
  });

  test.each(Object.keys(MEASURED_PROFILES))('the measurement of %s is of the profile as it is now, every step measured but those of methods that cannot run here', (name) => {
    const m = MEASUREMENTS[name];
    const divisor = MEASURED_PROFILES[name];
    // A changed profile needs a new measurement: `npm run cost:aws -- --measure NAME`.
    // The budget is left out: it bounds the steps, and no step of a measured profile came near it.
    // So is a method's `optional` flag: it says whether a run may skip the method where its client
    // is missing, not what is measured — the method, its variant and options are compared.
    const unflagged = (method: unknown) => {
      if (typeof method !== 'object' || method === null) return method;
      const { optional: _o, ...rest } = method as Record<string, unknown>;
      return Object.keys(rest).length === 1 && typeof rest.name === 'string' ? rest.name : rest;
    };
    const compared = ({ budget_s: _b, methods, ...rest }: Record<string, unknown>) => ({ ...rest, methods: (methods as unknown[]).map(unflagged) });
    expect(compared(m.matrix as Record<string, unknown>)).toEqual(compared((divisor > 1 ? sampleOf(profileJson(name), divisor) : profileJson(name)) as Record<string, unknown>));
    const matrix = resolveMatrix(m.matrix, name, CATALOG);
    // Every step of a required method is measured; an optional method's are where it ran here.
    const optional = new Set(matrix.methods.filter((x) => x.optional).map((x) => x.name));
    const label = (s: { method: { name: string; variant: string }; workload: { name: string } }) => `${s.method.name}/${s.method.variant}/${s.workload.name}`;
    const required = expandSteps(matrix).filter((s) => !optional.has(s.method.name)).map(label);
    const measured = new Set(m.steps.map((s) => `${s.method}/${s.variant}/${s.workload}`));
    expect([...measured].filter((x) => !required.includes(x) && !expandSteps(matrix).map(label).includes(x))).toEqual([]);
    for (const x of required) expect([x, measured.has(x)]).toEqual([x, true]);
    // Each method's steps of a workload it can run made requests (summed over repetitions: a boundary
    // second's requests may go to a neighbour); the runner's own are a part of them; the measurements a part of the time.
    const byLabel = new Map<string, number>();
    for (const s of m.steps) {
      if (notApplicableReason(findMethodDescriptor(s.method)!, findWorkloadDescriptor(s.workload)!)) continue;
      const label = `${s.method}/${s.variant}/${s.workload}`;
      byLabel.set(label, (byLabel.get(label) ?? 0) + total(s.requests));
    }
    for (const [label, n] of byLabel) expect({ label, requests: n > 0 }).toEqual({ label, requests: true });
    for (const s of m.steps) {
      for (const [t, n] of Object.entries(s.runnerRequests)) expect(n).toBeLessThanOrEqual(s.requests[t as keyof typeof s.requests] ?? 0);
      expect(s.measuredSeconds).toBeLessThanOrEqual(s.seconds);
      expect(s.peakMiBps).toBeGreaterThanOrEqual(0);
    }
    // The states around the runners the model times: measured here.
    for (const state of ['ValidateInput', 'InvokeBefore', 'InvokeAfter', 'Report']) expect(m.states[state]?.count).toBeGreaterThan(0);
  });

  test('the fixtures\' requests the model charges a runner are the ones the rehearsal counted (the preflight\'s few aside)', () => {
    const sample = sampleMatrix(seed);
    const writes = sample.workloads.map((w) => findWorkloadDescriptor(w.name)!.fixture?.(w.params as never)).filter((x) => x !== undefined).map((spec) => fixtureWrites(spec!));
    const sum = (pick: (w: ReturnType<typeof fixtureWrites>) => number) => writes.reduce((a, w) => a + pick(w), 0);
    const measured = seed.preparation.requests;
    expect(Math.abs((measured.put ?? 0) - sum((w) => w.puts))).toBeLessThanOrEqual(5);
    expect(Math.abs((measured.mpu_create ?? 0) - sum((w) => w.multipart))).toBeLessThanOrEqual(2);
    expect(Math.abs((measured.mpu_part ?? 0) - sum((w) => w.parts))).toBeLessThanOrEqual(16);
  });

  describe('steps', () => {
    const stepsOf = (m: Measurement, budget: number | null, matrix = profile('seed')) => modelSteps(matrix, m, { linkMiBps: baselineMiBps('c8gn.large'), budgetSeconds: budget });

    test('a step longer than its budget stops at it (did-not-finish) with its cleanup for the share done; the others are as modelled', () => {
      const free = stepsOf(seed, null);
      const capped = stepsOf(seed, 300);
      const over = capped.filter((s) => s.didNotFinish);
      expect(over.length).toBeGreaterThan(0);
      for (const s of capped) {
        const f = free[s.index - 1];
        if (s.didNotFinish) {
          expect(s.seconds).toBeLessThan(f.seconds);
          expect(s.seconds).toBeGreaterThanOrEqual(300);
          expect(total(s.requests)).toBeLessThan(total(f.requests));
        } else {
          expect(s.seconds).toBe(f.seconds);
        }
      }
    });

    test('requests scale with the workload\'s work over the sample\'s: twice the measured requests, twice the modelled', () => {
      const twice: Measurement = { ...seed, steps: seed.steps.map((s) => ({ ...s, requests: Object.fromEntries(Object.entries(s.requests).map(([t, n]) => [t, 2 * (n ?? 0)])) })) };
      const [one, two] = [seed, twice].map((m) => stepsOf(m, null).reduce((a, s) => a + total(s.requests), 0));
      expect(two).toBeCloseTo(2 * one, 6);
      // Three repetitions of ten times the sample's counts: many times what the sample made.
      expect(one).toBeGreaterThan(20 * seed.steps.reduce((a, s) => a + total(s.requests), 0));
    });

    test('a step\'s own setup is not scaled, its measurements are', () => {
      const slowSetup: Measurement = { ...seed, steps: seed.steps.map((s) => ({ ...s, seconds: s.seconds + 10 })) };
      const slowMeasuring: Measurement = { ...seed, steps: seed.steps.map((s) => ({ ...s, seconds: s.seconds + 10, measuredSeconds: s.measuredSeconds + 10 })) };
      const [base, setup, measuring] = [seed, slowSetup, slowMeasuring].map((m) => stepsOf(m, null));
      for (const s of base) expect(setup[s.index - 1].full.here - s.full.here).toBeCloseTo(10, 6);
      expect(measuring.some((s) => measuring[s.index - 1].full.here - setup[s.index - 1].full.here > 10)).toBe(true);
    });

    test('a method that cannot run here is modelled from its workload\'s other mounts, and says so', () => {
      const s3files = stepsOf(seed, null).filter((s) => s.method === 's3files');
      expect(s3files.length).toBeGreaterThan(0);
      for (const s of s3files) expect(s.figure).toBe('from the other mount methods');
      expect(stepsOf(seed, null).filter((s) => s.method === 's3-api').every((s) => s.figure === 'measured')).toBe(true);
    });
  });

  describe('workload descriptors own the facts the model needs (issue 25)', () => {
    test.each(WORKLOAD_DESCRIPTORS.map((w) => [w.name, w] as const))('%s: its count parameters are its parameters, and dividing them divides its work', (_name, w) => {
      const props = Object.keys((w.paramsSchema as { properties: object }).properties);
      for (const c of w.work.counts) expect(props).toContain(c);
      for (const p of ['seed', 'full']) {
        const params = profile(p).workloads.find((x) => x.name === w.name)?.params;
        if (!params) continue;
        const whole = w.work.of(params as never);
        expect(Number.isFinite(whole.ops) && whole.ops > 0 && Number.isFinite(whole.bytes) && whole.bytes >= 0).toBe(true);
        expect((w.work as WorkFacts<never>).parallelism?.(params as never) ?? 1).toBeGreaterThanOrEqual(1);
        if (!w.work.counts.length) continue;
        const sample = resolveMatrix(sampleOf({ name: p, methods: ['s3-api'], workloads: { [w.name]: params } }, 10), 'sample', CATALOG).workloads[0].params;
        const part = w.work.of(sample as never);
        // A tenth, each count rounded to a whole number ≥ 1 (large-read's 5 files: 1).
        expect(whole.ops / part.ops).toBeGreaterThanOrEqual(5);
        expect(whole.ops / part.ops).toBeLessThanOrEqual(20);
      }
    });

    test('every workload of every profile can be modelled from a measurement', () => {
      for (const p of ESTIMATE_PROFILES) expect(() => measurementFor(profile(p))).not.toThrow();
    });
  });

  describe('the plan', () => {
    test('without runners asked for: the cheapest plan within the wall target, each workload\'s repetitions on one runner type', () => {
      const e = estimateExecution(input('seed'));
      expect(e.wallSeconds).toBeLessThanOrEqual(WALL_TARGET_SECONDS);
      // Some other runner count of the same types: dearer, or over the target.
      for (const delta of [-2, -1, 1, 2]) {
        const specs = e.runners.map((r, i) => ({ ...r, count: i === e.runners.length - 1 ? Math.max(1, r.count + delta) : r.count }));
        const other = estimateExecution(input('seed', { runners: specs }));
        expect(other.executionDollars >= e.executionDollars - 1e-9 || other.wallSeconds > WALL_TARGET_SECONDS).toBe(true);
      }
      for (const w of profile('seed').workloads) expect(new Set(e.shards.filter((s) => s.workloads.includes(w.name)).map((s) => s.instanceType)).size).toBe(1);
    });

    test('a workload whose measured rate would reach the cheaper type\'s link runs on the stack\'s type; the rest may run on the cheaper one', () => {
      const cheap = cheaperType('c8gn.large');
      expect(cheap).toBe('c7g.large');
      const e = estimateExecution(input('seed'));
      const stepsOn = (type: string) => e.shards.filter((s) => s.instanceType === type).flatMap((s) => s.steps.map((i) => e.steps[i - 1]));
      for (const s of stepsOn(cheap!)) expect(s.peakMiBps).toBeLessThan(0.9 * baselineMiBps(cheap!));
    });

    test('each shard: its steps, the model\'s time with its fixtures, a timeout twice that and 10 min, its type and what its setup installs', () => {
      const e = estimateExecution(input('mounts', { runners: [{ instanceType: 'c8gn.large', count: 2 }] }));
      expect(e.shards.flatMap((s) => s.steps).sort((a, b) => a - b)).toEqual(e.steps.map((s) => s.index));
      for (const s of e.shards) {
        expect(s.modelledSeconds).toBeGreaterThanOrEqual(s.steps.reduce((a, i) => a + e.steps[i - 1].seconds, 0) - 1e-9);
        expect(s.timeoutSeconds).toBe(shardTimeoutSeconds(s.modelledSeconds));
        expect(s.timeoutSeconds).toBeGreaterThanOrEqual(2 * s.modelledSeconds + 600);
        expect(s.instanceType).toBe('c8gn.large');
        expect(s.install).toEqual(installFor(s.steps.map((i) => e.steps[i - 1])));
      }
    });

    test('setup installs only what a shard needs: the s3fs build makes a mount shard\'s setup longer than an S3 API shard\'s', () => {
      const of = (methods: string[], workload: string) => methods.map((method) => ({ method, workload }));
      expect(installFor(of(['s3-api'], 'objects'))).toEqual([]);
      expect(installFor(of(['s3-crt', 'aws-cli'], 'objects'))).toEqual(['awscli', 's3-crt-client']);
      // fio-seq needs a file system: its S3 API steps record not-applicable, and need neither their clients nor fio.
      expect(installFor(of(['s3-crt', 'aws-cli', 's3fs'], 'fio-seq'))).toEqual(['s3fs', 'fio']);
      const link = baselineMiBps('c7g.large');
      const api = setupSeconds([], link, 'warm');
      const mounts = setupSeconds(installFor(of(['s3fs', 'mountpoint', 'rclone', 'juicefs'], 'fio-seq')), link, 'warm');
      expect(mounts.seconds).toBeGreaterThan(api.seconds);
      expect(mounts.longest).toMatch(/^s3fs .* build$/);
      // The package phase starts with the sourced dnf metadata refresh.
      expect(api.packages).toBeGreaterThanOrEqual(AWS_FACTS.dnfMetadataSeconds);
      // With a cold build cache the s3-crt client is compiled on the runner: its cold cargo build
      // measured here, scaled from this machine's CPUs to a runner's 2 vCPUs, runs beside the rest.
      const built = runnerSetup['s3-crt-client'];
      const crt = setupSeconds(installFor(of(['s3-crt'], 'objects')), link, 'cold');
      expect(crt.longest).toBe('s3-crt-client build');
      expect(crt.parallel).toBeCloseTo(built.wallSeconds * built.cpus / 2);
      expect(crt.parallel).toBeCloseTo(s3CrtClientBuildSeconds());
      expect(crt.seconds).toBeCloseTo(crt.packages + crt.parallel);
      // With a warm one it downloads the binary (~9 MiB over the link): the bundle is the longest part, as without the client.
      const cached = setupSeconds(installFor(of(['s3-crt'], 'objects')), link, 'warm');
      expect(cached.longest).toBe('bundle');
      expect(cached.seconds).toBeCloseTo(api.seconds);
      // Nothing else depends on the cache.
      expect(setupSeconds(installFor(of(['s3fs', 'mountpoint', 'rclone', 'juicefs'], 'fio-seq')), link, 'cold')).toEqual(mounts);
    });

    test('history and transitions grow with the runners, not with how long they run (callbacks, not polls)', () => {
      const short = stateMachineCounts(4, 2, 3, 60, 90);
      expect(stateMachineCounts(4, 2, 3, 60, 90)).toEqual(short);
      expect(stateMachineCounts(8, 2, 3, 60, 90).historyEvents).toBeGreaterThan(short.historyEvents);
      expect(stateMachineCounts(20, 2, 3, 600, 90).historyEvents).toBeLessThan(2_000);
    });

    test('an execution\'s limits are the pipeline\'s', async () => {
      const { checkPipelineProps } = await import('../../lib/pipeline/index');
      expect(checkPipelineProps({}).executionTimeout.toSeconds()).toBe(EXECUTION_TIMEOUT_SECONDS);
    });
  });
});
