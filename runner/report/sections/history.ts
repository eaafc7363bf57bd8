import { changesLines } from '../history/text';
import type { ReportSection, TextContext } from './section';

/**
 * "Changes against N comparable runs": the run against the comparable runs before it in its
 * history (runner/report/history) — behaviour changes, flagged speed changes, the count of the
 * rest. Text only, last in the summary; the history comes with the summary's context (a results
 * folder's runs), not from the run's own model, so the pipeline's report has none.
 */
export const historySection: ReportSection = {
  id: 'history',
  title: 'Changes against comparable runs',
  hasData: () => false,
  html: null,
  text: { lines: ({ history, width }: TextContext) => (history ? changesLines(history, width) : []), closing: true },
};
