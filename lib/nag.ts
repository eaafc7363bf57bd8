import { CfnResource, Stack, Token, Validations } from 'aws-cdk-lib';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';

export interface Acknowledgment {
  path: string;
  id: string;
  reason: string;
}

/** Every acknowledgment made, so a test can check that each one still matches a finding. */
export const acknowledgments: Acknowledgment[] = [];
let enabled = true;

/** Tests only: record acknowledgments without applying them, to see the findings they excuse. */
export function applyAcknowledgments(on: boolean): void {
  enabled = on;
}

/**
 * Acknowledges one cdk-nag finding on one construct, with the reason it is acceptable there.
 * Always called next to the resource it excuses (never stack-wide); `id` may carry a finding
 * suffix such as `AwsSolutions-IAM5[Action::s3:List*]`.
 */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  acknowledgments.push({ path: scope.node.path, id, reason });
  if (enabled) Validations.of(scope).acknowledge({ id, reason });
}

/**
 * A bucket's ARN as cdk-nag writes it in a finding: `<LogicalId.Arn>` for a bucket of this stack,
 * `arn:<AWS::Partition>:s3:::NAME` for one imported by name (an adopted results bucket).
 */
export function nagBucketArn(bucket: IBucket): string {
  const resource = bucket.node.defaultChild;
  if (resource instanceof CfnResource) return `<${Stack.of(bucket).getLogicalId(resource)}.Arn>`;
  if (Token.isUnresolved(bucket.bucketName)) throw new Error(`nagBucketArn: the imported bucket ${bucket.node.path} has no literal name`);
  return `arn:<AWS::Partition>:s3:::${bucket.bucketName}`;
}
