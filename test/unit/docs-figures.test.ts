import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every measured figure in docs/ sits next to the command that prints it. Precise enough not to be
 * noise in two places: docs/performance.md, whose findings are all this repository's measurements
 * (every paragraph, list item or table row with a figure names an `npm run` script, an `s3ab`
 * command or the test that checks it); and any doc quoting a profiler or tracer's output (perf,
 * strace, /proc/vmstat, /usr/bin/time) beside a figure, which must name the command that prints it.
 * Elsewhere figures are settings, examples or the seeds' published results (docs/seeds.md cites
 * its sources), so the rest of the audit is by reading.
 */
const DOCS = join(__dirname, '..', '..', 'docs');
/** A figure with a unit of measure (a rate, a time, a ratio, a share, a size). */
const FIGURE = /\d[\d,.]*\s?(?:MiB\/s|MB\/s|GB\/s|Gbit\/s|CPU-s|µs|ms\b|s\b|min\b|×|%|MiB\b|GiB\b|KiB\b|MB\b)/;
/** What prints a figure: a bench or other npm script, an s3ab command, a test file, a bench script. */
const COMMAND = /npm run |`s3ab |test\/[\w/.-]+\.test\.ts|scripts\/bench\/[\w.-]+/;
/** Tools whose output no command of the repository prints. */
const TRACER = /perf record|perf stat|\bstrace -|\/proc\/vmstat|\/usr\/bin\/time|ad-hoc (?:V8 )?profile/;

/**
 * A doc's units of text: each table row, each list item, each other paragraph. A list's items carry
 * the paragraph that introduces them (ending in ":"), where its command is named once for all.
 */
function units(text: string): string[] {
  let lead = '';
  return text.split(/\n\s*\n/).flatMap((para) => {
    if (para.trimStart().startsWith('|')) return para.split('\n');
    if (/^\s*- /.test(para)) return para.split(/\n(?=\s*- )/).map((item) => `${item}\n${lead}`);
    lead = para.trimEnd().endsWith(':') ? para : '';
    return [para];
  });
}

const uncited = (doc: string, pick: (unit: string) => boolean) =>
  units(readFileSync(join(DOCS, doc), 'utf8')).filter((u) => pick(u) && !COMMAND.test(u)).map((u) => `${doc}: ${u.replace(/\s+/g, ' ').slice(0, 160)}`);

describe('figures in docs/ and the commands that print them', () => {
  test('docs/performance.md: every paragraph, list item and table row with a figure names the command that prints it', () => {
    // Headings, the table's head and the intro's noise note carry no figure of a measurement.
    const found = uncited('performance.md', (u) => FIGURE.test(u) && !/^#|^\|---|^\| script \|/.test(u.trim()) && !/±30%/.test(u));
    expect(found).toEqual([]);
  });

  test('no doc quotes a profiler or tracer beside a figure without the command that prints it', () => {
    const found = readdirSync(DOCS).filter((f) => f.endsWith('.md')).flatMap((doc) => uncited(doc, (u) => TRACER.test(u) && FIGURE.test(u)));
    expect(found).toEqual([]);
  });

  test('the checker finds what it looks for: a throwaway figure without its command, and not one with it', () => {
    expect(units('GET took 1.5 CPU-s per GiB in perf record -g.').filter((u) => TRACER.test(u) && FIGURE.test(u) && !COMMAND.test(u))).toHaveLength(1);
    expect(units('GET took 1.5 CPU-s per GiB (`npm run bench:transfer`; perf record -g agreed).').filter((u) => TRACER.test(u) && FIGURE.test(u) && !COMMAND.test(u))).toHaveLength(0);
    expect(units('| a | 0.7 s |\n| b | `npm run bench:x` 0.7 s |').filter((u) => FIGURE.test(u) && !COMMAND.test(u))).toEqual(['| a | 0.7 s |']);
  });
});
