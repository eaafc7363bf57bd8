import type { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { handleDocumentEvent, repetitionFolder, type DocumentResult } from './shared/document-benchmark';
import { env, s3Client } from './shared/s3';
import { S3DocumentStore } from './shared/s3-document-store';

const client = s3Client();

/**
 * Seed 001's "before" function: document processing through the S3 API — list the inbox,
 * download each document to /tmp, process it, upload its metadata, move it with CopyObject +
 * DeleteObject. Documents live under DATA_BUCKET/DOCS_PREFIX/RUNID/before/rNNN/.
 */
export function handler(event: unknown, context?: Context, deps: { s3?: S3Client } = {}): Promise<DocumentResult> {
  // Lambda calls handler(event, context): the client a test or the rehearsal injects comes third.
  const s3 = deps.s3 ?? client;
  return handleDocumentEvent(event, context,
    (ev) => new S3DocumentStore(s3, env('DATA_BUCKET'), `${env('DOCS_PREFIX')}${ev.runId}/before/${repetitionFolder(ev.repetition)}/`, process.env.S3AB_TMP_DIR ?? '/tmp', sdkVersion()),
    {
      client: s3, bucket: env('RESULTS_BUCKET'),
      endpoint: { kind: process.env.S3AB_S3_ENDPOINT ? 'custom' : 'aws', url: process.env.S3AB_S3_ENDPOINT ?? null, server: process.env.S3AB_S3_ENDPOINT ? null : 'Amazon S3' },
    });
}

function sdkVersion(): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('@aws-sdk/client-s3/package.json') as { version: string }).version;
  } catch {
    return 'bundled';
  }
}
