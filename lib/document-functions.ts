import { Duration } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { BenchFunction } from './bench-function';
import type { DataStorage } from './data-storage';
import { acknowledge, nagBucketArn } from './nag';
import { DOCS_PREFIX, MOUNT_PATH } from './document-prefixes';
import { RESULTS_LAYOUT } from './results-layout';

export interface DocumentFunctionsProps {
  readonly storage: DataStorage;
  readonly resultsBucket: s3.IBucket;
  readonly vpc: ec2.IVpc;
  readonly functionSubnets: ec2.SubnetSelection;
  readonly functionSecurityGroup: ec2.ISecurityGroup;
  /** Memory of both functions (seed 001: 512 MB, the threshold for S3 Files direct reads). @default 512 */
  readonly memorySize?: number;
  /** @default Duration.minutes(5) */
  readonly timeout?: Duration;
}

;

/**
 * Seed 001's two document-processing functions, one shared processing core (lambda/shared):
 * - `before`: S3 API (list, download to /tmp, process, upload metadata, copy + delete to move),
 *   outside the VPC, allowed only the docs/ prefix of the data bucket;
 * - `after`: the same job on the S3 Files access point mounted at /mnt/docs (in the VPC's
 *   isolated subnets, NFS to the mount targets only), with s3:GetObject for S3 Files' direct
 *   reads of large files; created only after every mount target is available.
 * Both write their per-phase records to the results bucket.
 */
export class DocumentFunctions extends Construct {
  readonly before: BenchFunction;
  readonly after: BenchFunction;

  constructor(scope: Construct, id: string, props: DocumentFunctionsProps) {
    super(scope, id);
    const memorySize = props.memorySize ?? 512;
    const timeout = props.timeout ?? Duration.minutes(5);
    const { storage } = props;
    const common = { RESULTS_BUCKET: props.resultsBucket.bucketName };

    this.before = new BenchFunction(this, 'Before', {
      entry: 'before',
      description: 's3-access-bench: seed 001 document processing through the S3 API (download, process, copy + delete)',
      memorySize, timeout,
      environment: { ...common, DATA_BUCKET: storage.bucket.bucketName, DOCS_PREFIX },
    });
    this.before.role.addToPolicy(new iam.PolicyStatement({
      actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
      resources: [storage.bucket.arnForObjects(`${DOCS_PREFIX}*`)],
    }));
    this.before.role.addToPolicy(new iam.PolicyStatement({
      actions: ['s3:ListBucket'], resources: [storage.bucket.bucketArn], conditions: { StringLike: { 's3:prefix': [`${DOCS_PREFIX}*`] } },
    }));

    const fs = lambda.FileSystem.fromS3FilesAccessPoint(storage.accessPoint, MOUNT_PATH);
    this.after = new BenchFunction(this, 'After', {
      entry: 'after',
      description: 's3-access-bench: seed 001 document processing on the S3 Files mount (readdir, read, write, rename)',
      memorySize, timeout,
      environment: { ...common, MOUNT_PATH, ACCESS_POINT_ARN: storage.accessPoint.attrAccessPointArn },
      vpc: { vpc: props.vpc, vpcSubnets: props.functionSubnets, securityGroups: [props.functionSecurityGroup], filesystem: fs },
    });
    // Direct reads: S3 Files serves reads of ≥ 1 MiB straight from S3 when the role may read the objects (seed 001).
    this.after.role.addToPolicy(new iam.PolicyStatement({
      actions: ['s3:GetObject', 's3:GetObjectVersion'],
      resources: [storage.bucket.arnForObjects(storage.accessPointPrefix + '*')],
    }));
    storage.waitForMountTargets(this.after.function);

    for (const f of [this.before, this.after]) {
      f.role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [props.resultsBucket.arnForObjects(`${RESULTS_LAYOUT.records}*`)] }));
    }

    const dataArn = nagBucketArn(storage.bucket);
    const resultsArn = nagBucketArn(props.resultsBucket);
    for (const [f, prefix] of [[this.before, DOCS_PREFIX], [this.after, storage.accessPointPrefix]] as const) {
      const policy = f.role.node.findChild('DefaultPolicy');
      acknowledge(policy, `AwsSolutions-IAM5[Resource::${dataArn}/${prefix}*]`, `documents of each run live under ${prefix}RUNID/, named at run time`);
      acknowledge(policy, `AwsSolutions-IAM5[Resource::${resultsArn}/${RESULTS_LAYOUT.records}*]`, 'result files go to results/dt=DATE/RUNID--… (Hive partitions by date)');
    }
  }
}
