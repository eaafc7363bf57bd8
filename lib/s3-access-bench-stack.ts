import { CfnOutput, Duration, Stack, StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { DataStorage } from './data-storage';
import { DocumentFunctions } from './document-functions';
import { BenchNetwork } from './network';
import { Pipeline } from './pipeline';
import { ResultsCatalog } from './results-catalog';
import type { ObjectivefsDeploy } from './objectivefs-deploy';
import { RESULTS_LAYOUT } from './results-layout';
import { RunnerFleet } from './runner-fleet';
import { TeardownOnFailure } from './teardown-on-failure';

export interface S3AccessBenchStackProps extends StackProps {
  /** Default runner instance type (context `runnerInstanceType`). @default DEFAULT_RUNNER_INSTANCE_TYPE (lib/instance-types.ts) */
  readonly runnerInstanceType?: string;
  /**
   * Runners end themselves after this long (context `runnerMaxLifetimeHours`); it is also the
   * execution's time limit, so no execution outlives its runners and no runner outlives its
   * execution by much. @default 12 hours
   */
  readonly runnerMaxLifetime?: Duration;
  /** `cdk destroy` deletes the results bucket and its records (context `deleteResultsOnDestroy=true`). @default false: retained */
  readonly deleteResultsOnDestroy?: boolean;
  /** An existing results bucket to adopt instead of creating one (context `resultsBucket=NAME`). @default a new bucket */
  readonly resultsBucketName?: string;
  /** ObjectiveFS on runners (contexts `objectivefsLicenseParameter`, `objectivefsRpmSha256`: lib/objectivefs-deploy.ts). @default not enabled */
  readonly objectivefs?: ObjectivefsDeploy;
}

/**
 * The AWS side of s3-access-bench, one construct per concern (each in its own file under lib/):
 * network, data bucket + S3 Files, results catalog, runner fleet, document-processing functions,
 * and the Step Functions pipeline that runs a benchmark matrix on them.
 * Nothing in it costs money per hour while no benchmark runs.
 */
export class S3AccessBenchStack extends Stack {
  readonly network: BenchNetwork;
  readonly storage: DataStorage;
  readonly results: ResultsCatalog;
  readonly fleet: RunnerFleet;
  readonly documents: DocumentFunctions;
  readonly pipeline: Pipeline;

  constructor(scope: Construct, id: string, props: S3AccessBenchStackProps = {}) {
    super(scope, id, props);
    this.network = new BenchNetwork(this, 'Network');
    this.results = new ResultsCatalog(this, 'Results', { deleteOnDestroy: props.deleteResultsOnDestroy, adoptBucketName: props.resultsBucketName });
    this.storage = new DataStorage(this, 'Data', {
      vpc: this.network.vpc,
      mountTargetSubnets: this.network.runnerSubnets,
      // The S3 Files function's NFS rule is added by its file-system mount (lambda.FileSystem.fromS3FilesAccessPoint).
      nfsClients: [this.network.runnerSecurityGroup],
      // Every request to the data bucket is logged, so each step's requests can be counted at the server.
      accessLogs: { bucket: this.results.bucket, prefix: RESULTS_LAYOUT.accessLogs },
    });
    this.results.addAccessLogs(this.storage.bucket);
    this.fleet = new RunnerFleet(this, 'Runners', {
      vpc: this.network.vpc,
      securityGroup: this.network.runnerSecurityGroup,
      dataBucket: this.storage.bucket,
      resultsBucket: this.results.bucket,
      fileSystemId: this.storage.fileSystem.attrFileSystemId,
      fileSystemArn: this.storage.fileSystemArn,
      instanceType: props.runnerInstanceType,
      maxLifetime: props.runnerMaxLifetime ?? Duration.hours(12),
      objectivefs: props.objectivefs,
    });
    this.documents = new DocumentFunctions(this, 'Documents', {
      storage: this.storage,
      resultsBucket: this.results.bucket,
      vpc: this.network.vpc,
      functionSubnets: { subnets: this.network.functionSubnets.subnets },
      functionSecurityGroup: this.network.functionSecurityGroup,
    });
    const policy = this.storage.allowClients([this.fleet.role, this.documents.after.role], [this.fleet.role]);
    this.storage.waitForMountTargets(policy);

    this.pipeline = new Pipeline(this, 'Pipeline', {
      storage: this.storage, results: this.results, fleet: this.fleet, documents: this.documents, runnerSubnets: this.network.runnerSubnets,
      executionTimeout: this.fleet.maxLifetime,
    });
    // The endings the state machine cannot catch (timeout, StopExecution, data limit) still tear the run down.
    new TeardownOnFailure(this, 'TeardownOnFailure', { stateMachine: this.pipeline.stateMachine, stateMachineName: this.pipeline.stateMachineName, teardown: this.pipeline.teardown });

    const out = (id: string, value: string, description: string) => new CfnOutput(this, id, { value, description });
    out('StateMachineArn', this.pipeline.stateMachine.stateMachineArn, 'Benchmark pipeline: `s3ab aws run` starts executions of it');
    out('DataBucketName', this.storage.bucket.bucketName, 'Benchmark data bucket (versioned; S3 Files is linked to it)');
    out('ResultsBucketName', this.results.bucket.bucketName, 'Results bucket: results/ (records), reports/, executions/, athena/');
    out('FileSystemId', this.storage.fileSystem.attrFileSystemId, 'S3 Files file system');
    out('AccessPointArn', this.storage.accessPoint.attrAccessPointArn, 'S3 Files access point of the document-processing function');
    out('GlueDatabase', this.results.databaseName, 'Glue database of the results table');
    out('ResultsTable', this.results.tableName, 'Glue table of the result records');
    out('AthenaWorkGroup', this.results.workGroupName, 'Athena workgroup for the named queries');
    out('RunnerAvailabilityZones', this.network.runnerSubnets.subnets.map((x) => x.availabilityZone).join(','), 'Availability Zones of the runner subnets, in launch order: `s3ab aws run` checks the runner types\' offerings there');
    out('LaunchTemplateId', this.fleet.launchTemplate.launchTemplateId!, 'Launch template of the benchmark runners');
    out('SetupDocumentName', this.fleet.setupDocument.ref, 'SSM document that sets a runner up');
    out('RunStepDocumentName', this.fleet.runStepDocument.ref, 'SSM document that runs one benchmark step');
    out('BeforeFunctionName', this.documents.before.function.functionName, 'Seed 001 "before" function (S3 API)');
    out('AfterFunctionName', this.documents.after.function.functionName, 'Seed 001 "after" function (S3 Files mount)');
  }
}
