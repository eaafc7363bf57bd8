import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The project root: where assets/ and .tools/ live. The runner runs as dist/s3ab.js (bundled),
 * from runner/ (tests, tsx), or from a bundle copied elsewhere with S3AB_HOME set.
 */
export function projectRoot(): string {
  if (process.env.S3AB_HOME) return resolve(process.env.S3AB_HOME);
  let dir = __dirname;
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'assets', 'schema', 'result.schema.json'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}

/** Finds an executable on PATH. */
export function which(name: string, pathVar = process.env.PATH ?? ''): string[] {
  const found: string[] = [];
  for (const dir of pathVar.split(':')) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate) && !found.includes(candidate)) found.push(candidate);
  }
  return found;
}
