import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { buildSync, type BuildOptions } from 'esbuild';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PROJECT_ROOT = join(__dirname, '..');
const LAMBDA_DIR = join(PROJECT_ROOT, 'lambda');

/** Every handler of the stack: one file per function directly under lambda/ (shared code lives in lambda/shared/). */
export function functionEntries(): string[] {
  return readdirSync(LAMBDA_DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).map((f) => f.replace(/\.ts$/, '')).sort();
}

/**
 * The esbuild options of the function bundles: each entry becomes OUTDIR/ENTRY/index.js (CommonJS,
 * Node.js 24, minified, with a source map), the AWS SDK bundled at the lockfile's version so results
 * stay reproducible. The report renderer's vega-canvas is aliased to its browser build, as in
 * scripts/build.mjs: its Node build loads the optional native `canvas` with a top-level await,
 * which a CommonJS bundle cannot hold, and Vega renders SVG without a canvas.
 */
export function functionBuildOptions(entries: string[], outdir: string): BuildOptions {
  return {
    entryPoints: Object.fromEntries(entries.map((e) => [`${e}/index`, join(LAMBDA_DIR, `${e}.ts`)])),
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    minify: true,
    sourcemap: true,
    external: ['@duckdb/node-api'],
    alias: { 'vega-canvas': join(PROJECT_ROOT, 'node_modules', 'vega-canvas', 'build', 'vega-canvas.browser.js') },
    logLevel: 'warning',
  };
}

let built: string | undefined;

/**
 * Bundles every function in one esbuild pass, once per process (the first function asset that
 * needs its code triggers it), into a temporary folder removed at exit. One pass instead of one
 * per function: NodejsFunction starts esbuild through `npx` for each function, which cost about
 * 8 s of a 24 s `cdk synth` here; esbuild also parses the modules the handlers share only once.
 */
export function bundleAllFunctions(): string {
  if (built) return built;
  const dir = mkdtempSync(join(tmpdir(), 's3ab-functions-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  buildSync(functionBuildOptions(functionEntries(), dir));
  built = dir;
  return dir;
}

/**
 * The code asset of one function: its bundle from the shared esbuild pass (plus assets/ when the
 * handler reads the project's schemas and profiles from disk). Bundling follows CDK's rules: it
 * is skipped for stacks outside `aws:cdk:bundling-stacks` (template tests), and the asset hash is
 * the bundle's content.
 */
export function functionCode(entry: string, opts: { includeAssets?: boolean } = {}): lambda.Code {
  if (!functionEntries().includes(entry)) throw new Error(`no handler lambda/${entry}.ts (handlers: ${functionEntries().join(', ')})`);
  return lambda.Code.fromAsset(LAMBDA_DIR, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never used: local bundling always succeeds or fails the synth with esbuild's message.
      image: DockerImage.fromRegistry('dummy'),
      // Part of CDK's asset cache key, which ignores the callback below: one asset per entry.
      environment: { S3AB_FUNCTION: entry, S3AB_WITH_ASSETS: String(!!opts.includeAssets) },
      local: {
        tryBundle(outputDir: string): boolean {
          cpSync(join(bundleAllFunctions(), entry), outputDir, { recursive: true });
          if (opts.includeAssets) cpSync(join(PROJECT_ROOT, 'assets'), join(outputDir, 'assets'), { recursive: true });
          return true;
        },
      },
    },
  });
}
