import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ACCESS_LOG_COLUMNS, ACCESS_LOG_PARTITION, ACCESS_LOG_REGEX, ACCESS_LOG_TABLE } from '../runner/report/access-log-table';
import intervalSchema from '../assets/schema/interval.schema.json';
import { accessLogQueries, INTERVALS_TABLE, namedQueries, type QueryUse } from '../runner/report/results-db';
import { resultColumns, type JsonSchema } from './glue-columns';
import { RESULTS_LAYOUT } from './results-layout';

/**
 * The results bucket's lifecycle rules. Only the scratch prefixes expire; results/, reports/ and
 * executions/ (the history) have none. An adopted bucket must already have them.
 */
const RESULTS_LIFECYCLE_RULES: s3.LifecycleRule[] = [
  { id: 'expire-athena-results', prefix: RESULTS_LAYOUT.athena, expiration: Duration.days(30) },
  { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
  // Runners and Teardown remove a fleet's barrier markers; this catches what a lost execution left.
  { id: 'expire-fleet-barrier', prefix: RESULTS_LAYOUT.fleetBarrier, expiration: Duration.days(1) },
];

/** What Athena may scan per query of the workgroup unless the props say otherwise (1 GiB). */
export const DEFAULT_SCAN_CUTOFF_BYTES = 1024 ** 3;

export interface ResultsCatalogProps {
  /** Glue database name. @default 's3ab' plus the stack name, lower-cased */
  readonly databaseName?: string;
  /** Athena stops any query of the workgroup that would scan more. @default 1 GiB */
  readonly bytesScannedCutoffPerQuery?: number;
  /** First day partition projection enumerates. @default '2026-01-01' */
  readonly firstDay?: string;
  /**
   * `cdk destroy` deletes the results bucket and every record in it (context `deleteResultsOnDestroy=true`).
   * Off, the bucket is retained with its records, so history outlives the stack. @default false
   */
  readonly deleteOnDestroy?: boolean;
  /**
   * Name of an existing results bucket (one an earlier stack retained) to use instead of creating
   * one (context `resultsBucket=NAME`), so history continues across stacks. It must be in the
   * stack's account and region and already have what an imported bucket cannot be given here:
   * its lifecycle rules, encryption, public access block and object ownership (a bucket this stack
   * retained keeps them); the stack writes its bucket policy (TLS only, access-log delivery),
   * replacing any the bucket has. @default a new bucket
   */
  readonly adoptBucketName?: string;
}

/** S3's rules for a general purpose bucket name (3–63 characters; lower-case letters, digits, dots, hyphens; no IP form). */
const BUCKET_NAME = /^(?!\d+\.\d+\.\d+\.\d+$)(?!xn--)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** The props checked together, with their defaults, before anything is built. */
function checkResultsCatalogProps(props: ResultsCatalogProps, stackName: string) {
  const databaseName = props.databaseName ?? `s3ab_${stackName.toLowerCase().replace(/[^a-z0-9]/g, '_')}`;
  if (!/^[a-z0-9_]{1,255}$/.test(databaseName)) throw new Error(`ResultsCatalog: databaseName "${databaseName}" must be lower-case letters, digits and _`);
  const cutoff = props.bytesScannedCutoffPerQuery ?? DEFAULT_SCAN_CUTOFF_BYTES;
  if (cutoff < 10 * 1024 ** 2) throw new Error(`ResultsCatalog: bytesScannedCutoffPerQuery must be ≥ 10 MB (Athena's minimum), got ${cutoff}`);
  const firstDay = props.firstDay ?? '2026-01-01';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(firstDay)) throw new Error(`ResultsCatalog: firstDay must be YYYY-MM-DD, got "${firstDay}"`);
  const adopt = props.adoptBucketName;
  if (adopt !== undefined && (!BUCKET_NAME.test(adopt) || adopt.includes('..'))) {
    throw new Error(`ResultsCatalog: adoptBucketName "${adopt}" is not an S3 bucket name (3–63 lower-case letters, digits, dots and hyphens): give the retained bucket's name, as the ResultsBucketName output showed it`);
  }
  if (adopt !== undefined && props.deleteOnDestroy) {
    throw new Error(`ResultsCatalog: deleteOnDestroy cannot apply to the adopted bucket "${adopt}": the stack never deletes a bucket it did not create; drop one of the two`);
  }
  return { databaseName, cutoff, firstDay, adopt, deleteOnDestroy: props.deleteOnDestroy ?? false };
}

/**
 * Where results are kept and queried: the results bucket (kept by `cdk destroy` unless
 * `deleteOnDestroy`, or an earlier one adopted by name: its records are the history), a Glue table over the runner's Hive layout
 * (results/dt=YYYY-MM-DD/*.jsonl) whose columns are generated from the result JSON Schema and one
 * over the interval series beside it (results/intervals/dt=…/, from the interval schema), with
 * partition projection on `dt` so a run is queryable the moment its files land (no crawler, no
 * MSCK REPAIR), an Athena workgroup with an enforced, encrypted result location and a
 * bytes-scanned cutoff, and one named query per SQL file — the same files the local report
 * runs on DuckDB. The pipeline runs the model's queries (`modelQueries`); the adhoc ones are there
 * for users.
 */
export class ResultsCatalog extends Construct {
  /** The results bucket: created here, or adopted by name (`adoptBucketName`). */
  readonly bucket: s3.IBucket;
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
    const checked = checkResultsCatalogProps(props, Stack.of(this).stackName);
    this.databaseName = checked.databaseName;
    const cutoff = checked.cutoff;
    this.firstDay = checked.firstDay;
    this.bucket = checked.adopt !== undefined ? this.adoptBucket(checked.adopt) : this.createBucket(checked.deleteOnDestroy);

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
   * The results bucket. Retained by `cdk destroy` with its records unless `deleteOnDestroy`: the
   * records are the history later runs are compared with.
   */
  private createBucket(deleteOnDestroy: boolean): s3.Bucket {
    const bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: RESULTS_LIFECYCLE_RULES,
      removalPolicy: deleteOnDestroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      autoDeleteObjects: deleteOnDestroy,
    });
    // No AwsSolutions-S1 acknowledgment: the bucket is the data bucket's access-log target (cdk-nag counts a log target as logged).
    return bucket;
  }

  /**
   * An existing results bucket, by name. An imported bucket takes no lifecycle rules, encryption
   * or public access settings from the stack (it must have them: a retained bucket does); its
   * bucket policy is written here, since a retained bucket lost the one its old stack made: TLS
   * only, and whatever the stack adds (the data bucket's access-log delivery).
   */
  private adoptBucket(name: string): s3.IBucket {
    const bucket = s3.Bucket.fromBucketName(this, 'Bucket', name);
    const policy = new s3.BucketPolicy(this, 'BucketPolicy', { bucket });
    policy.document.addStatements(new iam.PolicyStatement({
      sid: 'TlsOnly', effect: iam.Effect.DENY, principals: [new iam.AnyPrincipal()], actions: ['s3:*'],
      resources: [bucket.bucketArn, bucket.arnForObjects('*')], conditions: { Bool: { 'aws:SecureTransport': 'false' } },
    }));
    // IBucket.policy is the documented hook: with it set, addToResourcePolicy adds to this policy.
    bucket.policy = policy;
    return bucket;
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
