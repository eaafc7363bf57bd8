// npm run lint:size [-- --top N] [-- FOLDER…]: how long the functions are, across runner/, lib/,
// lambda/, scripts/ (TypeScript and JavaScript) and crates/*/src (Rust).
//
// Prints how many functions exceed 50 and 80 lines and the longest ones with file:line, and exits 1
// when any exceeds 80 lines or 25 or more exceed 50. How a function is measured (nested ones
// included) is said in scripts/lint-size/measure.ts: the TypeScript compiler's parser for
// TypeScript, a brace-matching scan that skips comments, strings and char literals for Rust.
// Split a function where it holds two ideas, not where it crosses a count.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { measureRust, measureTypeScript, type FunctionSize } from './lint-size/measure';

const ROOT = join(__dirname, '..');
const FOLDERS = ['runner', 'lib', 'lambda', 'scripts', 'crates'];
/** The targets: no function over LIMIT lines, fewer than MAX_LONG over LONG lines. */
export const LIMIT = 80;
export const LONG = 50;
export const MAX_LONG = 25;

const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'target', 'cdk.out', '.tools']);
const TYPESCRIPT = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;

interface Measured extends FunctionSize { file: string; language: 'TypeScript' | 'Rust' }

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : filesUnder(path);
    return [path];
  });
}

/** The TypeScript files under a folder and, under crates/, the Rust files of each crate's src/. */
function measureFolder(folder: string): Measured[] {
  return filesUnder(folder).flatMap((path): Measured[] => {
    const file = relative(ROOT, path);
    if (TYPESCRIPT.test(path) && !path.endsWith('.d.ts')) {
      return measureTypeScript(readFileSync(path, 'utf8'), path).map((f) => ({ ...f, file, language: 'TypeScript' }));
    }
    if (path.endsWith('.rs') && /(^|\/)crates\/[^/]+\/src\//.test(file)) {
      return measureRust(readFileSync(path, 'utf8')).map((f) => ({ ...f, file, language: 'Rust' }));
    }
    return [];
  });
}

export function distribution(functions: FunctionSize[]): string {
  const over = (n: number): number => functions.filter((f) => f.lines > n).length;
  return `${functions.length} functions, ${over(30)} over 30 lines, ${over(LONG)} over ${LONG}, ${over(LIMIT)} over ${LIMIT}`;
}

function main(): void {
  const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '15' } }, allowPositionals: true });
  const top = Number(values.top);
  if (!Number.isInteger(top) || top < 0) {
    console.error(`--top ${values.top}: give a whole number of functions to list`);
    process.exit(2);
  }
  const folders = positionals.length > 0 ? positionals : FOLDERS;
  const missing = folders.filter((f) => !statSync(join(ROOT, f), { throwIfNoEntry: false })?.isDirectory());
  if (missing.length > 0) {
    console.error(`${missing.join(', ')}: no such folder in the repository; give folders such as ${FOLDERS.join(', ')}`);
    process.exit(2);
  }
  const all = folders.flatMap((f) => measureFolder(join(ROOT, f))).sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
  const where = (f: Measured): string => `${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}${f.nested ? ' (nested)' : ''}`;

  console.log(`Function lengths in ${folders.join(', ')}: lines of the body, braces included.`);
  console.log('A nested function counts on its own and its lines count in the function around it too.');
  for (const language of ['TypeScript', 'Rust'] as const) {
    const mine = all.filter((f) => f.language === language);
    if (mine.length > 0) console.log(`  ${language}: ${distribution(mine)}`);
  }
  console.log(`  All: ${distribution(all)}`);
  console.log(`\nThe ${Math.min(top, all.length)} longest:`);
  for (const f of all.slice(0, top)) console.log(where(f));

  const overLimit = all.filter((f) => f.lines > LIMIT);
  const long = all.filter((f) => f.lines > LONG);
  const failures: string[] = [];
  if (overLimit.length > 0) failures.push(`${overLimit.length} over ${LIMIT} lines (target: none)`);
  if (long.length >= MAX_LONG) failures.push(`${long.length} over ${LONG} lines (target: fewer than ${MAX_LONG})`);
  if (failures.length === 0) return;
  console.log(`\nToo long: ${failures.join('; ')}. Split each where it holds two ideas. Over ${LONG} lines:`);
  for (const f of long) console.log(where(f));
  process.exitCode = 1;
}

if (require.main === module) main();
