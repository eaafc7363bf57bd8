/** The rows of each named query of one run, as Athena returned them. */
export interface ReportData {
  runId: string;
  generatedAt: string;
  queries: { name: string; columns: string[]; rows: Record<string, string | null>[] }[];
}

/** One file of a report: the Report function writes each under reports/RUNID/. */
export interface ReportFile {
  name: string;
  contentType: string;
  body: string;
}

function textTable(columns: string[], rows: Record<string, string | null>[]): string {
  const cells = [columns, ...rows.map((r) => columns.map((c) => r[c] ?? '–'))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/**
 * Next to the HTML page: every query's rows as JSON (for scripts) and as plain-text tables (for a
 * terminal or a ticket) — summary.json and summary.txt.
 */
export function summaryFiles(data: ReportData): ReportFile[] {
  return [
    { name: 'summary.json', contentType: 'application/json', body: JSON.stringify(data, null, 2) },
    {
      name: 'summary.txt',
      contentType: 'text/plain; charset=utf-8',
      body: [`s3-access-bench run ${data.runId} — summary generated ${data.generatedAt}`, '',
        ...data.queries.flatMap((q) => [`== ${q.name} (${q.rows.length} rows)`, q.rows.length ? textTable(q.columns, q.rows) : '(no rows)', ''])].join('\n'),
    },
  ];
}
