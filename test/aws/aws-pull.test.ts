import { CreateBucketCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { cleanupAll } from '../../runner/core/cleanup';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';
import { writeReportFixture } from '../../scripts/fixtures/report-fixture';
import { s3ab } from '../helpers/cli';

const BUCKET = 's3ab-retained-results';

/** Every file under a folder, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
}

describe('`s3ab aws pull`: an execution\'s records from the results bucket (the real S3 server) into a local results folder, one history with local runs', () => {
  const work = mkdtempSync(join(tmpdir(), 's3ab-pull-'));
  const uploaded = join(work, 'as-the-runners-wrote-them');
  let server: EmbeddedEndpoint;
  let s3: S3Client;
  let env: NodeJS.ProcessEnv;
  const runs: string[] = [];

  beforeAll(async () => {
    // Two runs' folders, uploaded under results/ as the runners upload theirs (runner/run/remote-step.ts).
    runs.push((await writeReportFixture(uploaded, { repetitions: 2, runId: '20260115T101500Z-aaaaaa' })).runId);
    runs.push((await writeReportFixture(uploaded, { repetitions: 2, runId: '20260116T101500Z-bbbbbb' })).runId);
    server = await startEmbeddedEndpoint();
    s3 = makeS3Client(server.target, { maxSockets: 4 });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    for (const f of filesUnder(uploaded)) await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `results/${f}`, Body: readFileSync(join(uploaded, f)) }));
    // Not history: the pull leaves them.
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `reports/${runs[0]}/report.html`, Body: '<html></html>' }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'results/notes.txt', Body: 'not a run file' }));
    const t = server.target;
    env = {
      AWS_ENDPOINT_URL_S3: t.endpointUrl, AWS_ACCESS_KEY_ID: t.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: t.credentials!.secretAccessKey,
      AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
  }, 120_000);

  afterAll(async () => {
    s3?.destroy();
    await server?.stop();
    await cleanupAll();
    rmSync(work, { recursive: true, force: true });
  });

  test('one run: its records, interval series and manifest land where `s3ab run` writes them, and `s3ab report` reads them as it reads the original', async () => {
    const dir = join(work, 'pulled-one');
    const r = await s3ab(['aws', 'pull', '--bucket', BUCKET, '--run', runs[0], '--results', dir], { env });
    expect({ code: r.code, err: r.stderr }).toEqual({ code: 0, err: '' });
    const mine = filesUnder(uploaded).filter((f) => f.includes(runs[0]));
    expect(['dt=', 'intervals/dt=', '_runs/'].map((p) => mine.some((f) => f.startsWith(p)))).toEqual([true, true, true]);
    expect(filesUnder(dir)).toEqual(mine);
    for (const f of mine) expect(readFileSync(join(dir, f))).toEqual(readFileSync(join(uploaded, f)));
    expect(r.stdout).toContain(`run ${runs[0]}: ${mine.length} files (${mine.length - 1} records files, 1 manifest) — ${mine.length} pulled, 0 already in ${dir}`);
    const pulled = await s3ab(['report', '--results', dir, '--run', runs[0]], { env });
    const original = await s3ab(['report', '--results', uploaded, '--run', runs[0]], { env });
    expect(pulled.code).toBe(0);
    expect(pulled.stdout.replaceAll(dir, 'DIR')).toEqual(original.stdout.replaceAll(uploaded, 'DIR'));
  }, 120_000);

  test('idempotent: pulled again, nothing is rewritten; a file cut short is pulled whole again', async () => {
    const dir = join(work, 'pulled-twice');
    expect((await s3ab(['aws', 'pull', '--bucket', BUCKET, '--all', '--results', dir], { env })).code).toBe(0);
    const mtimes = new Map(filesUnder(dir).map((f) => [f, statSync(join(dir, f)).mtimeMs]));
    const [cut] = filesUnder(dir).filter((f) => f.endsWith('.jsonl'));
    writeFileSync(join(dir, cut), 'half a line');
    const again = await s3ab(['aws', 'pull', '--bucket', BUCKET, '--all', '--results', dir], { env });
    expect(again.code).toBe(0);
    expect(filesUnder(dir)).toEqual(filesUnder(uploaded));
    for (const f of filesUnder(dir)) {
      expect(readFileSync(join(dir, f))).toEqual(readFileSync(join(uploaded, f)));
      if (f !== cut) expect({ f, mtime: statSync(join(dir, f)).mtimeMs }).toEqual({ f, mtime: mtimes.get(f) });
    }
    expect(again.stdout).toMatch(new RegExp(`run ${runs[0]}: \\d+ files .* — ${cut.includes(runs[0]) ? 1 : 0} pulled`));
    expect(again.stdout).toContain(`2 of 2 runs of s3://${BUCKET}/results/ in ${dir}`);
  }, 120_000);

  test('the default is the newest run', async () => {
    const dir = join(work, 'pulled-newest');
    const r = await s3ab(['aws', 'pull', '--bucket', BUCKET, '--results', dir], { env });
    expect(r.code).toBe(0);
    expect(new Set(filesUnder(dir).map((f) => f.split('/').pop()!.slice(0, 23)))).toEqual(new Set([runs[1]]));
  }, 120_000);

  test('no such run: exit 2 naming the runs there, newest first, and the fix; nothing written', async () => {
    const dir = join(work, 'pulled-none');
    const r = await s3ab(['aws', 'pull', '--bucket', BUCKET, '--run', '20270101T000000Z-cccccc', '--results', dir], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`run 20270101T000000Z-cccccc is not in s3://${BUCKET}/results/ (runs there, newest first: ${runs[1]}, ${runs[0]})`);
    expect(r.stderr).toMatch(/give one of them with --run, or --all to pull every run/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(() => readdirSync(dir)).toThrow();
  }, 120_000);

  test('bad input is refused before any request: --run and --all together, a run id that is none, a bucket that does not exist', async () => {
    const both = await s3ab(['aws', 'pull', '--bucket', BUCKET, '--run', runs[0], '--all'], { env });
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('--run and --all name different things to pull')]);
    const bad = await s3ab(['aws', 'pull', '--bucket', BUCKET, '--run', 'yesterday'], { env });
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--run "yesterday" is not a run id')]);
    const missing = await s3ab(['aws', 'pull', '--bucket', 's3ab-no-such-bucket', '--results', join(work, 'x')], { env });
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('there is no bucket "s3ab-no-such-bucket"')]);
  }, 120_000);
});
