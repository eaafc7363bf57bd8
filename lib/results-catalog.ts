import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ACCESS_LOG_COLUMNS, ACCESS_LOG_PARTITION, ACCESS_LOG_REGEX, ACCESS_LOG_TABLE } from '../runner/report/access-log-table';
import intervalSchema from '../assets/schema/interval.schema.json';
import { accessLogQueries, INTERVALS_TABLE, namedQueries, type QueryUse } from '../runner/report/results-db';
import { resultColumns, type JsonSchema } from './glue-columns';
import { RESULTS_LAYOUT } from './results-layout';

export interface ResultsCatalogProps {
  /** Glue database name. @default 's3ab' plus the stack name, lower-cased */
  readonly databaseName?: string;
  /** Athena stops any query of the workgroup that would scan more. @default 1 GiB */
  readonly bytesScannedCutoffPerQuery?: number;
  /** First day partition projection enumerates. @default '2026-01-01' */
  readonly firstDay?: string;
}

/**
 * Where results are queried: the results bucket, a Glue table over the runner's Hive layout
 * (results/dt=YYYY-MM-DD/*.jsonl) whose columns are generated from the result JSON Schema and one
 * over the interval series beside it (results/intervals/dt=…/, from the interval schema), with
 * partition projection on `dt` so a run is queryable the moment its files land (no crawler, no
 * MSCK REPAIR), an Athena workgroup with an enforced, encrypted result location and a
 * bytes-scanned cutoff, and one named query per SQL file — the same files the local report
 * runs on DuckDB. The pipeline runs the model's queries (`modelQueries`); the adhoc ones are there
 * for users.
 */
export class ResultsCatalog extends Construct {
  readonly bucket: s3.Bucket;
  readonly database: glue.CfnDatabase;
  readonly table: glue.CfnTable;
  /** The interval series' table (INTERVALS_TABLE), beside the records'. */
  readonly intervalsTable: glue.CfnTable;
  readonly workGroup: athena.CfnWorkGroup;
  /** One Athena named query per SQL file of assets/queries/ (model and adhoc), for users to find in the console. */
  readonly namedQueries: { name: string; query: athena.CfnNamedQuery; sql: string; use: QueryUse }[];
  readonly databaseName: string;
  readonly tableName = 'results';
  private readonly firstDay: string;

  constructor(scope: Construct, id: string, props: ResultsCatalogProps = {}) {
    super(scope, id);
    this.databaseName = props.databaseName ?? `s3ab_${Stack.of(this).stackName.toLowerCase().replace(/[^a-z0-9]/g, '_')}`;
    if (!/^[a-z0-9_]{1,255}$/.test(this.databaseName)) throw new Error(`ResultsCatalog: databaseName "${this.databaseName}" must be lower-case letters, digits and _`);
    const cutoff = props.bytesScannedCutoffPerQuery ?? 1024 ** 3;
    if (cutoff < 10 * 1024 ** 2) throw new Error(`ResultsCatalog: bytesScannedCutoffPerQuery must be ≥ 10 MB (Athena's minimum), got ${cutoff}`);
    const firstDay = props.firstDay ?? '2026-01-01';
    this.firstDay = firstDay;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(firstDay)) throw new Error(`ResultsCatalog: firstDay must be YYYY-MM-DD, got "${firstDay}"`);

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        { id: 'expire-athena-results', prefix: RESULTS_LAYOUT.athena, expiration: Duration.days(30) },
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Runners and Teardown remove a fleet's barrier markers; this catches what a lost execution left.
        { id: 'expire-fleet-barrier', prefix: RESULTS_LAYOUT.fleetBarrier, expiration: Duration.days(1) },
      ],
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    // No AwsSolutions-S1 acknowledgment: the bucket is the data bucket's access-log target (cdk-nag counts a log target as logged).

    this.database = new glue.CfnDatabase(this, 'Database', {
      catalogId: Aws.ACCOUNT_ID,
      databaseInput: { name: this.databaseName, description: 's3-access-bench results (one JSON line per measurement)' },
    });
    this.table = this.projectedJsonTable('Table', this.tableName, RESULTS_LAYOUT.records, resultColumns(),
      'Result records (assets/schema/result.schema.json), partitioned by the day the run started');
    this.intervalsTable = this.projectedJsonTable('IntervalsTable', INTERVALS_TABLE, RESULTS_LAYOUT.intervals, resultColumns(intervalSchema as JsonSchema),
      'Interval series of the measurements of 2 s or more (assets/schema/interval.schema.json): one line per interval, partitioned by the day the run started');

    this.workGroup = new athena.CfnWorkGroup(this, 'WorkGroup', {
      name: `${Stack.of(this).stackName}-results`,
      description: 's3-access-bench: queries over the results table',
      recursiveDeleteOption: true,
      state: 'ENABLED',
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: cutoff,
        resultConfiguration: {
          outputLocation: `s3://${this.bucket.bucketName}/${RESULTS_LAYOUT.athena}`,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });

    this.namedQueries = namedQueries().map((f) => {
      const query = new athena.CfnNamedQuery(this, `Query-${f.name}`, {
        name: f.name,
        description: f.description.slice(0, 1024),
        database: this.databaseName,
        workGroup: this.workGroup.ref,
        queryString: f.sql,
      });
      query.addResourceDependency(this.table);
      query.addResourceDependency(this.intervalsTable);
      return { name: f.name, query, sql: f.sql, use: f.use };
    });
  }

  /**
   * A Glue table of JSON lines under `prefix` in the runner's Hive layout (PREFIX/dt=YYYY-MM-DD/),
   * with partition projection on `dt`: queryable the moment its files land, no crawler, no MSCK REPAIR.
   */
  private projectedJsonTable(id: string, name: string, prefix: string, columns: glue.CfnTable.ColumnProperty[], description: string): glue.CfnTable {
    const location = `s3://${this.bucket.bucketName}/${prefix}`;
    const table = new glue.CfnTable(this, id, {
      catalogId: Aws.ACCOUNT_ID,
      databaseName: this.databaseName,
      tableInput: {
        name,
        description,
        tableType: 'EXTERNAL_TABLE',
        parameters: {
          classification: 'json',
          'projection.enabled': 'true',
          'projection.dt.type': 'date',
          'projection.dt.format': 'yyyy-MM-dd',
          'projection.dt.range': `${this.firstDay},NOW`,
          'projection.dt.interval': '1',
          'projection.dt.interval.unit': 'DAYS',
          'storage.location.template': `${location}dt=\${dt}`,
        },
        partitionKeys: [{ name: 'dt', type: 'string', comment: 'UTC day the run started (YYYY-MM-DD)' }],
        storageDescriptor: {
          location,
          columns,
          inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
          serdeInfo: { serializationLibrary: 'org.openx.data.jsonserde.JsonSerDe', parameters: { 'ignore.malformed.json': 'FALSE' } },
        },
      },
    });
    table.addResourceDependency(this.database);
    return table;
  }

  /**
   * The access_logs table over a bucket's S3 server access logs in this bucket (AWS's documented
   * RegexSerDe DDL, partition projection on the day of the date-partitioned layout) and the named
   * query that attributes them to runs and steps (assets/queries-access-logs/).
   */
  addAccessLogs(source: s3.IBucket): { table: glue.CfnTable; queries: athena.CfnNamedQuery[] } {
    const location = `s3://${this.bucket.bucketName}/${RESULTS_LAYOUT.accessLogs}${Aws.ACCOUNT_ID}/${Aws.REGION}/${source.bucketName}/`;
    const table = new glue.CfnTable(this, 'AccessLogTable', {
      catalogId: Aws.ACCOUNT_ID,
      databaseName: this.databaseName,
      tableInput: {
        name: ACCESS_LOG_TABLE,
        description: 'S3 server access logs of the benchmark data bucket (one line per request; delivered minutes to hours later)',
        tableType: 'EXTERNAL_TABLE',
        parameters: {
          'projection.enabled': 'true',
          [`projection.${ACCESS_LOG_PARTITION}.type`]: 'date',
          [`projection.${ACCESS_LOG_PARTITION}.format`]: 'yyyy/MM/dd',
          [`projection.${ACCESS_LOG_PARTITION}.range`]: `${this.firstDay.replace(/-/g, '/')},NOW`,
          [`projection.${ACCESS_LOG_PARTITION}.interval`]: '1',
          [`projection.${ACCESS_LOG_PARTITION}.interval.unit`]: 'DAYS',
          'storage.location.template': `${location}\${${ACCESS_LOG_PARTITION}}`,
        },
        partitionKeys: [{ name: ACCESS_LOG_PARTITION, type: 'string', comment: 'UTC day the request was made (YYYY/MM/DD)' }],
        storageDescriptor: {
          location,
          columns: ACCESS_LOG_COLUMNS.map(([name, type]) => ({ name, type })),
          inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
          serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.serde2.RegexSerDe', parameters: { 'input.regex': ACCESS_LOG_REGEX } },
        },
      },
    });
    table.addResourceDependency(this.database);
    const queries = accessLogQueries().map((f) => {
      const query = new athena.CfnNamedQuery(this, `Query-${f.name}`, {
        name: f.name, description: f.description.slice(0, 1024), database: this.databaseName, workGroup: this.workGroup.ref, queryString: f.sql,
      });
      query.addResourceDependency(table);
      return query;
    });
    return { table, queries };
  }

  /** The named queries the report model reads (assets/queries/model/): what the pipeline's Aggregate runs. */
  get modelQueries(): ResultsCatalog['namedQueries'] {
    return this.namedQueries.filter((q) => q.use === 'model');
  }

  get workGroupName(): string {
    return this.workGroup.ref;
  }

  /** ARN of the Glue table (for grants). */
  get tableArn(): string {
    return Stack.of(this).formatArn({ service: 'glue', resource: 'table', resourceName: `${this.databaseName}/${this.tableName}` });
  }

  /** ARNs of every table the named queries read (records and interval series), for grants. */
  get queriedTableArns(): string[] {
    return [this.tableName, INTERVALS_TABLE].map((t) => Stack.of(this).formatArn({ service: 'glue', resource: 'table', resourceName: `${this.databaseName}/${t}` }));
  }
}
