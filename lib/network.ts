import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { RemovalPolicy } from 'aws-cdk-lib';
import { Construct } from 'constructs';

export interface BenchNetworkProps {
  /** Availability zones, one runner subnet and one function subnet each. @default 2 */
  readonly maxAzs?: number;
  /** @default '10.80.0.0/16' */
  readonly cidr?: string;
}

/**
 * The network, at zero cost while idle: no NAT gateway, no interface endpoints.
 * - Runner subnets are public: runners get a public IPv4 address only while they exist, and reach
 *   SSM and the package repositories over the internet gateway (SSM interface endpoints would
 *   cost ~$21/month at rest, seed 001's largest idle cost).
 * - Function subnets are isolated: the S3 Files Lambda reaches the mount targets inside the VPC
 *   and S3 through the gateway endpoint, nothing else.
 * - The runner security group has no inbound rules; the function security group neither.
 */
export class BenchNetwork extends Construct {
  readonly vpc: ec2.Vpc;
  readonly runnerSubnets: ec2.SelectedSubnets;
  readonly functionSubnets: ec2.SelectedSubnets;
  readonly runnerSecurityGroup: ec2.SecurityGroup;
  readonly functionSecurityGroup: ec2.SecurityGroup;
  readonly s3Endpoint: ec2.GatewayVpcEndpoint;

  constructor(scope: Construct, id: string, props: BenchNetworkProps = {}) {
    super(scope, id);
    const maxAzs = props.maxAzs ?? 2;
    if (!Number.isInteger(maxAzs) || maxAzs < 1 || maxAzs > 6) throw new Error(`BenchNetwork: maxAzs must be 1–6, got ${maxAzs}`);

    this.vpc = new ec2.Vpc(this, 'Vpc', {
      ipAddresses: ec2.IpAddresses.cidr(props.cidr ?? '10.80.0.0/16'),
      maxAzs,
      natGateways: 0,
      restrictDefaultSecurityGroup: false,
      subnetConfiguration: [
        { name: 'runners', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 22, mapPublicIpOnLaunch: true },
        { name: 'functions', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
      ],
    });
    // Rejected flows only: enough to see a blocked mount or endpoint, billed per log line, nothing idle.
    const flowLogs = new logs.LogGroup(this, 'FlowLogs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.vpc.addFlowLog('Rejected', { destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: ec2.FlowLogTrafficType.REJECT });

    this.runnerSubnets = this.vpc.selectSubnets({ subnetGroupName: 'runners' });
    this.functionSubnets = this.vpc.selectSubnets({ subnetGroupName: 'functions' });
    this.s3Endpoint = this.vpc.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3 });

    this.runnerSecurityGroup = new ec2.SecurityGroup(this, 'RunnerSg', {
      vpc: this.vpc,
      description: 'Benchmark runners: no inbound; outbound to S3, SSM, package repositories and S3 Files mount targets',
      allowAllOutbound: true,
    });
    this.functionSecurityGroup = new ec2.SecurityGroup(this, 'FunctionSg', {
      vpc: this.vpc,
      description: 'S3 Files document-processing function: no inbound; outbound to mount targets and the S3 gateway endpoint',
      allowAllOutbound: true,
    });
  }
}
