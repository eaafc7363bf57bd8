import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { functionCode } from './function-bundles';
import { acknowledge, nagBucketArn } from './nag';


export interface BenchFunctionProps {
  /** Handler file under lambda/, without extension, e.g. `before`. */
  readonly entry: string;
  /** What the function does (the Lambda description). */
  readonly description: string;
  /** @default 512 (seed 001: ≥ 512 MB enables S3 Files' direct S3 reads) */
  readonly memorySize?: number;
  /** @default Duration.minutes(1) */
  readonly timeout?: Duration;
  /** @default {} */
  readonly environment?: Record<string, string>;
  /** Log retention. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** VPC placement and file system: only for functions that mount S3 Files. @default no VPC */
  readonly vpc?: Pick<lambda.FunctionProps, 'vpc' | 'vpcSubnets' | 'securityGroups' | 'filesystem'>;
  /**
   * Ship assets/ (schemas, profiles, queries) next to the bundle and point S3AB_HOME at it, for
   * handlers that run runner code reading those files from disk. @default false
   */
  readonly includeAssets?: boolean;
}

/**
 * The house Lambda construct: every function of the stack is built the same way — Node.js 24 on
 * arm64 (Graviton), bundled from lambda/NAME.ts by esbuild (one pass for all functions, see
 * function-bundles.ts), X-Ray tracing
 * active, Powertools service name and metrics namespace set, its own log group with retention
 * that goes with the stack, and a role whose only log permissions are on that group.
 */
export class BenchFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: BenchFunctionProps) {
    super(scope, id);
    if (!/^[a-z][a-z0-9-]*$/.test(props.entry)) throw new Error(`BenchFunction ${id}: entry "${props.entry}" must be a file name under lambda/ without extension`);
    const memorySize = props.memorySize ?? 512;
    if (memorySize < 128 || memorySize > 10240) throw new Error(`BenchFunction ${id}: memorySize ${memorySize} is outside 128–10240 MB`);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the ${props.entry} function`,
    });
    this.role.addToPolicy(new iam.PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [this.logGroup.logGroupArn, `${this.logGroup.logGroupArn}:*`],
    }));
    acknowledge(this.role, 'AwsSolutions-IAM5[Resource::<' + Stack.of(this).getLogicalId(this.logGroup.node.defaultChild as never) + '.Arn>:*]',
      'log streams of this function\'s own log group: stream names are created by Lambda at run time');

    this.function = new lambda.Function(this, 'Function', {
      code: functionCode(props.entry, { includeAssets: props.includeAssets }),
      handler: 'index.handler',
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize,
      timeout: props.timeout ?? Duration.minutes(1),
      tracing: lambda.Tracing.ACTIVE,
      logGroup: this.logGroup,
      role: this.role,
      environment: {
        POWERTOOLS_SERVICE_NAME: props.entry,
        POWERTOOLS_METRICS_NAMESPACE: 's3-access-bench',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...(props.includeAssets ? { S3AB_HOME: '/var/task' } : {}),
        ...props.environment,
      },
      ...props.vpc,
    });
    if (props.vpc) {
      // Lambda creates the function's network interfaces with the execution role; those EC2 calls take no resource ARNs.
      this.role.addManagedPolicy(iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole'));
      acknowledge(this.role, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
        'Lambda\'s VPC placement: ec2:CreateNetworkInterface and its companions accept no resource ARNs; AWS maintains this policy for exactly that');
    }
    // Tracing writes segments to X-Ray, whose API takes no resource ARNs.
    acknowledge(this.role, 'AwsSolutions-IAM5[Resource::*]', 'X-Ray PutTraceSegments/PutTelemetryRecords accept only Resource "*" (added by tracing: ACTIVE)');
  }

  /**
   * Lets the function call `actions` on `resources` and, in the same call, acknowledges each
   * cdk-nag finding that grant raises (`finding` as cdk-nag names it, e.g. `Resource::*`) with the
   * reason it is acceptable here — so a grant and its excuse never drift apart.
   */
  allow(actions: string[], resources: string[], opts: { conditions?: Record<string, unknown>; acknowledge?: Record<string, string> } = {}): this {
    this.role.addToPolicy(new iam.PolicyStatement({ actions, resources, conditions: opts.conditions }));
    for (const [finding, reason] of Object.entries(opts.acknowledge ?? {})) acknowledge(this.role, `AwsSolutions-IAM5[${finding}]`, reason);
    return this;
  }

  /**
   * Objects under each of `prefixes` in `bucket`: the grant, the bucket's name in the environment
   * variable `env`, and the acknowledgment of each prefix wildcard, in one call.
   */
  allowObjects(bucket: s3.IBucket, actions: string[], prefixes: string[], opts: { env?: string; reason: string }): this {
    const arn = nagBucketArn(bucket);
    this.allow(actions, prefixes.map((p) => bucket.arnForObjects(`${p}*`)), {
      acknowledge: Object.fromEntries(prefixes.map((p) => [`Resource::${arn}/${p}*`, opts.reason])),
    });
    if (opts.env) this.function.addEnvironment(opts.env, bucket.bucketName);
    return this;
  }
}
