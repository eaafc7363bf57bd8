/**
 * A CSV parser (RFC 4180) for Athena's query result files: fields separated by commas, records by
 * CRLF or LF, a field in double quotes may hold commas, line breaks and doubled quotes. Athena
 * quotes every value and writes SQL NULL as an empty field without quotes, so an unquoted empty
 * field reads as null and `""` as the empty string. A full run's interval series is a file of
 * tens of MiB: the scan compares character codes and slices each field once.
 */
export type CsvRecord = (string | null)[];

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/** Every record of a CSV text, in order. */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  forEachCsvRecord(text, (r) => records.push(r));
  return records;
}

/** Calls `onRecord` with each record in turn, keeping none: a large file's records are not all held at once as arrays. */
export function forEachCsvRecord(text: string, onRecord: (record: CsvRecord) => void): void {
  const records = { push: onRecord };
  const n = text.length;
  if (n === 0) return;
  let record: CsvRecord = [];
  let i = 0;
  for (;;) {
    let field: string | null;
    if (text.charCodeAt(i) === QUOTE) {
      // A quoted field: up to the quote not followed by another quote.
      const open = i;
      let from = i + 1;
      let value: string | null = null;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q < 0) throw new Error(`CSV: a quoted field opened at character ${open} is never closed`);
        if (text.charCodeAt(q + 1) === QUOTE) {
          value = (value ?? '') + text.slice(from, q + 1);
          from = q + 2;
          continue;
        }
        field = value === null ? text.slice(from, q) : value + text.slice(from, q);
        i = q + 1;
        break;
      }
    } else {
      let end = i;
      for (let c = text.charCodeAt(end); end < n && c !== COMMA && c !== LF && c !== CR; c = text.charCodeAt(++end)) {
        if (c === QUOTE) throw new Error(`CSV: a quote inside an unquoted field at character ${end}`);
      }
      field = end === i ? null : text.slice(i, end);
      i = end;
    }
    record.push(field);
    if (i >= n) { records.push(record); return; }
    const c = text.charCodeAt(i);
    if (c === COMMA) { i++; continue; }
    if (c === LF || c === CR) {
      i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      records.push(record);
      record = [];
      if (i >= n) return;
      continue;
    }
    throw new Error(`CSV: expected a comma or a line break after the quoted field ending at character ${i - 1}, found ${JSON.stringify(text[i])}`);
  }
}
