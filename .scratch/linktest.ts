import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { makeS3Client } from '../runner/endpoint/s3-client';
import { patternStream } from '../runner/core/data';
import http from 'node:http';
const target = { kind: 'custom' as const, endpointUrl: 'http://127.0.0.1:39123', region: 'us-east-1', bucket: 'bench', credentials: { accessKeyId: 'AKTEST', secretAccessKey: 'SKTEST123456' }, forcePathStyle: true, server: null };
(async () => {
  const c = makeS3Client(target, { maxSockets: 32 });
  const size = 256 * 1024 * 1024;
  await c.send(new PutObjectCommand({ Bucket: 'bench', Key: 'link.bin', Body: patternStream('x', size), ContentLength: size }));
  for (const par of [1, 4, 8, 16]) {
    const part = size / par;
    const t0 = process.hrtime.bigint();
    await Promise.all(Array.from({ length: par }, async (_, i) => {
      const r = await c.send(new GetObjectCommand({ Bucket: 'bench', Key: 'link.bin', Range: `bytes=${i * part}-${(i + 1) * part - 1}` }));
      let n = 0;
      for await (const ch of r.Body as any) n += ch.length;
    }));
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(par, 'streams', (size / 1048576 / s).toFixed(0), 'MiB/s');
  }
  c.destroy();
})();
