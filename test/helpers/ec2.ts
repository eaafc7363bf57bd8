import { DescribeInstancesCommand, EC2Client, TerminateInstancesCommand, type DescribeInstancesCommandInput, type Instance } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';

export interface FakeInstance {
  id: string;
  state: 'pending' | 'running' | 'shutting-down' | 'terminated' | 'stopping' | 'stopped';
  tags: Record<string, string>;
  launchTime: Date;
  stateReason?: string;
}

/**
 * EC2 for the handlers, which cannot run here: a set of instances behind DescribeInstances (its
 * filters on tags and state applied as EC2 applies them, unknown ids refused with
 * InvalidInstanceID.NotFound, `pageSize` instances a page with NextToken) and
 * TerminateInstances (the instances go to shutting-down). Every call is recorded by the mock.
 */
export function fakeEc2(instances: FakeInstance[], opts: { pageSize?: number } = {}) {
  const pageSize = opts.pageSize ?? 2;
  const mock = mockClient(EC2Client);
  const toInstance = (i: FakeInstance): Instance => ({
    InstanceId: i.id, State: { Name: i.state }, LaunchTime: i.launchTime, Tags: Object.entries(i.tags).map(([Key, Value]) => ({ Key, Value })),
    ...(i.stateReason ? { StateReason: { Message: i.stateReason } } : {}),
  });
  mock.on(DescribeInstancesCommand).callsFake((input: DescribeInstancesCommandInput) => {
    if (input.InstanceIds && input.MaxResults) throw Object.assign(new Error('The parameter instancesSet cannot be used with the parameter maxResults'), { name: 'InvalidParameterCombination' });
    for (const id of input.InstanceIds ?? []) {
      if (!instances.some((i) => i.id === id)) throw Object.assign(new Error(`The instance ID '${id}' does not exist`), { name: 'InvalidInstanceID.NotFound' });
    }
    const matches = instances.filter((i) => (!input.InstanceIds || input.InstanceIds.includes(i.id)) && (input.Filters ?? []).every((f) => {
      if (f.Name === 'instance-state-name') return f.Values!.includes(i.state);
      if (f.Name?.startsWith('tag:')) return f.Values!.includes(i.tags[f.Name.slice(4)]);
      throw new Error(`fake EC2: filter ${f.Name} is not modelled`);
    }));
    const start = input.NextToken ? Number(input.NextToken) : 0;
    const page = matches.slice(start, start + pageSize);
    return {
      Reservations: page.map((i) => ({ ReservationId: `r-${i.id}`, Instances: [toInstance(i)] })),
      ...(start + pageSize < matches.length ? { NextToken: String(start + pageSize) } : {}),
    };
  });
  mock.on(TerminateInstancesCommand).callsFake((input: { InstanceIds?: string[] }) => ({
    TerminatingInstances: (input.InstanceIds ?? []).map((id) => {
      const i = instances.find((x) => x.id === id);
      if (!i) throw Object.assign(new Error(`The instance ID '${id}' does not exist`), { name: 'InvalidInstanceID.NotFound' });
      const previous = i.state;
      if (i.state !== 'terminated') i.state = 'shutting-down';
      return { InstanceId: id, PreviousState: { Name: previous }, CurrentState: { Name: i.state } };
    }),
  }));
  return mock;
}

/** The ids every TerminateInstances call asked for, in order. */
export function terminatedIds(mock: ReturnType<typeof fakeEc2>): string[] {
  return mock.commandCalls(TerminateInstancesCommand).flatMap((c) => c.args[0].input.InstanceIds ?? []);
}
