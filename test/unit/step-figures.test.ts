import { accessLogSecond, peakMiBps, stepFigures, type StepRecord } from '../../scripts/rehearsal/step-figures';
import { methodOfUserAgent } from '../../runner/methods/catalog';

/** A line as versitygw writes it (S3's server-access-log fields, unquoted; the month in full). */
const line = (bucket: string, second: string, op: string, sent = 0, size = 0, agent = 'aws-sdk-js/3 ua/2.1') =>
  `AK ${bucket} [24/November/2026:10:00:${second} +0000] 127.0.0.1 AK ID ${op} k /${bucket}/k 200 - ${sent} ${size} 0 0 - ${agent} - Q= SigV4 - AuthHeader h - arn Yes`;
const at = (second: number, ms = 0) => new Date(Date.UTC(2026, 10, 24, 10, 0, second, ms)).toISOString();
const record = (step: number, from: number, to: number, method = 's3-api', runner: string | null = 'i-1', fromMs = 0, toMs = 0): StepRecord => ({
  step, method, method_variant: 'default', workload: 'objects', started_at: at(from, fromMs), recorded_at: at(to, toMs), duration_ms: 100, host: { runner_id: runner }, cache: 'none', throughput_mib_s: null, flags: [],
});
const methodOf = (ua: string) => methodOfUserAgent(ua)?.name ?? null;
const command = { runner: 'i-1', startedAt: Date.parse(at(2)), endedAt: Date.parse(at(21)) };

test('the log second of a line, in UTC', () => {
  expect(accessLogSecond(line('b', '07', 's3_GetObject'))).toBe(Date.UTC(2026, 10, 24, 10, 0, 7) / 1000);
  expect(accessLogSecond('AK b [24/Nov/2026:11:00:07 +0100] x')).toBe(Date.UTC(2026, 10, 24, 10, 0, 7) / 1000);
  expect(accessLogSecond('no time here')).toBeNull();
});

test('each client is told apart by its User-Agent; the runner\'s own client is not a method', () => {
  expect(methodOf('aws-sdk-js/3.1168.0 ua/2.1 os/linux lang/js')).toBe('s3-api');
  expect(methodOf('aws-sdk-js/3.1168.0 ua/2.1 os/linux lang/js m/N,E,g s3ab-runner')).toBe('s3-api'); // stepFigures checks the runner first
  expect(methodOf('s3ab-s3-crt/0.1.0 mountpoint-s3-client/0.22.1 CRTS3NativeClient/0.1.x platform/unknown')).toBe('s3-crt');
  expect(methodOf('mountpoint-s3/1.19.0 mountpoint-s3-client/0.22.1 CRTS3NativeClient/0.1.x platform/unknown')).toBe('mountpoint');
  expect(methodOf('s3ab-mount-s3/0.1.0 mountpoint-s3-client/0.22.1 CRTS3NativeClient/1.1.3 platform/unknown')).toBe('mountpoint');
  expect(methodOf('aws-cli/2.9.19 Python/3.11.2 Linux/6.18')).toBe('aws-cli');
  expect(methodOf('s3fs/1.90 (commit hash unknown; GnuTLS(gcrypt))')).toBe('s3fs');
  expect(methodOf('rclone/')).toBe('rclone');
  expect(methodOf('aws-sdk-go-v2/1.41.5 ua/2.1 os/linux lang/go#1.27.3')).toBe('juicefs');
  expect(methodOf('curl/8')).toBeNull();
});

test('requests go to the preparation or the step whose window holds them; other buckets, other runners\' records and times outside the command are left out', async () => {
  const records = [record(1, 10, 12), record(1, 12, 14), record(2, 15, 20), record(1, 11, 13, 'local-fs', null)];
  const log = [
    line('data', '05', 's3_PutObject', 0, 1000), // preparation (fixtures)
    line('data', '11', 's3_GetObject', 500, 500),
    line('data', '13', 's3_HeadObject'),
    line('data', '17', 's3_ListObjectsV2'),
    line('data', '19', 's3_GetObject', 10, 100), // ranged
    line('results', '17', 's3_PutObject'), // not the data bucket
    line('data', '59', 's3_GetObject'), // after the command
  ];
  const { steps, preparation } = await stepFigures(records, log, command, 'data', methodOf);
  expect(preparation).toEqual({ runner: 'i-1', seconds: 8, requests: { put: 1 }, bytesOut: 0, bytesIn: 1000 });
  expect(steps.map((s) => [s.index, s.method, s.seconds, s.requests, s.bytesOut])).toEqual([
    [1, 's3-api', 4, { get: 1, head: 1 }, 500],
    [2, 's3-api', 6, { list: 1, get_ranged: 1 }, 10],
  ]);
});

test('steps shorter than the log\'s second: a request goes to the step of the method that sent it, the runner\'s own to the step overlapping its second most', async () => {
  // Three steps inside seconds 10 and 11: s3-api 10.0–10.3, s3-crt 10.3–10.5, aws-cli 10.5–11.9.
  const records = [record(1, 10, 10, 's3-api', 'i-1', 0, 300), record(2, 10, 10, 's3-crt', 'i-1', 300, 500), record(3, 10, 11, 'aws-cli', 'i-1', 500, 900)];
  const log = [
    line('data', '10', 's3_PutObject', 0, 10, 's3ab-s3-crt/0.1.0 mountpoint-s3-client/0.22.1 CRTS3NativeClient/0.1.x platform/unknown'),
    line('data', '10', 's3_PutObject', 0, 10, 'aws-sdk-js/3 ua/2.1'),
    line('data', '10', 's3_HeadObject', 0, 0, 'aws-cli/2.9.19 Python/3.11.2'),
    line('data', '11', 's3_HeadObject', 0, 0, 'aws-sdk-js/3 ua/2.1 s3ab-runner'), // the runner's check: only aws-cli's step reaches 11
    line('data', '10', 's3_ListObjectsV2', 0, 0, 'aws-sdk-js/3 ua/2.1 s3ab-runner'), // second 10: aws-cli's step overlaps it most (0.5 s)
  ];
  const { steps } = await stepFigures(records, log, command, 'data', methodOf);
  expect(steps.map((s) => [s.method, s.requests, s.runnerRequests])).toEqual([
    ['s3-api', { put: 1 }, {}],
    ['s3-crt', { put: 1 }, {}],
    ['aws-cli', { head: 2, list: 1 }, { head: 1, list: 1 }],
  ]);
});

test('a step\'s link demand: its fastest cold or cache-less measurement; warm passes and figures served from a cache are not the link\'s', () => {
  const r = (cache: string, throughput_mib_s: number | null, flags: string[] = []) => ({ cache, throughput_mib_s, flags });
  expect(peakMiBps([r('cold', 120), r('warm', 2000), r('none', 80)])).toBe(120);
  expect(peakMiBps([r('cold', 900, ['served-from-cache']), r('cold', 50), r('warm-memory', 3000)])).toBe(50);
  expect(peakMiBps([r('none', null)])).toBe(0);
});
