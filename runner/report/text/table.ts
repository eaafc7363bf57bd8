import Table from 'cli-table3';

/**
 * Plain text tables that fit a width (100 columns by default): no borders, no rules between rows,
 * a rule under the header, numbers right-aligned; text columns that may wrap give way first when
 * the natural widths do not fit. cli-table3 draws them.
 */

export interface Column {
  head: string;
  /** Numbers right, text left. @default 'left' */
  align?: 'left' | 'right';
  /** The column may wrap (words, then characters) to make the table fit. @default false */
  wrap?: boolean;
}

/** A cell: its text, or text spanning several columns (a did-not-finish note across the figures). */
export type TextCell = string | { text: string; span: number };

/** Space between columns. */
const GAP = 2;
/** Spanning notes up to this long get the room to fit on one line. */
const SPAN_FIT = 56;
/** The narrowest a wrapping column is made. */
const MIN_WRAP = 12;

const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: ' '.repeat(GAP),
};

const widthOf = (s: string) => Math.max(0, ...s.split('\n').map((l) => [...l].length));

/** Column widths that fit `width`: natural widths, the widest wrapping columns narrowed first. */
function fitWidths(columns: Column[], rows: TextCell[][], width: number): number[] {
  // A spanning cell wraps within its span: it does not widen a column.
  const at = (r: TextCell[], i: number): string => {
    let col = 0;
    for (const cell of r) {
      if (col === i) return typeof cell === 'string' ? cell : '';
      col += typeof cell === 'string' ? 1 : cell.span;
      if (col > i) return '';
    }
    return '';
  };
  const widths = columns.map((c, i) => Math.max(widthOf(c.head), ...rows.map((r) => widthOf(at(r, i)))));
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * (columns.length - 1);
  while (total() > width) {
    // One character at a time off the widest wrapping column: long texts give way before short ones.
    const candidates = columns.map((_, i) => i).filter((i) => columns[i].wrap && widths[i] > MIN_WRAP);
    if (!candidates.length) break;
    const widest = candidates.sort((a, b) => widths[b] - widths[a])[0];
    widths[widest]--;
  }
  widenForSpans(widths, rows, width);
  return widths;
}

/** Room for spanning cells (a did-not-finish note across the figures): their columns widen evenly, as far as the width allows. */
function widenForSpans(widths: number[], rows: TextCell[][], width: number): void {
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
  for (const r of rows) {
    let col = 0;
    for (const cell of r) {
      const span = typeof cell === 'string' ? 1 : cell.span;
      if (typeof cell !== 'string' && span > 1) {
        const have = widths.slice(col, col + span).reduce((a, b) => a + b, 0) + GAP * (span - 1);
        // Notes up to SPAN_FIT characters fit on one line (a did-not-finish text); longer ones wrap.
        const need = Math.min(widthOf(cell.text), SPAN_FIT) - have;
        // cli-table3 counts one character between spanned columns, not GAP.
        let extra = Math.max(0, Math.min(need + (GAP - 1) * (span - 1), width - total()));
        for (let i = 0; extra > 0; i = (i + 1) % span, extra--) widths[col + i]++;
      }
      col += span;
    }
  }
}

/** The table as lines, at most `width` columns wide where its fixed columns allow. */
export function textTable(columns: Column[], rows: TextCell[][], width = 100): string[] {
  const widths = fitWidths(columns, rows, width);
  const table = new Table({
    head: columns.map((c) => c.head),
    chars: BORDERLESS,
    colWidths: widths,
    colAligns: columns.map((c) => c.align ?? 'left'),
    wordWrap: true,
    wrapOnWordBoundary: true,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
  });
  for (const r of rows) table.push(r.map((c) => (typeof c === 'string' ? c : { content: c.text, colSpan: c.span, hAlign: 'left' as const })));
  const lines = table.toString().split('\n').map((l) => l.trimEnd());
  // The header may wrap: the rule goes under its last line.
  const headLines = Math.max(1, ...columns.map((c, i) => wrappedLines(c.head, widths[i])));
  const rule = widths.map((w) => '─'.repeat(w)).join(' '.repeat(GAP));
  return [...lines.slice(0, headLines), rule, ...lines.slice(headLines)];
}

/** Prose wrapped at word boundaries to `width`, later lines indented by `indent`. */
export function wrapText(text: string, width = 100, indent = ''): string[] {
  const lead = /^ */.exec(text)![0];
  const lines: string[] = [];
  let line = '';
  for (const word of text.trimStart().split(/ +/)) {
    const next = line ? `${line} ${word}` : `${lines.length ? indent : lead}${word}`;
    if ([...next].length > width && line.trim()) {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** How many lines a text takes wrapped at word boundaries to `width`. */
function wrappedLines(text: string, width: number): number {
  let lines = 1;
  let used = 0;
  for (const word of text.split(' ')) {
    const w = [...word].length;
    if (used && used + 1 + w > width) {
      lines++;
      used = w;
    } else used += (used ? 1 : 0) + w;
  }
  return lines;
}
