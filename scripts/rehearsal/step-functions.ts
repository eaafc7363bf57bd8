/**
 * Step Functions' callback API on this machine: aws-local-stepfunctions runs a `.waitForTaskToken`
 * task as a plain call and ignores HeartbeatSeconds, so the rehearsal plays that part. A callback
 * task gets a fresh token here (issue()); the runner's own Step Functions client and the AWS CLI
 * in the documents' exit traps reach this endpoint through AWS_ENDPOINT_URL_SFN and call
 * SendTaskHeartbeat, SendTaskSuccess and SendTaskFailure on it as they would on AWS (the AWS JSON
 * protocol, SigV4-signed: the access key names the role, whose IAM decides). A task that hears no
 * heartbeat for its HeartbeatSeconds fails with States.HeartbeatTimeout, one that outlives its
 * timeout with States.Timeout, as on AWS. It also answers GetExecutionHistory for the rehearsal's
 * execution (the events the teardown function reads: recorded by the rehearsal as they happen), and
 * can fail the first calls of a state's SendTaskSuccess (every attempt of each call, as an outage
 * of the service would) to show that the runner's success survives them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { AwsError, type IamCheck } from './iam';

interface WaitingTask {
  state: string;
  resolve: (output: unknown) => void;
  reject: (err: Error) => void;
  heartbeatMs: number;
  timer: NodeJS.Timeout;
  /** The task's own timeout (TimeoutSecondsPath, which aws-local-stepfunctions reads from the wrong input). */
  deadline: NodeJS.Timeout;
  heartbeats: number;
}

export interface CallbackFigures {
  tasks: number; successes: number; failures: number; heartbeats: number; heartbeatTimeouts: number;
  /** SendTaskSuccess calls failed on purpose (every attempt of each), by the `failSuccessCalls` fault. */
  successCallsFailed: number;
}

/** The first `calls` SendTaskSuccess calls for tasks of `state` fail with ServiceUnavailable, every attempt of each (the SDK's invocation id tells calls apart). */
export interface SuccessFault { state: string; calls: number }

/** An event of the execution's history, in GetExecutionHistory's shape (what the teardown function reads of it). */
export interface HistoryEvent { id: number; type: string; timestamp: Date; stateExitedEventDetails?: { name: string; output: string } }

const ACTIONS = {
  SendTaskSuccess: 'states:SendTaskSuccess', SendTaskFailure: 'states:SendTaskFailure', SendTaskHeartbeat: 'states:SendTaskHeartbeat', GetExecutionHistory: 'states:GetExecutionHistory',
} as const;

export class LocalStepFunctions {
  private server: Server | null = null;
  private readonly waiting = new Map<string, WaitingTask>();
  private readonly closed = new Set<string>();
  readonly figures: CallbackFigures = { tasks: 0, successes: 0, failures: 0, heartbeats: 0, heartbeatTimeouts: 0, successCallsFailed: 0 };
  /** Invocation ids of the SendTaskSuccess calls failed on purpose. */
  private readonly failedCalls = new Set<string>();
  /** The rehearsal's execution: its ARN and history, as far as recorded. */
  private readonly executions = new Map<string, HistoryEvent[]>();
  endpoint = '';

  /** @param iam the template's IAM; without it (a test of the runner alone) any signer may call. */
  constructor(private readonly iam?: IamCheck, private readonly successFault?: SuccessFault) {}

  /** Records an event of an execution's history (GetExecutionHistory answers with them). */
  record(executionArn: string, event: Omit<HistoryEvent, 'id' | 'timestamp'>): void {
    const events = this.executions.get(executionArn) ?? [];
    events.push({ id: events.length + 1, timestamp: new Date(), ...event });
    this.executions.set(executionArn, events);
  }

  /**
   * The execution ended (StopExecution, a timeout): its waiting tasks are over, so a runner's next
   * heartbeat or report hears TaskTimedOut, as on AWS.
   */
  endTasks(): void {
    for (const [token] of this.waiting) this.end(token, () => {});
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return this.endpoint;
  }

  /**
   * A callback task starts: its token, and its result — the output of SendTaskSuccess, or an
   * error named as the runner's SendTaskFailure names it, or States.HeartbeatTimeout.
   */
  issue(state: string, heartbeatSeconds: number, timeoutSeconds: number): { token: string; result: Promise<unknown> } {
    const token = `rehearsal-${state}-${randomBytes(24).toString('base64url')}`;
    this.figures.tasks++;
    const result = new Promise<unknown>((resolve, reject) => {
      const deadline = setTimeout(() => this.end(token, () => reject(new AwsError('States.Timeout', `${state}: not ended within ${timeoutSeconds} s`))), timeoutSeconds * 1000);
      const task: WaitingTask = { state, resolve, reject, heartbeatMs: heartbeatSeconds * 1000, timer: setTimeout(() => {}, 0), deadline, heartbeats: 0 };
      this.waiting.set(token, task);
      this.arm(token, task);
    });
    // The execution may have moved on (a Map aborted): a task failing later is nobody's error.
    result.catch(() => {});
    return { token, result };
  }

  private arm(token: string, task: WaitingTask): void {
    clearTimeout(task.timer);
    task.timer = setTimeout(() => {
      this.figures.heartbeatTimeouts++;
      this.end(token, () => task.reject(new AwsError('States.HeartbeatTimeout', `${task.state}: no heartbeat for ${task.heartbeatMs / 1000} s`)));
    }, task.heartbeatMs);
  }

  private end(token: string, settle: () => void): void {
    const task = this.waiting.get(token);
    if (!task) return;
    clearTimeout(task.timer);
    clearTimeout(task.deadline);
    this.waiting.delete(token);
    this.closed.add(token);
    settle();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const operation = String(req.headers['x-amz-target'] ?? '').replace(/^AWSStepFunctions\./, '') as keyof typeof ACTIONS;
    const accessKey = /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
    const answer = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(body));
    };
    const fail = (type: string, message: string) => answer(400, { __type: `com.amazonaws.swf.service.v2.model#${type}`, message });
    if (!ACTIONS[operation]) return fail('UnknownOperationException', `the rehearsal's Step Functions answers ${Object.keys(ACTIONS).join(', ')} only, not ${operation}`);
    if (this.iam) {
      const principal = this.iam.roleOfKey(accessKey);
      if (!principal) {
        this.iam.recordUnknownPrincipal(accessKey, ACTIONS[operation], '*', 'Step Functions stand-in');
        return fail('UnrecognizedClientException', 'The security token included in the request is invalid.');
      }
      try {
        await this.iam.require({ principal, action: ACTIONS[operation], resource: operation === 'GetExecutionHistory' ? JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}').executionArn : '*', source: 'Step Functions stand-in' });
      } catch (err) {
        return fail('AccessDeniedException', (err as Error).message);
      }
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { taskToken?: string; output?: string; error?: string; cause?: string; executionArn?: string; nextToken?: string; maxResults?: number };
    if (operation === 'GetExecutionHistory') return this.history(body, answer, fail);
    const token = body.taskToken ?? '';
    const task = this.waiting.get(token);
    if (!task) return this.closed.has(token) ? fail('TaskTimedOut', 'Task Timed Out') : fail('InvalidToken', `Invalid token: ${token.slice(0, 40)}`);
    const call = String(req.headers['amz-sdk-invocation-id'] ?? '');
    if (operation === 'SendTaskSuccess' && this.successFault?.state === task.state && call
      && (this.failedCalls.has(call) || this.failedCalls.size < this.successFault.calls)) {
      if (!this.failedCalls.has(call)) this.figures.successCallsFailed++;
      this.failedCalls.add(call);
      res.writeHead(503, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ __type: 'com.amazonaws.swf.service.v2.model#ServiceUnavailable', message: 'injected by the rehearsal: Step Functions unavailable' }));
      return;
    }
    if (operation === 'SendTaskHeartbeat') {
      task.heartbeats++;
      this.figures.heartbeats++;
      this.arm(token, task);
    } else if (operation === 'SendTaskSuccess') {
      this.figures.successes++;
      this.end(token, () => task.resolve(JSON.parse(body.output ?? '{}')));
    } else {
      this.figures.failures++;
      this.end(token, () => task.reject(new AwsError(body.error ?? 'States.TaskFailed', body.cause ?? '')));
    }
    answer(200, {});
  }

  /** GetExecutionHistory, in pages of maxResults (the token is the next event's index). */
  private history(body: { executionArn?: string; nextToken?: string; maxResults?: number }, answer: (status: number, body: object) => void, fail: (type: string, message: string) => void): void {
    const events = this.executions.get(body.executionArn ?? '');
    if (!events) return fail('ExecutionDoesNotExist', `Execution Does Not Exist: '${body.executionArn}'`);
    const from = Number(body.nextToken ?? 0);
    const size = body.maxResults || 100;
    const page = events.slice(from, from + size).map((e) => ({ ...e, timestamp: e.timestamp.getTime() / 1000 }));
    answer(200, { events: page, ...(from + size < events.length ? { nextToken: String(from + size) } : {}) });
  }

  /** Ends the rehearsal's waiting tasks (their execution is over) and closes the endpoint. */
  async stop(): Promise<void> {
    for (const [token] of this.waiting) this.end(token, () => {});
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
