import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';

/**
 * A RAM-backed temp folder (/dev/shm) when there is one, else the OS temp folder. The embedded
 * server keeps its objects there so that a local run measures the access method, not this
 * machine's disk (a virtual disk here syncs at ~250 MB/s, below what loopback S3 clients reach).
 * S3AB_TMP overrides it.
 */
export function memoryBackedTmp(): string {
  if (process.env.S3AB_TMP) return process.env.S3AB_TMP;
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}
