import { pinnedVersions } from '../../core/install';
import { NEAR_BASELINE } from '../../core/host';
import { bytesText, num } from '../format';
import { esc } from '../html/format';
import { table, type TCell } from '../html/parts';
import { methodLabel } from '../../core/vocabulary';
import type { ReportModel } from '../model';
import { byOrder } from '../order';
import { prunedText } from '../tuning';
import type { DataTable, PageContext, ReportSection } from './section';

/**
 * "Run facts": the host and endpoint, the run, the methods' versions and options, the workloads'
 * parameters. The text summary says the run's facts in its header instead.
 */

function hostTable(model: ReportModel): string[] {
  const h = model.methods[0];
  if (!h) return [];
  const hosts = Math.max(...model.methods.map((x) => x.hosts));
  return ['<h3>Host and endpoint</h3>' + table(['fact', 'value'], [
    ['hostname', `${h.hostname}${hosts > 1 ? ` (and ${hosts - 1} more: records from several hosts)` : ''}`],
    ['instance type', h.instance_type],
    ['vCPUs / memory', `${h.vcpus ?? '–'} / ${bytesText(h.memory_bytes)}`],
    ['OS / kernel', `${h.os} / ${h.kernel}`],
    ['region / AZ', `${h.region ?? '–'} / ${h.availability_zone ?? '–'}`],
    ['link limit', h.link_limit_mib_s !== null ? `${num(h.link_limit_mib_s)} MiB/s (${h.link_limit_source ?? 'source unknown'})` : 'unknown: nothing can be flagged as served from a cache'],
    ...(h.link_baseline_mib_s !== null && h.link_baseline_mib_s !== undefined ? [['sustained (baseline)', `${num(h.link_baseline_mib_s)} MiB/s: figures from ${num(NEAR_BASELINE * h.link_baseline_mib_s)} MiB/s up are marked possibly network-capped`]] : []),
    ['endpoint', `${h.endpoint_kind} ${h.endpoint_url ?? '(AWS default)'}${h.endpoint_server ? ` — ${h.endpoint_server}` : ''}`],
  ], { cls: 'facts' })];
}

function runTable(model: ReportModel): string {
  const h = model.methods[0];
  const m = model.manifest;
  return '<h3>Run</h3>' + table(['fact', 'value'], [
    ['run id', model.runId],
    ['matrix', m?.matrix ?? 'unknown (no manifest)'],
    ['status', m ? `${m.status}${m.problem ? ` — ${m.problem}` : ''}` : 'unknown (no manifest)'],
    ['steps', m ? `${m.steps_done} of ${m.steps_total} ran, ${m.steps_failed} failed${prunedText(m)}` : '–'],
    ['started / ended', m ? `${m.started_at} / ${m.ended_at ?? '—'}` : `${h?.first_recorded_at ?? '–'} / ${h?.last_recorded_at ?? '–'} (first / last record)`],
    ['runner peak memory', m?.peak_rss_bytes ? bytesText(m.peak_rss_bytes) : '–'],
    ['source', model.source],
    ['records', `${num(model.methods.reduce((s, x) => s + x.records, 0))} in this run (${num(model.recordCount)} valid records read, ${num(model.badLineCount)} unreadable lines)`],
    ['other runs at the source', model.otherRuns === null ? 'not listed (query the results table: SELECT DISTINCT run_id FROM results)' : model.otherRuns.length ? model.otherRuns.join(', ') : 'none'],
    ['report generated', model.generatedAt],
  ], { cls: 'facts' });
}

/**
 * A method's pinned client versions (assets/install.json), and where local runs and runners cannot
 * run the same build: a figure from one place is then read beside the other's version.
 */
const pinnedText = (method: string) => pinnedVersions(method).join('; ') || '–';

/** Options or parameters as `key=value` codes. */
const codes = (entries: Record<string, unknown>): TCell => ({ html: Object.entries(entries).map(([k, v]) => `<code>${esc(k)}=${esc(v)}</code>`).join(' ') || '–', cls: 'options' });

function methodsTable(ctx: PageContext): string[] {
  if (!ctx.model.methods.length) return [];
  const rows = byOrder(ctx.model.methods, ctx.methods, methodLabel).map((x) => [
    methodLabel(x), { cls: 'text', html: `${esc(x.method_version)}${x.method_versions > 1 ? ` <span class="warn">(${x.method_versions} versions in this run)</span>` : ''}` },
    { cls: 'text', html: esc(pinnedText(x.method)) }, codes(x.method_options), num(x.records),
  ]);
  return ['<h3>Methods: versions and options</h3>' + table(['method', 'version', 'pinned (local runs and runners)', 'options', 'records'], rows)];
}

function workloadsTable(model: ReportModel): string[] {
  if (!model.workloads.length) return [];
  const rows = model.workloads.map((w): TCell[] => [w.workload, codes(w.workload_params), String(w.methods), String(w.repetitions), num(w.records)]);
  return ['<h3>Workloads: parameters</h3>' + table(['workload', 'parameters', 'methods', 'repetitions', 'records'], rows)];
}

const html = (ctx: PageContext): string => [...hostTable(ctx.model), runTable(ctx.model), ...methodsTable(ctx), ...workloadsTable(ctx.model)].join('\n');

function tables(model: ReportModel): DataTable[] {
  return [
    {
      name: 'methods', columns: ['label', 'method', 'method_variant', 'method_version', 'pinned', 'records', 'options'],
      rows: model.methods.map((m) => [methodLabel(m), m.method, m.method_variant, m.method_version, pinnedText(m.method), m.records, JSON.stringify(m.method_options)]),
    },
    { name: 'workloads', columns: ['workload', 'parameters', 'methods', 'repetitions', 'records'], rows: model.workloads.map((w) => [w.workload, JSON.stringify(w.workload_params), w.methods, w.repetitions, w.records]) },
  ];
}

export const factsSection: ReportSection = {
  id: 'facts',
  title: 'Run facts',
  hasData: (model) => model.methods.length > 0 || !!model.manifest,
  html,
  text: null,
  tables,
};
