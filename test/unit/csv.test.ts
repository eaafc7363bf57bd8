import { parseCsv } from '../../runner/report/csv';

describe('parseCsv (Athena result files)', () => {
  it('reads quoted fields, with the header as the first record', () => {
    expect(parseCsv('"a","b"\n"1","x"\n')).toEqual([['a', 'b'], ['1', 'x']]);
  });
  it('tells NULL (an unquoted empty field) from the empty string ("")', () => {
    expect(parseCsv('"a",,""\n,"",\n')).toEqual([['a', null, ''], [null, '', null]]);
  });
  it('keeps commas, doubled quotes and line breaks inside quotes', () => {
    expect(parseCsv('"x, y","say ""hi""","line 1\nline 2\r\nline 3"\n')).toEqual([['x, y', 'say "hi"', 'line 1\nline 2\r\nline 3']]);
  });
  it('accepts CRLF, a missing last line break, and unquoted values', () => {
    expect(parseCsv('a,b\r\n1,2')).toEqual([['a', 'b'], ['1', '2']]);
    expect(parseCsv('"1.0E-4",{k=v}\r\n')).toEqual([['1.0E-4', '{k=v}']]);
  });
  it('reads an empty file as no records', () => {
    expect(parseCsv('')).toEqual([]);
  });
  it('refuses malformed text, naming where', () => {
    expect(() => parseCsv('"open\n')).toThrow('never closed');
    expect(() => parseCsv('"a"b\n')).toThrow('expected a comma or a line break');
    expect(() => parseCsv('a"b\n')).toThrow('a quote inside an unquoted field');
  });
});
