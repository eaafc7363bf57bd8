import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from '../helpers/cli';

// The docs stay true to the tree: every repository path they quote in backticks exists, every
// relative link (and its #anchor) resolves, and README links every docs/ page.

/** Top-level folders of the repository (tracked, not generated): a quoted token under one of them is a repo path. */
const REPO_ROOTS = ['.ci', 'assets', 'bin', 'crates', 'docs', 'lambda', 'lib', 'runner', 'scripts', 'test'];
/** A placeholder (`runner/workloads/NAME.ts`, `results/_runs/RUNID.json`) or a glob names no one file. */
const PLACEHOLDER = /\b[A-Z][A-Z0-9_]+\b|[*…{}<>]|\.\.\./;

const pages = (): string[] => ['README.md', 'ARCHITECTURE.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** Every token of every backtick span (inline code and fenced blocks) that names a path under a repo root. */
export function quotedRepoPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/```[^\n]*\n([\s\S]*?)```|`([^`\n]+)`/g)].map((m) => m[1] ?? m[2]);
  const tokens = spans.flatMap((s) => s.split(/\s+/)).map((t) => t.replace(/^[("'[]+|[)"',;:.\]]+$/g, ''));
  return [...new Set(tokens.filter((t) => REPO_ROOTS.some((r) => t.startsWith(`${r}/`)) && !PLACEHOLDER.test(t)))];
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

const anchorsOf = (markdown: string) => new Set(markdown.replace(/```[\s\S]*?```/g, '').split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => anchorOf(l.replace(/^#+ /, ''))));

/** Relative link targets of a page: `[text](target)`, external ones left out. */
const relativeLinks = (markdown: string) => [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:/.test(t));

describe('the docs name only what exists', () => {
  test('the path rule: placeholders and globs are not paths; punctuation around a path is not part of it', () => {
    expect(quotedRepoPaths('see `runner/core/meter.ts`, `runner/workloads/NAME.ts`, `assets/queries/*.sql` and\n```sh\nnode scripts/build.mjs --if-stale\n```')).toEqual(['runner/core/meter.ts', 'scripts/build.mjs']);
    expect(quotedRepoPaths('`(runner/core/stats.ts)` `npm test` `s3://B/runner/x`')).toEqual(['runner/core/stats.ts']);
    expect(anchorOf('What an execution takes: `s3ab aws estimate`')).toBe('what-an-execution-takes-s3ab-aws-estimate');
  });

  test.each(pages())('%s: every backtick-quoted repository path exists', (page) => {
    const missing = quotedRepoPaths(read(page)).filter((p) => !existsSync(join(ROOT, p)));
    expect(missing).toEqual([]);
  });

  test.each(pages())('%s: every relative link and its anchor resolves', (page) => {
    const broken = relativeLinks(read(page)).filter((link) => {
      const [path, anchor] = link.split('#');
      const target = path ? relative(ROOT, join(ROOT, dirname(page), path)) : page;
      if (!existsSync(join(ROOT, target))) return true;
      return Boolean(anchor) && target.endsWith('.md') && !anchorsOf(read(target)).has(anchor);
    });
    expect(broken).toEqual([]);
  });

  test('README links ARCHITECTURE.md and every docs/ page', () => {
    const links = new Set(relativeLinks(read('README.md')).map((l) => l.split('#')[0]));
    const unlinked = pages().filter((p) => p !== 'README.md' && !links.has(p));
    expect(unlinked).toEqual([]);
  });
});

// What a clone holds is all a reader has: no path outside the repository (a sibling folder such as
// ../shared) and no internal issue number, which a reader cannot look up — say the reason instead.
// The docs and assets (profile descriptions, SQL comments that become Athena query descriptions),
// and the sources whose strings the CLI prints.
const OUTSIDE_REFERENCE = /\.\.\/shared|\/work\/|\bissues? #?\d/i;
/** Text files under a folder, recursively (generated and dependency folders left out). */
function textFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).filter((f) => !['node_modules', 'target', 'dist', 'cdk.out'].includes(f) && !f.startsWith('.'))
    .flatMap((f) => textFiles(join(path, f))).filter((f) => /\.(md|json|sql|ts|mjs|cjs|sh|patch|txt|yaml|yml|rs|toml)$/.test(f));
}

describe('the docs, assets and CLI stand alone', () => {
  test('the rule: a sibling path or an issue number is found, a plain word is not', () => {
    expect(['see ../shared/reference/seeds/', 'Issue 26: fleets', 'issues 21 and 23', '(issue 5)'].every((t) => OUTSIDE_REFERENCE.test(t))).toBe(true);
    expect(['the issue is the cache', 'issue tracker', '../README.md'].some((t) => OUTSIDE_REFERENCE.test(t))).toBe(false);
  });

  test.each(['README.md', 'ARCHITECTURE.md', 'docs', 'assets', 'runner', 'lib', 'lambda', 'scripts', 'bin', 'crates', '.ci/run'])('%s: no path outside the repository, no issue number', (path) => {
    const found = textFiles(join(ROOT, path)).flatMap((file) => readFileSync(file, 'utf8').split('\n')
      .map((line, i) => (OUTSIDE_REFERENCE.test(line) ? `${relative(ROOT, file)}:${i + 1}: ${line.trim().slice(0, 120)}` : null))
      .filter((hit): hit is string => hit !== null));
    expect(found).toEqual([]);
  });
});
