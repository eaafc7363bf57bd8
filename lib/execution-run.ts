/**
 * How the teardown that EventBridge starts finds an execution's run: the run id is made by the
 * pipeline's first state (ValidateInput, `$.run.value.runId`), so the execution's history holds it
 * in that state's exit event from the first seconds of the execution on — whether or not any
 * runner was launched, and for 90 days after the execution closed. The event itself carries only
 * the execution's ARN.
 */

/** The pipeline's state whose output first carries the run id. */
export const RUN_ID_STATE = 'ValidateInput';
/** The status-change events whose executions may have skipped the pipeline's own Teardown (States.ALL cannot catch a timeout, StopExecution, DataLimitExceeded or Runtime). */
export const UNCAUGHT_ENDINGS = ['FAILED', 'TIMED_OUT', 'ABORTED'] as const;
/** EventBridge's detail-type of a Step Functions execution's status change. */
export const STATUS_CHANGE = 'Step Functions Execution Status Change';

/** An event of GetExecutionHistory, as far as it is read here. */
export interface ExitedEvent { type?: string; stateExitedEventDetails?: { name?: string; output?: string } }

/**
 * The run id in these history events: RUN_ID_STATE's exit output's `run.value.runId`; null when
 * that state has not exited (the execution ended before a run existed: nothing to tear down), or
 * its output carries no run id (it was rejected).
 */
export function runIdOfHistory(events: ExitedEvent[]): string | null {
  const exit = events.find((e) => e.type === 'TaskStateExited' && e.stateExitedEventDetails?.name === RUN_ID_STATE);
  if (!exit?.stateExitedEventDetails?.output) return null;
  try {
    const runId = (JSON.parse(exit.stateExitedEventDetails.output) as { run?: { value?: { runId?: unknown } } }).run?.value?.runId;
    return typeof runId === 'string' ? runId : null;
  } catch {
    return null;
  }
}
