import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { REQUEST_TYPES, type RequestCounts, type RequestType } from '../core/request-types';
import type { RequestWindow } from '../core/workload';


/**
 * The User-Agent suffix of the runner's own S3 client (fixtures, checks, cleanup): its requests
 * are not the measured method's and are left out of every count.
 */
export const RUNNER_USER_AGENT = 's3ab-runner';

/** One answered request: the access-log fields the counts need. */
export interface AccessLogEntry {
  operation: string;
  key: string;
  status: number;
  bytesSent: number;
  objectSize: number;
  userAgent: string;
}

/**
 * Operation names in S3's server access logs (REST.VERB.TYPE) and in versitygw's (s3_Action), by
 * request type. A GetObject is ranged when it sent fewer bytes than the object has, as S3's own
 * logs show it (they hold no Range header).
 */
const OPERATION_TYPES: Record<string, RequestType> = {
  'REST.GET.OBJECT': 'get', s3_GetObject: 'get',
  'REST.PUT.OBJECT': 'put', s3_PutObject: 'put',
  'REST.POST.UPLOADS': 'mpu_create', s3_CreateMultipartUpload: 'mpu_create',
  'REST.PUT.PART': 'mpu_part', s3_UploadPart: 'mpu_part',
  'REST.POST.UPLOAD': 'mpu_complete', s3_CompleteMultipartUpload: 'mpu_complete',
  'REST.DELETE.UPLOAD': 'mpu_abort', s3_AbortMultipartUpload: 'mpu_abort',
  'REST.HEAD.OBJECT': 'head', s3_HeadObject: 'head',
  'REST.GET.BUCKET': 'list', s3_ListObjectsV2: 'list', s3_ListObjects: 'list',
  'REST.DELETE.OBJECT': 'delete', s3_DeleteObject: 'delete', 'REST.POST.MULTI_OBJECT_DELETE': 'delete', s3_DeleteObjects: 'delete',
  'REST.COPY.OBJECT': 'copy', s3_CopyObject: 'copy', 'REST.COPY.PART': 'copy', s3_UploadPartCopy: 'copy',
};

export function requestType(e: Pick<AccessLogEntry, 'operation' | 'bytesSent' | 'objectSize'>): RequestType {
  const type = OPERATION_TYPES[e.operation] ?? 'other';
  return type === 'get' && e.objectSize > 0 && e.bytesSent < e.objectSize ? 'get_ranged' : type;
}

/** Fields after the user agent in versitygw's lines: version id, host id, signature, cipher, auth, host, TLS, access point, ACL. */
const TRAILING_FIELDS = 9;

/**
 * One line of versitygw's access log (S3's server-access-log fields, unquoted, space-separated:
 * owner, bucket, [time zone], ip, requester, request id, operation, key, URI, status, error,
 * bytes sent, object size, total ms, turnaround ms, referer, user agent..., then 9 fields); null
 * for the header line and anything else.
 */
export function parseAccessLogLine(line: string): AccessLogEntry | null {
  const f = line.split(' ');
  if (f.length < 17 + TRAILING_FIELDS || !f[2].startsWith('[')) return null;
  const num = (s: string) => (s === '-' ? 0 : Number(s) || 0);
  return {
    operation: f[7], key: f[8] === '-' ? '' : f[8], status: num(f[10]), bytesSent: num(f[12]), objectSize: num(f[13]),
    userAgent: f.slice(17, f.length - TRAILING_FIELDS).join(' '),
  };
}

function emptyCounts(): RequestCounts {
  const c = { get_bytes: 0 } as RequestCounts;
  for (const t of REQUEST_TYPES) c[t] = 0;
  return c;
}

/** Counts by type (and GET bytes) of the entries the measured method made (not the runner's own). */
export function countRequests(entries: readonly AccessLogEntry[]): RequestCounts {
  const c = emptyCounts();
  for (const e of entries) {
    if (e.userAgent.includes(RUNNER_USER_AGENT)) continue;
    const type = requestType(e);
    c[type]++;
    if (type === 'get' || type === 'get_ranged') c.get_bytes += e.bytesSent;
  }
  return c;
}

/**
 * The embedded server's access log, read by byte offset. The server writes a request's line
 * before the client has the whole response (checked: not one of 300 requests was missing when
 * its response arrived), so the file's size taken when a measurement ends splits it exactly from
 * the next one for every request the method waited for.
 */
export class AccessLog {
  constructor(readonly path: string) {}

  /** Where the log ends now: the boundary between two measurements (synchronous, cheap). */
  offset(): number {
    try {
      return statSync(this.path).size;
    } catch {
      return 0;
    }
  }

  /** The requests logged in the windows, counted together. */
  countWindows(windows: readonly RequestWindow[]): RequestCounts {
    const sum = emptyCounts();
    for (const w of windows) {
      const c = this.countBetween(w.from, w.to);
      for (const k of Object.keys(sum) as (keyof RequestCounts)[]) sum[k] += c[k];
    }
    return sum;
  }

  /** The requests logged between two offsets, counted. */
  countBetween(from: number, to: number): RequestCounts {
    return countRequests(this.entriesBetween(from, to));
  }

  /** The GET bytes the server wrote per object key in the windows, for the measured method's requests. */
  sentPerObject(windows: readonly RequestWindow[]): Map<string, number> {
    return getBytesPerObject(windows.flatMap((w) => this.entriesBetween(w.from, w.to)));
  }

  private entriesBetween(from: number, to: number): AccessLogEntry[] {
    if (to <= from) return [];
    const buf = Buffer.alloc(to - from);
    const fd = openSync(this.path, 'r');
    try {
      readSync(fd, buf, 0, buf.length, from);
    } finally {
      closeSync(fd);
    }
    return buf.toString('utf8').split('\n').map(parseAccessLogLine).filter((e): e is AccessLogEntry => !!e);
  }
}

/**
 * GET bytes per object key of the entries the measured method made (the patched server logs the
 * bytes it wrote to the connection, so a response its client abandoned counts what was sent).
 */
export function getBytesPerObject(entries: readonly AccessLogEntry[]): Map<string, number> {
  const sent = new Map<string, number>();
  for (const e of entries) {
    if (e.userAgent.includes(RUNNER_USER_AGENT)) continue;
    const type = requestType(e);
    if (type === 'get' || type === 'get_ranged') sent.set(e.key, (sent.get(e.key) ?? 0) + e.bytesSent);
  }
  return sent;
}

/** All requests of a count, of every type (GET bytes are not requests). */
export function totalRequests(c: RequestCounts): number {
  return REQUEST_TYPES.reduce((n, t) => n + c[t], 0);
}

/** The stretches of `span` that no window covers, in order (the windows may come in any order). */
export function uncovered(span: RequestWindow, windows: readonly RequestWindow[]): RequestWindow[] {
  const out: RequestWindow[] = [];
  let at = span.from;
  for (const w of [...windows].filter((x) => x.to > x.from).sort((a, b) => a.from - b.from)) {
    if (w.from > at) out.push({ from: at, to: Math.min(w.from, span.to) });
    at = Math.max(at, w.to);
    if (at >= span.to) break;
  }
  if (at < span.to) out.push({ from: at, to: span.to });
  return out.filter((w) => w.to > w.from);
}
