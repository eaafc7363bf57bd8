import type { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { join } from 'node:path';
import { handleDocumentEvent, repetitionFolder, type DocumentResult } from './shared/document-benchmark';
import { FsDocumentStore } from './shared/fs-document-store';
import { env, s3Client } from './shared/s3';

const client = s3Client();

/**
 * Seed 001's "after" function: the same document processing on the S3 Files file system,
 * mounted through its access point at MOUNT_PATH (a non-root POSIX user whose root directory
 * the access point created) — readdir, readFile, writeFile, rename. Documents live under
 * MOUNT_PATH/RUNID/after/rNNN/. MOUNT_METHOD names what is mounted there (s3-files on AWS;
 * tests run it on a local directory and on an s3fs mount).
 */
export function handler(event: unknown, context?: Context, deps: { s3?: S3Client } = {}): Promise<DocumentResult> {
  // Lambda calls handler(event, context): the client a test or the rehearsal injects comes third.
  const s3 = deps.s3 ?? client;
  const method = process.env.MOUNT_METHOD ?? 's3-files';
  return handleDocumentEvent(event, context,
    (ev) => new FsDocumentStore(method, join(env('MOUNT_PATH'), ev.runId, 'after', repetitionFolder(ev.repetition)), {
      version: process.env.MOUNT_VERSION ?? 'Amazon S3 Files (Lambda NFS 4.2 mount)',
      options: { mount_path: env('MOUNT_PATH'), access_point: process.env.ACCESS_POINT_ARN ?? 'none' },
      // Documents are seeded through the mount just before, so they sit in the file system's cache.
      cache: method === 'local-fs' ? 'none' : 'warm',
    }),
    {
      client: s3, bucket: env('RESULTS_BUCKET'),
      endpoint: { kind: process.env.S3AB_S3_ENDPOINT ? 'custom' : 'aws', url: process.env.S3AB_S3_ENDPOINT ?? null, server: process.env.MOUNT_SERVER ?? 'Amazon S3 Files' },
    });
}
