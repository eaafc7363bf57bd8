import type { SweepGroup } from '../analysis';
import type { ChartRenderer, MethodColors } from '../html/charts';
import type { HistoryComparison } from '../history/compare';
import type { ReportModel } from '../model';

/**
 * One section of the report: the HTML page's section, its part of the text summary, its tables in
 * `--format json|csv`. The list in index.ts orders them for all three.
 */
export interface ReportSection {
  /** The page's anchor (`<section id>`), unique. */
  id: string;
  title: string;
  /** Whether the model holds data for it: a page section without data says so (or is left out, see `omitWithoutData`). */
  hasData(model: ReportModel): boolean;
  /** Left out of the page without data rather than shown empty (a section of fleet runs only). */
  omitWithoutData?: boolean;
  /** The page section's body, no-data notice included; null: the page has no such section. */
  html: ((ctx: PageContext) => string | Promise<string>) | null;
  /** Its part of the text summary; null: the summary does not show it. */
  text: TextForm | null;
  /** Its tables in `--format json|csv`; absent: none. */
  tables?: (model: ReportModel) => DataTable[];
}

interface TextForm {
  /** The lines, '' where nothing to show; `ctx.wide` asks for methods across. */
  lines(ctx: TextContext): string[];
  /** Printed after every other section, where a terminal leaves it in view (the summary's verdict on the data). */
  closing?: boolean;
}

/** What the page's sections share: the model, one chart renderer, the methods' order and colors. */
export interface PageContext {
  model: ReportModel;
  charts: ChartRenderer;
  methods: string[];
  colors: MethodColors;
  linkLimit: number | null;
  /** The runner's sustained bandwidth where known apart from the link limit (EC2's baseline). */
  linkBaseline: number | null;
  /** Operations measured at two sizes or more (analysis.ts sizeSweeps), computed once. */
  sweeps: SweepGroup[];
}

export interface TextContext {
  model: ReportModel;
  /** Columns to fit. */
  width: number;
  /** Methods across (pivoted tables) for wide terminals. */
  wide: boolean;
  /** The run against the comparable runs before it, where the summary's caller read a history; null: none. */
  history?: HistoryComparison | null;
}

/** A value of a json/csv table: numbers as numbers, missing as null. */
export type DataValue = string | number | boolean | null;
/** A table of `--format json|csv`: numbers as numbers, sizes in bytes, latencies in µs, times in ms. */
export interface DataTable {
  name: string;
  columns: string[];
  rows: DataValue[][];
}
