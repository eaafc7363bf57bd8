/**
 * The template's IAM, enforced in a rehearsal: each role of the synthesized template has its own
 * access key on the embedded S3 server and in the stand-ins, and every request a runner, a Lambda
 * function or the state machine makes is evaluated against that role's identity policies and the
 * resource's policy (a bucket policy, the S3 Files file-system policy) by @cloud-copilot/iam-simulate,
 * a maintained IAM evaluator — the same decision AWS would make, an implicit or explicit deny
 * recorded with its principal, action and resource.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { randomBytes } from 'node:crypto';
import { ACCOUNT, type PolicyDocument, type RehearsalTemplate, type Role } from './template';

export interface IamRequest {
  /** The role's logical id. */
  principal: string;
  action: string;
  resource: string;
  /** Request context keys the policies may test (aws:SecureTransport, aws:PrincipalArn and the account are always given). */
  context?: Record<string, string | string[]>;
  /** Where the rehearsal saw the request: the S3 access log, a stand-in. */
  source: string;
}

export type Decision = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied';

export interface IamDenial { principal: string; action: string; resource: string; decision: Exclude<Decision, 'Allowed'> | 'no role'; source: string; count: number }

/** A grant taken out of the template for a rehearsal: `action` (on resources containing `resource`) from the role named `role…`. */
export interface DroppedGrant { role: string; action: string; resource?: string }

export interface Credentials { accessKeyId: string; secretAccessKey: string }

/** An error named as AWS and the SDKs name it (AccessDeniedException, States.HeartbeatTimeout, …): Step Functions matches Catch and Retry by the name. */
export class AwsError extends Error {
  constructor(name: string, message: string) { super(message); this.name = name; }
}

/** An IAM resource pattern as a regular expression (`*` any characters, `?` one). */
const globRegex = (pattern: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);

export class IamCheck {
  readonly roles: Role[];
  private readonly credentials = new Map<string, Credentials>();
  private readonly roleByKey = new Map<string, string>();
  private readonly policies = new Map<string, { name: string; policy: PolicyDocument }[]>();
  private readonly patterns = new Map<string, RegExp[]>();
  private readonly memo = new Map<string, Promise<Decision>>();
  private readonly denied = new Map<string, IamDenial>();
  /** Requests checked, and the distinct evaluations iam-simulate made for them. */
  requests = 0;
  evaluations = 0;

  constructor(private readonly template: RehearsalTemplate, private readonly drop?: DroppedGrant) {
    this.roles = template.roles();
    for (const r of this.roles) {
      const c = { accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(24).toString('base64url') };
      this.credentials.set(r.id, c);
      this.roleByKey.set(c.accessKeyId, r.id);
    }
    if (drop && !this.roles.some((r) => r.name.startsWith(drop.role))) throw new Error(`rehearsal: no role of the template is named ${drop.role}…; roles: ${this.roles.map((r) => r.name).join(', ')}`);
  }

  /** The role whose name starts with `name` (RunnersRole, PipelineStateMachineRole, …). */
  role(name: string): Role {
    const r = this.roles.find((x) => x.name.startsWith(name));
    if (!r) throw new Error(`rehearsal: no role of the template is named ${name}…`);
    return r;
  }

  credentialsOf(roleId: string): Credentials {
    return this.credentials.get(roleId)!;
  }

  roleOfKey(accessKeyId: string): string | undefined {
    return this.roleByKey.get(accessKeyId);
  }

  /** Every role's key: the embedded server's accounts. */
  allCredentials(): Credentials[] {
    return [...this.credentials.values()];
  }

  /** A request by a key no role has (a client the rehearsal gave no role): always a failure. */
  recordUnknownPrincipal(accessKey: string, action: string, resource: string, source: string): void {
    this.record({ principal: `key ${accessKey}`, action, resource, source }, 'no role');
  }

  /** The decision for a request; a deny is recorded (principal, action, resource, where it was seen). */
  async decide(req: IamRequest): Promise<Decision> {
    this.requests++;
    const key = `${req.principal}|${req.action.toLowerCase()}|${this.resourceClass(req)}|${JSON.stringify(req.context ?? {})}`;
    let d = this.memo.get(key);
    if (!d) {
      d = this.simulate(req);
      this.memo.set(key, d);
    }
    const decision = await d;
    if (decision !== 'Allowed') this.record(req, decision);
    return decision;
  }

  /** As decide(), but a deny throws as AWS answers it (`errorName`, e.g. AccessDeniedException). */
  async require(req: IamRequest, errorName = 'AccessDeniedException'): Promise<void> {
    const d = await this.decide(req);
    if (d !== 'Allowed') throw new AwsError(errorName, `User: ${this.sessionArn(req.principal)} is not authorized to perform: ${req.action} on resource: ${req.resource} (${d})`);
  }

  denials(): IamDenial[] {
    return [...this.denied.values()];
  }

  private record(req: IamRequest, decision: IamDenial['decision']): void {
    const key = `${req.principal}|${req.action}|${req.resource}|${req.source}`;
    const d = this.denied.get(key) ?? { principal: this.nameOf(req.principal), action: req.action, resource: req.resource, decision, source: req.source, count: 0 };
    d.count++;
    this.denied.set(key, d);
  }

  private nameOf(roleId: string): string {
    return this.roles.find((r) => r.id === roleId)?.name ?? roleId;
  }

  private sessionArn(roleId: string): string {
    return `arn:aws:sts::${ACCOUNT}:assumed-role/${roleId}/rehearsal`;
  }

  /** The role's identity policies, resolved, with the dropped grant taken out. */
  private policiesOf(roleId: string): { name: string; policy: PolicyDocument }[] {
    let p = this.policies.get(roleId);
    if (!p) {
      p = this.template.identityPolicies(roleId);
      if (this.drop && this.nameOf(roleId).startsWith(this.drop.role)) p = p.map((x) => ({ name: x.name, policy: dropGrant(x.policy, this.drop!) }));
      this.policies.set(roleId, p);
    }
    return p;
  }

  /**
   * What decides a request's outcome besides principal, action and context: for an S3 object,
   * which resource patterns of the policies involved match its ARN (objects that match the same
   * ones get the same decision, so the evaluator runs once per class, not once per key); for
   * anything else, the resource itself. The decision is always iam-simulate's.
   */
  private resourceClass(req: IamRequest): string {
    const m = /^arn:aws:s3:::([^/]+)\/./.exec(req.resource);
    if (!m) return req.resource;
    const key = `${req.principal}|${m[1]}`;
    let patterns = this.patterns.get(key);
    if (!patterns) {
      const docs = [...this.policiesOf(req.principal).map((p) => p.policy), this.template.resourcePolicyOf(req.resource)].filter((d): d is PolicyDocument => !!d);
      const resources = docs.flatMap((d) => d.Statement.flatMap((st) => [st.Resource ?? [], st.NotResource ?? []].flat()));
      patterns = [...new Set(resources.map(String))].map(globRegex);
      this.patterns.set(key, patterns);
    }
    return `s3-object ${m[1]} ${patterns.map((p) => (p.test(req.resource) ? 1 : 0)).join('')}`;
  }

  private async simulate(req: IamRequest): Promise<Decision> {
    this.evaluations++;
    const role = this.roles.find((r) => r.id === req.principal);
    if (!role) throw new Error(`rehearsal: ${req.principal} is not a role of the template`);
    const result = await runSimulation({
      identityPolicies: this.policiesOf(req.principal),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      resourcePolicy: this.template.resourcePolicyOf(req.resource),
      request: {
        principal: this.sessionArn(req.principal),
        action: req.action,
        resource: { resource: req.resource, accountId: ACCOUNT },
        // On AWS every client of the stack uses TLS (both buckets' policies deny anything else).
        contextVariables: { 'aws:SecureTransport': 'true', 'aws:PrincipalArn': role.arn, 'aws:PrincipalAccount': ACCOUNT, 'aws:ResourceAccount': ACCOUNT, ...req.context },
      },
    }, {});
    if (result.resultType === 'error') {
      throw new Error(`rehearsal: iam-simulate cannot evaluate ${req.action} on ${req.resource} by ${role.name} (from ${req.source}): ${JSON.stringify(result.errors).slice(0, 800)}`);
    }
    return result.overallResult as Decision;
  }
}

/** A policy with one action taken out of the statements whose resources contain `resource`. */
export function dropGrant(policy: PolicyDocument, drop: DroppedGrant): PolicyDocument {
  const list = (x: unknown) => (x === undefined ? [] : Array.isArray(x) ? x : [x]);
  const statements = policy.Statement.flatMap((st) => {
    const onResource = !drop.resource || list(st.Resource).some((r) => String(r).includes(drop.resource!));
    if (st.Effect !== 'Allow' || !onResource) return [st];
    const actions = list(st.Action).filter((a) => String(a).toLowerCase() !== drop.action.toLowerCase());
    if (actions.length === list(st.Action).length) return [st];
    return actions.length ? [{ ...st, Action: actions }] : [];
  });
  return { ...policy, Statement: statements };
}

/** `ROLE:ACTION[@RESOURCE]`, e.g. RunnersRole:s3:ListBucket@s3ab-rehearsal-results. */
export function parseDroppedGrant(text: string): DroppedGrant {
  const m = /^([A-Za-z0-9]+):([a-z0-9-]+:[A-Za-z0-9*]+)(?:@(.+))?$/.exec(text);
  if (!m) throw new Error(`--drop-grant "${text}": write ROLE:ACTION[@RESOURCE], e.g. RunnersRole:s3:ListBucket@s3ab-rehearsal-results`);
  return { role: m[1], action: m[2], resource: m[3] };
}
