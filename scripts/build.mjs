#!/usr/bin/env node
// Bundles the runner into one file, dist/s3ab.js: the same bundle runs locally and on EC2 under SSM.
// `--if-stale` skips the build when no source is newer than the bundle.
import { build } from 'esbuild';
import { copyFileSync, existsSync, statSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 's3ab.js');

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

if (process.argv.includes('--if-stale') && existsSync(out) && existsSync(join(root, 'dist', 'fs-thread.js')) && existsSync(join(root, 'dist', 's3-crt-client.py'))) {
  const sources = Math.max(newest(join(root, 'runner')), newest(join(root, 'assets')), statSync(join(root, 'package-lock.json')).mtimeMs);
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
// The measuring threads' script (runner/core/threads.ts), next to the bundle.
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
// The s3-crt method's client process (runner/methods/s3-crt.impl.ts finds it next to the bundle).
copyFileSync(join(root, 'runner', 'methods', 'kit', 's3-crt-client.py'), join(root, 'dist', 's3-crt-client.py'));
