import type { Options } from './method';

/** NFS options AWS recommends for EFS (and so S3 Files, which is built on it), recorded with every result. */
export const NFS_OPTIONS = {
  nfsvers: '4.1', rsize: 1048576, wsize: 1048576, hard: true, timeo: 600, retrans: 2, noresvport: true, tls: true, iam: true,
} as const satisfies Options;

/**
 * The NFS options ZeroFS documents for Linux clients (`async,nolock,rsize=1048576,wsize=1048576,tcp,
 * port=2049,mountport=2049,hard`), with `vers=3` written out: NFSv3 is the only version its server
 * speaks. `port` and `mountport` are the step's own server port, set at mount time.
 */
export const ZEROFS_NFS_OPTIONS = {
  vers: '3', async: true, nolock: true, rsize: 1048576, wsize: 1048576, tcp: true, hard: true,
} as const satisfies Options;
