// npm run lint:size's measure: function-like nodes of TypeScript, `fn` items of Rust, on small
// fixtures whose lengths are counted by hand.
import { blankRustLiterals, measureRust, measureTypeScript } from '../../scripts/lint-size/measure';

const byName = (sizes: { name: string; lines: number; nested: boolean; line: number }[]) =>
  Object.fromEntries(sizes.map((s) => [s.name, { lines: s.lines, nested: s.nested, line: s.line }]));

describe('TypeScript function lengths', () => {
  const source = [
    'export function outer(a: number): number {', // 1
    '  const inner = (b: number) => {', //           2
    '    return b + 1;', //                          3
    '  };', //                                       4
    '  return inner(a);', //                         5
    '}', //                                          6
    'class Box {', //                                7
    '  constructor(private n: number) {}', //        8
    '  get size(): number {', //                     9
    '    return this.n;', //                        10
    '  }', //                                       11
    '  grow(): void {', //                          12
    '    this.n++;', //                             13
    '  }', //                                       14
    '  abstractish?(): void;', //                   15 (no body)
    '}', //                                         16
    'const anon = [1].map(function (x) { return x; });', // 17
    'const expr = (x: number) =>', //               18
    '  x * 2;', //                                  19
    'declare function ambient(): void;', //         20 (no body)
    'void [anon, expr, Box];', //                   21
  ].join('\n');
  const sizes = byName(measureTypeScript(source));

  it('counts the body from its opening brace to its closing one, nested functions on their own and inside their parent', () => {
    expect(sizes.outer).toEqual({ lines: 6, nested: false, line: 1 });
    expect(sizes.inner).toEqual({ lines: 3, nested: true, line: 2 });
  });

  it('finds constructors, accessors, methods, function expressions and expression-bodied arrows', () => {
    expect(sizes['Box.constructor']).toEqual({ lines: 1, nested: false, line: 8 });
    expect(sizes['Box.size']).toEqual({ lines: 3, nested: false, line: 9 });
    expect(sizes['Box.grow']).toEqual({ lines: 3, nested: false, line: 12 });
    expect(sizes['(function)']).toEqual({ lines: 1, nested: false, line: 17 });
    expect(sizes.expr).toEqual({ lines: 1, nested: false, line: 18 });
  });

  it('leaves out declarations without a body', () => {
    expect(Object.keys(sizes).sort()).toEqual(['(function)', 'Box.constructor', 'Box.grow', 'Box.size', 'expr', 'inner', 'outer'].sort());
  });

  it('reads JavaScript files too', () => {
    expect(measureTypeScript('module.exports = function load() {\n  return 1;\n};\n', 'x.cjs')).toEqual([{ name: 'load', line: 1, lines: 3, nested: false }]);
  });
});

describe('Rust function lengths', () => {
  const source = [
    'use std::fmt;', //                                   1
    '// fn commented() { {', //                           2
    '/* outer /* nested fn hidden() { */ still comment } */', // 3
    'fn main() {', //                                     4
    '    let s = "fn fake() { {";', //                    5
    '    let raw = r#"a "quoted" } brace"#;', //          6
    '    let c = \'{\';', //                              7
    '    let b = b\'}\';', //                             8
    '    fn helper<\'a>(x: &\'a str) -> &\'a str {', //   9
    '        x', //                                      10
    '    }', //                                          11
    '    let f: fn(u8) -> u8 = |v| { v };', //           12
    '    println!("{}{}{}{:?}", s, raw, c, b);', //      13
    '}', //                                              14
    'trait T {', //                                      15
    '    fn declared(&self) -> [u8; 4];', //             16 (no body)
    '    fn defaulted(&self) -> usize where Self: Sized { 1 }', // 17
    '}', //                                              18
    'impl fmt::Display for S {', //                      19
    '    fn fmt(&self, f: &mut fmt::Formatter<\'_>) -> fmt::Result {', // 20
    '        write!(f, "}}")', //                        21
    '    }', //                                          22
    '}', //                                              23
  ].join('\n');

  it('skips comments (nested block ones too), strings, raw strings and char literals, and tells lifetimes from chars', () => {
    const plain = blankRustLiterals(source);
    expect(plain.split('\n')).toHaveLength(23);
    expect(plain).not.toMatch(/commented|hidden|fake|quoted/);
    expect(plain).toContain("fn helper<'a>(x: &'a str) -> &'a str {");
  });

  it('measures each fn item with a body by its matching braces; nested items count on their own; fn pointer types and closures are not items', () => {
    expect(byName(measureRust(source))).toEqual({
      main: { lines: 11, nested: false, line: 4 },
      helper: { lines: 3, nested: true, line: 9 },
      defaulted: { lines: 1, nested: false, line: 17 },
      fmt: { lines: 3, nested: false, line: 20 },
    });
  });
});
