/**
 * The synthesized template as a rehearsal sees it: every CloudFormation reference resolved to the
 * name or ARN the resource has here (the buckets of the embedded server, a file system id, the
 * logical id as a physical name otherwise, account 123456789012 in us-east-1), so the state
 * machine's definition, the SSM documents' lines and the IAM policies all name the same things.
 */
import { SECTION } from '../../lib/runner-document-shell';
import type { Synthesized } from './synthesize';

export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';
export const STACK_NAME = 'S3AccessBench';

/** Names the rehearsal gives what the template creates. */
export interface LocalNames {
  dataBucket: string;
  resultsBucket: string;
  fileSystemId: string;
}

/** An IAM policy document after resolution. */
export interface PolicyDocument { Version?: string; Statement: Record<string, any>[] }
export interface Role { id: string; arn: string; name: string; service: string }

type Resource = { Type: string; Properties?: Record<string, any> };

const PSEUDO: Record<string, string> = {
  'AWS::Partition': 'aws', 'AWS::Region': REGION, 'AWS::AccountId': ACCOUNT, 'AWS::URLSuffix': 'amazonaws.com', 'AWS::StackName': STACK_NAME, 'AWS::NoValue': '',
};

export class RehearsalTemplate {
  readonly resources: Record<string, Resource>;

  private readonly parameters: Record<string, unknown>;

  constructor(synth: Synthesized, private readonly names: LocalNames) {
    this.resources = synth.json.Resources as Record<string, Resource>;
    this.parameters = synth.json.Parameters ?? {};
  }

  /** Logical ids of one resource type. */
  idsOf(type: string): string[] {
    return Object.entries(this.resources).filter(([, r]) => r.Type === type).map(([id]) => id);
  }

  /** What `Ref` of a resource gives, by its type. */
  ref(id: string): string {
    if (PSEUDO[id] !== undefined) return PSEUDO[id];
    // A template parameter (the AL2023 image's SSM parameter): its name stands for its value here.
    if (this.parameters[id]) return `parameter-${id}`;
    const r = this.resources[id];
    if (!r) throw new Error(`rehearsal: the template has no resource ${id}`);
    switch (r.Type) {
      case 'AWS::S3::Bucket': return this.bucketName(id);
      case 'AWS::EC2::LaunchTemplate': return `lt-${id}`;
      case 'AWS::EC2::Subnet': return `subnet-${id}`;
      case 'AWS::EC2::SecurityGroup': return `sg-${id}`;
      case 'AWS::S3Files::FileSystem': return this.getAtt(id, 'FileSystemArn');
      case 'AWS::Athena::WorkGroup': return String(this.resolve(r.Properties!.Name));
      case 'AWS::Glue::Database': return String(this.resolve(r.Properties!.DatabaseInput.Name));
      case 'AWS::StepFunctions::StateMachine': return this.getAtt(id, 'Arn');
      default: return id;
    }
  }

  /** What `Fn::GetAtt` of a resource gives. */
  getAtt(id: string, attr: string): string {
    const r = this.resources[id];
    if (!r) throw new Error(`rehearsal: the template has no resource ${id}`);
    const arn = (service: string, resource: string, region = REGION, account = ACCOUNT) => `arn:aws:${service}:${region}:${account}:${resource}`;
    const fileSystemArn = arn('s3files', `file-system/${this.names.fileSystemId}`);
    const key = `${r.Type}.${attr}`;
    switch (key) {
      case 'AWS::S3::Bucket.Arn': return `arn:aws:s3:::${this.bucketName(id)}`;
      case 'AWS::IAM::Role.Arn': return arn('iam', `role/${id}`, '');
      case 'AWS::Lambda::Function.Arn': return arn('lambda', `function:${id}`);
      case 'AWS::StepFunctions::StateMachine.Arn': return arn('states', `stateMachine:${this.stateMachineName(id)}`);
      case 'AWS::StepFunctions::StateMachine.Name': return this.stateMachineName(id);
      case 'AWS::Logs::LogGroup.Arn': return arn('logs', `log-group:${id}:*`);
      case 'AWS::EC2::SecurityGroup.GroupId': return `sg-${id}`;
      case 'AWS::S3Files::FileSystem.FileSystemId': return this.names.fileSystemId;
      case 'AWS::S3Files::FileSystem.FileSystemArn': return fileSystemArn;
      case 'AWS::S3Files::AccessPoint.AccessPointArn': return `${fileSystemArn}/access-point/fsap-${id}`;
      default: return `${attr.toLowerCase()}-${id}`;
    }
  }

  /** A state machine's name: its StateMachineName, or its logical id. */
  stateMachineName(id: string): string {
    const name = this.resources[id].Properties?.StateMachineName;
    return name === undefined ? id : String(this.resolve(name));
  }

  private bucketName(id: string): string {
    if (id.startsWith('DataBucket')) return this.names.dataBucket;
    if (id.startsWith('ResultsBucket')) return this.names.resultsBucket;
    return id.toLowerCase();
  }

  /** A value with every intrinsic function resolved (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select, Fn::Split, Fn::GetAZs). */
  resolve(x: unknown): unknown {
    if (Array.isArray(x)) return x.map((v) => this.resolve(v));
    if (x === null || typeof x !== 'object') return x;
    const o = x as Record<string, any>;
    if ('Ref' in o) return this.ref(o.Ref);
    if ('Fn::GetAtt' in o) {
      const [id, attr] = typeof o['Fn::GetAtt'] === 'string' ? o['Fn::GetAtt'].split('.') : o['Fn::GetAtt'];
      return this.getAtt(id, attr);
    }
    if ('Fn::Join' in o) return (this.resolve(o['Fn::Join'][1]) as unknown[]).join(o['Fn::Join'][0]);
    if ('Fn::Select' in o) return (this.resolve(o['Fn::Select'][1]) as unknown[])[Number(o['Fn::Select'][0])];
    if ('Fn::Split' in o) return String(this.resolve(o['Fn::Split'][1])).split(o['Fn::Split'][0]);
    if ('Fn::GetAZs' in o) return [`${REGION}a`, `${REGION}b`];
    if ('Fn::Sub' in o) {
      const [text, vars] = typeof o['Fn::Sub'] === 'string' ? [o['Fn::Sub'], {}] : o['Fn::Sub'];
      return text.replace(/\$\{([^}]+)\}/g, (_: string, name: string) => {
        if (vars[name] !== undefined) return String(this.resolve(vars[name]));
        const [id, attr] = name.split('.');
        return attr ? this.getAtt(id, attr) : this.ref(id);
      });
    }
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, this.resolve(v)]));
  }

  /** The state machine's definition, resolved. */
  definition(): Record<string, any> {
    const [id] = this.idsOf('AWS::StepFunctions::StateMachine');
    return JSON.parse(String(this.resolve(this.resources[id].Properties!.DefinitionString)));
  }

  /** A document's runCommand lines, resolved ('setup' or 'run-step'). */
  documentLines(kind: 'setup' | 'run-step'): string[] {
    const id = this.idsOf('AWS::SSM::Document').find((d) => (kind === 'run-step') === d.includes('RunStep'))!;
    return (this.resolve(this.resources[id].Properties!.Content.mainSteps[0].inputs.runCommand) as string[]);
  }

  /** A document's lines by section (the setup script marks them with SECTION(name)). */
  documentSections(kind: 'setup' | 'run-step'): Map<string, string[]> {
    const sections = new Map<string, string[]>();
    const marker = SECTION('prologue').replace(/prologue$/, '');
    let current = 'main';
    for (const line of this.documentLines(kind)) {
      if (line.startsWith(marker)) current = line.slice(marker.length);
      else sections.set(current, [...(sections.get(current) ?? []), line]);
    }
    return sections;
  }

  /** The Lambda functions: timeout, memory and the role each runs as. */
  functions(): Record<string, { timeoutMs: number; memoryMb: number; roleId: string }> {
    return Object.fromEntries(this.idsOf('AWS::Lambda::Function').map((id) => {
      const p = this.resources[id].Properties!;
      return [id, { timeoutMs: Number(p.Timeout ?? 3) * 1000, memoryMb: Number(p.MemorySize ?? 128), roleId: p.Role['Fn::GetAtt'][0] }];
    }));
  }

  /** Every role, with the service that assumes it. */
  roles(): Role[] {
    return this.idsOf('AWS::IAM::Role').map((id) => {
      const principal = this.resources[id].Properties!.AssumeRolePolicyDocument.Statement[0].Principal;
      return { id, arn: this.getAtt(id, 'Arn'), name: id.replace(/[0-9A-F]{8}$/, ''), service: String(principal.Service ?? '') };
    });
  }

  /** The role a resource of the template runs as (a function, the state machine). */
  roleOf(resourceId: string): string {
    const p = this.resources[resourceId].Properties!;
    return (p.Role ?? p.RoleArn)['Fn::GetAtt'][0];
  }

  /** A role's identity policies: its inline policies and every AWS::IAM::Policy attached to it. */
  identityPolicies(roleId: string): { name: string; policy: PolicyDocument }[] {
    const role = this.resources[roleId].Properties!;
    const inline = (role.Policies ?? []).map((p: any) => ({ name: p.PolicyName, policy: this.resolve(p.PolicyDocument) as PolicyDocument }));
    const attached = this.idsOf('AWS::IAM::Policy')
      .filter((id) => (this.resources[id].Properties!.Roles ?? []).some((r: any) => r.Ref === roleId))
      .map((id) => ({ name: id, policy: this.resolve(this.resources[id].Properties!.PolicyDocument) as PolicyDocument }));
    return [...inline, ...attached];
  }

  /** The resource policy that governs a resource ARN: a bucket's policy, the S3 Files file-system policy. */
  resourcePolicyOf(resourceArn: string): PolicyDocument | undefined {
    const s3 = /^arn:aws:s3:::([^/]+)/.exec(resourceArn);
    if (s3) {
      const id = this.idsOf('AWS::S3::BucketPolicy').find((p) => this.resolve(this.resources[p].Properties!.Bucket) === s3[1]);
      return id ? this.resolve(this.resources[id].Properties!.PolicyDocument) as PolicyDocument : undefined;
    }
    if (resourceArn.startsWith(`arn:aws:s3files:${REGION}:${ACCOUNT}:file-system/${this.names.fileSystemId}`)) {
      const [id] = this.idsOf('AWS::S3Files::FileSystemPolicy');
      return id ? this.resolve(this.resources[id].Properties!.Policy) as PolicyDocument : undefined;
    }
    return undefined;
  }
}
