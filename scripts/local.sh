#!/usr/bin/env bash
# `npm run local -- [s3ab run options]`: the main job on a fresh machine. Installs the base (npm
# packages, the embedded S3 server) and only what this run's methods and workloads need
# (assets/install.json), builds the runner, then runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
# Without options the run is `s3ab run`'s default profile, quick: its clients install with the
# base, side by side (the AWS CLI and s3fs from apt while Go builds the server). With options,
# the matrix is only known to the runner, so they install after the build (--for-run below).
if (( $# )); then node scripts/setup.mjs --quiet; else node scripts/setup.mjs --quiet --profile=quick; fi
node scripts/build.mjs --if-stale
node dist/s3ab.js setup --quiet --for-run "$@"
exec node dist/s3ab.js run "$@"
