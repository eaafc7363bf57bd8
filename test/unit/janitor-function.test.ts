import { DescribeInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import type { handler as Handler } from '../../lambda/janitor';
import { RUNNER_TAG } from '../../lib/runner-tags';
import { fakeEc2, terminatedIds, type FakeInstance } from '../helpers/ec2';
import { lambdaContext } from '../helpers/lambda-context';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
// Imported once the log level is set: the Powertools logger reads it when the module loads.
let handler: typeof Handler;
beforeAll(async () => {
  ({ handler } = await import('../../lambda/janitor'));
});
const NOW = new Date('2026-11-22T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3600_000);
const runner = (id: string, hours: number, over: Partial<FakeInstance> = {}, tags: Record<string, string> = {}): FakeInstance => ({
  id, state: 'running', launchTime: hoursAgo(hours), tags: { [RUNNER_TAG.stack]: 'S3AccessBench', [RUNNER_TAG.runId]: '20261122T050000Z-aaaaaa', ...tags }, ...over,
});

beforeEach(() => {
  Object.assign(process.env, { STACK_NAME: 'S3AccessBench', MAX_LIFETIME_MINUTES: '360' });
});

test('terminates only this stack\'s live runners older than the maximum lifetime', async () => {
  const instances = [
    runner('i-old-running', 7),
    runner('i-old-stopped', 30, { state: 'stopped' }),
    runner('i-old-pending', 6.1, { state: 'pending' }),
    runner('i-young', 5.9),
    runner('i-just-under', 6 - 1 / 60),
    runner('i-old-terminated', 9, { state: 'terminated' }),
    runner('i-old-shutting-down', 9, { state: 'shutting-down' }),
    runner('i-other-stack', 9, {}, { [RUNNER_TAG.stack]: 'SomeoneElse' }),
    { id: 'i-untagged', state: 'running', launchTime: hoursAgo(48), tags: { Name: 'not a runner' } } as FakeInstance,
  ];
  const ec2 = fakeEc2(instances, { pageSize: 2 });
  const out = await handler({}, lambdaContext(), { now: NOW });
  expect(out.terminated.sort()).toEqual(['i-old-pending', 'i-old-running', 'i-old-stopped']);
  expect(out.checked).toBe(5); // this stack's live runners, over three pages
  expect(terminatedIds(ec2).sort()).toEqual(['i-old-pending', 'i-old-running', 'i-old-stopped']);
  expect(ec2.commandCalls(DescribeInstancesCommand).length).toBe(3);
  expect(instances.filter((i) => i.state === 'shutting-down').map((i) => i.id).sort()).toEqual(['i-old-pending', 'i-old-running', 'i-old-shutting-down', 'i-old-stopped']);
});

test('nothing old: no TerminateInstances call at all', async () => {
  const ec2 = fakeEc2([runner('i-young', 1)]);
  expect(await handler({}, lambdaContext(), { now: NOW })).toEqual({ terminated: [], checked: 1 });
  expect(ec2.commandCalls(TerminateInstancesCommand)).toHaveLength(0);
});

test('the lifetime comes from MAX_LIFETIME_MINUTES; a missing or bad value is an error, not "terminate everything"', async () => {
  const ec2 = fakeEc2([runner('i-2h', 2), runner('i-30m', 0.5)]);
  process.env.MAX_LIFETIME_MINUTES = '60';
  expect((await handler({}, lambdaContext(), { now: NOW })).terminated).toEqual(['i-2h']);
  process.env.MAX_LIFETIME_MINUTES = 'six hours';
  await expect(handler({}, lambdaContext(), { now: NOW })).rejects.toThrow(/MAX_LIFETIME_MINUTES must be a number of minutes > 0, got "six hours"/);
  delete process.env.MAX_LIFETIME_MINUTES;
  await expect(handler({}, lambdaContext(), { now: NOW })).rejects.toThrow(/environment variable MAX_LIFETIME_MINUTES is not set/);
  expect(terminatedIds(ec2)).toEqual(['i-2h']);
});
