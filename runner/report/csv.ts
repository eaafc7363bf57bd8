/**
 * A CSV parser (RFC 4180) for Athena's query result files: fields separated by commas, records by
 * CRLF or LF, a field in double quotes may hold commas, line breaks and doubled quotes. Athena
 * quotes every value and writes SQL NULL as an empty field without quotes, so an unquoted empty
 * field reads as null and `""` as the empty string.
 */
export type CsvRecord = (string | null)[];

export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let record: CsvRecord = [];
  let i = 0;
  const n = text.length;
  if (n === 0) return records;
  for (;;) {
    let field: string | null;
    if (text[i] === '"') {
      // A quoted field: up to the quote not followed by another quote.
      let value = '';
      let from = ++i;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new Error(`CSV: a quoted field opened at character ${from - 1} is never closed`);
        if (text[q + 1] === '"') { value += text.slice(from, q + 1); i = q + 2; from = i; continue; }
        value += text.slice(from, q);
        i = q + 1;
        break;
      }
      field = value;
    } else {
      let end = i;
      while (end < n && text[end] !== ',' && text[end] !== '\n' && text[end] !== '\r') end++;
      const raw = text.slice(i, end);
      if (raw.includes('"')) throw new Error(`CSV: a quote inside an unquoted field at character ${i}`);
      field = raw === '' ? null : raw;
      i = end;
    }
    record.push(field);
    if (i >= n) { records.push(record); return records; }
    const ch = text[i];
    if (ch === ',') { i++; continue; }
    if (ch === '\r' || ch === '\n') {
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
      records.push(record);
      record = [];
      if (i >= n) return records;
      continue;
    }
    throw new Error(`CSV: expected a comma or a line break after the quoted field ending at character ${i - 1}, found ${JSON.stringify(ch)}`);
  }
}
