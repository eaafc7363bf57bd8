import { NEAR_BASELINE } from '../../core/host';
import type { HistoryComparison } from '../history/compare';
import { num } from '../format';
import { methodCacheLabel } from '../../core/vocabulary';
import type { ReportModel } from '../model';
import { SECTIONS } from '../sections';
import type { TextContext } from '../sections/section';
import { CACHE_MARK, NET_MARK } from './marks';
import { prunedText } from '../tuning';
import { wrapText } from './table';

/**
 * The text summary of a run, from the report model only: what `s3ab run` and `s3ab report` print,
 * the report Lambda's summary.txt and `s3ab aws run`'s closing summary. The run's header, then the
 * text form of each report section in the list's order (runner/report/sections), closing ones last.
 * Fits `width` (100 columns by default) at nine methods; `wide` prints the methods side by side instead.
 */
export interface SummaryOptions {
  /** Columns to fit. @default 100 */
  width?: number;
  /** Methods across (pivoted tables) for wide terminals. @default false */
  wide?: boolean;
  /** The run against its history (history/compare.ts): the summary ends with its changes. @default the model's, if any */
  history?: HistoryComparison | null;
}

type Out = string[];

export function summaryLines(model: ReportModel, opts: SummaryOptions = {}): string[] {
  const ctx: TextContext = { model, width: opts.width ?? 100, wide: opts.wide ?? false, history: opts.history ?? model.history?.comparison ?? null };
  const out: Out = [];
  header(model, ctx.width, out);
  if (!model.cells.length && !model.health.length) {
    out.push('  (no readable measurements in this run)');
    return out;
  }
  const texts = SECTIONS.flatMap((s) => (s.text ? [s.text] : []));
  for (const text of [...texts.filter((t) => !t.closing), ...texts.filter((t) => t.closing)]) out.push(...text.lines(ctx));
  return out;
}

function header(model: ReportModel, width: number, out: Out): void {
  const m = model.manifest;
  const say = (text: string) => out.push(...wrapText(text, width, '    '));
  if (!m) say(`Run ${model.runId} — status unknown (no run manifest)`);
  else {
    const status = m.status === 'complete' ? 'COMPLETE' : `${m.status.toUpperCase()} — results incomplete: ${m.problem ?? 'unknown cause'}`;
    say(`Run ${m.run_id} (${m.matrix}) — ${status}`);
    if (m.endpoint) say(`  endpoint: ${m.endpoint.kind} ${m.endpoint.url ?? ''} ${m.endpoint.server ?? ''}`.trimEnd());
    const unfinished = (m.steps_did_not_finish ? `, ${m.steps_did_not_finish} did not finish within their budget` : '') + prunedText(m);
    say(`  steps: ${m.steps_done}/${m.steps_total} ran, ${m.steps_failed} failed${unfinished}; started ${m.started_at}, ended ${m.ended_at ?? '—'}`);
  }
  if (model.manifests.length > 1) say(`  runners: ${model.manifests.length} manifests (${[...new Set(model.manifests.map((x) => x.status))].join(', ')})`);
  for (const s of model.skipped) {
    say(`  SKIPPED (not measured, not failed): ${methodCacheLabel({ method: s.method, method_variant: s.variant }, false)} — ${s.reason} (${s.steps} steps; optional in the matrix)`);
  }
  for (const b of model.badManifests) say(`  DATA PROBLEM: ${b.path}: ${b.reason}${b.runId ? '; that run is not reported' : ''}`);
  if (model.badLineCount) say(`  ${model.badLineCount} unreadable lines left out (\`s3ab report --html FILE\` lists them)`);
  const link = model.link;
  if (link) {
    say(`  link limit: ${link.limitMibS === null ? 'unknown' : `${num(link.limitMibS)} MiB/s`} (${link.source ?? 'no source'}); figures above it are marked "${CACHE_MARK}": served from a cache, unless the server's access log shows it sent every byte of each object they read: then the estimate was low, and they are flagged link-estimate-low`);
    if (link.baselineMibS !== null) {
      say(`  sustained (baseline): ${num(link.baselineMibS)} MiB/s; figures from ${num(NEAR_BASELINE * link.baselineMibS)} MiB/s up to the link limit are marked "${NET_MARK}": the network, not the method, may have set them`);
    }
  }
}
