import { RETRY } from './tasks';

/** The history events one Standard execution may have (Step Functions quota; an inline Map shares them). */
export const HISTORY_EVENT_LIMIT = 25_000;

/**
 * History events Step Functions Standard writes per state run (the event types of
 * GetExecutionHistory). A task that waits — `.sync` or `.waitForTaskToken` — adds TaskSubmitted,
 * and nothing more while it waits: heartbeats write no event. Each retry of a task writes the
 * failed attempt's end (TaskFailed or TaskTimedOut), TaskScheduled, TaskStarted, and TaskSubmitted
 * when it waits.
 */
export const EVENTS_PER_STATE = {
  /** ExecutionStarted, and its end. */
  execution: 2,
  /** Pass, Choice, Wait, Succeed, Fail: …StateEntered, …StateExited. */
  flow: 2,
  /** TaskStateEntered, TaskScheduled, TaskStarted, TaskSucceeded, TaskStateExited. */
  task: 5,
  /** A task that waits for a job or a callback: TaskSubmitted besides. */
  waitingTask: 6,
  retry: 3,
  waitingRetry: 4,
  /** MapStateEntered, MapStateStarted, MapStateSucceeded, MapStateExited. */
  map: 4,
  /** MapIterationStarted, MapIterationSucceeded. */
  mapIteration: 2,
} as const;

/** What the number of history events depends on: runners and rounds, each bounded. */
export interface ExecutionShape {
  /** Runners (one shard each). */
  runners: number;
  /** Runner subnets a launch may try. */
  subnets: number;
  /** Checks of WaitUntilReady at most (its poll budget). */
  readyChecks: number;
  /** Repetitions of the document-processing Lambdas. */
  lambdaRepetitions: number;
  /** Queries Aggregate runs: the report model's (assets/queries/model/). */
  queries: number;
  /** Teardown rounds at most. */
  teardownRounds: number;
}

const E = EVENTS_PER_STATE;
/** A task's events when every retry happens. */
const task = (retries = RETRY.maxAttempts) => E.task + retries * E.retry;
const waitingTask = (retries = RETRY.maxAttempts) => E.waitingTask + retries * E.waitingRetry;
const flow = (states: number) => states * E.flow;

/**
 * The most history events an execution of this shape can write: every state of the definition
 * counted with all its retries, every loop at its bound — a function of runners and rounds only,
 * never of how long the runners run (they end their tasks by callback). The states each term
 * counts are listed in COUNTED_STATES; test/aws/pipeline.test.ts checks that list against the
 * definition and the bound against the limit, and every rehearsal against the bound.
 */
export function historyEventBound(s: ExecutionShape): number {
  const validate = task();
  // Per runner: its iteration, a launch in each subnet with retries, LaunchFailed; then CheckLaunches,
  // AllRunnersLaunched?, and CollectRunners + RunnerIds (or LaunchFailures + FirstLaunchError).
  const provision = E.map + s.runners * (E.mapIteration + s.subnets * task() + flow(1)) + flow(4);
  // WaitUntilReady, then each check: ReadyWait, CheckRunnersOnline, CountReadyChecks, RunnersReady?; RunnersNotReady.
  const ready = flow(1) + s.readyChecks * (flow(3) + task()) + flow(1);
  // Per runner: its iteration, SendSetupCommand and SendShardCommand, SetupRunner and RunShard (callbacks), ShardDone (or a lost runner's Pass and Fail).
  const shards = E.map + s.runners * (E.mapIteration + 2 * task() + 2 * waitingTask() + flow(2));
  const lambdas = E.map + s.lambdaRepetitions * (E.mapIteration + 2 * task());
  // ListSummaryQueries; per query: its iteration, GetNamedQuery, RunSummaryQuery (.sync), SummaryQueryDone.
  const aggregate = flow(1) + E.map + s.queries * (E.mapIteration + task() + waitingTask() + flow(1));
  const report = task();
  // StartTeardown; each round: Teardown, CountTeardownRound, TeardownDone?; then at most four states to the end.
  const teardown = flow(1) + s.teardownRounds * (task() + flow(2)) + flow(4);
  return E.execution + validate + provision + ready + shards + lambdas + aggregate + report + teardown;
}

/** The states historyEventBound counts, by the names the fragments give them (RunInstancesInSubnetN: one per subnet). */
export const COUNTED_STATES = [
  'ValidateInput', 'InputRejected',
  'ProvisionRunners', 'RunInstancesInSubnet*', 'LaunchFailed', 'CheckLaunches', 'AllRunnersLaunched?', 'LaunchFailures', 'FirstLaunchError', 'CollectRunners', 'RunnerIds',
  'WaitUntilReady', 'ReadyWait', 'CheckRunnersOnline', 'CountReadyChecks', 'RunnersReady?', 'RunnersNotReady',
  'RunBenchmarkShards', 'SendSetupCommand', 'SetupRunner', 'SendShardCommand', 'RunShard', 'ShardDone', 'SetupRunnerLost', 'SetupRunnerLostFail', 'SetupTimedOut', 'SetupTimedOutFail',
  'ShardRunnerLost', 'ShardRunnerLostFail', 'ShardTimedOut', 'ShardTimedOutFail',
  'BenchmarkLambdas', 'InvokeBefore', 'InvokeAfter',
  'ListSummaryQueries', 'Aggregate', 'GetNamedQuery', 'RunSummaryQuery', 'SummaryQueryDone',
  'Report',
  'StartTeardown', 'Teardown', 'CountTeardownRound', 'TeardownDone?', 'TeardownOutOfRounds', 'TeardownFailedAfterError?', 'AddTeardownError', 'TeardownErrorAlone',
  'FailedBeforeTeardown?', 'Done', 'ExecutionFailed',
];
