#!/usr/bin/env node
// Installs what s3-access-bench needs (assets/install.json's local recipes), before any build:
//
//   node scripts/setup.mjs [--quiet] [--verbose] [--all | --tests | NAME...]
//
// The logic is runner/install/setup.mjs, plain Node like this entry, so that `npm test` and CI
// run it before `npm install` and tsc, and `s3ab setup` runs the same module from the bundle.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setup } from '../runner/install/setup.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
setup(root, process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
  process.stderr.write(`[setup] FAILED: ${err.message}\n`);
  process.exitCode = 1;
});
