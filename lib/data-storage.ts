import { Aws, CfnResource, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct } from 'constructs';
import { acknowledge } from './nag';

export interface DataStorageProps {
  readonly vpc: ec2.IVpc;
  /** One mount target per subnet: the runner subnets (one per AZ). */
  readonly mountTargetSubnets: ec2.SelectedSubnets;
  /** Security groups that may reach the mount targets on NFS (2049): runners and the S3 Files function. */
  readonly nfsClients: ec2.ISecurityGroup[];
  /** Days before a noncurrent object version is removed (versioning is required by S3 Files). @default 1 */
  readonly noncurrentVersionDays?: number;
  /** POSIX identity of the Lambda access point. @default { uid: 1000, gid: 1000 } */
  readonly accessPointUser?: { uid: number; gid: number };
  /** Root directory of the Lambda access point, created with the access point user as owner. @default '/lambda' */
  readonly accessPointRoot?: string;
  /**
   * Where the bucket's S3 server access logs go (date-partitioned by event time), so each step's
   * S3 requests can be counted (`s3ab aws query requests`). @default no access logs
   */
  readonly accessLogs?: { readonly bucket: s3.IBucket; readonly prefix: string };
}

/** Checks the props together before anything is built; returns them with defaults applied. */
function checkDataStorageProps(props: DataStorageProps): { noncurrentDays: number; accessPointUser: { uid: number; gid: number }; accessPointRoot: string } {
  const noncurrentDays = props.noncurrentVersionDays ?? 1;
  if (!Number.isInteger(noncurrentDays) || noncurrentDays < 1) throw new Error(`DataStorage: noncurrentVersionDays must be a whole number ≥ 1, got ${noncurrentDays}`);
  if (!props.mountTargetSubnets.subnets.length) throw new Error('DataStorage: mountTargetSubnets selects no subnet');
  const accessPointUser = props.accessPointUser ?? { uid: 1000, gid: 1000 };
  if (accessPointUser.uid === 0 || accessPointUser.gid === 0) {
    throw new Error('DataStorage: the access point user must not be root (uid/gid 0): use a scoped root directory instead (seed 001)');
  }
  const accessPointRoot = props.accessPointRoot ?? '/lambda';
  if (!/^\/[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(accessPointRoot)) throw new Error(`DataStorage: accessPointRoot "${accessPointRoot}" must be an absolute path below /`);
  return { noncurrentDays, accessPointUser, accessPointRoot };
}

/**
 * The benchmark data bucket and its Amazon S3 Files file system (seed 001's setup, with its traps
 * handled):
 * - the bucket is versioned (S3 Files requires it), SSE-S3 encrypted, TLS-only, private, and
 *   expires noncurrent versions so repeated runs do not pile them up; `cdk destroy` empties it,
 *   old versions included;
 * - the service role is trusted by `elasticfilesystem.amazonaws.com` (S3 Files is built on EFS;
 *   `s3files.amazonaws.com` is refused), only for this account's file systems in this region,
 *   and holds the bucket and EventBridge (`DO-NOT-DELETE-S3-Files*`) permissions that S3 Files'
 *   prerequisites list — without the latter, S3-side changes never reach the mount;
 * - one mount target per runner subnet, reachable on NFS only from the given security groups;
 * - an access point with a non-root POSIX user and its own root directory created with that
 *   owner (seed 001's ownership lesson: S3-API-written prefixes arrive root-owned);
 * - a file-system policy, added by `allowClients`, that lets only named roles mount and denies
 *   anything without TLS;
 * - the access point and every consumer of it depend on all mount targets, whose CloudFormation
 *   create handler returns once the target is available (it polls GetMountTarget), so a Lambda
 *   is never created against mount targets still being created.
 */
export class DataStorage extends Construct {
  readonly bucket: s3.Bucket;
  readonly serviceRole: iam.Role;
  readonly fileSystem: s3files.CfnFileSystem;
  readonly mountTargets: s3files.CfnMountTarget[];
  readonly mountTargetSecurityGroup: ec2.SecurityGroup;
  readonly accessPoint: s3files.CfnAccessPoint;
  readonly accessPointUser: { uid: number; gid: number };
  readonly fileSystemArn: string;
  private policy?: s3files.CfnFileSystemPolicy;

  /**
   * S3 server access logs of the bucket into `target` under `prefix`, date-partitioned by event
   * time; the target's bucket policy lets the logging service write there, for this bucket only
   * (the policy way AWS recommends, not the log-delivery ACL).
   */
  private logAccessTo(target: s3.IBucket, prefix: string): void {
    (this.bucket.node.defaultChild as s3.CfnBucket).loggingConfiguration = {
      destinationBucketName: target.bucketName,
      logFilePrefix: prefix,
      targetObjectKeyFormat: { partitionedPrefix: { partitionDateSource: 'EventTime' } },
    };
    target.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'S3ServerAccessLogsOfTheDataBucket',
      principals: [new iam.ServicePrincipal('logging.s3.amazonaws.com')],
      actions: ['s3:PutObject'],
      resources: [target.arnForObjects(`${prefix}*`)],
      conditions: { ArnLike: { 'aws:SourceArn': this.bucket.bucketArn }, StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
    }));
  }

  constructor(scope: Construct, id: string, props: DataStorageProps) {
    super(scope, id);
    const { noncurrentDays, accessPointUser, accessPointRoot } = checkDataStorageProps(props);
    this.accessPointUser = accessPointUser;
    this.bucket = this.createBucket(noncurrentDays, props.accessLogs !== undefined);
    if (props.accessLogs) this.logAccessTo(props.accessLogs.bucket, props.accessLogs.prefix);
    const { role, rolePolicy } = this.createServiceRole();
    this.serviceRole = role;
    this.fileSystem = this.createFileSystem(rolePolicy);
    this.fileSystemArn = this.fileSystem.attrFileSystemArn;
    const { securityGroup, mountTargets } = this.createMountTargets(props);
    this.mountTargetSecurityGroup = securityGroup;
    this.mountTargets = mountTargets;
    this.accessPoint = this.createLambdaAccessPoint(accessPointRoot);
  }

  /** The versioned, private data bucket, emptied (old versions included) on `cdk destroy`. */
  private createBucket(noncurrentDays: number, accessLogs: boolean): s3.Bucket {
    const bucket = new s3.Bucket(this, 'Bucket', {
      versioned: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{
        id: 'expire-noncurrent-versions',
        noncurrentVersionExpiration: Duration.days(noncurrentDays),
        expiredObjectDeleteMarker: true,
        abortIncompleteMultipartUploadAfter: Duration.days(1),
      }],
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    if (!accessLogs) acknowledge(bucket, 'AwsSolutions-S1', 'benchmark scratch data; the stack that owns it can turn on access logs with the accessLogs prop');
    return bucket;
  }

  /** The role S3 Files assumes to synchronize the file system with the bucket, and its policy (S3 Files' prerequisites). */
  private createServiceRole(): { role: iam.Role; rolePolicy: iam.Policy } {
    const role = new iam.Role(this, 'S3FilesRole', {
      description: 'Assumed by Amazon S3 Files to synchronize the file system with the data bucket',
      assumedBy: new iam.ServicePrincipal('elasticfilesystem.amazonaws.com').withConditions({
        StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        // The file system does not exist yet when the role is created: any file system of this account and region.
        ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:s3files:${Aws.REGION}:${Aws.ACCOUNT_ID}:file-system/*` },
      }),
    });
    const sameAccount = { StringEquals: { 'aws:ResourceAccount': Aws.ACCOUNT_ID } };
    const rolePolicy = new iam.Policy(this, 'S3FilesRolePolicy', {
      roles: [role],
      statements: [
        new iam.PolicyStatement({
          sid: 'BucketLevel',
          // S3 Files' prerequisite policy, as AWS's examples write it: single actions leave gaps that show only as sync failures.
          actions: ['s3:List*', 's3:GetBucketLocation', 's3:GetBucketVersioning'],
          resources: [this.bucket.bucketArn],
          conditions: sameAccount,
        }),
        new iam.PolicyStatement({
          sid: 'ObjectLevel',
          actions: ['s3:GetObject*', 's3:PutObject*', 's3:DeleteObject*', 's3:List*', 's3:AbortMultipartUpload'],
          resources: [this.bucket.arnForObjects('*')],
          conditions: sameAccount,
        }),
        new iam.PolicyStatement({
          sid: 'EventBridgeManage',
          actions: ['events:PutRule', 'events:PutTargets', 'events:DeleteRule', 'events:DisableRule', 'events:EnableRule', 'events:RemoveTargets'],
          resources: [`arn:${Aws.PARTITION}:events:${Aws.REGION}:${Aws.ACCOUNT_ID}:rule/DO-NOT-DELETE-S3-Files*`],
          conditions: { StringEquals: { 'events:ManagedBy': 'elasticfilesystem.amazonaws.com' } },
        }),
        new iam.PolicyStatement({
          sid: 'EventBridgeRead',
          actions: ['events:DescribeRule', 'events:ListRuleNamesByTarget', 'events:ListRules', 'events:ListTargetsByRule'],
          resources: [`arn:${Aws.PARTITION}:events:${Aws.REGION}:${Aws.ACCOUNT_ID}:rule/*`],
        }),
      ],
    });
    acknowledge(rolePolicy, 'AwsSolutions-IAM5[Resource::<' + this.logicalIdOf(this.bucket) + '.Arn>/*]',
      'S3 Files synchronizes every object of the bucket it serves');
    for (const action of ['s3:GetObject*', 's3:PutObject*', 's3:DeleteObject*', 's3:List*']) {
      acknowledge(rolePolicy, `AwsSolutions-IAM5[Action::${action}]`,
        'the action families S3 Files\' prerequisite policy grants its service role (object versions, tags and attributes included), on this bucket only');
    }
    acknowledge(rolePolicy, 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:events:<AWS::Region>:<AWS::AccountId>:rule/DO-NOT-DELETE-S3-Files*]',
      'S3 Files names its synchronization rules DO-NOT-DELETE-S3-Files-<id> at run time; the events:ManagedBy condition limits them to rules it manages');
    acknowledge(rolePolicy, 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:events:<AWS::Region>:<AWS::AccountId>:rule/*]',
      'read-only EventBridge calls S3 Files makes to find its own rules (S3 Files prerequisites); scoped to this account and region');
    return { role, rolePolicy };
  }

  /** The S3 Files file system over the bucket, created after its role's policy and removed before the bucket is emptied. */
  private createFileSystem(rolePolicy: iam.Policy): s3files.CfnFileSystem {
    const fileSystem = new s3files.CfnFileSystem(this, 'FileSystem', {
      bucket: this.bucket.bucketArn,
      roleArn: this.serviceRole.roleArn,
      tags: [{ key: 'Name', value: `${Stack.of(this).stackName}-data` }],
    });
    // Creating the file system makes S3 Files assume the role at once: its permissions must exist first.
    fileSystem.node.addDependency(rolePolicy);
    // On `cdk destroy` the file system must go before the bucket is emptied (else its last
    // synchronization can write into an emptied bucket): it depends on the auto-delete resource,
    // which lists and deletes every object version and delete marker.
    const autoDelete = this.bucket.node.tryFindChild('AutoDeleteObjectsCustomResource');
    if (autoDelete) fileSystem.node.addDependency(autoDelete);
    return fileSystem;
  }

  /** One mount target per subnet, reachable on NFS only from the given clients. */
  private createMountTargets(props: DataStorageProps): { securityGroup: ec2.SecurityGroup; mountTargets: s3files.CfnMountTarget[] } {
    const securityGroup = new ec2.SecurityGroup(this, 'MountTargetSg', {
      vpc: props.vpc,
      description: 'S3 Files mount targets: NFS (2049) from the benchmark runners and the S3 Files function only',
      allowAllOutbound: false,
    });
    for (const client of props.nfsClients) {
      securityGroup.addIngressRule(client, ec2.Port.tcp(2049), 'NFS from a benchmark client');
    }
    const mountTargets = props.mountTargetSubnets.subnets.map((subnet, i) => new s3files.CfnMountTarget(this, `MountTarget${i + 1}`, {
      fileSystemId: this.fileSystem.attrFileSystemId,
      subnetId: subnet.subnetId,
      securityGroups: [securityGroup.securityGroupId],
    }));
    return { securityGroup, mountTargets };
  }

  /** The Lambda's access point: a non-root POSIX user and its own root directory, after every mount target. */
  private createLambdaAccessPoint(root: string): s3files.CfnAccessPoint {
    const { uid, gid } = this.accessPointUser;
    const accessPoint = new s3files.CfnAccessPoint(this, 'LambdaAccessPoint', {
      fileSystemId: this.fileSystem.attrFileSystemId,
      posixUser: { uid: String(uid), gid: String(gid) },
      rootDirectory: { path: root, creationPermissions: { ownerUid: String(uid), ownerGid: String(gid), permissions: '755' } },
      tags: [{ key: 'Name', value: `${Stack.of(this).stackName}-lambda` }],
    });
    for (const mt of this.mountTargets) accessPoint.addResourceDependency(mt);
    return accessPoint;
  }

  /** Makes a resource wait until every mount target exists (and so is available). */
  waitForMountTargets(consumer: CfnResource | Construct): void {
    for (const mt of this.mountTargets) consumer.node.addDependency(mt);
  }

  /** S3 key prefix that the access point's root directory maps to (e.g. `lambda/`). */
  get accessPointPrefix(): string {
    return `${(this.accessPoint.rootDirectory as { path: string }).path.replace(/^\//, '')}/`;
  }

  /**
   * Writes the file-system policy: the given roles may mount and write (and, where listed in
   * `rootAccess`, act as root), every other principal is denied client access, and every request
   * without TLS is denied. Called once, with every client.
   */
  allowClients(clients: iam.IRole[], rootAccess: iam.IRole[] = []): s3files.CfnFileSystemPolicy {
    if (this.policy) throw new Error('DataStorage.allowClients: the file-system policy is already written; pass every client in one call');
    if (!clients.length) throw new Error('DataStorage.allowClients: name at least one client role');
    const statements: Record<string, unknown>[] = [{
      Sid: 'MountAndWriteForBenchmarkRoles',
      Effect: 'Allow',
      Principal: { AWS: clients.map((r) => r.roleArn) },
      Action: ['s3files:ClientMount', 's3files:ClientWrite'],
      Resource: this.fileSystemArn,
    }];
    if (rootAccess.length) {
      statements.push({
        Sid: 'RootAccessForRunners',
        Effect: 'Allow',
        Principal: { AWS: rootAccess.map((r) => r.roleArn) },
        Action: 's3files:ClientRootAccess',
        Resource: this.fileSystemArn,
      });
    }
    // An Allow here does not stop other roles of the account whose own IAM policy grants
    // s3files:Client* (AWS documents this); the explicit deny does, whatever identity policies say.
    statements.push({
      Sid: 'DenyClientsOtherThanBenchmarkRoles',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'],
      Resource: this.fileSystemArn,
      Condition: { ArnNotEquals: { 'aws:PrincipalArn': clients.map((r) => r.roleArn) } },
    });
    statements.push({
      Sid: 'DenyWithoutTls',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 's3files:*',
      Resource: this.fileSystemArn,
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    });
    this.policy = new s3files.CfnFileSystemPolicy(this, 'FileSystemPolicy', {
      fileSystemId: this.fileSystem.attrFileSystemId,
      policy: { Version: '2012-10-17', Statement: statements },
    });
    return this.policy;
  }

  private logicalIdOf(c: Construct): string {
    return Stack.of(this).getLogicalId(c.node.defaultChild as CfnResource);
  }
}
