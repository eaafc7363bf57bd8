import { accessLogSecond, stepFigures, type StepRecord } from '../../scripts/rehearsal/step-figures';

/** A line as versitygw writes it (S3's server-access-log fields, unquoted; the month in full). */
const line = (bucket: string, second: string, op: string, sent = 0, size = 0) =>
  `AK ${bucket} [24/November/2026:10:00:${second} +0000] 127.0.0.1 AK ID ${op} k /${bucket}/k 200 - ${sent} ${size} 0 0 - aws-sdk-js/3 - Q= SigV4 - AuthHeader h - arn Yes`;
const at = (second: number, ms = 0) => new Date(Date.UTC(2026, 10, 24, 10, 0, second, ms)).toISOString();
const record = (step: number, from: number, to: number): StepRecord => ({
  step, method: 's3-api', method_variant: 'default', workload: 'objects', started_at: at(from), recorded_at: at(to), host: { runner_id: 'i-1' },
});

test('the log second of a line, in UTC', () => {
  expect(accessLogSecond(line('b', '07', 's3_GetObject'))).toBe(Date.UTC(2026, 10, 24, 10, 0, 7) / 1000);
  expect(accessLogSecond('AK b [24/Nov/2026:11:00:07 +0100] x')).toBe(Date.UTC(2026, 10, 24, 10, 0, 7) / 1000);
  expect(accessLogSecond('no time here')).toBeNull();
});

test('requests go to the preparation or the step whose window holds them; other buckets and times outside the command are left out', () => {
  const records = [record(1, 10, 12), record(1, 12, 14), record(2, 15, 20)];
  const log = [
    line('data', '05', 's3_PutObject', 0, 1000), // preparation (fixtures)
    line('data', '11', 's3_GetObject', 500, 500),
    line('data', '14', 's3_HeadObject'), // step 1's last second
    line('data', '17', 's3_ListObjectsV2'),
    line('data', '19', 's3_GetObject', 10, 100), // ranged
    line('results', '17', 's3_PutObject'), // not the data bucket
    line('data', '59', 's3_GetObject'), // after the command
  ].join('\n');
  const { steps, preparation } = stepFigures(records, log, { runner: 'i-1', startedAt: Date.parse(at(2)), endedAt: Date.parse(at(21)) }, 'data');
  expect(preparation).toEqual({ runner: 'i-1', seconds: 8, requests: { put: 1 }, bytesOut: 0, bytesIn: 1000 });
  expect(steps.map((s) => [s.index, s.seconds, s.requests, s.bytesOut])).toEqual([
    [1, 4, { get: 1, head: 1 }, 500],
    [2, 6, { list: 1, get_ranged: 1 }, 10],
  ]);
});
