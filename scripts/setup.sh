#!/usr/bin/env bash
# Installs what s3-access-bench needs on a Debian/Ubuntu host, idempotently; a second run takes
# about a second. Used by `npm run local`, `npm test` and CI.
#   npm packages   from package-lock.json (npm ci, or npm install where ci trips over
#                  platform-specific optional binaries missing from the lockfile)
#   apt packages   awscli (AWS CLI v2, the aws-cli contestant)
#   versitygw      the embedded S3 server, pinned, built with `go install` into .tools/bin
set -euo pipefail
cd "$(dirname "$0")/.."
QUIET=0
[[ "${1:-}" == "--quiet" ]] && QUIET=1
say() { echo "[setup] $*" >&2; }

VERSITYGW_VERSION=v1.8.0 # keep in step with runner/endpoint/embedded.ts
APT_PACKAGES=(awscli)
APT_PACKAGES+=(s3fs) # the document-processing Lambda test mounts the embedded bucket with s3fs (issue 5)
CFN_LINT_VERSION=1.58.0 # checks the synthesized CloudFormation template (issue 5)
APT_PACKAGES+=(chromium) # headless browser for the HTML report's tests (driven by playwright-core, never downloaded)

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

((QUIET)) || say "everything is installed"
