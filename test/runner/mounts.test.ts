import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setMaxListeners } from 'node:events';
import { cleanupAll } from '../../runner/core/cleanup';
import { mountTable } from '../../runner/core/mounts-table';
import { isRequestsOnly } from '../../runner/core/vocabulary';
import { startEmbeddedEndpoint, type EmbeddedEndpoint } from '../../runner/endpoint/embedded';
import { s3fs } from '../../runner/methods/s3fs.impl';
import { printSummary } from '../../runner/report/summary';
import { recordErrors } from '../../runner/results/record';
import type { ResultRecord } from '../../runner/core/record.generated';
import { runBenchmark } from '../../runner/run';
import { PROBES } from '../../runner/workloads/semantics';
import { S3AB, alive, s3ab } from '../helpers/cli';
import { latencyHistogramProblems } from '../helpers/latency';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

function readRecords(dir: string): ResultRecord[] {
  const out: ResultRecord[] = [];
  for (const part of readdirSync(dir).filter((d) => d.startsWith('dt='))) {
    for (const f of readdirSync(join(dir, part))) {
      for (const line of readFileSync(join(dir, part, f), 'utf8').trim().split('\n')) out.push(JSON.parse(line));
    }
  }
  return out;
}

function matrixFile(dir: string, matrix: object): string {
  const file = join(dir, 'matrix.json');
  writeFileSync(file, JSON.stringify(matrix));
  return file;
}

/** Temporary folders of this file, removed at the end even when a test fails. */
const tempDirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

/** Mounts this test run made: our mount points all start with s3ab-mnt-. */
const ourMounts = (points: string[]) => mountTable().filter((m) => points.includes(m.mountPoint));

describe('s3fs, Mountpoint and rclone mounted on the embedded versitygw', () => {
  let dir = '';
  let records: ResultRecord[] = [];
  const mounted: { method: string; mountPoint: string; clientPid: number | null }[] = [];
  let problem: string | null = 'did not run';

  beforeAll(async () => {
    dir = tempDir('s3ab-test-mounts-');
    const outcome = await runBenchmark({
      matrixFile: matrixFile(dir, {
        name: 'mounts-test', repetitions: 1, cache: ['cold', 'warm'],
        methods: ['s3-api', 's3fs', 'mountpoint', 'rclone'],
        workloads: {
          'dir-walk': { objects: 50, size: '1KiB' },
          'large-read': { files: 1, size: '16MiB' },
          'small-reads': { files: 5, size: '8KiB' },
          'fio-seq': { sizes: ['4KiB', '2MiB'], files: 2, io: ['direct'] },
          semantics: { propagation_timeout_s: 3 },
        },
      }),
      resultsDir: join(dir, 'results'), quiet: true, onMounted: (m) => mounted.push(m),
    });
    records = readRecords(join(dir, 'results'));
    problem = outcome.manifest.problem;
  }, 600_000);

  test('the run completes: no step failed', () => {
    const failed = records.filter((r) => r.status === 'failed').map((r) => `${r.method} ${r.workload} ${r.cache} ${r.operation}: ${r.error_sample}`);
    expect(failed).toEqual([]);
    expect(problem).toBeNull();
  });

  test('every record matches the result schema and carries the client version and options', () => {
    expect(records.length).toBeGreaterThan(60);
    for (const r of records) expect(recordErrors(r)).toEqual([]);
    expect(latencyHistogramProblems(records)).toEqual([]);
    const byMethod = (m: string) => records.find((r) => r.method === m && r.workload === 'large-read')!;
    expect(byMethod('s3fs').method_version).toMatch(/^s3fs 1\.\d+/);
    expect(byMethod('s3fs').method_options).toMatchObject({ kernel_cache: 'true', parallel_count: '30', use_path_request_style: 'true' });
    expect(byMethod('mountpoint').method_version).toMatch(/mountpoint-s3-fs 0\.\d+/);
    expect(byMethod('mountpoint').method_options).toMatchObject({ allow_delete: 'true', metadata_ttl: 'minimal' });
    expect(byMethod('rclone').method_version).toMatch(/^rclone v1\./);
    expect(byMethod('rclone').method_options).toMatchObject({ vfs_cache_mode: 'writes', expect_continue_timeout: '0' });
    expect(byMethod('s3fs').method_options.cold_start).toMatch(/fresh mount/);
  });

  test('the object workloads run on every mount through POSIX calls, verified, cold and warm apart', () => {
    for (const method of ['s3fs', 'mountpoint', 'rclone']) {
      for (const workload of ['dir-walk', 'large-read', 'small-reads']) {
        for (const cache of ['cold', 'warm']) {
          const mine = records.filter((r) => r.method === method && r.workload === workload && r.cache === cache);
          expect(mine.length).toBeGreaterThan(0);
          for (const r of mine) {
            expect({ method, workload, cache, op: r.operation, status: r.status, verified: r.verified, error: r.error_sample })
              .toEqual({ method, workload, cache, op: r.operation, status: 'ok', verified: true, error: null });
          }
        }
      }
    }
    expect(records.find((r) => r.method === 'mountpoint' && r.workload === 'dir-walk')!.ops).toBe(50);
    expect(records.filter((r) => r.method === 's3-api' && r.workload === 'dir-walk').map((r) => r.cache)).toEqual(['none']);
  });

  test('fio-seq records follow the contract: fio\'s IOPS, MB/s and lat_ns per size, direction and cache state', () => {
    for (const method of ['s3fs', 'mountpoint', 'rclone']) {
      for (const cache of ['cold', 'warm']) {
        for (const operation of ['write', 'read']) {
          for (const size of [4096, 2 * 1024 * 1024]) {
            const r = records.find((x) => x.method === method && x.workload === 'fio-seq' && x.cache === cache && x.operation === operation && x.object_size_bytes === size)!;
            expect({ method, cache, operation, size, status: r?.status, error: r?.error_sample }).toEqual({ method, cache, operation, size, status: 'ok', error: null });
            expect(r.workload_params).toMatchObject({ ioengine: 'libaio', direct: '1', bs: String(Math.min(size, 1024 * 1024)) });
            expect(r.workload_params.fio).toMatch(/^fio-3\./);
            expect(r.ops).toBe(2 * Math.ceil(size / Math.min(size, 1024 * 1024)));
            expect(r.bytes).toBe(2 * size);
            expect(r.ops_per_s).toBeGreaterThan(0);
            expect(r.throughput_mib_s).toBeGreaterThan(0);
            expect(r.latency_us!.p99).toBeGreaterThanOrEqual(r.latency_us!.p50);
          }
        }
      }
    }
    // rclone with a write cache uploads after close: its write is timed until the objects are in the bucket.
    const rcloneWrite = records.find((r) => r.method === 'rclone' && r.workload === 'fio-seq' && r.operation === 'write')!;
    expect(rcloneWrite.workload_params.upload_timed).toMatch(/until the objects are in the bucket/);
  });

  test('the semantics probe matches each tool\'s documentation', () => {
    const probe = (method: string, op: string) => records.find((r) => r.method === method && r.workload === 'semantics' && r.operation === op)!;
    // Mountpoint on a general-purpose bucket: no rename (ENOSYS, nothing sent to the server), no append.
    expect(probe('mountpoint', 'rename-file')).toMatchObject({ status: 'unsupported', supported: false });
    expect(probe('mountpoint', 'rename-file').error_sample).toMatch(/ENOSYS/);
    expect(probe('mountpoint', 'rename-dir').supported).toBe(false);
    expect(probe('mountpoint', 'append')).toMatchObject({ status: 'unsupported', supported: false });
    expect(probe('mountpoint', 'random-write').supported).toBe(false);
    expect(probe('mountpoint', 'symlink').supported).toBe(false);
    expect(probe('mountpoint', 'create')).toMatchObject({ status: 'ok', supported: true, verified: true });
    // s3fs: rename (copy + delete) and append (rewrite) both work; no hard links.
    for (const op of ['create', 'overwrite', 'append', 'random-write', 'truncate', 'rename-file', 'rename-dir', 'delete', 'symlink', 'chmod', 'utimes']) {
      expect({ op, status: probe('s3fs', op).status, reason: probe('s3fs', op).error_sample }).toEqual({ op, status: 'ok', reason: null });
    }
    expect(probe('s3fs', 'hardlink').supported).toBe(false);
    // ...but mode and mtime set on the still-open file (GNU tar -p's way) are lost at close: why
    // tar-extract finds s3fs keeps no mtimes although utimes on a closed file works.
    expect(probe('s3fs', 'attrs-on-open-file')).toMatchObject({ status: 'unsupported', supported: false });
    expect(probe('s3fs', 'attrs-on-open-file').error_sample).toMatch(/^succeeded but after close the mode reads 600, not 640 and the mtime reads/);
    // rclone: chmod returns success without changing anything: recorded unsupported, with the reason.
    expect(probe('rclone', 'chmod')).toMatchObject({ status: 'unsupported' });
    expect(probe('rclone', 'chmod').error_sample).toMatch(/^succeeded but/);
    expect(probe('rclone', 'append').supported).toBe(true);
    // Propagation delays are measured where supported.
    for (const method of ['s3fs', 'mountpoint', 'rclone']) {
      const m2s = probe(method, 'mount-to-s3-delay');
      expect(m2s.status).toBe('ok');
      expect(m2s.delay_ms).not.toBeNull();
    }
    for (const method of ['s3fs', 'mountpoint', 'rclone']) {
      // One record per probe; the rows of requests only ('(probe setup)', '(after probes)', …) apart.
      expect(records.filter((r) => r.method === method && r.workload === 'semantics' && !isRequestsOnly(r.operation)).map((r) => r.cache)).toEqual(Array(PROBES.length).fill('cold'));
    }
  });

  test('object methods record file-system workloads as not applicable', () => {
    for (const w of ['fio-seq', 'semantics']) {
      const mine = records.filter((r) => r.method === 's3-api' && r.workload === w);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ status: 'not-applicable', supported: false, cache: 'none' });
    }
  });

  test('results carry the link limit; nothing is left mounted or running', () => {
    expect(records[0].host.link_limit_mib_s).toBeGreaterThan(0);
    expect(records[0].host.link_limit_source).toMatch(/measured/);
    expect(mounted.length).toBeGreaterThan(10);
    const points = mounted.map((m) => m.mountPoint);
    expect(ourMounts(points)).toEqual([]);
    for (const m of mounted) {
      expect(existsSync(m.mountPoint)).toBe(false);
      if (m.clientPid) expect(alive(m.clientPid)).toBe(false);
    }
  });

  test('the summary shows fio per I/O mode, cache state and method, and the semantics per method, in 100 columns', async () => {
    const lines: string[] = [];
    await printSummary(join(dir, 'results'), undefined, (l) => lines.push(l));
    const text = lines.join('\n');
    expect(text).toMatch(/link limit: [\d,]+ MiB\/s/);
    expect(text).toMatch(/^fio-seq \(seed 000\)/m);
    expect(text).toMatch(/^read \(direct\) [\d.]+ [KM]iB\s*(\(cold\))?\s+s3fs\s/m);
    expect(text).toMatch(/^write \(direct\) [\d.]+ [KM]iB\s*(\(cold\))?\s+s3fs\s/m);
    expect(text).toMatch(/POSIX semantics/);
    // s3fs renames, Mountpoint refuses: its refusal named with the reason.
    // Mountpoint's row of the semantics table (its refused probes wrap onto indented lines) names rename-file.
    const rowsOfText = text.split('\n');
    const row = rowsOfText.findIndex((l) => /^mountpoint\s+\d+ of \d+\s/.test(l));
    expect(row).toBeGreaterThanOrEqual(0);
    const end = rowsOfText.findIndex((l, i) => i > row && !/^\s{10,}\S/.test(l));
    expect(rowsOfText.slice(row, end).join(' ')).toMatch(/rename-file/);
    expect(text).toMatch(/rename-file: refused with ENOSYS[^\n]*\(mountpoint\)/);
    expect(text).toMatch(/^walk 1 KiB \(cold\)\s+s3-api\s[^\n]*\n\s+s3fs\s/m);
    expect(lines.filter((l) => [...l].length > 100)).toEqual([]);
  });
});

describe('mount faults', () => {
  test('a client killed during a workload: the step fails naming it, the run goes on, the mount is gone', async () => {
    const dir = tempDir('s3ab-test-kill-mount-');
    const mounted: { mountPoint: string; clientPid: number | null }[] = [];
    const outcome = await runBenchmark({
      matrixFile: matrixFile(dir, { repetitions: 1, methods: ['s3fs', 'mountpoint'], workloads: { 'small-reads': { files: 400, size: '8KiB' } } }),
      resultsDir: join(dir, 'results'), quiet: true,
      onMounted: (m) => {
        mounted.push(m);
        // Kill the first client once it serves reads.
        if (mounted.length === 1) setTimeout(() => process.kill(m.clientPid!, 'SIGKILL'), 400);
      },
    });
    expect(outcome.manifest.status).toBe('failed');
    const records = readRecords(join(dir, 'results'));
    const broken = records.find((r) => r.method === 's3fs' && r.operation === 'step')!;
    expect(broken.status).toBe('failed');
    expect(broken.error_sample).toMatch(/the s3fs client \(pid \d+\) exited mid-run \(signal SIGKILL\)/);
    expect(broken.flags).toContain('step-failed');
    // The cause shows where the failure is shown: the summary's integrity table, not only "ENOTCONN".
    const lines: string[] = [];
    await printSummary(join(dir, 'results'), undefined, (l) => lines.push(l));
    const integrity = lines.join('\n').split('PROBLEMS — these measurements cannot be trusted')[1] ?? '';
    expect(integrity.replace(/\s+/g, ' ')).toMatch(/s3fs small-reads .*s3fs client.*SIGKILL/);
    // The next step (Mountpoint) still ran and succeeded.
    const mountpointRecords = records.filter((r) => r.method === 'mountpoint');
    expect(mountpointRecords.length).toBeGreaterThan(0);
    expect(mountpointRecords.every((r) => r.status === 'ok')).toBe(true);
    expect(mounted.length).toBeGreaterThan(0);
    expect(ourMounts(mounted.map((m) => m.mountPoint))).toEqual([]);
    for (const m of mounted) expect(existsSync(m.mountPoint)).toBe(false);
  }, 180_000);

  describe('against a live server', () => {
    let server: EmbeddedEndpoint;
    beforeAll(async () => {
      server = await startEmbeddedEndpoint();
    });
    afterAll(async () => {
      await server.stop();
      await cleanupAll();
    });

    test('a hung client: unmount falls back to a lazy unmount, the client is killed, nothing is left', async () => {
      const scratch = tempDir('s3ab-test-hang-');
      const signal = new AbortController().signal;
      setMaxListeners(100, signal);
      const session = await s3fs.open({ target: server.target, options: s3fs.variants.default, scratchDir: scratch, signal });
      const pid = session.fs!.clientPid!;
      const mountPoint = session.fs!.mountPoint;
      expect(ourMounts([mountPoint])).toHaveLength(1);
      process.kill(pid, 'SIGSTOP');
      const t0 = Date.now();
      await session.close();
      expect(Date.now() - t0).toBeLessThan(30_000);
      expect(ourMounts([mountPoint])).toEqual([]);
      expect(alive(pid)).toBe(false);
      expect(existsSync(mountPoint)).toBe(false);
    }, 60_000);

    test('a mount that fails: a clear step failure with the client\'s reason, no mount left', async () => {
      const dir = tempDir('s3ab-test-badmount-');
      const r = await s3ab(['run', '--matrix', matrixFile(dir, { repetitions: 1, methods: [{ name: 's3fs', options: { sigv2: true } }], workloads: { 'small-reads': { files: 2 } } }),
        '--endpoint', server.target.endpointUrl!, '--bucket', server.target.bucket, '--results', join(dir, 'results')],
      { env: { AWS_ACCESS_KEY_ID: server.target.credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: server.target.credentials!.secretAccessKey } });
      expect(r.code).toBe(1);
      // s3fs checks the credentials as it starts: it either never answers (did not mount) or answers
      // once and exits at its first request; both are the client's own failure, with its reason.
      expect(r.stdout).toMatch(/s3fs (did not mount: |client \(pid \d+\) exited mid-run .*: ).*(invalid credentials|Exiting FUSE)/);
      expect(s3fsMountsOf(r.pid)).toEqual([]);
    }, 60_000);
  });

  test('a FUSE client missing on this host: exit 2, the problem and the fix', async () => {
    const results = join(tmpdir(), `s3ab-never-${process.pid}-mnt`);
    const r = await s3ab(['run', '--methods', 's3fs', '--workloads', 'small-reads', '--results', results], { env: { S3AB_S3FS: '/nonexistent/s3fs' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/method "s3fs" is not available on this host: S3AB_S3FS=\/nonexistent\/s3fs does not exist/);
    expect(existsSync(results)).toBe(false);
  });

  test('s3 files and EFS are listed with their reason here', async () => {
    const r = await s3ab(['list']);
    expect(r.stdout).toMatch(/s3files\s+│ mount\s+│ no\s+│ needs an NFS client: AWS only/);
    expect(r.stdout).toMatch(/efs\s+│ mount\s+│ no\s+│ needs an NFS client: AWS only/);
    expect(r.stdout).toMatch(/mountpoint\s+│ mount\s+│ yes/);
  });

  test('ObjectiveFS: `s3ab list` says what is missing here; a run that names it exits 2 with the problem, no install command, and never the license', async () => {
    const list = await s3ab(['list'], { env: { S3AB_OBJECTIVEFS_LICENSE: '' } });
    expect(list.stdout.replace(/\s*│\s*/g, ' ').replace(/\s+/g, ' ')).toMatch(/objectivefs mount no ObjectiveFS needs the vendor's client, mount\.objectivefs .* and a license: set S3AB_OBJECTIVEFS_LICENSE/);
    const results = join(tmpdir(), `s3ab-never-${process.pid}-ofs`);
    const license = 'OFS-LICENSE-never-printed-4711';
    const r = await s3ab(['run', '--methods', 'objectivefs', '--workloads', 'small-reads', '--results', results], { env: { S3AB_OBJECTIVEFS: '/nonexistent/mount.objectivefs', S3AB_OBJECTIVEFS_LICENSE: license } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/method "objectivefs" is not available on this host: ObjectiveFS needs S3AB_OBJECTIVEFS=\/nonexistent\/mount\.objectivefs does not exist/);
    // The license is there, so it is not named as missing; its value appears nowhere.
    expect(r.stderr).not.toMatch(/a license:/);
    expect(`${r.stdout}${r.stderr}`).not.toContain(license);
    expect(r.stderr).not.toContain('npm run setup -- objectivefs');
    expect(existsSync(results)).toBe(false);
  });

  test('Ctrl-C during a mount step: exit 130, the mount and its client are gone', async () => {
    const dir = tempDir('s3ab-test-int-');
    const child = spawn(process.execPath, [S3AB, 'run', '--matrix', matrixFile(dir, { repetitions: 2, methods: ['s3fs'], workloads: { 'small-reads': { files: 1000 } } }),
      '--results', join(dir, 'results')], { env: process.env });
    let out = '';
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    let clients: number[] = [];
    let armed = false;
    const code = await new Promise<number | null>((resolve) => {
      child.stdout.on('data', (c) => {
        out += c;
        // One Ctrl-C only (a second one means "exit at once").
        if (/step 1\/2 s3fs small-reads rep 1\n/.test(out) && !armed) {
          armed = true;
          setTimeout(() => {
            clients = childrenOf(child.pid!);
            child.kill('SIGINT');
          }, 1000);
        }
      });
      child.once('close', resolve);
    });
    expect(code).toBe(130);
    expect(out).toMatch(/INTERRUPTED — results\s+incomplete/);
    expect(clients.length).toBeGreaterThan(0);
    for (const pid of clients) expect(alive(pid)).toBe(false);
    expect(err).toMatch(/SIGINT: stopping; cleaning up/);
    expect(s3fsMountsOf(child.pid!)).toEqual([]);
  }, 90_000);
});

test('Ctrl-C twice during a mount step: the runner exits at once, still leaving no mount and no client', async () => {
  const dir = tempDir('s3ab-test-int2-');
  const child = spawn(process.execPath, [S3AB, 'run', '--matrix', matrixFile(dir, { repetitions: 1, methods: ['s3fs'], workloads: { 'small-reads': { files: 1000 } } }),
    '--results', join(dir, 'results')], { env: process.env });
  let out = '';
  let clients: number[] = [];
  let armed = false;
  const code = await new Promise<number | null>((resolve) => {
    child.stdout.on('data', (c) => {
      out += c;
      if (/step 1\/1 s3fs small-reads rep 1\n/.test(out) && !armed) {
        armed = true;
        setTimeout(() => {
          clients = childrenOf(child.pid!);
          child.kill('SIGINT');
          setTimeout(() => child.kill('SIGINT'), 50);
        }, 800);
      }
    });
    child.once('close', resolve);
  });
  expect(code).toBe(130);
  expect(clients.length).toBeGreaterThan(0);
  for (const pid of clients) expect(await goneWithin(pid, 3000)).toBe(true);
  // The client's folder (with its credentials file) went with it.
  expect(readdirSync('/dev/shm').filter((d) => d.startsWith(`s3ab-s3fs-${child.pid}-`))).toEqual([]);
  expect(s3fsMountsOf(child.pid!)).toEqual([]);
}, 90_000);

/** Waits until a process no longer runs (gone, or a zombie waiting for init to reap it). */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    let state = '';
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    } catch {
      return true;
    }
    if (state === 'Z') return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** s3fs mounts made by the s3ab runner with this process id (mount points s3ab-mnt-s3fs-PID-*). */
function s3fsMountsOf(pid: number): string[] {
  return mountTable().filter((m) => m.mountPoint.includes(`/s3ab-mnt-s3fs-${pid}-`)).map((m) => m.mountPoint);
}

/** Direct s3fs children of a process, from /proc. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (ppid === pid && comm === 's3fs') out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
