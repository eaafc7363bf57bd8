import { UserError } from '../../runner/core/errors';
import { lockDecision } from '../../runner/run/host-lock';
import type { MethodChoice, Step } from '../../runner/core/matrix';
import { checkRunOptions, chooseSteps, parseClientsOption, exitCodeFor, finalStatus, methodsToProbe, notApplicableReason, passesFor, planAvailability, spaceProblem, stepFailed, withFailureCause } from '../../runner/run/policy';
import { fixtureBytes } from '../../runner/core/workload';

const choice = (name: string, optional = false): MethodChoice => ({ name, variant: 'default', options: {}, optional });
const stepsOf = (methods: MethodChoice[], n = 2): Step[] =>
  Array.from({ length: n }, (_, rep) => methods.map((method) => ({ method, workload: { name: 'objects', params: {} }, repetition: rep + 1, clients: 1 }))).flat()
    .map((s, i) => ({ ...s, index: i + 1 }));

describe('passesFor: which passes a step runs', () => {
  test('an object method keeps nothing: one pass, none', () => {
    expect(passesFor('object', false, ['cold', 'warm'])).toEqual([{ cache: 'none', keep: true }]);
  });
  test('a mount runs the matrix\'s states in order on one mount', () => {
    expect(passesFor('mount', false, ['cold', 'warm'])).toEqual([{ cache: 'cold', keep: true }, { cache: 'warm', keep: true }]);
    expect(passesFor('mount', false, ['cold'])).toEqual([{ cache: 'cold', keep: true }]);
  });
  test('warm without cold first warms the mount with an unrecorded pass', () => {
    expect(passesFor('mount', false, ['warm'])).toEqual([{ cache: 'warm', keep: false }, { cache: 'warm', keep: true }]);
  });
  test('a cold-only workload runs once, cold, whatever the matrix asks', () => {
    expect(passesFor('mount', true, ['cold', 'warm'])).toEqual([{ cache: 'cold', keep: true }]);
    expect(passesFor('mount', true, ['warm'])).toEqual([{ cache: 'cold', keep: true }]);
  });
});

describe('notApplicableReason: capabilities, not names', () => {
  const s3Api = { name: 's3-api', kind: 'object' as const, offers: ['objects-in-bucket' as const] };
  const efs = { name: 'efs', kind: 'mount' as const, offers: ['file-system' as const] };
  const s3fs = { name: 's3fs', kind: 'mount' as const, offers: ['file-system' as const, 'objects-in-bucket' as const] };
  test('a file-system workload on an object method', () => {
    expect(notApplicableReason(s3Api, { name: 'metadata', requires: ['file-system'] })).toBe('metadata needs a mounted file system (plain POSIX paths); s3-api is an object method');
  });
  test('a workload reading the bucket\'s objects on a file system that keeps its files elsewhere', () => {
    expect(notApplicableReason(efs, { name: 'web-serving', requires: ['file-system', 'objects-in-bucket'] })).toMatch(/^web-serving needs its files stored in the bucket as one object per file .*; efs does not keep its files that way$/);
  });
  test('every requirement met, or none asked: it runs', () => {
    expect(notApplicableReason(s3fs, { name: 'web-serving', requires: ['file-system', 'objects-in-bucket'] })).toBeNull();
    expect(notApplicableReason(efs, { name: 'objects', requires: [] })).toBeNull();
  });
});

describe('planAvailability: methods missing on this host', () => {
  const api = choice('s3-api');
  const files = choice('s3files', true);
  const fuse = choice('s3fs');
  const availability = new Map([[api, { available: true }], [files, { available: false, reason: 'needs an NFS client: AWS only' }], [fuse, { available: false, reason: 's3fs is not installed' }]]);
  test('an optional method missing here is skipped, its steps counted, not failed', () => {
    const steps = stepsOf([api, files]);
    const plan = planAvailability([api, files], availability, steps, false);
    expect(plan.skipped).toEqual([{ method: 's3files', variant: 'default', reason: 'needs an NFS client: AWS only', steps: 2 }]);
    expect(plan.steps.map((s) => s.index)).toEqual([1, 3]);
  });
  test('a required method missing here stops the run, naming the fix', () => {
    expect(() => planAvailability([api, fuse], availability, stepsOf([api, fuse]), false)).toThrow(UserError);
    expect(() => planAvailability([api, fuse], availability, stepsOf([api, fuse]), false)).toThrow(/method "s3fs" is not available on this host: s3fs is not installed — install it, or leave it out with --methods s3-api/);
  });
  test('a method the host itself cannot run (no kernel NFS client) is not offered an install command', () => {
    const nfs = choice('zerofs');
    const lacking = new Map([[api, { available: true }], [nfs, { available: false, reason: 'needs a kernel NFS client', hostLacks: true }]]);
    const hint = () => 'npm run setup -- zerofs';
    expect(() => planAvailability([api, nfs], lacking, stepsOf([api, nfs]), false, hint))
      .toThrow(expect.objectContaining({ fix: 'run it on a host that has what it needs, or leave it out with --methods s3-api' }));
  });
  test('a matrix whose every method is skipped is rejected, unless only some steps were asked for', () => {
    expect(() => planAvailability([files], availability, stepsOf([files]), false)).toThrow(/nothing to measure here/);
    expect(planAvailability([files], availability, stepsOf([files]).slice(0, 1), true).steps).toEqual([]);
  });
});

describe('methodsToProbe: what a runner\'s shard needs on its host', () => {
  const api = choice('s3-api');
  const fuse = choice('s3fs');
  const crt = choice('s3-crt');
  const steps = stepsOf([api, fuse, crt]);
  test('a whole run probes every method of the matrix', () => {
    expect(methodsToProbe([api, fuse, crt], steps, false, () => true)).toEqual([api, fuse, crt]);
  });
  test('some steps (a shard): only the methods of its steps that apply — a step that does not apply needs no client', () => {
    const shard = steps.filter((s) => s.method !== crt);
    expect(methodsToProbe([api, fuse, crt], shard, true, () => true)).toEqual([api, fuse]);
    expect(methodsToProbe([api, fuse, crt], steps, true, (s) => s.method === fuse)).toEqual([fuse]);
  });
});

describe('chooseSteps and checkRunOptions: bad input before anything is created', () => {
  const all = stepsOf([choice('s3-api')], 3);
  test('steps by number, and a number outside the matrix', () => {
    expect(chooseSteps(all, [2]).map((s) => s.index)).toEqual([2]);
    expect(chooseSteps(all).length).toBe(3);
    expect(() => chooseSteps(all, [4])).toThrow(/step 4 is not in the matrix \(it has 3 steps\)/);
  });
  test('run id, runner id and endpoint options', () => {
    expect(() => checkRunOptions({ runId: 'x' })).toThrow(/run id "x" is not valid — use the form 20261122T101500Z-ab12cd/);
    expect(() => checkRunOptions({ runnerId: 'a b' })).toThrow(/runner id "a b" is not valid/);
    expect(() => checkRunOptions({ endpoint: 'http://h:1' })).toThrow(/--endpoint needs --bucket/);
    expect(() => checkRunOptions({ bucket: 'b' })).toThrow(/--bucket needs --endpoint/);
    expect(() => checkRunOptions({ endpoint: 'h:1', bucket: 'b' })).toThrow(/is not a URL/);
    expect(() => checkRunOptions({ runId: '20261122T101500Z-ab12cd', runnerId: 'i-0abc', endpoint: 'http://127.0.0.1:9000', bucket: 'b' })).not.toThrow();
    expect(() => checkRunOptions({ bucket: 'b', awsTarget: true })).not.toThrow();
  });
});

describe('parseClientsOption: s3ab run --clients', () => {
  test('a list is taken as given (sorted, once each); a single N above 1 adds the one-client baseline', () => {
    expect(parseClientsOption('1,2,4')).toEqual([1, 2, 4]);
    expect(parseClientsOption('4, 2,2')).toEqual([2, 4]);
    expect(parseClientsOption('3')).toEqual([1, 3]);
    expect(parseClientsOption('1')).toEqual([1]);
    expect(parseClientsOption('64')).toEqual([1, 64]);
  });
  test.each([['0', '"0"'], ['2.5', '"2.5"'], ['65', '"65"'], ['1,x', '"x"'], ['', 'no fleet size'], ['-3', '"-3"']])('--clients %s is bad input naming %s, with the fix', (text, named) => {
    const err = (() => { try { parseClientsOption(text); } catch (e) { return e; } return null; })() as UserError;
    expect(err).toBeInstanceOf(UserError);
    expect(err.problem).toContain(named);
    expect(err.fix).toMatch(/from 1 to 64, e\.g\. --clients 3/);
  });
});

describe('stepFailed, finalStatus and exitCodeFor', () => {
  test('a step fails only when it could not run to its end', () => {
    expect(stepFailed([{ flags: [] }, { flags: ['served-from-cache'] }])).toBe(false);
    expect(stepFailed([{ flags: ['step-failed'] }])).toBe(true);
    expect(stepFailed([])).toBe(false);
  });
  test('every step ran: complete; failed steps, an abort or an interruption say so', () => {
    const base = { aborted: null, interrupted: false, stepsFailed: 0, stepsDone: 4, stepsTotal: 4 };
    expect(finalStatus(base)).toEqual({ status: 'complete', problem: null });
    expect(finalStatus({ ...base, stepsFailed: 1 })).toEqual({ status: 'failed', problem: '1 of 4 steps failed' });
    expect(finalStatus({ ...base, aborted: new Error('the endpoint went away'), stepsDone: 2 })).toEqual({ status: 'failed', problem: 'the endpoint went away' });
    expect(finalStatus({ ...base, aborted: new Error('interrupted'), interrupted: true, stepsDone: 1 })).toEqual({ status: 'interrupted', problem: 'interrupted' });
  });
  test('a run that stopped short without a reason is never complete', () => {
    expect(finalStatus({ aborted: null, interrupted: false, stepsFailed: 0, stepsDone: 3, stepsTotal: 4 })).toEqual({ status: 'failed', problem: 'not every step ran' });
  });
  test('exit codes: 0 complete, 1 failed, 130 interrupted', () => {
    expect(exitCodeFor('complete')).toBe(0);
    expect(exitCodeFor('failed')).toBe(1);
    expect(exitCodeFor('running')).toBe(1);
    expect(exitCodeFor('interrupted')).toBe(130);
  });
});

describe('lockDecision: one mount benchmark per host', () => {
  const holder = { pid: 4242, runId: '20261122T101500Z-ab12cd', startedAt: '2026-11-22T10:15:00Z', hostname: 'h' };
  test('free: take it; held by a live run: refuse, or wait when asked; held by a run that is gone: take it over', () => {
    expect(lockDecision(null, false, false)).toBe('take');
    expect(lockDecision(holder, true, false)).toBe('refuse');
    expect(lockDecision(holder, true, true)).toBe('wait');
    expect(lockDecision(holder, false, false)).toBe('take-over-stale');
    expect(lockDecision(holder, false, true)).toBe('take-over-stale');
  });
});

describe('withFailureCause: a client\'s death is named wherever the failure shows', () => {
  const died = new Error('the s3fs client (pid 77) exited mid-run (signal SIGKILL)');
  test('an ENOTCONN failure gains the cause', () => {
    expect(withFailureCause({ status: 'failed', errorSample: 'ENOTCONN: socket is not connected, close' }, died).errorSample)
      .toBe('the s3fs client (pid 77) exited mid-run (signal SIGKILL): ENOTCONN: socket is not connected, close');
  });
  test('other failures, successes, and steps without a cause are left as they are', () => {
    expect(withFailureCause({ status: 'failed', errorSample: 'EDATA: wrong bytes' }, died).errorSample).toBe('EDATA: wrong bytes');
    expect(withFailureCause({ status: 'ok', errorSample: null }, died).errorSample).toBeNull();
    expect(withFailureCause({ status: 'failed', errorSample: 'ENOTCONN' }, null).errorSample).toBe('ENOTCONN');
  });
});

describe('spaceProblem', () => {
  const mib = (n: number) => n * 1024 * 1024;
  const fmt = (b: number) => `${b / mib(1)} MiB`;
  const need = (folder: string, device: number, freeMiB: number, needMiB: number) =>
    ({ role: `role ${folder}`, folder, device, freeBytes: mib(freeMiB), needBytes: mib(needMiB), largest: 'x' });
  test('fits: null', () => {
    expect(spaceProblem([need('/tmp', 1, 100, 60), need('/dev/shm', 2, 100, 90)], fmt)).toBeNull();
  });
  test('one folder short: names it, what it needs and what it has', () => {
    const p = spaceProblem([need('/tmp', 1, 100, 60), need('/dev/shm', 2, 100, 120)], fmt)!;
    expect(p.problem).toMatch(/needs about 120 MiB of temp space but \/dev\/shm has 100 MiB free/);
    expect(p.fix).toMatch(/S3AB_TMP/);
  });
  test('two folders on one file system share its free space', () => {
    const p = spaceProblem([need('/tmp', 1, 100, 60), need('/var/tmp', 1, 100, 60)], fmt)!;
    expect(p.problem).toMatch(/120 MiB .* \/tmp and \/var\/tmp have 100 MiB free/);
  });
});

describe('fixtureBytes', () => {
  test('objects of one size: count × size; of many sizes: their sum', () => {
    expect(fixtureBytes({ id: 'a', count: 3, size: 10, keyOf: String })).toBe(30);
    expect(fixtureBytes({ id: 'b', count: 3, size: 30, keyOf: String, sizeOf: (i) => [10, 20, 30][i] })).toBe(60);
  });
});
