import { Stack, StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * The AWS side of s3-access-bench. It composes one construct per concern, each in its own file
 * under lib/: network, data bucket and S3 Files, runner fleet, results catalog, document-processing
 * Lambdas and the Step Functions pipeline (see DESIGN.md). None of them exists yet: today the
 * stack synthesizes empty and the benchmark runs locally only (`npm run local`).
 */
export class S3AccessBenchStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
  }
}
