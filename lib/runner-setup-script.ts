import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './function-bundles';
import { RESULTS_LAYOUT } from './results-layout';
import { type ObjectivefsDeploy, objectivefsJob } from './objectivefs-deploy';
import { callbackLines, IMDS, SECTION } from './runner-document-shell';
import { INSTALL, type InstallRegistry } from '../runner/core/install';

/**
 * The runners' setup script, written from the install registry (assets/install.json): each
 * component's runner recipe becomes its packages in the setup's one dnf transaction, its wheel in
 * the one pip call, or its job beside the others, and its check prints the installed version.
 * The recipes' reasons are in docs/usage.md.
 */

/** The bundle's copy of the project on a runner: its tools folder, pip target and Rust toolchain. */
const TOOLS = '/opt/s3ab/.tools';
/** The Rust toolchain (CARGO_HOME, RUSTUP_HOME) and the cargo target folder on a runner: kept by the setup's bundle step. */
const RUST_ROOT = '/opt/s3ab/.rust';

/**
 * The build key of a crate: sha256 over its Cargo.toml, Cargo.lock, build.rs and src/*.rs (in
 * name order), the first 16 hex digits. A cargo component's build cache in the results bucket is
 * keyed by it. runner/install/setup.mjs keys local builds the same way (a test compares them).
 */
export function crateHash(crateDir: string): string {
  const sources = readdirSync(join(crateDir, 'src')).filter((f) => f.endsWith('.rs')).sort().map((f) => join('src', f));
  const hash = createHash('sha256');
  for (const f of ['Cargo.toml', 'Cargo.lock', 'build.rs', ...sources]) hash.update(readFileSync(join(crateDir, f)));
  return hash.digest('hex').slice(0, 16);
}

/** Where a cargo component's binaries are cached in the results bucket: tool-cache/BIN/. */
const buildCachePrefix = (bin: string) => `${RESULTS_LAYOUT.toolCache}${bin}/`;

/** The prefixes of every cargo component's build cache (the runner role may read and write there). */
export function buildCachePrefixes(registry: InstallRegistry = INSTALL): string[] {
  return Object.values(registry.components).filter((c) => c.runner?.kind === 'cargo').map((c) => buildCachePrefix(c.local.bin!));
}

/**
 * The results-bucket key of a cargo component built from its crate as it is now, for one
 * architecture (`uname -m`: x86_64, aarch64; a shell variable holding it in the setup script):
 * tool-cache/BIN/ARCH/HASH/BIN; a crates.io crate is keyed by its pinned version instead
 * (tool-cache/BIN/ARCH/VERSION/BIN), as the local installer keys it.
 */
export function buildCacheKey(component: string, arch: string, registry: InstallRegistry = INSTALL): string {
  const c = registry.components[component];
  const { crate, bin, registryCrate } = c.local;
  const build = registryCrate ? c.version! : crateHash(join(PROJECT_ROOT, crate!));
  return `${buildCachePrefix(bin!)}${arch}/${build}/${bin}`;
}

/** A component's part of the setup script: dnf packages, a pip requirement, a job's lines, and the check that prints its version. */
export interface RunnerInstallLines { packages?: string[]; pip?: string; job?: string[]; check: string }

/** The recipe's text with the component's version and release in place of {version} and {release}. */
const filled = (text: string, version = '', release = '') => text.replace(/\{version\}/g, version).replace(/\{release\}/g, release);

/**
 * s3fs-style sources: the release tag cloned and built with autotools, unless the installed build
 * already reports the version (Amazon Linux 2023 packages neither s3fs nor a release of it).
 */
function sourceJob(bin: string, repo: string, tag: string, version: string): string[] {
  const dir = `/opt/${bin}-src`;
  return [
    `if ! ${bin} --version 2>/dev/null | grep -q "${version}"; then`,
    `  rm -rf ${dir}`,
    `  git clone -q --depth 1 --branch ${tag} ${repo} ${dir}`,
    `  (cd ${dir} && ./autogen.sh >/dev/null && ./configure -q --prefix=/usr >/dev/null && make -s -j"$(nproc)" && make -s install)`,
    'fi',
  ];
}

/**
 * The build of a cargo component: a project crate from the copy the bundle ships (dist/CRATE,
 * scripts/build.mjs) with its Cargo.lock; a crates.io crate with `cargo install NAME@VERSION`,
 * its published lockfile, crates.io's checksums and a target folder of its own (a shard may build
 * both kinds side by side). Both --locked.
 */
function cargoBuild(component: string): { lines: string[]; built: string } {
  const c = INSTALL.components[component];
  const { crate, bin, registryCrate } = c.local;
  if (!registryCrate) {
    return { lines: [`    "$CARGO_HOME/bin/cargo" build --release --locked --manifest-path /opt/s3ab/dist/${crate}/Cargo.toml`], built: `"$CARGO_TARGET_DIR/release/${bin}"` };
  }
  const root = `${RUST_ROOT}/install-${bin}`;
  return {
    lines: [`    "$CARGO_HOME/bin/cargo" install ${registryCrate}@${c.version} --locked --root ${root} --target-dir ${RUST_ROOT}/target-${bin}`],
    built: `${root}/bin/${bin}`,
  };
}

/**
 * A crate built on the runner (cargoBuild) through a build cache in the results bucket
 * (buildCacheKey): a binary of this crate hash (or pinned version) and architecture that answers
 * --version is downloaded; else Rust comes from rustup (minimal stable profile, into RUST_ROOT,
 * which the bundle step keeps; one job at a time installs it), the crate is built and its binary
 * uploaded. An upload that fails does not fail the setup.
 */
function cargoJob(component: string, resultsBucket: string): string[] {
  const { bin } = INSTALL.components[component].local;
  const build = cargoBuild(component);
  const installed = `${TOOLS}/bin/${bin}`;
  return [
    `if ! ${installed} --version >/dev/null 2>&1; then`,
    // No quotes or spaces in the URL (bucket names and the key have none): the rehearsal reads
    // it out of the left-out lines to check the runner role's GetObject (scripts/rehearsal/documents.ts).
    '  UARCH=$(uname -m)',
    `  CACHE=s3://${resultsBucket}/${buildCacheKey(component, '$UARCH')}`,
    '  CACHED=$(mktemp)',
    '  if aws s3 cp --only-show-errors "$CACHE" "$CACHED" && chmod 755 "$CACHED" && "$CACHED" --version >/dev/null 2>&1; then',
    `    echo "s3ab setup: ${bin} from the build cache: $CACHE"`,
    `    install -D -m 755 "$CACHED" ${installed} && rm -f "$CACHED"`,
    '  else',
    `    rm -f "$CACHED"; echo "s3ab setup: no usable ${bin} in the build cache ($CACHE): building it"`,
    // SSM runs the document as root, perhaps without HOME: every Rust folder is named.
    `    export CARGO_HOME=${RUST_ROOT}/cargo RUSTUP_HOME=${RUST_ROOT}/rustup CARGO_TARGET_DIR=${RUST_ROOT}/target HOME="\${HOME:-/root}"`,
    '    export PATH="$CARGO_HOME/bin:$PATH"',
    // Two cargo jobs of one shard would both install Rust: the first holds the lock while it does.
    `    mkdir -p ${RUST_ROOT} && exec 9>${RUST_ROOT}/rustup.lock && flock 9`,
    "    [ -x \"$CARGO_HOME/bin/cargo\" ] || curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y -q --profile minimal --default-toolchain stable --no-modify-path",
    '    flock -u 9',
    ...build.lines,
    `    install -D -m 755 ${build.built} ${installed}`,
    `    aws s3 cp --only-show-errors ${installed} "$CACHE" || { echo "s3ab setup: could not upload ${bin} to the build cache $CACHE; setup goes on, the next runner builds it again"; true; }`,
    '  fi',
    'fi',
  ];
}

/** Every component with a runner recipe, as the lines of the setup script that install it. */
export function runnerRecipes(p: { resultsBucket: string; objectivefs?: ObjectivefsDeploy }, registry: InstallRegistry = INSTALL): Record<string, RunnerInstallLines> {
  const out: Record<string, RunnerInstallLines> = {};
  for (const [name, c] of Object.entries(registry.components)) {
    const r = c.runner;
    if (!r) continue;
    const version = c.version ?? '';
    const lines: RunnerInstallLines = { check: filled(r.check, version, r.release), ...(r.packages ? { packages: [...r.packages] } : {}) };
    if (r.kind === 'rpm') lines.packages = [...(lines.packages ?? []), filled(r.url!, version, r.release)];
    if (r.kind === 'pip') lines.pip = `${r.package}==${version}`;
    if (r.kind === 'source') lines.job = sourceJob(name, r.repo!, filled(r.tag!, version), version);
    if (r.kind === 'cargo') lines.job = cargoJob(name, p.resultsBucket);
    if (r.kind === 'vendor-rpm') lines.job = objectivefsJob(filled(r.url!, version, r.release), p.objectivefs);
    out[name] = lines;
  }
  return out;
}

/** The shell function of a component's job: install_NAME, a hyphen of the name as an underscore (install_s3_crt_client). */
const installFunction = (component: string) => `install_${component.replace(/-/g, '_')}`;

/**
 * Shell lines of the setup document (Amazon Linux 2023): what `{{ install }}` names (the shard's
 * components), in one dnf transaction, then the bundle, then the clients' jobs in parallel, then
 * an S3 Files mount check (amazon-efs-utils is always installed: a few seconds). Ends its task by
 * callback; exits non-zero with the failing part named.
 */
export function setupScript(p: { bundleUrl: string; assetsUrl: string; fileSystemId: string; resultsBucket: string; objectivefs?: ObjectivefsDeploy }): string[] {
  const recipes = runnerRecipes(p);
  const names = Object.keys(recipes);
  const log = '/var/log/s3ab-setup.log';
  return [
    SECTION('prologue'),
    'set -euo pipefail',
    `exec > >(tee -a ${log}) 2>&1`,
    'step() { echo "== s3ab setup: $*"; }',
    ...IMDS,
    'export AWS_REGION="$(md placement/region)" AWS_DEFAULT_REGION="$(md placement/region)"',
    ...callbackLines({ error: 'SetupFailed', what: 'setup', log, tokenFile: '/run/s3ab/setup-task-token', resultsBucket: p.resultsBucket, heartbeats: true, onSuccess: 'aws stepfunctions send-task-success --task-token "file://$TASK_TOKEN_FILE" --task-output \'{"setup":"done"}\'' }),
    "COMPONENTS=$(echo '{{ install }}' | tr -d '[]\"' | tr ',' ' ')",
    `for c in $COMPONENTS; do case "$c" in ${names.join('|')}) ;; *) echo "s3ab setup: no runner recipe for component $c (assets/install.json: runner recipes)" >&2; exit 3;; esac; done`,
    'wants() { case " $COMPONENTS " in *" $1 "*) return 0;; esac; return 1; }',
    SECTION('packages'),
    'ARCH=$(uname -m | sed s/aarch64/arm64/)',
    'PKGS="nodejs22 amazon-efs-utils unzip"',
    ...names.filter((n) => recipes[n].packages).map((n) => `if wants ${n}; then PKGS="$PKGS ${recipes[n].packages!.join(' ')}"; fi`),
    'step "packages (one transaction): $PKGS"',
    // $PKGS unquoted on purpose: one word per package.
    'dnf install -y -q $PKGS',
    'command -v mount.s3files >/dev/null || { echo "s3ab setup: amazon-efs-utils has no mount.s3files (S3 Files needs amazon-efs-utils >= 3.0.0): $(rpm -q amazon-efs-utils)" >&2; exit 3; }',
    SECTION('bundle'),
    'step "runner bundle"',
    // A fresh /opt/s3ab, but for the Rust toolchain and cargo target folder of an earlier setup (s3-crt-client).
    `mkdir -p /opt/s3ab && find /opt/s3ab -mindepth 1 -maxdepth 1 ! -name ${RUST_ROOT.split('/').pop()} -exec rm -rf {} + && mkdir -p /opt/s3ab/dist /opt/s3ab/assets`,
    `aws s3 cp --only-show-errors ${p.bundleUrl} /tmp/s3ab-bundle.zip && unzip -q -o /tmp/s3ab-bundle.zip -d /opt/s3ab/dist`,
    `aws s3 cp --only-show-errors ${p.assetsUrl} /tmp/s3ab-assets.zip && unzip -q -o /tmp/s3ab-assets.zip -d /opt/s3ab/assets`,
    'NODE=$(command -v node-22 || command -v node)',
    'echo "$NODE" > /opt/s3ab/node',
    SECTION('clients'),
    'declare -A JOBS=()',
    'job() { local name=$1; shift; step "$name (in parallel)"; ( set -euo pipefail; "$@" ) > "/var/log/s3ab-setup-$name.log" 2>&1 & JOBS[$name]=$!; }',
    ...names.filter((n) => recipes[n].job).map((n) => `${installFunction(n)}() {\n${recipes[n].job!.join('\n')}\n}`),
    'PIP=""',
    ...names.filter((n) => recipes[n].pip).map((n) => `if wants ${n}; then PIP="$PIP ${recipes[n].pip}"; fi`),
    ...names.filter((n) => recipes[n].job).map((n) => `if wants ${n}; then job ${n} ${installFunction(n)}; fi`),
    // One pip call for every wheel (they share a target folder): python3 -m pip into /opt/s3ab/.tools/pip.
    `if [ -n "$PIP" ]; then job pip python3 -m pip install -q --disable-pip-version-check --target ${TOOLS}/pip $PIP; fi`,
    'for name in "${!JOBS[@]}"; do wait "${JOBS[$name]}" || { echo "s3ab setup: $name failed:" >&2; tail -n 30 "/var/log/s3ab-setup-$name.log" >&2; exit 3; }; done',
    SECTION('s3files'),
    // Amazon Linux 2023 loads the NFS client on first use only: load it now.
    'modprobe nfs4 2>/dev/null || true',
    'step "mount S3 Files as a check"',
    'mkdir -p /mnt/s3files',
    `mountpoint -q /mnt/s3files || mount -t s3files ${p.fileSystemId}:/ /mnt/s3files`,
    'stat -f /mnt/s3files >/dev/null && ls /mnt/s3files >/dev/null',
    SECTION('clock'),
    // A fleet's runners start together by their clocks: chronyd against the Amazon Time Sync
    // Service (169.254.169.123, Amazon Linux 2023's default source); `s3ab step` checks the offset.
    'step "clock: chronyd"',
    'systemctl is-active --quiet chronyd || systemctl enable --now chronyd',
    'chronyc -n tracking | grep -E "^(Reference ID|System time)" || { echo "s3ab setup: chronyd does not answer (chronyc tracking): fleet steps need the clock offset" >&2; exit 3; }',
    SECTION('verify'),
    ...names.map((n) => `if wants ${n}; then step "${n}: $(${recipes[n].check})"; fi`),
    'step "done: $(rpm -q amazon-efs-utils), node $("$NODE" --version)"',
  ];
}
