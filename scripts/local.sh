#!/usr/bin/env bash
# `npm run local -- [s3ab run options]`: the main job on a fresh machine. Installs the base (npm
# packages, the embedded S3 server) and only what this run's methods and workloads need
# (assets/install.json), builds the runner, then runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/setup.mjs --quiet
node scripts/build.mjs --if-stale
node dist/s3ab.js setup --quiet --for-run "$@"
exec node dist/s3ab.js run "$@"
