import type { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { makeDocuments, processInbox, type DocumentStore } from './documents';
import { logger, metrics, NamedError } from './powertools';
import { buildRecords, lambdaHost, putRecords } from './results';
import { stringMap } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';
import { isRunId, RUN_ID_EXAMPLE } from '../../runner/core/vocabulary';

/** Input of both document-processing functions (one benchmark repetition). */
export interface DocumentEvent {
  runId: string;
  repetition: number;
  /** Documents to seed and process. @default 20 (seed 001) */
  documents?: number;
  /** @default 500 */
  minWords?: number;
  /** @default 2000 */
  maxWords?: number;
}

export interface DocumentResult {
  method: string;
  runId: string;
  repetition: number;
  files: number;
  verified: boolean;
  phasesMs: Record<string, number>;
  resultsKey: string;
}

/** Checks the event; a bad one is an `InvalidEvent` error naming the field. */
function parseEvent(e: unknown): Required<DocumentEvent> {
  const ev = (e ?? {}) as Partial<DocumentEvent>;
  const bad = (msg: string) => new NamedError('InvalidEvent', msg);
  if (typeof ev.runId !== 'string' || !isRunId(ev.runId)) throw bad(`runId must look like ${RUN_ID_EXAMPLE}, got ${JSON.stringify(ev.runId)}`);
  if (!Number.isInteger(ev.repetition) || ev.repetition! < 1) throw bad(`repetition must be a whole number ≥ 1, got ${JSON.stringify(ev.repetition)}`);
  const documents = ev.documents ?? 20;
  if (!Number.isInteger(documents) || documents < 1 || documents > 1000) throw bad(`documents must be 1–1000, got ${JSON.stringify(ev.documents)}`);
  const minWords = ev.minWords ?? 500;
  const maxWords = ev.maxWords ?? 2000;
  if (!Number.isInteger(minWords) || !Number.isInteger(maxWords) || minWords < 1 || maxWords < minWords || maxWords > 100_000) {
    throw bad(`minWords/maxWords must satisfy 1 ≤ minWords ≤ maxWords ≤ 100000, got ${minWords}/${maxWords}`);
  }
  return { runId: ev.runId, repetition: ev.repetition!, documents, minWords, maxWords };
}

/** `r007`: the folder of one repetition under the run's documents. */
export function repetitionFolder(repetition: number): string {
  return `r${String(repetition).padStart(3, '0')}`;
}

/**
 * The body of both handlers (Powertools context, cold-start metric, metrics flushed whatever
 * happens): the event is checked first, then `storeFor` builds the store from the checked event.
 */
export async function handleDocumentEvent(
  event: unknown,
  context: Context | undefined,
  storeFor: (ev: Required<DocumentEvent>) => DocumentStore,
  results: { client: S3Client; bucket: string; endpoint: ResultRecord['endpoint'] },
): Promise<DocumentResult> {
  if (context) logger.addContext(context);
  metrics.captureColdStartMetric();
  try {
    const ev = parseEvent(event);
    return await runDocumentBenchmark(ev, storeFor(ev), results);
  } finally {
    metrics.publishStoredMetrics();
  }
}

/**
 * One repetition of seed 001's Lambda benchmark on one store: seed the documents (untimed), run
 * the shared processing with per-phase timings, write the phase records to the results bucket,
 * clean up (untimed). A batch whose data did not check out is written as failed, then reported
 * as a `DocumentProcessingFailed` error, so the execution does not present it as a result.
 */
async function runDocumentBenchmark(
  ev: Required<DocumentEvent>,
  store: DocumentStore,
  results: { client: S3Client; bucket: string; endpoint: ResultRecord['endpoint'] },
): Promise<DocumentResult> {
  const docs = makeDocuments(`${ev.runId}/${ev.repetition}`, ev.documents, ev.minWords, ev.maxWords);
  logger.info('seeding documents', { method: store.method, documents: docs.length });
  await store.cleanup();
  await store.seed(docs);
  let outcome;
  try {
    outcome = await processInbox(store, docs);
  } finally {
    await store.cleanup().catch((err) => logger.warn('cleanup failed', { error: String(err) }));
  }
  const records = buildRecords({
    run_id: ev.runId, host: lambdaHost(), endpoint: results.endpoint,
    method: store.method, method_variant: store.variant, method_version: store.version, method_options: stringMap(store.options),
    workload: 'document-processing',
    workload_params: stringMap({ documents: ev.documents, min_words: ev.minWords, max_words: ev.maxWords }),
    step: ev.repetition, cache: store.cache, repetition: ev.repetition, clients: 1, fleet: null,
  }, outcome.measurements);
  const resultsKey = await putRecords(results.client, results.bucket, records, `l${String(ev.repetition).padStart(3, '0')}`);
  const verified = records.every((r) => r.status === 'ok' && r.verified);

  metrics.addDimension('method', store.method);
  metrics.addMetric('FilesProcessed', MetricUnit.Count, outcome.files);
  for (const [phase, ms] of Object.entries(outcome.phasesMs)) metrics.addMetric(`${phase}Ms`, MetricUnit.Milliseconds, ms);
  logger.info('batch complete', { method: store.method, files: outcome.files, phasesMs: outcome.phasesMs, verified, resultsKey });
  if (!verified) {
    const first = records.find((r) => r.error_sample)?.error_sample ?? 'unverified data';
    throw new NamedError('DocumentProcessingFailed', `${store.method} repetition ${ev.repetition}: ${first} (records written as failed to ${resultsKey})`);
  }
  return { method: store.method, runId: ev.runId, repetition: ev.repetition, files: outcome.files, verified, phasesMs: outcome.phasesMs, resultsKey };
}
