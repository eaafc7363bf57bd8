#!/usr/bin/env node
// Bundles the runner into one file, dist/s3ab.js: the same bundle runs locally and on EC2 under SSM.
// `--if-stale` skips the build when no source is newer than the bundle.
import { build } from 'esbuild';
import { cpSync, existsSync, rmSync, statSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 's3ab.js');
// The s3-crt method's client crate, shipped with the bundle: an EC2 runner builds it with cargo
// (lib/runner-fleet.ts, recipe s3-crt-client) from dist/crates/s3-crt-client, the same layout.
// Its sources and lockfile only (never a target folder): src/ whole, so a new module ships too.
const CRATE = join('crates', 's3-crt-client');
const CRATE_FILES = ['Cargo.toml', 'Cargo.lock', 'build.rs', 'src'];

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const shipped = [out, join(root, 'dist', 'fs-thread.js'), ...['Cargo.toml', 'Cargo.lock', 'build.rs', join('src', 'main.rs')].map((f) => join(root, 'dist', CRATE, f))];
if (process.argv.includes('--if-stale') && shipped.every((f) => existsSync(f))) {
  const sources = Math.max(newest(join(root, 'runner')), newest(join(root, 'assets')), statSync(join(root, 'package-lock.json')).mtimeMs,
    ...CRATE_FILES.map((f) => join(root, CRATE, f)).map((p) => (statSync(p).isDirectory() ? newest(p) : statSync(p).mtimeMs)));
  if (statSync(out).mtimeMs >= sources) process.exit(0);
}
await build({
  entryPoints: [join(root, 'runner', 'cli', 'index.ts')],
  outfile: out,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  banner: { js: '#!/usr/bin/env node' },
  // Native binding: loaded only by `s3ab report`, from node_modules. esbuild: only when the
  // measuring threads' script is built from sources (tests), never from the bundle.
  external: ['@duckdb/node-api', 'esbuild'],
  // vega-canvas's Node build loads the optional native `canvas` package with a top-level await,
  // which a CommonJS bundle cannot hold; its browser build has no native part, and Vega renders
  // SVG without a canvas (text widths are estimated).
  alias: { 'vega-canvas': join(root, 'node_modules', 'vega-canvas', 'build', 'vega-canvas.browser.js') },
  logLevel: 'warning',
  legalComments: 'none',
});
// The measuring threads' script (runner/workloads/kit/threads.ts), next to the bundle.
await build({
  entryPoints: [join(root, 'runner', 'workloads', 'kit', 'fs-thread.ts')],
  outfile: join(root, 'dist', 'fs-thread.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
  legalComments: 'none',
});
// The s3-crt method's client crate, copied afresh so that no file removed from crates/ stays behind.
rmSync(join(root, 'dist', CRATE), { recursive: true, force: true });
for (const f of CRATE_FILES) cpSync(join(root, CRATE, f), join(root, 'dist', CRATE, f), { recursive: true });
