import { createServer, type IncomingMessage, type Server } from 'node:http';
import { estimateFor } from '../../runner/aws/estimate';
import { s3ab } from '../helpers/cli';

/**
 * `s3ab aws run` as a user runs it (the bundled CLI, its own process), against stand-ins of the
 * AWS control plane on loopback that answer on the wire as AWS does — CloudFormation and EC2 in
 * their query protocols (XML), Service Quotas in AWS JSON 1.1, signed with SigV4 — reached through
 * the SDKs' service-specific endpoint variables. The account: a Standard vCPU quota of 32 with 8
 * vCPUs already running; `seed` plans 16 runners of 2 vCPUs.
 */
const ZONES = ['us-east-1a', 'us-east-1b'];
const KEY = 'AKIAREHEARSALCAPACITY';

interface Seen { action: string; service: string; body: string; authorization: string }

function standIns(account: { quota: number; runningVcpus: number }): { server: Server; seen: Seen[] } {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const authorization = String(req.headers.authorization ?? '');
    const service = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\//.exec(authorization)?.[1] ?? '';
    const target = String(req.headers['x-amz-target'] ?? '');
    const form = new URLSearchParams(body);
    const action = target ? target.split('.').pop()! : form.get('Action') ?? '';
    seen.push({ action, service, body, authorization });
    const xml = (text: string) => { res.writeHead(200, { 'content-type': 'text/xml' }); res.end(`<?xml version="1.0" encoding="UTF-8"?>${text}`); };
    if (action === 'GetServiceQuota') {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ Quota: { ServiceCode: 'ec2', QuotaCode: 'L-1216C47A', QuotaName: 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances', Value: account.quota } }));
    } else if (action === 'DescribeStacks') {
      const outputs = { StateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:sm', AthenaWorkGroup: 'wg', RunnerAvailabilityZones: ZONES.join(',') };
      xml(`<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>S3AccessBench</StackName><StackStatus>CREATE_COMPLETE</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime><Outputs>${
        Object.entries(outputs).map(([k, v]) => `<member><OutputKey>${k}</OutputKey><OutputValue>${v}</OutputValue></member>`).join('')}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>r1</RequestId></ResponseMetadata></DescribeStacksResponse>`);
    } else if (action === 'DescribeInstances') {
      const instances = Array.from({ length: account.runningVcpus / 2 }, (_, i) => `<item><instanceId>i-0000000000000000${i}</instanceId><instanceType>m7i.large</instanceType><instanceState><code>16</code><name>running</name></instanceState><cpuOptions><coreCount>1</coreCount><threadsPerCore>2</threadsPerCore></cpuOptions></item>`).join('');
      xml(`<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r2</requestId><reservationSet><item><reservationId>r-1</reservationId><ownerId>123456789012</ownerId><instancesSet>${instances}</instancesSet></item></reservationSet></DescribeInstancesResponse>`);
    } else if (action === 'DescribeInstanceTypeOfferings') {
      const values = (name: string) => [...form.entries()].filter(([k]) => k.startsWith('Filter.') && form.get(k.replace(/\.Value\.\d+$/, '.Name')) === name && /\.Value\.\d+$/.test(k)).map(([, v]) => v);
      const items = values('instance-type').flatMap((t) => values('location').map((z) => `<item><instanceType>${t}</instanceType><locationType>availability-zone</locationType><location>${z}</location></item>`)).join('');
      xml(`<DescribeInstanceTypeOfferingsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r3</requestId><instanceTypeOfferingSet>${items}</instanceTypeOfferingSet></DescribeInstanceTypeOfferingsResponse>`);
    } else {
      // StartExecution or anything else: the test fails on it below (nothing may be started).
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ __type: 'UnknownOperationException', message: `the stand-ins do not answer ${action}` }));
    }
  });
  return { server, seen };
}

describe('s3ab aws run: the account\'s capacity checked before anything is created, on the wire', () => {
  let server: Server;
  let seen: Seen[];
  let endpoint: string;

  beforeAll(async () => {
    ({ server, seen } = standIns({ quota: 32, runningVcpus: 8 }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const a = server.address();
    endpoint = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('--profile seed on a 32-vCPU quota with 8 running: exit 2, the quota and the fix named, no execution started', async () => {
    const env = {
      AWS_ACCESS_KEY_ID: KEY, AWS_SECRET_ACCESS_KEY: 'rehearsal-secret', AWS_REGION: 'us-east-1', AWS_EC2_METADATA_DISABLED: 'true', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint, AWS_ENDPOINT_URL_EC2: endpoint, AWS_ENDPOINT_URL_SERVICE_QUOTAS: endpoint, AWS_ENDPOINT_URL_SFN: endpoint, AWS_ENDPOINT_URL_ATHENA: endpoint,
    };
    const r = await s3ab(['aws', 'run', '--profile', 'seed'], { env });
    const runners = estimateFor({ profile: 'seed' }).runners;
    expect(runners.reduce((n, x) => n + 2 * x.count, 0)).toBe(32);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: expect.stringContaining('s3ab: the account\'s On-Demand Standard vCPU quota (Service Quotas ec2 L-1216C47A, "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances") is 32 vCPUs and 8 are running: 24 free') });
    expect(r.stderr).toMatch(/ {2}fix: request an increase to at least 40 vCPUs \(`aws service-quotas request-service-quota-increase --service-code ec2 --quota-code L-1216C47A --desired-value 40`/);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    // What was asked: the stack, the quota (signed for Service Quotas, AWS JSON 1.1), the instances, the offerings in the stack's zones — and nothing started.
    expect(seen.map((s) => s.action).sort()).toEqual(['DescribeInstanceTypeOfferings', 'DescribeInstances', 'DescribeStacks', 'GetServiceQuota']);
    const quota = seen.find((s) => s.action === 'GetServiceQuota')!;
    expect(quota.service).toBe('servicequotas');
    expect(quota.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${KEY}/\\d{8}/us-east-1/servicequotas/aws4_request, SignedHeaders=.*x-amz-target.*, Signature=[0-9a-f]{64}$`));
    expect(JSON.parse(quota.body)).toEqual({ ServiceCode: 'ec2', QuotaCode: 'L-1216C47A' });
    const offerings = new URLSearchParams(seen.find((s) => s.action === 'DescribeInstanceTypeOfferings')!.body);
    expect(offerings.get('LocationType')).toBe('availability-zone');
    expect([...offerings.values()]).toEqual(expect.arrayContaining(ZONES));
  }, 120_000);
});
