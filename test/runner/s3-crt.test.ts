import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Batch } from '../../runner/core/batch';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { CRT_CLIENT_BIN, crtEventLoopThreads, crtMalloc, crtMemoryLimit, crtSocketReadSize, crtTargetThroughput, crtWriteSize, GLIBC_RETAIN, s3Crt } from '../../runner/methods/s3-crt.impl';
import { writePatternFile } from '../../runner/core/data';
import type { OpenContext, StorageSession } from '../../runner/core/method';
import type { ResultRecord } from '../../runner/core/record.generated';
import { alive, ROOT, s3ab } from '../helpers/cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** Pids of running s3-crt client processes started from this checkout's .tools/bin. */
function crtClients(): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (cmd.startsWith(join(ROOT, '.tools', 'bin', CRT_CLIENT_BIN))) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function readRecords(dir: string): ResultRecord[] {
  const out: ResultRecord[] = [];
  for (const part of readdirSync(dir).filter((d) => d.startsWith('dt='))) {
    for (const f of readdirSync(join(dir, part))) {
      for (const line of readFileSync(join(dir, part, f), 'utf8').trim().split('\n')) out.push(JSON.parse(line));
    }
  }
  return out;
}

describe('s3-crt (aws-c-s3, crates/s3-crt-client) against the embedded versitygw', () => {
  test('s3ab run --methods s3-crt,s3-crt:tuned --workloads objects: every measurement verified, each variant\'s resolved options and the version recorded, no client left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's3ab-test-crt-'));
    try {
      const res = await s3ab(['run', '--methods', 's3-crt,s3-crt:tuned', '--workloads', 'objects', '--repetitions', '1', '--results', dir, '--quiet']);
      expect({ code: res.code, stderr: res.stderr.slice(-2000) }).toEqual({ code: 0, stderr: expect.any(String) });
      const records = readRecords(dir).filter((r) => r.workload === 'objects');
      expect(records.length).toBeGreaterThanOrEqual(30); // 2 variants × 3 sizes × upload, list, head, download, delete
      for (const r of records) {
        expect({ op: r.operation, size: r.object_size_bytes, status: r.status, verified: r.verified, error: r.error_sample })
          .toEqual({ op: r.operation, size: r.object_size_bytes, status: 'ok', verified: true, error: null });
        expect(r.method).toBe('s3-crt');
      }
      const download = (variant: string) => records.find((r) => r.operation === 'download' && r.object_size_bytes === 16 * 1024 * 1024 && r.method_variant === variant)!;
      expect(download('default').method_version).toMatch(/^s3ab-s3-crt \d+\.\d+\.\d+ \(mountpoint-s3-client \d+\.\d+\.\d+, mountpoint-s3-crt-sys \d+\.\d+\.\d+: aws-c-s3\)$/);
      // The default: the CRT's own memory limit, socket reads and event loops, glibc untouched, whole parts written, 10 Gbps off EC2.
      expect(download('default').method_options).toMatchObject({
        part_size: '8MiB', target_throughput_gbps: 'auto', target_throughput_gbps_resolved: '10', target_throughput_source: 'not on EC2: the 10 Gbps default', checksum: 'CRC32C',
        memory_limit: 'default', memory_limit_resolved: expect.stringMatching(/CRT's default/), write_size: 'part', malloc: 'system', event_loop_threads_setting: '0', socket_read_size: '16 KiB',
      });
      expect(download('default').method_options.glibc_tunables).toBeUndefined();
      expect(Number(download('default').method_options.event_loop_threads)).toBe(availableParallelism());
      expect(download('tuned').method_options).toMatchObject({
        part_size: '8MiB', target_throughput_gbps: '10', target_throughput_gbps_resolved: '10', checksum: 'CRC32C', memory_limit: '256MiB', memory_limit_resolved: '256 MiB',
        write_size: '32KiB', malloc: 'retain', malloc_large_blocks: 'heap', event_loop_threads_setting: '3/cpu', socket_read_size: '256 KiB',
      });
      expect(Number(download('tuned').method_options.event_loop_threads)).toBe(3 * availableParallelism());
      expect(download('default').throughput_mib_s).toBeGreaterThan(0);
      // Up to one part, one PutObject (the multipart threshold it records); above, the CRT's multipart upload.
      const uploads = records.filter((r) => r.operation === 'upload');
      for (const r of uploads) {
        const n = r.requests!;
        if (r.object_size_bytes! <= 8 * 1024 * 1024) expect({ size: r.object_size_bytes, put: n.put, mpu: n.mpu_create }).toEqual({ size: r.object_size_bytes, put: r.ops, mpu: 0 });
        else expect({ size: r.object_size_bytes, put: n.put, mpu: n.mpu_create }).toEqual({ size: r.object_size_bytes, put: 0, mpu: r.ops });
      }
      expect(uploads.map((r) => r.object_size_bytes).sort((x, y) => x! - y!)).toEqual([1024, 1024, 1024 * 1024, 1024 * 1024, 16 * 1024 * 1024, 16 * 1024 * 1024]);
      expect(crtClients()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  describe('errors are clear failed operations, never hangs', () => {
    let server: EmbeddedEndpoint;
    let scratch: string;
    const sessions: StorageSession[] = [];
    const open = async (ctx: Partial<OpenContext> = {}) => {
      const s = await s3Crt.open({ target: server.target, options: s3Crt.variants.tuned, scratchDir: scratch, signal: new AbortController().signal, ...ctx });
      sessions.push(s);
      return s;
    };

    beforeAll(async () => {
      server = await startEmbeddedEndpoint();
      scratch = mkdtempSync(join(tmpdir(), 's3ab-test-crt-scratch-'));
      writeFileSync(join(scratch, 'one-kib'), Buffer.alloc(1024, 7));
    }, 60_000);
    afterAll(async () => {
      for (const s of sessions) await s.close();
      await server.stop();
      rmSync(scratch, { recursive: true, force: true });
    });

    test('a wrong secret key: the measurement fails with S3\'s 403, in seconds', async () => {
      const target = { ...server.target, credentials: { ...server.target.credentials!, secretAccessKey: 'not-the-secret' } };
      const session = await open({ target });
      const t0 = Date.now();
      const upload = new Batch('upload', 1024);
      await upload.op(() => session.put('crt-test/denied', { path: join(scratch, 'one-kib'), size: 1024 }), () => 1024);
      const get = new Batch('download', 1024);
      await get.op(() => session.get('crt-test/denied'));
      expect(Date.now() - t0).toBeLessThan(20_000);
      for (const m of [upload.finish(), get.finish()]) {
        expect(m).toMatchObject({ status: 'failed', failed: 1, ok: 0 });
        expect(m.errorSample).toMatch(/SignatureDoesNotMatch|Forbidden|AccessDenied/);
        expect(m.errorSample).toMatch(/HTTP 403/);
      }
    }, 30_000);

    test('a missing key says so; a good key round-trips', async () => {
      const session = await open();
      await expect(session.head('crt-test/missing')).rejects.toThrow(/NotFound|NoSuchKey/);
      await expect(session.get('crt-test/missing')).rejects.toThrow(/HTTP 404/);
      await session.put('crt-test/ok', { path: join(scratch, 'one-kib'), size: 1024 });
      expect(await session.head('crt-test/ok')).toEqual({ size: 1024 });
      expect(await session.list('crt-test/')).toEqual([{ key: 'ok', size: 1024 }]);
      const got = await session.get('crt-test/ok');
      expect(got.bytes).toBe(1024);
      await got.discard();
      await session.delete('crt-test/ok');
      expect(await session.list('crt-test/')).toEqual([]);
    }, 30_000);

    test('a GET written part by part at each part\'s offset is byte-exact, for any write size', async () => {
      // 8 MiB parts: two whole parts and a partial third; write sizes that do not divide a part.
      const size = 2 * 8 * 1024 * 1024 + 123_457;
      const src = join(scratch, 'multi-part');
      const digest = await writePatternFile(src, 'crt-offsets', size);
      const base = await open();
      await base.put('crt-test/multi', { path: src, size });
      try {
        // The tuned size, a size that divides no part, one larger than a part, and whole parts (the default).
        for (const write_size of ['32KiB', '100KiB', '12MiB', 'part'] as const) {
          const session = write_size === '32KiB' ? base : await open({ options: { ...s3Crt.variants.tuned, write_size } });
          expect(session.options.write_size).toEqual(write_size);
          const got = await session.get('crt-test/multi');
          expect({ write_size, bytes: got.bytes, digest: await got.digest() }).toEqual({ write_size, bytes: size, digest });
          await got.discard();
        }
      } finally {
        await base.delete('crt-test/multi');
      }
    }, 60_000);

    test('socket_read_size: the CRT\'s channel global is set in the client (recorded), and a GET through it is byte-exact', async () => {
      const size = 3 * 1024 * 1024 + 777;
      const src = join(scratch, 'socket-read');
      const digest = await writePatternFile(src, 'crt-socket-read', size);
      const large = await open();
      expect(large.options).toMatchObject({ socket_read_size: '256 KiB' });
      expect(large.options.socket_read_problem).toBeUndefined();
      const crtDefault = await open({ options: { ...s3Crt.variants.tuned, socket_read_size: 'default' } });
      expect(crtDefault.options).toMatchObject({ socket_read_size: '16 KiB' });
      await large.put('crt-test/socket-read', { path: src, size });
      try {
        for (const session of [large, crtDefault]) {
          const got = await session.get('crt-test/socket-read');
          expect({ bytes: got.bytes, digest: await got.digest() }).toEqual({ bytes: size, digest });
          await got.discard();
        }
      } finally {
        await large.delete('crt-test/socket-read');
      }
      expect(crtSocketReadSize('1MiB')).toBe(1024 * 1024);
      expect(crtSocketReadSize('default')).toBe(0);
      expect(() => crtSocketReadSize('1KiB')).toThrow(/default or a size from 4KiB to 16MiB/);
    }, 60_000);

    test('malloc retain: glibc keeps the client\'s large blocks in its heap (recorded in the options); system: mmap\'d', async () => {
      const retain = await open();
      expect(retain.options).toMatchObject({ malloc: 'retain', glibc_tunables: GLIBC_RETAIN, malloc_large_blocks: 'heap' });
      const system = await open({ options: { ...s3Crt.variants.tuned, malloc: 'system' } });
      expect(system.options).toMatchObject({ malloc: 'system', malloc_large_blocks: 'mmap' });
      expect(system.options.glibc_tunables).toBeUndefined();
    }, 30_000);

    test('bad write_size and malloc options are refused with the allowed values', () => {
      expect(crtWriteSize('256KiB', 8 << 20)).toBe(256 * 1024);
      expect([crtWriteSize('part', 8 << 20), crtWriteSize(undefined, 16 << 20)]).toEqual([8 << 20, 16 << 20]);
      expect(() => crtWriteSize('native', 8 << 20)).toThrow(/"native" is not a size/);
      expect(() => crtWriteSize('1KiB', 8 << 20)).toThrow(/part or a size from 4KiB to 64MiB/);
      expect([crtMemoryLimit('default'), crtMemoryLimit('256MiB')]).toEqual([0, 256 << 20]);
      expect(crtTargetThroughput('auto', 'local')).toEqual({ gbps: 10, source: 'not on EC2: the 10 Gbps default' });
      expect(crtTargetThroughput('auto', 'c5n.large')).toEqual({ gbps: 25, source: "instance type c5n.large's bandwidth (assets/instance-network.json)" });
      expect(crtTargetThroughput('auto', 'x9.huge').gbps).toBe(10);
      expect(crtTargetThroughput(10, 'c5n.large')).toEqual({ gbps: 10, source: 'set by the variant' });
      expect(() => crtTargetThroughput('fast', 'local')).toThrow(/auto or a number of Gbit\/s/);
      expect(() => crtMalloc('jemalloc')).toThrow(/retain or system/);
      expect([crtEventLoopThreads('3/cpu', 2), crtEventLoopThreads(0, 2), crtEventLoopThreads(4, 2)]).toEqual([6, 0, 4]);
      expect(() => crtEventLoopThreads('many', 2)).toThrow(/a count \(0: one per CPU\) or N\/cpu/);
    });

    test('a bad endpoint fails fast with the socket error', async () => {
      const session = await open({ target: { ...server.target, endpointUrl: 'http://127.0.0.1:9' } });
      const t0 = Date.now();
      await expect(session.head('x')).rejects.toThrow(/CONNECTION_REFUSED|connection refused/i);
      expect(Date.now() - t0).toBeLessThan(20_000);
    }, 30_000);

    test('close() and the abort signal end the client process', async () => {
      const closed = await open();
      const pid1 = (closed as unknown as { clientPid: number }).clientPid;
      expect(alive(pid1)).toBe(true);
      await closed.close();
      expect(alive(pid1)).toBe(false);

      const ac = new AbortController();
      const aborted = await open({ signal: ac.signal });
      const pid2 = (aborted as unknown as { clientPid: number }).clientPid;
      ac.abort(new Error('test abort'));
      for (let i = 0; i < 50 && alive(pid2); i++) await new Promise((r) => setTimeout(r, 100));
      expect(alive(pid2)).toBe(false);
      await expect(aborted.head('x')).rejects.toThrow(/aborted/);
    }, 30_000);

    test('a client that dies mid-step ends the step, naming the exit', async () => {
      const reasons: Error[] = [];
      const session = await open({ abortStep: (e) => reasons.push(e) });
      const pid = (session as unknown as { clientPid: number }).clientPid;
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 50 && reasons.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(reasons.map((e) => e.message)).toEqual([expect.stringMatching(/s3-crt client exited \(SIGKILL\)/)]);
      await expect(session.head('x')).rejects.toThrow(/exited \(SIGKILL\)/);
    }, 30_000);
  });
});
