import { adviceSection } from './advice';
import { cacheSection } from './cache';
import { factsSection } from './facts';
import { historySection } from './history';
import { instanceTypesSection } from './instance-types';
import { metadataSection } from './metadata';
import { overTimeSection } from './over-time';
import { percentilesSection } from './percentiles';
import { problemsSection } from './problems';
import { ratiosSection } from './ratios';
import { requestsSection } from './requests';
import { scalingSection } from './scaling';
import { seedClaimsSection } from './seed-claims';
import type { ReportSection } from './section';
import { semanticsSection } from './semantics';
import { sizeSection } from './size';
import { summarySection } from './summary';
import { tuningSection } from './tuning';
import { workloadsSection } from './workloads';

/**
 * The report's sections in order: the only place that orders them. The HTML page, the text
 * summary (`--wide` too) and `--format json|csv` walk this list; a new section is a file in this
 * folder and one line here.
 */
export const SECTIONS: readonly ReportSection[] = [
  summarySection,
  problemsSection,
  adviceSection,
  sizeSection,
  ratiosSection,
  overTimeSection,
  percentilesSection,
  metadataSection,
  cacheSection,
  semanticsSection,
  workloadsSection,
  tuningSection,
  scalingSection,
  requestsSection,
  seedClaimsSection,
  instanceTypesSection,
  factsSection,
  // Last: the summary ends with the run against its history.
  historySection,
];
