// How long each function is, for `npm run lint:size`.
//
// A function's length is the number of lines its body spans, from the line of its opening brace to
// the line of its closing brace (an arrow function's expression body: from its first line to its
// last). A nested function counts on its own, and its lines count in the function around it too:
// a reader scrolls past them either way.
//
// TypeScript and JavaScript: the TypeScript compiler's parser finds every function-like node —
// function declarations and expressions, arrow functions, methods, constructors and accessors.
// Rust: a scan that skips comments, strings (raw and byte ones too) and char literals, finds each
// `fn NAME` item and matches its body's braces. Closures are not items and are not counted.
import ts from 'typescript';

export interface FunctionSize {
  /** How a reader finds it: the function's name, `Class.method`, or `(arrow)` / `(function)` with its first line. */
  name: string;
  /** 1-based line of the function's start. */
  line: number;
  /** Lines of the body, its braces included. */
  lines: number;
  /** Whether another function encloses it. */
  nested: boolean;
}

function lineOf(source: ts.SourceFile, pos: number): number {
  return source.getLineAndCharacterOfPosition(pos).line + 1;
}

function nameOf(node: ts.FunctionLikeDeclaration): string {
  const own = node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name)) ? node.name.text : undefined;
  const owner = node.parent && (ts.isClassDeclaration(node.parent) || ts.isClassExpression(node.parent)) ? node.parent.name?.text : undefined;
  if (ts.isConstructorDeclaration(node)) return `${owner ?? '(class)'}.constructor`;
  if (own) return owner ? `${owner}.${own}` : own;
  // `const name = () => …` and `name: function () …` take the name they are bound to.
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && ts.isIdentifier(parent.name)) return parent.name.text;
  return ts.isArrowFunction(node) ? '(arrow)' : '(function)';
}

/** Every function-like node of a TypeScript or JavaScript file that has a body. */
export function measureTypeScript(text: string, fileName = 'file.ts'): FunctionSize[] {
  const kind = /\.[cm]?jsx?$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const found: FunctionSize[] = [];
  const visit = (node: ts.Node, depth: number): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const body = fn.body!;
      const first = lineOf(source, body.getStart(source));
      const last = lineOf(source, body.getEnd());
      found.push({ name: nameOf(fn), line: lineOf(source, fn.getStart(source)), lines: last - first + 1, nested: depth > 0 });
      ts.forEachChild(node, (child) => visit(child, depth + 1));
      return;
    }
    ts.forEachChild(node, (child) => visit(child, depth));
  };
  visit(source, 0);
  return found;
}

/** The source with comments, strings and char literals blanked (newlines kept), so braces and `fn` can be read plainly. */
export function blankRustLiterals(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number): void => {
    for (let i = from; i < to && i < out.length; i++) if (out[i] !== '\n') out[i] = ' ';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      // Rust's block comments nest.
      let depth = 0;
      let j = i;
      do {
        if (text.startsWith('/*', j)) { depth++; j += 2; } else if (text.startsWith('*/', j)) { depth--; j += 2; } else j++;
      } while (depth > 0 && j < text.length);
      blank(i, j);
      i = j;
    } else if (/[rb]/.test(c) && !/[\w]/.test(text[i - 1] ?? '') && /^(?:br|r)#*"/.test(text.slice(i, i + 300))) {
      // Raw strings: r"…", r#"…"#, br##"…"##; no escapes inside.
      const open = /^(?:br|r)(#*)"/.exec(text.slice(i))!;
      const close = `"${open[1]}`;
      const end = text.indexOf(close, i + open[0].length);
      const stop = end < 0 ? text.length : end + close.length;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || (c === 'b' && next === '"' && !/[\w]/.test(text[i - 1] ?? ''))) {
      let j = text.indexOf('"', i) + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      blank(i, j + 1);
      i = j + 1;
    } else if (c === '\'') {
      // A char literal ('a', '\n', '\u{1F600}', '{') or a lifetime ('a, 'static): a lifetime has no closing quote.
      const literal = /^'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'/u.exec(text.slice(i, i + 16));
      if (literal) {
        blank(i, i + literal[0].length);
        i += literal[0].length;
      } else i++;
    } else i++;
  }
  return out.join('');
}

/** Every `fn` item with a body in a Rust file (trait methods without a body are left out). */
export function measureRust(text: string): FunctionSize[] {
  const plain = blankRustLiterals(text);
  const lineAt = (pos: number): number => plain.slice(0, pos).split('\n').length;
  // A closing brace for each open one: the positions of the bodies enclosing the scan, to tell nested items.
  const bodies: { open: number; close: number }[] = [];
  const closeOf = (open: number): number => {
    let depth = 0;
    for (let j = open; j < plain.length; j++) {
      if (plain[j] === '{') depth++;
      else if (plain[j] === '}' && --depth === 0) return j;
    }
    return plain.length - 1;
  };
  const found: FunctionSize[] = [];
  const item = /\bfn\s+([A-Za-z_]\w*)/g;
  for (let match = item.exec(plain); match; match = item.exec(plain)) {
    // The signature ends at the body's `{` or at `;`, outside the parameters' and generics' brackets.
    let depth = 0;
    let j = match.index + match[0].length;
    for (; j < plain.length; j++) {
      const c = plain[j];
      if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (depth === 0 && (c === '{' || c === ';')) break;
    }
    if (plain[j] !== '{') continue;
    const close = closeOf(j);
    const nested = bodies.some((b) => b.open < match!.index && match!.index < b.close);
    bodies.push({ open: j, close });
    found.push({ name: match[1], line: lineAt(match.index), lines: lineAt(close) - lineAt(j) + 1, nested });
  }
  return found;
}
