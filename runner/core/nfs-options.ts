import type { Options } from './method';

/** NFS options AWS recommends for EFS (and so S3 Files, which is built on it), recorded with every result. */
export const NFS_OPTIONS = {
  nfsvers: '4.1', rsize: 1048576, wsize: 1048576, hard: true, timeo: 600, retrans: 2, noresvport: true, tls: true, iam: true,
} as const satisfies Options;
