import { countRequests, parseAccessLogLine, REQUEST_TYPES, requestType, RUNNER_USER_AGENT, uncovered } from '../../runner/endpoint/access-log';
import { dollars } from '../../runner/report/format';
import { requestFigures } from '../../runner/report/pricing';
import { requestCells } from '../../runner/report/requests';
import { cacheClaimFlag, reconciledFlags, serverSentEveryByte } from '../../runner/run/policy';

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
  test('cold: fewer GET bytes than read is served from a cache; warm: every byte again is not warm', () => {
    expect(cacheClaimFlag('cold', 1000, 1000)).toBeNull();
    expect(cacheClaimFlag('cold', 1000, 2000)).toBeNull(); // read-ahead fetched more
    expect(cacheClaimFlag('cold', 1000, 0)).toBe('served-from-cache');
    expect(cacheClaimFlag('warm-memory', 1000, 10)).toBeNull();
    expect(cacheClaimFlag('warm', 1000, 1000)).toBe('not-warm');
    expect(cacheClaimFlag('cold', 1000, null)).toBeNull(); // not counted: no claim checked
  });

  test('a cold read the server sent every byte of was not served from a cache, whatever the link estimate', () => {
    expect(serverSentEveryByte('cold', 1000, 1000)).toBe(true);
    expect(serverSentEveryByte('none', 1000, 1200)).toBe(true);
    expect(serverSentEveryByte('cold', 1000, 999)).toBe(false);
    expect(serverSentEveryByte('cold', 1000, null)).toBe(false); // not counted: the link estimate stands
    expect(serverSentEveryByte('warm', 1000, 1000)).toBe(false);
    expect(serverSentEveryByte('cold', 0, 0)).toBe(false);
  });

  test('a record\'s flags reconciled with the server\'s count', () => {
    const read = (cache: string, getBytes: number | null) => ({ cache, bytesRead: 1000, getBytes });
    expect(reconciledFlags(['served-from-cache', 'possibly-network-capped'], read('cold', 1000))).toEqual(['possibly-network-capped']); // the estimate was low
    expect(reconciledFlags(['possibly-network-capped'], read('cold', 10))).toEqual(['served-from-cache']); // the claim, and no network figure
    expect(reconciledFlags([], read('warm', 1000))).toEqual(['not-warm']);
    expect(reconciledFlags(['served-from-cache', 'possibly-network-capped'], null)).toEqual(['served-from-cache']); // not a read: the estimate stands
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
