#!/usr/bin/env bash
# Installs what s3-access-bench needs on a Debian/Ubuntu host, idempotently; a second run takes
# about a second. Used by `npm run local`, `npm test` and CI.
#   npm packages   from package-lock.json (npm ci, or npm install where ci trips over
#                  platform-specific optional binaries missing from the lockfile)
#   apt packages   awscli (AWS CLI v2, the aws-cli contestant); s3fs, rclone, fuse3 (the FUSE
#                  contestants); fio (sequential I/O); cmake, clang, libclang-dev, libfuse-dev,
#                  pkg-config (to build the Mountpoint launcher)
#   versitygw      the embedded S3 server, pinned, built with `go install` into .tools/bin
#   awscrt         the AWS Common Runtime (PyPI wheel, pinned) for the s3-crt method, into .tools/pip
#   s3ab-mount-s3  the Mountpoint launcher (crates/mount-s3-launcher), built with cargo into
#                  .tools/bin; builds are cached in ~/.cache/s3ab keyed by a hash of the crate's
#                  sources and Cargo.lock, so a fresh clone on the same machine reuses them
set -euo pipefail
cd "$(dirname "$0")/.."
QUIET=0
[[ "${1:-}" == "--quiet" ]] && QUIET=1
say() { echo "[setup] $*" >&2; }

VERSITYGW_VERSION=v1.8.0 # keep in step with runner/endpoint/embedded.ts
APT_PACKAGES=(awscli s3fs rclone fuse3 fio cmake clang libclang-dev libfuse-dev pkg-config)
APT_PACKAGES+=(chromium) # headless browser for the HTML report's tests (driven by playwright-core, never downloaded)
CFN_LINT_VERSION=1.58.0 # checks the synthesized CloudFormation template (issue 5)
AWSCRT_VERSION=0.38.1 # the s3-crt method's client; keep in step with runner/methods/s3-crt-version.ts

# npm packages: reinstall when the lockfile changed since the last install.
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  say "installing npm packages"
  log=$(mktemp)
  if ! npm ci --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
    # A lockfile written on one platform can lack other platforms' optional binaries
    # (@swc/core-*, @duckdb/node-bindings-*), which npm ci refuses; npm install resolves them.
    say "npm ci refused the lockfile ($(grep -m1 -o 'Missing: [^ ]*' "$log" || echo 'see npm ci'))...; using npm install"
    npm install --no-audit --no-fund --loglevel=error >&2
  fi
  rm -f "$log"
  touch node_modules/.package-lock.json
fi

# apt packages.
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { say "need root to install: ${missing[*]} (run: apt-get install -y ${missing[*]})"; exit 1; }
    SUDO=sudo
  fi
  say "installing apt packages: ${missing[*]}"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# versitygw, the embedded S3-compatible server.
bin=.tools/bin/versitygw
if [[ ! -x $bin || "$(cat $bin.version 2>/dev/null)" != "$VERSITYGW_VERSION" ]]; then
  command -v go >/dev/null || { say "Go is needed to build versitygw: install Go (https://go.dev/dl) or set S3AB_VERSITYGW"; exit 1; }
  say "building versitygw $VERSITYGW_VERSION with go install (about a minute the first time)"
  mkdir -p .tools/bin
  GOBIN="$PWD/.tools/bin" GOFLAGS=-mod=mod go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" >&2
  echo "$VERSITYGW_VERSION" > $bin.version
fi
# cfn-lint (PyPI) in its own virtualenv under .tools/, for the template tests.
if [[ "$(.tools/cfn-lint/bin/cfn-lint --version 2>/dev/null)" != "cfn-lint $CFN_LINT_VERSION" ]]; then
  say "installing cfn-lint $CFN_LINT_VERSION into .tools/cfn-lint"
  python3 -m venv .tools/cfn-lint >&2 || { say "python3 -m venv failed: install python3-venv (apt-get install -y python3-venv)"; exit 1; }
  .tools/cfn-lint/bin/pip install -q --disable-pip-version-check "cfn-lint==$CFN_LINT_VERSION" >&2
fi

# awscrt (PyPI: prebuilt manylinux wheels, a few seconds) for the s3-crt method, into .tools/pip.
if [[ "$(PYTHONPATH=.tools/pip python3 -c 'import awscrt; print(awscrt.__version__)' 2>/dev/null)" != "$AWSCRT_VERSION" ]]; then
  say "installing awscrt $AWSCRT_VERSION into .tools/pip"
  out=$(python3 -m pip install -q --disable-pip-version-check --upgrade --target .tools/pip "awscrt==$AWSCRT_VERSION" 2>&1) || { echo "$out" >&2; say "pip install awscrt failed: install python3-pip (apt-get install -y python3-pip) and rerun"; exit 1; }
fi

# The Mountpoint launcher: mountpoint-s3-fs (crates.io) behind mount-s3's flags. Rebuilt only when
# its sources or Cargo.lock change; the build output is shared by every clone on this machine.
crate=crates/mount-s3-launcher
bin=.tools/bin/s3ab-mount-s3
key=$(cat $crate/Cargo.toml $crate/Cargo.lock $crate/build.rs $crate/src/*.rs | sha256sum | cut -c1-16)
if [[ ! -x $bin || "$(cat $bin.version 2>/dev/null)" != "$key" ]]; then
  cache="${S3AB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/s3ab}"
  built="$cache/mount-s3/$key/s3ab-mount-s3"
  if [[ ! -x $built ]]; then
    [[ -x "$HOME/.cargo/bin/cargo" ]] && PATH="$HOME/.cargo/bin:$PATH"
    if ! command -v cargo >/dev/null || [[ "$(cargo --version | awk '{split($2,v,"."); print (v[1]>1 || v[2]>=85)}')" != 1 ]]; then
      say "WARNING: the Mountpoint launcher needs Rust ≥ 1.85 (cargo); install it with rustup (https://rustup.rs) and rerun. Until then the mountpoint method is unavailable."
      exit 0
    fi
    say "building the Mountpoint launcher with cargo (6 to 10 minutes the first time; cached in $cache)"
    CARGO_TARGET_DIR="$cache/cargo-target" cargo build --release --locked --quiet --manifest-path $crate/Cargo.toml >&2
    mkdir -p "$(dirname "$built")"
    cp "$cache/cargo-target/release/s3ab-mount-s3" "$built.tmp" && mv "$built.tmp" "$built"
  fi
  mkdir -p .tools/bin
  cp "$built" "$bin.tmp" && mv "$bin.tmp" $bin
  echo "$key" > $bin.version
fi
((QUIET)) || say "everything is installed"
