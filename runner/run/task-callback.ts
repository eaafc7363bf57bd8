import { SendTaskFailureCommand, SendTaskHeartbeatCommand, SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { writeFile } from 'node:fs/promises';
import { errorSummary } from '../core/errors';

/** SendTaskFailure's limits: error ≤ 256 characters, cause ≤ 32,768. */
const MAX_ERROR = 256;
const MAX_CAUSE = 32_768;
/** Errors that mean the task is over (timed out, failed, or its execution ended): stop working for it. */
const TASK_GONE = new Set(['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken']);

export interface TaskCallbackOptions {
  /** The Step Functions task token the command carries. */
  token: string;
  /** Seconds between heartbeats (the task's HeartbeatSeconds is several of them). */
  heartbeatSeconds: number;
  region?: string;
  /** Written once the task was ended (success or failure), so the command's exit trap does not report again. */
  reportedFile?: string;
  /** Called once when Step Functions says the task is over: the runner should stop. */
  onTaskGone?: (reason: string) => void;
  log?: (line: string) => void;
  /** @default a client of the standard chain (AWS_ENDPOINT_URL_SFN points it elsewhere, as the rehearsal does) */
  client?: SFNClient;
}

/**
 * A runner's end of a `.waitForTaskToken` task: heartbeats every `heartbeatSeconds` from start()
 * until the task is ended, then SendTaskSuccess or SendTaskFailure — once. A heartbeat that fails
 * transiently is logged and the next one tries again (the task allows several to be missed); one
 * that says the task is over calls `onTaskGone`, so the runner stops measuring for an execution
 * that no longer waits for it.
 */
export class TaskCallback {
  private readonly client: SFNClient;
  private timer: NodeJS.Timeout | null = null;
  private ended = false;
  heartbeats = 0;

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
  succeed(output: Record<string, unknown>): Promise<void> {
    return this.end(() => this.client.send(new SendTaskSuccessCommand({ taskToken: this.o.token, output: JSON.stringify(output) })));
  }

  /** Ends the task as a failure: the execution's error name and cause. */
  fail(error: string, cause: string): Promise<void> {
    return this.end(() => this.client.send(new SendTaskFailureCommand({ taskToken: this.o.token, error: error.slice(0, MAX_ERROR), cause: cause.slice(0, MAX_CAUSE) })));
  }

  private async end(send: () => Promise<unknown>): Promise<void> {
    if (this.ended) return;
    this.stop();
    this.ended = true;
    // A report that could not be sent throws before the file is written: the exit trap reports then.
    await send();
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
