import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { cpus, hostname, release } from 'node:os';
import type { Measurement } from '../../runner/core/batch';
import { recordErrors, toRecord, type StepFacts } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';
import { runDay } from '../../runner/core/vocabulary';
import { RESULTS_LAYOUT } from '../../lib/results-layout';

/** Host facts of a Lambda execution environment (its memory size is its "instance type"). */
export function lambdaHost(): ResultRecord['host'] {
  const memoryMb = Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? 0);
  return {
    hostname: hostname(),
    instance_type: memoryMb ? `lambda-${process.arch}-${memoryMb}MB` : 'local',
    vcpus: cpus().length,
    memory_bytes: memoryMb ? memoryMb * 1024 * 1024 : 0,
    kernel: release(),
    os: process.env.AWS_EXECUTION_ENV ?? `node ${process.version}`,
    region: process.env.AWS_REGION ?? null,
    availability_zone: null,
    link_limit_mib_s: null,
    link_baseline_mib_s: null,
    link_limit_source: null,
    runner_id: null,
  };
}

export function buildRecords(facts: StepFacts, measurements: Measurement[]): ResultRecord[] {
  const records = measurements.map((m) => toRecord(facts, m));
  for (const r of records) {
    const errors = recordErrors(r);
    if (errors.length) throw new Error(`internal error: a ${facts.workload} record does not match the result schema: ${errors.join('; ')}`);
  }
  return records;
}


/**
 * Writes one JSON-lines file of records into the results bucket, in the runner's Hive layout:
 * results/dt=DAY/RUNID--LABEL--METHOD--WORKLOAD.jsonl. Returns the key.
 */
export async function putRecords(client: S3Client, bucket: string, records: ResultRecord[], label: string): Promise<string> {
  const r = records[0];
  const key = `${RESULTS_LAYOUT.records}dt=${runDay(r.run_id)}/${r.run_id}--${label}--${r.method}--${r.workload}.jsonl`;
  await client.send(new PutObjectCommand({
    Bucket: bucket, Key: key, Body: records.map((x) => JSON.stringify(x)).join('\n') + '\n', ContentType: 'application/x-ndjson',
  }));
  return key;
}
