import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { parseAccessLogLine, type AccessLogEntry } from '../../runner/endpoint/access-log';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { makeS3Client } from '../../runner/endpoint/s3-client';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const MIB = 1024 * 1024;

const getLines = (server: EmbeddedEndpoint, key: string): AccessLogEntry[] =>
  readFileSync(server.accessLog, 'utf8').split('\n').map(parseAccessLogLine)
    .filter((e): e is AccessLogEntry => !!e && e.operation === 's3_GetObject' && e.key === key);

/** Waits (bounded) for the server's line of a request it is still finishing: the wait ends on the line, not on a time. */
async function nextGetLine(server: EmbeddedEndpoint, key: string, seen: number): Promise<AccessLogEntry> {
  for (let i = 0; i < 300; i++) {
    const lines = getLines(server, key);
    if (lines.length > seen) return lines[seen];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no access-log line for GET ${key} within 15 s`);
}

/**
 * A cache claim is checked against the bytes the server sent. The patched server counts a GET's
 * bytes as they are written to the connection, so a client that stops reading mid-body is logged
 * with what it was sent, not with the Content-Length the server promised.
 */
describe('the embedded server logs the bytes it wrote, not the bytes it promised', () => {
  let server: EmbeddedEndpoint;
  const SIZE = 64 * MIB;
  beforeAll(async () => { server = await startEmbeddedEndpoint(); }, 60_000);
  afterAll(async () => server?.stop());

  test('a GET whose client aborts after its first MiB is logged short; a GET read to its end is logged whole', async () => {
    const t = server.target;
    const client = makeS3Client(t, { maxSockets: 1 });
    try {
      await client.send(new PutObjectCommand({ Bucket: t.bucket, Key: 'sent/object', Body: randomBytes(SIZE) }));
      const whole = await client.send(new GetObjectCommand({ Bucket: t.bucket, Key: 'sent/object' }));
      expect((await whole.Body!.transformToByteArray()).length).toBe(SIZE);
      const full = await nextGetLine(server, 'sent/object', 0);
      expect(full.bytesSent).toBe(SIZE);

      const abort = new AbortController();
      const res = await client.send(new GetObjectCommand({ Bucket: t.bucket, Key: 'sent/object' }), { abortSignal: abort.signal });
      const body = res.Body as Readable;
      let received = 0;
      await new Promise<void>((resolve) => {
        body.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= MIB) {
            body.pause();
            // The socket goes: the server's sendfile fails once the socket buffers are full.
            body.destroy();
            abort.abort();
            resolve();
          }
        });
        body.on('error', () => resolve());
      });
      const cut = await nextGetLine(server, 'sent/object', 1);
      expect(received).toBeLessThan(SIZE);
      // What was written reached the kernel's socket buffers: at least what the client read, far
      // short of the object (Content-Length, which the server logged before this patch).
      expect(cut.bytesSent).toBeGreaterThanOrEqual(received);
      expect(cut.bytesSent).toBeLessThan(SIZE / 2);
      expect(cut.objectSize).toBe(SIZE);
    } finally {
      client.destroy();
    }
  }, 60_000);

  test('a GET\'s line is in the log by the time its client holds the whole response, whole and ranged', async () => {
    // The runner splits the log between measurements by its length when a measurement ends: a
    // request the method waited for must be logged by then, though the line waits for the send.
    const t = server.target;
    const client = makeS3Client(t, { maxSockets: 4 });
    try {
      await client.send(new PutObjectCommand({ Bucket: t.bucket, Key: 'sent/small', Body: randomBytes(300_000) }));
      let missing = 0;
      for (let i = 0; i < 100; i++) {
        const range = i % 2 ? `bytes=${i}-${i + 99_999}` : undefined;
        const before = getLines(server, 'sent/small').length;
        const res = await client.send(new GetObjectCommand({ Bucket: t.bucket, Key: 'sent/small', Range: range }));
        const bytes = (await res.Body!.transformToByteArray()).length;
        const after = getLines(server, 'sent/small');
        if (after.length !== before + 1) missing++;
        else expect(after[after.length - 1].bytesSent).toBe(bytes);
      }
      expect(missing).toBe(0);
    } finally {
      client.destroy();
    }
  }, 60_000);
});
