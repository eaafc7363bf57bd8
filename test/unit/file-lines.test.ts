import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileLines } from '../../scripts/rehearsal/file-lines';
import { stepFigures, type StepRecord } from '../../scripts/rehearsal/step-figures';

/**
 * The rehearsal streams the server's access log (a seed run's log passes Node's 512 MB string
 * limit). Here a small file is read in chunks far smaller than its lines, so lines, and characters,
 * cross chunk boundaries: the lines come out as splitting the whole text would give them.
 */
const work = mkdtempSync(join(tmpdir(), 's3ab-file-lines-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const collect = async (lines: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const l of lines) out.push(l);
  return out;
};

test('lines split across many chunks come out whole, multi-byte characters included; no line is lost at the end', async () => {
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i} ${'é€𝄞'.repeat(i % 7)} ${'x'.repeat(i % 53)}`);
  for (const [name, text] of [['with-newline.log', `${lines.join('\n')}\n`], ['without-newline.log', lines.join('\n')]]) {
    const path = join(work, name);
    writeFileSync(path, text);
    // 7-byte chunks: hundreds of them, most lines spread over several, many characters cut in two.
    expect(statSync(path).size).toBeGreaterThan(50 * 7);
    expect(await collect(fileLines(path, { highWaterMark: 7 }))).toEqual(lines);
    expect(await collect(fileLines(path))).toEqual(lines);
  }
});

test('an empty file has no lines; blank lines inside are kept', async () => {
  const empty = join(work, 'empty.log');
  writeFileSync(empty, '');
  expect(await collect(fileLines(empty, { highWaterMark: 4 }))).toEqual([]);
  const blanks = join(work, 'blanks.log');
  writeFileSync(blanks, 'a\n\nb\n');
  expect(await collect(fileLines(blanks, { highWaterMark: 1 }))).toEqual(['a', '', 'b']);
});

test('the step figures from a streamed log in small chunks are those from the same log in memory', async () => {
  const at = (second: number) => new Date(Date.UTC(2026, 10, 24, 10, 0, second)).toISOString();
  const record = (step: number, from: number, to: number): StepRecord => ({
    step, method: 's3-api', method_variant: 'default', workload: 'objects', started_at: at(from), recorded_at: at(to), duration_ms: 100, host: { runner_id: 'i-1' }, cache: 'none', throughput_mib_s: null, flags: [],
  });
  const line = (second: number, op: string, sent: number) =>
    `AK data [24/November/2026:10:00:${String(second).padStart(2, '0')} +0000] 127.0.0.1 AK ID ${op} k /data/k 200 - ${sent} ${sent} 0 0 - aws-sdk-js/3 ua/2.1 - Q= SigV4 - AuthHeader h - arn Yes`;
  const log = Array.from({ length: 120 }, (_, i) => line(5 + (i % 15), i % 3 ? 's3_GetObject' : 's3_PutObject', 100 + i));
  const path = join(work, 'access.log');
  writeFileSync(path, `${log.join('\n')}\n`);
  const records = [record(1, 8, 12), record(2, 12, 19)];
  const command = { runner: 'i-1', startedAt: Date.parse(at(2)), endedAt: Date.parse(at(21)) };
  const methodOf = () => 's3-api';
  const inMemory = await stepFigures(records, log, command, 'data', methodOf);
  const streamed = await stepFigures(records, fileLines(path, { highWaterMark: 16 }), command, 'data', methodOf);
  expect(streamed).toEqual(inMemory);
  // Every request was counted somewhere: the test compares figures, not two empty results.
  const counted = [inMemory.preparation, ...inMemory.steps].reduce((n, s) => n + Object.values(s.requests).reduce((a, b) => a + (b ?? 0), 0), 0);
  expect(counted).toBe(120);
});
