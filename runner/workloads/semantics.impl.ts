import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFile, chmod, chown, link, lstat, mkdir, open, readdir, readFile, readlink, rename, rmdir, stat, symlink, truncate, unlink, utimes, writeFile,
} from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Measurement } from '../core/batch';
import { errorSummary } from '../core/errors';
import type { FileSystemAccess } from '../core/method';
import type { RequestWindow, WorkloadContext, WorkloadDefinition } from '../core/workload';
import { findBinary } from '../core/binaries';
import { AFTER_PROBES, PROBE_SETUP, PROBES, semanticsDescriptor, type SemanticsParams } from './semantics';


type Probe = (typeof PROBES)[number];

interface Outcome {
  /** true: worked and verified; false: refused, or succeeded but left wrong data (reason says which). */
  supported: boolean;
  /** The probe could not be judged (the client died, the store failed). */
  broken?: boolean;
  /** The probe does not apply to the method (its files are not objects): why. */
  notApplicable?: string;
  reason?: string;
  delayMs?: number;
  ms?: number;
}

/** Kept between a probe and the check after a remount: what must still be true on a fresh mount. */
type Persistence = () => Promise<string | null>;

/** "refused with EPERM (open)": the errno and the call, without the long mount path. */
function refusal(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ? `refused with ${e.code}${e.syscall ? ` (${e.syscall})` : ''}` : `refused: ${errorSummary(err)}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const same = (a: Buffer | null, b: Buffer) => !!a && a.length === b.length && a.equals(b);
const describe = (got: Buffer | null, want: Buffer) => (got === null ? 'absent' : `${got.length} bytes${got.length === want.length ? ', different content' : ''} instead of ${want.length}`);

/** A lock held by one process must stop a second one: checked with python3's fcntl module (node has no flock). */
const LOCK_SCRIPT = `
import fcntl, os, sys
path, kind = sys.argv[1], sys.argv[2]
def lock(fd, nonblocking):
    flags = fcntl.LOCK_EX | (fcntl.LOCK_NB if nonblocking else 0)
    (fcntl.flock if kind == 'flock' else fcntl.lockf)(fd, flags)
try:
    fd = os.open(path, os.O_RDWR)
    lock(fd, False)
except OSError as e:
    print('refused %s %s' % (e.errno, e.strerror)); sys.exit(0)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    try:
        lock(os.open(path, os.O_RDWR), True)
        os.write(w, b'acquired')
    except OSError as e:
        os.write(w, b'blocked' if e.errno in (11, 13) else ('second-error %s %s' % (e.errno, e.strerror)).encode())
    os._exit(0)
os.waitpid(pid, 0)
print(os.read(r, 300).decode())
`;

class Prober {
  readonly persistence = new Map<Probe, Persistence>();
  readonly timeoutMs: number;

  constructor(readonly ctx: WorkloadContext<SemanticsParams>, private readonly fs: FileSystemAccess) {
    // A client that syncs with the bucket in the background (S3 Files) gets at least its own
    // documented bound, so its delays are measured rather than cut off at the default.
    this.timeoutMs = Math.max(ctx.params.propagation_timeout_s * 1000, fs.bucketLag.exportMs, fs.bucketLag.importMs);
  }

  key(name: string): string {
    return `${this.ctx.prefix}sem/${name}`;
  }

  path(name: string): string {
    return this.fs.pathOf(this.key(name));
  }

  /**
   * Where the method's files are objects (everything but JuiceFS and EFS), probes check the bucket
   * as well as the mount; elsewhere the bucket holds no file to check.
   */
  get inBucket(): boolean {
    return this.ctx.offers.includes('objects-in-bucket');
  }

  /** The probes about the bucket itself, on a method whose files are not objects. */
  notInBucket(): Outcome {
    return { supported: false, notApplicable: 'its files are not objects in the bucket (it keeps them in its own format): there is no bucket object to check' };
  }

  /** Polls the bucket until the object has `want`'s bytes; a write-back client uploads after close. */
  async s3Has(name: string, want: Buffer): Promise<string | null> {
    if (!this.inBucket) return null;
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const got = await this.ctx.reference.getBytes(this.key(name));
      if (same(got, want)) return null;
      if (Date.now() > deadline) return `the bucket object ${name} is ${describe(got, want)} ${this.timeoutMs / 1000} s later`;
      await sleep(50);
    }
  }

  async s3Gone(name: string): Promise<string | null> {
    if (!this.inBucket) return null;
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const found = (await this.ctx.reference.list(this.key(name))).length;
      if (!found) return null;
      if (Date.now() > deadline) return `the bucket still has ${name} ${this.timeoutMs / 1000} s later`;
      await sleep(50);
    }
  }

  async mountHas(name: string, want: Buffer): Promise<string | null> {
    const got = await readFile(this.path(name)).catch(() => null);
    return same(got, want) ? null : `reading ${name} back on the mount gave ${describe(got, want)}`;
  }

  async mountGone(name: string): Promise<string | null> {
    return (await lstat(this.path(name)).then(() => true, () => false)) ? `${name} is still on the mount` : null;
  }

  /** Runs a probe's operation: an error it raises means the method refuses it, unless the client died. */
  async run(op: () => Promise<void>, checks: () => Promise<(string | null)[]>): Promise<Outcome> {
    const t0 = process.hrtime.bigint();
    try {
      await op();
    } catch (err) {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      try {
        this.fs.check();
      } catch (dead) {
        return { supported: false, broken: true, reason: errorSummary(dead), ms };
      }
      return { supported: false, reason: refusal(err), ms };
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const problems = (await checks()).filter((p): p is string => !!p);
    return problems.length ? { supported: false, reason: `succeeded but ${problems.join('; ')}`, ms } : { supported: true, ms };
  }

  /** A file with known content the probe then works on (setup, not part of the probe). */
  async prepare(name: string, content: Buffer): Promise<string | null> {
    try {
      await mkdir(dirname(this.path(name)), { recursive: true });
      await writeFile(this.path(name), content);
      return await this.s3Has(name, content);
    } catch (err) {
      return `could not create the file to probe: ${errorSummary(err)}`;
    }
  }

  async lockProbe(kind: 'flock' | 'fcntl', name: string): Promise<Outcome> {
    const python = findBinary('S3AB_PYTHON', ['python3']);
    if (!python) return { supported: false, broken: true, reason: 'python3 is needed for the lock probes (node has no flock/fcntl locks)' };
    const t0 = Date.now();
    const out = await new Promise<string>((resolve) => {
      execFile(python, ['-c', LOCK_SCRIPT, this.path(name), kind], { timeout: 30_000 }, (err, stdout, stderr) => resolve(err && !stdout ? `error ${errorSummary(err)} ${stderr}` : stdout.trim()));
    });
    const ms = Date.now() - t0;
    if (out === 'blocked') return { supported: true, ms };
    if (out === 'acquired') return { supported: false, reason: 'a second process got the exclusive lock while the first held it', ms };
    return { supported: false, reason: out.startsWith('refused') ? `refused: ${out.slice(8)}` : out, ms };
  }
}

/** What every probe works with: the prober and two payloads (8 KiB and 4 KiB of random bytes). */
interface Kit {
  p: Prober;
  A: Buffer;
  B: Buffer;
}

/**
 * One probe, as data (fio's ioengine_ops are the model): the file it works on, created first as
 * setup (untimed; its requests go to the '(probe setup)' row), and the operation with its checks.
 */
interface ProbeSpec {
  /** The file to create before the probe, and its content. @default none */
  prepare?: (k: Kit) => { name: string; content: Buffer };
  run(k: Kit): Promise<Outcome>;
}

/** A probe that changes a file's content and checks it on the mount and in the bucket. */
const rewrite = (name: string, op: (k: Kit) => Promise<void>, want: (k: Kit) => Buffer): ProbeSpec => ({
  prepare: ({ A }) => ({ name, content: A }),
  run: (k) => k.p.run(() => op(k), async () => [await k.p.mountHas(name, want(k)), await k.p.s3Has(name, want(k))]),
});

/**
 * A probe that sets metadata on a closed file: `check` right after it, `persisted` again after a
 * fresh mount (a problem, or null).
 */
const metadataProbe = (probe: Probe, name: string, op: (path: string) => Promise<void>, check: (path: string) => Promise<string | null>,
  persisted: (path: string) => Promise<string | null>): ProbeSpec => ({
  prepare: ({ A }) => ({ name, content: A }),
  run: async ({ p }) => {
    const outcome = await p.run(() => op(p.path(name)), async () => [await check(p.path(name))]);
    p.persistence.set(probe, () => persisted(p.path(name)));
    return outcome;
  },
});

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);
const ownerOf = async (path: string) => { const s = await stat(path); return `${s.uid}:${s.gid}`; };
const mtimeSet = async (path: string) => Math.abs((await stat(path)).mtimeMs - UTIMES_TIME.getTime()) < 1500;

const OPEN_ATTRS_TIME = new Date('2002-03-04T05:06:07Z');

/** tar -p's check: mode and mtime as set on the still-open file, or what differs. */
async function openAttrsProblem(p: Prober, name: string): Promise<string | null> {
  const st = await stat(p.path(name));
  const bad: string[] = [];
  if ((st.mode & 0o777) !== 0o640) bad.push(`the mode reads ${(st.mode & 0o777).toString(8)}, not 640`);
  if (Math.abs(st.mtimeMs - OPEN_ATTRS_TIME.getTime()) >= 1500) bad.push(`the mtime reads ${new Date(st.mtimeMs).toISOString()}, not ${OPEN_ATTRS_TIME.toISOString()}`);
  return bad.length ? `after close ${bad.join(' and ')}` : null;
}

/** How long after a write through one side the other side reads it right, polled every 20 ms. */
async function propagation(p: Prober, arrived: () => Promise<boolean>, late: string): Promise<Outcome> {
  const t0 = Date.now();
  for (;;) {
    if (await arrived()) return { supported: true, delayMs: Date.now() - t0, ms: Date.now() - t0 };
    if (Date.now() - t0 > p.timeoutMs) return { supported: false, reason: late };
    await sleep(20);
  }
}

/** Every probe, in the order of PROBES (semantics.ts). */
const PROBE_TABLE: Record<Probe, ProbeSpec> = {
  create: { run: ({ p, A }) => p.run(() => writeFile(p.path('create.bin'), A), async () => [await p.mountHas('create.bin', A), await p.s3Has('create.bin', A)]) },
  overwrite: rewrite('overwrite.bin', ({ p, B }) => writeFile(p.path('overwrite.bin'), B), ({ B }) => B),
  append: rewrite('append.bin', ({ p, B }) => appendFile(p.path('append.bin'), B), ({ A, B }) => Buffer.concat([A, B])),
  'random-write': rewrite('random.bin', async ({ p }) => {
    const f = await open(p.path('random.bin'), 'r+');
    try {
      await f.write(RANDOM_PATCH, 0, RANDOM_PATCH.length, 100);
    } finally {
      await f.close();
    }
  }, ({ A }) => { const want = Buffer.from(A); RANDOM_PATCH.copy(want, 100); return want; }),
  truncate: rewrite('truncate.bin', ({ p }) => truncate(p.path('truncate.bin'), 1000), ({ A }) => A.subarray(0, 1000)),
  'rename-file': {
    prepare: ({ A }) => ({ name: 'rename-src.bin', content: A }),
    run: ({ p, A }) => p.run(() => rename(p.path('rename-src.bin'), p.path('rename-dst.bin')), async () => [
      await p.mountHas('rename-dst.bin', A), await p.mountGone('rename-src.bin'), await p.s3Has('rename-dst.bin', A), await p.s3Gone('rename-src.bin'),
    ]),
  },
  'rename-dir': {
    prepare: ({ A }) => ({ name: 'dir-src/inner.bin', content: A }),
    run: ({ p, A }) => p.run(() => rename(p.path('dir-src'), p.path('dir-dst')), async () => [
      await p.mountHas('dir-dst/inner.bin', A), await p.mountGone('dir-src'), await p.s3Has('dir-dst/inner.bin', A), await p.s3Gone('dir-src/'),
    ]),
  },
  delete: {
    prepare: ({ A }) => ({ name: 'delete.bin', content: A }),
    run: ({ p }) => p.run(() => unlink(p.path('delete.bin')), async () => [await p.mountGone('delete.bin'), await p.s3Gone('delete.bin')]),
  },
  'mkdir-rmdir': {
    run: ({ p, B }) => p.run(async () => {
      await mkdir(p.path('newdir'));
      if (!(await stat(p.path('newdir'))).isDirectory()) throw new Error('mkdir made something that is not a folder');
      await rmdir(p.path('newdir'));
      // A new folder must hold files too.
      await mkdir(p.path('usedir'));
      await writeFile(p.path('usedir/inner.bin'), B);
    }, async () => [await p.mountGone('newdir'), await p.mountHas('usedir/inner.bin', B), await p.s3Has('usedir/inner.bin', B)]),
  },
  symlink: {
    prepare: ({ A }) => ({ name: 'link-target.bin', content: A }),
    run: async ({ p, A }) => {
      const outcome = await p.run(() => symlink('link-target.bin', p.path('symlink')), async () => [
        (await readlink(p.path('symlink')).catch((e) => String(e))) === 'link-target.bin' ? null : 'readlink does not give the target',
        await p.mountHas('symlink', A),
      ]);
      p.persistence.set('symlink', async () => ((await readlink(p.path('symlink')).catch(() => null)) === 'link-target.bin' ? null : 'the link is gone after a remount (not stored in the bucket)'));
      return outcome;
    },
  },
  hardlink: {
    prepare: ({ A }) => ({ name: 'hard-src.bin', content: A }),
    run: async ({ p, A }) => {
      const outcome = await p.run(() => link(p.path('hard-src.bin'), p.path('hard-dst.bin')), async () => [await p.mountHas('hard-dst.bin', A), await p.s3Has('hard-dst.bin', A)]);
      p.persistence.set('hardlink', () => p.mountHas('hard-dst.bin', A));
      return outcome;
    },
  },
  chmod: metadataProbe('chmod', 'chmod.bin', (path) => chmod(path, 0o640),
    async (path) => ((await modeOf(path)) === '640' ? null : `the mode reads ${await modeOf(path)}, not 640`),
    async (path) => ((await modeOf(path).catch(() => '?')) === '640' ? null : `the mode is ${await modeOf(path).catch(() => '?')} after a remount, not 640`)),
  chown: metadataProbe('chown', 'chown.bin', (path) => chown(path, 4321, 4321),
    async (path) => ((await ownerOf(path)) === '4321:4321' ? null : `the owner reads ${await ownerOf(path)}, not 4321:4321`),
    async (path) => ((await ownerOf(path).catch(() => '?')) === '4321:4321' ? null : `the owner is ${await ownerOf(path).catch(() => '?')} after a remount`)),
  utimes: metadataProbe('utimes', 'utimes.bin', (path) => utimes(path, UTIMES_TIME, UTIMES_TIME),
    async (path) => ((await mtimeSet(path)) ? null : 'the modification time did not change'),
    async (path) => ((await mtimeSet(path).catch(() => false)) ? null : 'the modification time is lost after a remount')),
  // tar -p's way (GNU tar: fchmod and futimens on the still-open file, then close), which a
  // client that uploads at close may overwrite although chmod/utimes on a closed file work.
  'attrs-on-open-file': {
    run: async ({ p, A }) => {
      const name = 'open-attrs.bin';
      const outcome = await p.run(async () => {
        await mkdir(dirname(p.path(name)), { recursive: true });
        const handle = await open(p.path(name), 'w', 0o600);
        try {
          await handle.write(A);
          await handle.chmod(0o640);
          await handle.utimes(OPEN_ATTRS_TIME, OPEN_ATTRS_TIME);
        } finally {
          await handle.close();
        }
      }, async () => [await openAttrsProblem(p, name), await p.s3Has(name, A)]);
      p.persistence.set('attrs-on-open-file', async () => {
        const problem = await openAttrsProblem(p, name).catch((err) => errorSummary(err));
        return problem ? `${problem} after a remount` : null;
      });
      return outcome;
    },
  },
  flock: { prepare: () => ({ name: 'flock.bin', content: randomBytes(64) }), run: ({ p }) => p.lockProbe('flock', 'flock.bin') },
  'fcntl-lock': { prepare: () => ({ name: 'fcntl.bin', content: randomBytes(64) }), run: ({ p }) => p.lockProbe('fcntl', 'fcntl.bin') },
  'read-after-write': {
    run: ({ p, A }) => (!p.inBucket ? Promise.resolve(p.notInBucket()) : p.run(() => writeFile(p.path('raw.bin'), A), async () => {
      // Strong read-after-write: the object is there the moment close() returned, no polling.
      const got = await p.ctx.reference.getBytes(p.key('raw.bin'));
      return [same(got, A) ? null : `right after close the bucket object is ${describe(got, A)}`, await p.mountHas('raw.bin', A)];
    })),
  },
  's3-to-mount-delay': {
    run: async ({ p, A }) => {
      if (!p.inBucket) return p.notInBucket();
      // A new object in a folder the mount has already listed (as a watcher would): how long until it reads right?
      await readdir(p.path(''));
      await p.ctx.reference.putBytes(p.key('s3-side.bin'), A);
      return propagation(p, async () => !(await p.mountHas('s3-side.bin', A)), `an object written through S3 was not readable on the mount ${p.timeoutMs / 1000} s later (listing cached)`);
    },
  },
  'mount-to-s3-delay': {
    run: async ({ p, A }) => {
      if (!p.inBucket) return p.notInBucket();
      try {
        await writeFile(p.path('mount-side.bin'), A);
      } catch (err) {
        return { supported: false, reason: refusal(err) };
      }
      return propagation(p, async () => same(await p.ctx.reference.getBytes(p.key('mount-side.bin')), A), `not in the bucket ${p.timeoutMs / 1000} s after close`);
    },
  },
};

const RANDOM_PATCH = randomBytes(16);
const UTIMES_TIME = new Date('2001-02-03T04:05:06Z');

/**
 * Prepares the probe's file, or says why it could not (the probe is then 'failed': the method was
 * not judged); then runs the probe. A throw is a probe that could not be judged either.
 */
async function prepareAndRun(spec: ProbeSpec, k: Kit, setupDone: () => void): Promise<Outcome> {
  const setupFailed = (reason: string): Outcome => ({ supported: false, broken: true, reason });
  try {
    const file = spec.prepare?.(k);
    const problem = file ? await k.p.prepare(file.name, file.content) : null;
    setupDone();
    if (problem) return setupFailed(problem);
    return await spec.run(k);
  } catch (err) {
    return setupFailed(errorSummary(err));
  }
}

/** A probe's outcome with the stretches of the server's log that are its own requests. */
interface Probed { outcome: Outcome; requests: RequestWindow[] }

/** Every probe's outcome, and the stretches of the log that are no probe's: their setup, and after the last. */
interface Probing { results: Map<Probe, Probed>; setup: RequestWindow[]; after: RequestWindow }

/**
 * Runs every probe in order, each in its own request window (its setup's requests apart), then
 * checks after a fresh mount what must persist. Requests after the last probe — the remount, the
 * checks, uploads that land late — go to the '(after probes)' row.
 */
async function runProbes(ctx: WorkloadContext<SemanticsParams>, fs: FileSystemAccess): Promise<Probing> {
  const kit: Kit = { p: new Prober(ctx, fs), A: randomBytes(8192), B: randomBytes(4096) };
  const results = new Map<Probe, Probed>();
  const setup: RequestWindow[] = [];
  await mkdir(kit.p.path(''), { recursive: true });
  for (const name of PROBES) {
    if (ctx.signal.aborted) break;
    ctx.progress(name);
    const outcome = await prepareAndRun(PROBE_TABLE[name], kit, () => setup.push(ctx.cutRequests()));
    results.set(name, { outcome, requests: [ctx.cutRequests()] });
  }
  await checkPersistence(ctx, fs, kit.p, results);
  return { results, setup, after: ctx.cutRequests() };
}

/** Metadata that only lived in the client's memory is gone after a fresh mount: not supported. */
async function checkPersistence(ctx: WorkloadContext<SemanticsParams>, fs: FileSystemAccess, p: Prober, results: Map<Probe, Probed>): Promise<void> {
  const pending = [...p.persistence.entries()].filter(([name]) => results.get(name)?.outcome.supported);
  if (!pending.length || ctx.signal.aborted) return;
  ctx.progress('remount to check what persisted');
  await fs.remount();
  for (const [name, check] of pending) {
    const problem = await check().catch((err) => errorSummary(err));
    const r = results.get(name)!;
    if (problem) r.outcome = { ...r.outcome, supported: false, reason: `succeeded but ${problem}` };
  }
}

/**
 * POSIX semantics and propagation delays, per method: every operation that succeeds is checked by
 * reading the data back on the mount and in the bucket (and metadata after a fresh mount); one that
 * returns success but leaves wrong data is recorded as unsupported, with the reason.
 */
export const semantics: WorkloadDefinition<SemanticsParams> = {
  ...semanticsDescriptor,
  async run(ctx) {
    const { results, setup, after } = await runProbes(ctx, ctx.fs!);
    for (const [name, { outcome: o, requests }] of results) {
      const m: Measurement = {
        operation: name, objectSizeBytes: null,
        status: o.notApplicable ? 'not-applicable' : o.broken ? 'failed' : o.supported ? 'ok' : 'unsupported',
        supported: o.supported, verified: o.supported,
        ops: 1, ok: o.supported ? 1 : 0, failed: o.broken ? 1 : 0, bytes: 0, durationMs: o.ms ?? 0,
        latency: null, errorSample: o.notApplicable ?? o.reason ?? null, movesPayload: false,
        delayMs: o.delayMs ?? null,
      };
      ctx.record(m, requests);
    }
    ctx.recordRequests(PROBE_SETUP, setup);
    ctx.recordRequests(AFTER_PROBES, [after]);
  },
};
