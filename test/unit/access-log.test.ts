import { countRequests, getBytesPerObject, parseAccessLogLine, requestType, RUNNER_USER_AGENT, uncovered } from '../../runner/endpoint/access-log';
import { REQUEST_TYPES } from '../../runner/core/request-types';
import { dollars } from '../../runner/report/format';
import { requestFigures } from '../../runner/report/pricing';
import { requestCells } from '../../runner/report/requests';
import { cacheClaimFlag, reconciledFlags, undeliveredBytes, type ReadCheck } from '../../runner/run/policy';

/** Lines as versitygw writes them (S3's server-access-log fields, unquoted). */
const line = (op: string, key: string, sent: number, size: number, ua = 'aws-sdk-js/3.0 ua/2.1') =>
  `AK bucket1 [24/November/2026:04:27:18 +0000] 127.0.0.1 AK 54EZEXWJLWIIICKT ${op} ${key} /bucket1/${key} 200 - ${sent} ${size} 0 0 - ${ua} - Q3aw= SigV4 - AuthHeader s3.us-east-1.amazonaws.com - arn:aws:s3:::/bucket1 Yes`;

describe('the server access log', () => {
  test('a line gives the operation, key, bytes sent, object size and the whole user agent', () => {
    expect(parseAccessLogLine(line('s3_GetObject', 'x/f', 100, 2000, 'aws-cli/2 md/Botocore#1 os/linux'))).toEqual({
      operation: 's3_GetObject', key: 'x/f', status: 200, bytesSent: 100, objectSize: 2000, userAgent: 'aws-cli/2 md/Botocore#1 os/linux',
    });
    expect(parseAccessLogLine('log starts 2026-11-24 04:27:15.953011889 +0000 UTC m=+0.007982410')).toBeNull();
  });

  test('request types: versitygw\'s names and S3\'s; a GET that sent less than the object is ranged', () => {
    expect(requestType({ operation: 's3_GetObject', bytesSent: 2000, objectSize: 2000 })).toBe('get');
    expect(requestType({ operation: 'REST.GET.OBJECT', bytesSent: 100, objectSize: 2000 })).toBe('get_ranged');
    expect(requestType({ operation: 's3_UploadPart', bytesSent: 0, objectSize: 0 })).toBe('mpu_part');
    expect(requestType({ operation: 'REST.POST.MULTI_OBJECT_DELETE', bytesSent: 0, objectSize: 0 })).toBe('delete');
    expect(requestType({ operation: 's3_HeadBucket', bytesSent: 0, objectSize: 0 })).toBe('other');
    expect(REQUEST_TYPES).toEqual(['get', 'get_ranged', 'put', 'mpu_create', 'mpu_part', 'mpu_complete', 'mpu_abort', 'head', 'list', 'delete', 'copy', 'other']);
  });

  test('counts leave out the runner\'s own requests and add up GET bytes', () => {
    const entries = [
      line('s3_GetObject', 'a', 10, 10), line('s3_GetObject', 'b', 4, 10), line('s3_HeadObject', 'a', 0, 0),
      line('s3_ListObjectsV2', '-', 500, 0, `aws-sdk-js/3 ${RUNNER_USER_AGENT}`),
    ].map((l) => parseAccessLogLine(l)!);
    const c = countRequests(entries);
    expect(c).toMatchObject({ get: 1, get_ranged: 1, head: 1, list: 0, get_bytes: 14 });
  });
});

describe('cache claims checked against the server', () => {
  // Two objects of 1000 bytes read on a cold pass.
  const twoObjects = { a: 1000, b: 1000 };
  const perObject = (sent: Record<string, number>) => ({ read: twoObjects, sent: new Map(Object.entries(sent)) });
  const cold = (sent: Record<string, number>): ReadCheck => ({
    cache: 'cold', bytesRead: 2000, getBytes: Object.values(sent).reduce((a, n) => a + n, 0), perObject: perObject(sent),
  });

  test('cold: bytes the server did not send were served from a cache; warm: every byte again is not warm', () => {
    expect(cacheClaimFlag(cold({ a: 1000, b: 1000 }))).toBeNull();
    expect(cacheClaimFlag(cold({ a: 3000, b: 1000 }))).toBeNull(); // read-ahead fetched more
    expect(cacheClaimFlag(cold({}))).toBe('served-from-cache');
    expect(cacheClaimFlag({ cache: 'cold', bytesRead: 1000, getBytes: 0 })).toBe('served-from-cache'); // window total only
    expect(cacheClaimFlag({ cache: 'warm-memory', bytesRead: 1000, getBytes: 10 })).toBeNull();
    expect(cacheClaimFlag({ cache: 'warm', bytesRead: 1000, getBytes: 1000 })).toBe('not-warm');
    expect(cacheClaimFlag({ cache: 'cold', bytesRead: 1000, getBytes: null })).toBeNull(); // no server log: no claim checked
  });

  test('each object is held to what the server sent for it; a window\'s total only where objects are not known', () => {
    expect(undeliveredBytes(cold({ a: 400, b: 5000 }))).toBe(600);
    expect(undeliveredBytes({ cache: 'cold', bytesRead: 2000, getBytes: 5400 })).toBe(0); // a total cannot see a's shortfall
    expect(undeliveredBytes({ cache: 'cold', bytesRead: 2000, getBytes: null })).toBeNull();
  });

  test('a partial cache hit with over-read on its cold part is flagged served-from-cache', () => {
    // a came from a cache (the server sent nothing for it); b's cold read over-read (prefetch,
    // retried ranges): 2400 bytes sent for 1000 read. In all the server sent more than was read,
    // which a window's total (the policy before) took for "every byte sent".
    const partial = { cache: 'cold', bytesRead: 2000, getBytes: 2400, perObject: perObject({ b: 2400 }) };
    expect(reconciledFlags([], partial)).toEqual(['served-from-cache']);
    // Above the link estimate as well: the estimate's flag stands, the log confirms it.
    expect(reconciledFlags(['served-from-cache'], partial)).toEqual(['served-from-cache']);
  });

  test('a record\'s flags reconciled with the server\'s log', () => {
    // Above the link estimate with every byte of each object sent: the estimate was low, and the record says so.
    expect(reconciledFlags(['served-from-cache'], cold({ a: 1000, b: 1200 }))).toEqual(['link-estimate-low']);
    expect(reconciledFlags(['possibly-network-capped'], cold({ a: 1000, b: 10 }))).toEqual(['served-from-cache']); // the claim, and no network figure
    expect(reconciledFlags([], { cache: 'warm', bytesRead: 1000, getBytes: 1000 })).toEqual(['not-warm']);
    expect(reconciledFlags(['served-from-cache', 'possibly-network-capped'], null)).toEqual(['served-from-cache']); // not a read: the estimate stands
    // Over-read in a window's total does not show every byte of each object was sent: the estimate's flag stands.
    expect(reconciledFlags(['served-from-cache'], { cache: 'none', bytesRead: 1000, getBytes: 1200 })).toEqual(['served-from-cache']);
    expect(reconciledFlags([], { cache: 'none', bytesRead: 1000, getBytes: 1200 })).toEqual([]);
    // No server log: the check was not possible, and the record says so.
    expect(reconciledFlags([], { cache: 'cold', bytesRead: 1000, getBytes: null })).toEqual(['cache-unchecked']);
    expect(reconciledFlags(['served-from-cache'], { cache: 'cold', bytesRead: 1000, getBytes: null })).toEqual(['served-from-cache', 'cache-unchecked']);
  });
});

describe('GET bytes per object from the log', () => {
  test('whole and ranged GETs of each key add up; the runner\'s own and other requests are left out', () => {
    const entries = [
      line('s3_GetObject', 'a', 10, 10), line('s3_GetObject', 'b', 4, 10), line('s3_GetObject', 'b', 6, 10), line('s3_HeadObject', 'a', 0, 0),
      line('s3_GetObject', 'c', 10, 10, `aws-sdk-js/3 ${RUNNER_USER_AGENT}`),
    ].map((l) => parseAccessLogLine(l)!);
    expect(Object.fromEntries(getBytesPerObject(entries))).toEqual({ a: 10, b: 10 });
  });
});

describe('request figures', () => {
  test('per operation, GET bytes per byte read, and cost per 1,000 operations at S3 Standard prices', () => {
    const f = requestFigures({ ops: 4, bytes: 4000, get_ranged: 8, head: 4, get_bytes: 6000, list: 0 })!;
    expect(f.perOp).toEqual([{ label: 'ranged GET', value: 2 }, { label: 'HEAD', value: 1 }]);
    expect(f.getBytesPerByteRead).toBe(1.5);
    // 12 tier-2 requests at $0.0004 per 1,000 over 4 operations: $0.0012 per 1,000 operations.
    expect(f.costPer1000Ops).toBeCloseTo(0.0012, 10);
    expect(requestFigures({ ops: 2, bytes: 0, put: 2, delete_requests: 2 })!.costPer1000Ops).toBeCloseTo(0.005, 10);
    expect(requestFigures({ ops: 0 })).toBeNull();
  });
});

describe('a step\'s stretches of the log that no measurement claimed', () => {
  test('the gaps between windows in any order, before the first and after the last; nothing where windows cover all', () => {
    expect(uncovered({ from: 0, to: 100 }, [{ from: 40, to: 60 }, { from: 10, to: 20 }])).toEqual([{ from: 0, to: 10 }, { from: 20, to: 40 }, { from: 60, to: 100 }]);
    expect(uncovered({ from: 0, to: 100 }, [{ from: 0, to: 50 }, { from: 50, to: 100 }])).toEqual([]);
    // Empty windows (nothing logged between two cuts) claim nothing.
    expect(uncovered({ from: 5, to: 9 }, [{ from: 7, to: 7 }])).toEqual([{ from: 5, to: 9 }]);
    expect(uncovered({ from: 5, to: 5 }, [])).toEqual([]);
  });
});

describe('request cells', () => {
  const counted = { measurements: 1, not_counted: 0 };
  test('a measurement: per operation; a row of requests only: in all, with its cost in all; not counted: null', () => {
    expect(requestCells({ ...counted, operation: 'truncate', ops: 1, bytes: 0, put: 1, head: 3 })).toEqual({ ops: '1', requests: 'PUT 1, HEAD 3', getBytes: '–', cost: '$0.0062' });
    expect(requestCells({ ...counted, operation: '(after probes)', ops: 0, bytes: 0, list: 4, head: 10 })).toEqual({ ops: '–', requests: 'in all: HEAD 10, LIST 4', getBytes: '–', cost: '$0.000024 in all' });
    expect(requestCells({ ...counted, operation: '(after probes)', ops: 0, bytes: 0 })).toBeNull();
    expect(requestCells({ measurements: 1, not_counted: 1, operation: 'create', ops: 1 })).toBeNull();
  });
});

describe('dollars', () => {
  test('a small cost is never printed as zero', () => {
    expect(dollars(0)).toBe('$0');
    expect(dollars(0.000005)).toBe('$0.0000050');
    expect(dollars(0.02)).toBe('$0.0200');
  });
});
