import { SendTaskFailureCommand, SendTaskHeartbeatCommand, SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { writeFile } from 'node:fs/promises';
import { errorSummary } from '../core/errors';

/** SendTaskFailure's limits: error ≤ 256 characters, cause ≤ 32,768. */
const MAX_ERROR = 256;
const MAX_CAUSE = 32_768;
/** Errors that mean the task is over (timed out, failed, or its execution ended): stop working for it. */
const TASK_GONE = new Set(['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken']);
/**
 * Waits before each further attempt to end the task, when a whole call (the SDK's own retries
 * included) failed: about 2 minutes in all, well inside the task's heartbeat timeout (10 min),
 * and the heartbeats go on meanwhile, so the task stays alive for the next attempt.
 */
const END_RETRY_DELAYS_MS = [2_000, 4_000, 8_000, 16_000, 32_000, 60_000];

export interface TaskCallbackOptions {
  /** The Step Functions task token (read from a file: never on a command line). */
  token: string;
  /** Seconds between heartbeats (the task's HeartbeatSeconds is several of them). */
  heartbeatSeconds: number;
  region?: string;
  /** Written once the task was ended (success or failure), so the command's exit trap does not report again. */
  reportedFile?: string;
  /**
   * Written with the success's output before SendTaskSuccess is first tried: if every attempt
   * fails, the command's exit trap sends this success itself — a complete shard is never
   * reported as failed.
   */
  successFile?: string;
  /** Called once when Step Functions says the task is over: the runner should stop. */
  onTaskGone?: (reason: string) => void;
  log?: (line: string) => void;
  /** @default a client of the standard chain (AWS_ENDPOINT_URL_SFN points it elsewhere, as the rehearsal does) */
  client?: SFNClient;
  /** @default END_RETRY_DELAYS_MS */
  endRetryDelaysMs?: number[];
}

/**
 * A runner's end of a `.waitForTaskToken` task: heartbeats every `heartbeatSeconds` from start()
 * until the task is ended, then SendTaskSuccess or SendTaskFailure — one outcome only: the first
 * one asked for is the one sent, with its own retries (a call that failed after the SDK's retries
 * is tried again, END_RETRY_DELAYS_MS apart, heartbeats going on meanwhile); a later request for
 * the other outcome is ignored, so a shard whose success could not be sent is never reported
 * failed. A heartbeat that fails transiently is logged and the next one tries again; one that says
 * the task is over calls `onTaskGone`, so the runner stops measuring for an execution that no
 * longer waits for it.
 */
export class TaskCallback {
  private readonly client: SFNClient;
  private timer: NodeJS.Timeout | null = null;
  /** The outcome being sent or sent: set by the first succeed()/fail(), never changed. */
  private outcome: 'success' | 'failure' | null = null;
  private ended = false;
  heartbeats = 0;
  /** Calls of SendTaskSuccess/SendTaskFailure that failed (after the SDK's own retries) before one went through. */
  endFailures = 0;

  constructor(private readonly o: TaskCallbackOptions) {
    if (!o.token) throw new Error('TaskCallback: no task token');
    if (!(o.heartbeatSeconds >= 1)) throw new Error(`TaskCallback: heartbeatSeconds must be ≥ 1, got ${o.heartbeatSeconds}`);
    this.client = o.client ?? new SFNClient({ region: o.region, maxAttempts: 5 });
  }

  start(): void {
    // The first at once: the execution learns that the shard started, however short it is.
    void this.heartbeat();
    this.timer = setInterval(() => void this.heartbeat(), this.o.heartbeatSeconds * 1000);
    // The heartbeats must not keep the process alive once the work is done.
    this.timer.unref();
  }

  private async heartbeat(): Promise<void> {
    if (this.ended) return;
    try {
      await this.client.send(new SendTaskHeartbeatCommand({ taskToken: this.o.token }));
      this.heartbeats++;
    } catch (err) {
      // A heartbeat answered after the task was ended says nothing about the task.
      if (this.ended) return;
      const name = (err as Error).name;
      if (TASK_GONE.has(name)) {
        this.stop();
        this.o.onTaskGone?.(`Step Functions no longer waits for this runner (${name}): its execution ended or timed out`);
      } else {
        this.o.log?.(`s3ab step: heartbeat to Step Functions failed (the next one tries again): ${errorSummary(err)}`);
      }
    }
  }

  /** Ends the task as a success with this output (a small JSON object). */
  async succeed(output: Record<string, unknown>): Promise<void> {
    if (this.outcome) return this.ignored('success');
    this.outcome = 'success';
    const body = JSON.stringify(output);
    if (this.o.successFile) await writeFile(this.o.successFile, body, { mode: 0o600 });
    return this.end(() => this.client.send(new SendTaskSuccessCommand({ taskToken: this.o.token, output: body })));
  }

  /** Ends the task as a failure: the execution's error name and cause. Ignored once a success was asked for. */
  async fail(error: string, cause: string): Promise<void> {
    if (this.outcome) return this.ignored('failure');
    this.outcome = 'failure';
    return this.end(() => this.client.send(new SendTaskFailureCommand({ taskToken: this.o.token, error: error.slice(0, MAX_ERROR), cause: cause.slice(0, MAX_CAUSE) })));
  }

  private ignored(asked: string): void {
    this.o.log?.(`s3ab step: the task's ${this.outcome} was already ${this.ended ? 'sent' : 'being sent'}; this ${asked} is not sent`);
  }

  /**
   * Sends the outcome, again after a failed call unless Step Functions says the task is over. The
   * heartbeats stop only once it was sent. Throws the last error when every attempt failed (the
   * reported file is not written: the exit trap reports then — the success file's success, if any).
   */
  private async end(send: () => Promise<unknown>): Promise<void> {
    const delays = this.o.endRetryDelaysMs ?? END_RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        await send();
        break;
      } catch (err) {
        this.endFailures++;
        if (TASK_GONE.has((err as Error).name) || attempt >= delays.length) {
          this.stop();
          throw err;
        }
        this.o.log?.(`s3ab step: sending the task's ${this.outcome} to Step Functions failed (attempt ${attempt + 1}; again in ${delays[attempt] / 1000} s): ${errorSummary(err)}`);
        await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
      }
    }
    this.ended = true;
    this.stop();
    if (this.o.reportedFile) await writeFile(this.o.reportedFile, `${new Date().toISOString()}\n`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  destroy(): void {
    this.stop();
    this.client.destroy();
  }
}
