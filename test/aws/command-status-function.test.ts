import { DescribeInstanceInformationCommand, ListCommandInvocationsCommand, SSMClient, type CommandInvocation } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import type { handler as Handler } from '../../lambda/command-status';
import { fakeEc2, type FakeInstance } from '../helpers/ec2';
import { lambdaContext } from '../helpers/lambda-context';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
// Imported once the log level is set: the Powertools logger reads it when the module loads.
let handler: typeof Handler;
beforeAll(async () => {
  ({ handler } = await import('../../lambda/command-status'));
});
const ssm = mockClient(SSMClient);
const RUNNERS = ['i-aaa', 'i-bbb', 'i-ccc'];
const live = (state: FakeInstance['state'] = 'running'): FakeInstance[] => RUNNERS.map((id) => ({ id, state, tags: {}, launchTime: new Date() }));
const invocation = (id: string, Status: string, StatusDetails = Status, output = ''): CommandInvocation => ({
  InstanceId: id, CommandId: 'cmd-1', Status: Status as CommandInvocation['Status'], StatusDetails, CommandPlugins: [{ Name: 'runStep', Output: output }],
});
/** SSM lists the invocations one page per instance, as it may. */
function invocations(list: CommandInvocation[]): void {
  ssm.on(ListCommandInvocationsCommand).callsFake((input: { NextToken?: string }) => {
    const i = input.NextToken ? Number(input.NextToken) : 0;
    return { CommandInvocations: list.slice(i, i + 1), ...(i + 1 < list.length ? { NextToken: String(i + 1) } : {}) };
  });
}
const EVENT = { commandId: 'cmd-1', instanceIds: RUNNERS };

beforeEach(() => ssm.reset());

test('done when the command succeeded on every runner (all pages read)', async () => {
  fakeEc2(live());
  invocations(RUNNERS.map((id) => invocation(id, 'Success')));
  expect(await handler(EVENT, lambdaContext())).toEqual({ done: true, succeeded: 3, pending: 0, total: 3 });
  expect(ssm.commandCalls(ListCommandInvocationsCommand)).toHaveLength(3);
  expect(ssm.commandCalls(ListCommandInvocationsCommand)[0].args[0].input).toMatchObject({ CommandId: 'cmd-1', Details: true });
});

test('in progress: not done, with the count still running — including runners SSM has not listed yet', async () => {
  fakeEc2(live());
  invocations([invocation('i-aaa', 'Success'), invocation('i-bbb', 'InProgress')]);
  expect(await handler(EVENT)).toEqual({ done: false, succeeded: 1, pending: 2, total: 3 });
  invocations([invocation('i-aaa', 'Pending'), invocation('i-bbb', 'Delayed'), invocation('i-ccc', 'InProgress')]);
  expect(await handler(EVENT)).toEqual({ done: false, succeeded: 0, pending: 3, total: 3 });
});

test('failed on one runner: CommandFailed with that runner and the tail of its output', async () => {
  fakeEc2(live());
  const output = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\nerror: step 3 failed: mount died';
  invocations([invocation('i-aaa', 'Success'), invocation('i-bbb', 'Failed', 'Failed', output), invocation('i-ccc', 'InProgress')]);
  const err = await handler(EVENT).catch((e) => e);
  expect(err.name).toBe('CommandFailed');
  expect(err.message).toMatch(/^command cmd-1 Failed on i-bbb: line 14\n/);
  expect(err.message).toMatch(/error: step 3 failed: mount died$/);
  expect(err.message).not.toContain('line 13\n');
  // SSM's own timeouts count as failures too.
  invocations([invocation('i-aaa', 'TimedOut', 'ExecutionTimedOut')]);
  await expect(handler(EVENT)).rejects.toMatchObject({ name: 'CommandFailed', message: 'command cmd-1 ExecutionTimedOut on i-aaa: no output' });
});

describe('a lost runner is detected at the next poll, while SSM still says the command is in progress', () => {
  beforeEach(() => invocations(RUNNERS.map((id) => invocation(id, 'InProgress'))));

  test('a runner shutting down (its own lifetime, a spot reclaim, a person)', async () => {
    const instances = live();
    instances[1].state = 'shutting-down';
    instances[1].stateReason = 'Client.UserInitiatedShutdown: User initiated shutdown';
    fakeEc2(instances);
    await expect(handler(EVENT)).rejects.toMatchObject({
      name: 'RunnerLost', message: 'runner i-bbb is shutting-down (Client.UserInitiatedShutdown: User initiated shutdown) while command cmd-1 runs',
    });
  });

  test('a runner stopped or terminated', async () => {
    for (const state of ['stopped', 'terminated'] as const) {
      const instances = live();
      instances[2].state = state;
      fakeEc2(instances);
      await expect(handler(EVENT)).rejects.toMatchObject({ name: 'RunnerLost', message: expect.stringContaining(`runner i-ccc is ${state}`) });
    }
  });

  test('a runner EC2 no longer knows', async () => {
    fakeEc2(live().slice(0, 2));
    await expect(handler(EVENT)).rejects.toMatchObject({ name: 'RunnerLost', message: expect.stringMatching(/a runner is gone while command cmd-1 runs: The instance ID 'i-ccc' does not exist/) });
  });
});

test('a bad event is refused before any call', async () => {
  const ec2 = fakeEc2(live());
  for (const bad of [{}, { commandId: 'cmd-1', instanceIds: [] }, { commandId: '', instanceIds: RUNNERS }, null]) {
    await expect(handler(bad as never)).rejects.toMatchObject({ name: 'InvalidEvent', message: expect.stringContaining('commandId and instanceIds are required') });
  }
  expect(ec2.calls()).toHaveLength(0);
  expect(ssm.calls()).toHaveLength(0);
});

test('a runner EC2 still shows running but whose SSM agent lost contact is RunnerLost at this poll', async () => {
  fakeEc2(live());
  invocations([invocation('i-aaa', 'Success'), invocation('i-bbb', 'InProgress'), invocation('i-ccc', 'InProgress')]);
  ssm.on(DescribeInstanceInformationCommand).resolves({ InstanceInformationList: [
    { InstanceId: 'i-bbb', PingStatus: 'Online' },
    { InstanceId: 'i-ccc', PingStatus: 'ConnectionLost', LastPingDateTime: new Date('2026-11-22T10:00:00Z') },
  ] });
  await expect(handler(EVENT)).rejects.toMatchObject({ name: 'RunnerLost', message: expect.stringMatching(/runner i-ccc stopped answering SSM \(agent ConnectionLost, last ping 2026-11-22T10:00:00.000Z\)/) });
  // Only the runners still working are asked about.
  expect(ssm.commandCalls(DescribeInstanceInformationCommand)[0].args[0].input).toMatchObject({ Filters: [{ Key: 'InstanceIds', Values: ['i-bbb', 'i-ccc'] }] });
});

test('runners whose agents answer keep the poll going', async () => {
  fakeEc2(live());
  invocations([invocation('i-aaa', 'InProgress'), invocation('i-bbb', 'InProgress'), invocation('i-ccc', 'InProgress')]);
  ssm.on(DescribeInstanceInformationCommand).resolves({ InstanceInformationList: RUNNERS.map((InstanceId) => ({ InstanceId, PingStatus: 'Online' })) });
  expect(await handler(EVENT)).toEqual({ done: false, succeeded: 0, pending: 3, total: 3 });
});
