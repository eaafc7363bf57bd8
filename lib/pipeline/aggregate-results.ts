import { Aws, Duration, Stack } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { orderByOf, runQueryIntrinsic } from '../../runner/report/run-query';
import type { ResultsCatalog } from '../results-catalog';
import { CATCH_TO_TEARDOWN, RETRY, retriedErrors, sdkTask, TASK_TIMEOUT_S } from './tasks';

export interface AggregateResultsProps {
  /** The Glue table, Athena workgroup and named queries. */
  readonly results: ResultsCatalog;
  /** Where a failed query goes (into `$.error`). */
  readonly teardown: sfn.IChainable;
}

/**
 * Aggregate: every query the report model reads (assets/queries/model/; the adhoc named queries
 * are left to users), restricted to the run and its day partition, through
 * Athena `.sync`, all at once; `$.aggregate` holds each query's name and execution id for the
 * Report function. The queries are small (one day, one run) and fewer than Athena's default quota
 * of active DML queries: what went wrong before was not how many ran, but a 20-s timeout that
 * Athena's queue spent. Now the timeout leaves minutes for the queue, a throttled start
 * (TooManyRequests) is retried with backoff, and so is a timed-out call — every call only reads
 * (a query writes nothing but its own result file).
 */
export class AggregateResults extends sfn.StateMachineFragment {
  readonly startState: sfn.State;
  readonly endStates: sfn.INextable[];

  constructor(scope: Construct, id: string, props: AggregateResultsProps) {
    super(scope, id);
    const { results } = props;
    const stack = Stack.of(this);
    const workGroupArn = stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: results.workGroupName });
    const list = new sfn.Pass(this, 'ListSummaryQueries', {
      result: sfn.Result.fromArray(results.modelQueries.map((q) => ({ name: q.name, id: q.query.attrNamedQueryId, orderBy: orderByOf(q.sql, `${q.name}.sql`) }))),
      resultPath: '$.queries',
    });
    const getQuery = sdkTask(this, 'GetNamedQuery', 'athena', 'getNamedQuery', { 'NamedQueryId.$': '$.query.id' }, [workGroupArn],
      Duration.seconds(TASK_TIMEOUT_S.getNamedQuery), { resultSelector: { 'sql.$': '$.NamedQuery.QueryString' }, resultPath: '$.named', readOnly: true });
    // Athena .sync as a raw Task state: CDK's AthenaStartQueryExecution grants s3:CreateBucket and
    // reads on "*" when the workgroup holds the output location; the Pipeline grants them scoped.
    const runQuery = new sfn.CustomState(this, 'RunSummaryQuery', {
      stateJson: {
        Type: 'Task',
        Resource: `arn:${Aws.PARTITION}:states:::athena:startQueryExecution.sync`,
        Parameters: {
          // The file's SQL over the run's day, restricted to the run, its ORDER BY repeated outside (runner/report/run-query.ts).
          'QueryString.$': runQueryIntrinsic(results.databaseName, '$.day', '$.named.sql', '$.runId', '$.query.orderBy'),
          QueryExecutionContext: { Database: results.databaseName },
          WorkGroup: results.workGroupName,
        },
        ResultSelector: { 'queryExecutionId.$': '$.QueryExecution.QueryExecutionId' },
        ResultPath: '$.execution',
        TimeoutSeconds: TASK_TIMEOUT_S.summaryQuery,
      },
    });
    runQuery.addRetry({ errors: retriedErrors('athena', true), ...RETRY });
    const aggregate = new sfn.Map(this, 'Aggregate', {
      itemsPath: '$.queries',
      itemSelector: { 'query.$': '$$.Map.Item.Value', 'runId.$': '$.run.value.runId', 'day.$': '$.run.value.day' },
      maxConcurrency: 0,
      resultPath: '$.aggregate',
    });
    aggregate.itemProcessor(getQuery.next(runQuery).next(new sfn.Pass(this, 'SummaryQueryDone', {
      parameters: { 'name.$': '$.query.name', 'queryExecutionId.$': '$.execution.queryExecutionId' },
    })));
    aggregate.addCatch(props.teardown, CATCH_TO_TEARDOWN);
    list.next(aggregate);
    this.startState = list;
    this.endStates = [aggregate];
  }
}
