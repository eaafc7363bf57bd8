import { notApplicable } from '../analysis';
import { dnfText, num } from '../format';
import { esc } from '../html/format';
import { CACHE_FLAG, NET_FLAG, table } from '../html/parts';
import { caseLabel } from '../labels';
import { methodLabel } from '../../core/vocabulary';
import type { Cell, ReportModel } from '../model';
import { textTable, wrapText, type Column } from '../text/table';
import type { DataTable, PageContext, ReportSection, TextContext } from './section';

/**
 * "Data problems": whether the run completed, lines and manifests that could not be read, the
 * measurements that cannot be trusted, the methods' findings, what did not finish, and the figures
 * a cache or the network may have set. On the page it comes second; in the text summary last.
 */

function readProblems(model: ReportModel): string[] {
  const parts: string[] = [];
  const m = model.manifest;
  if (!m) parts.push(`<p class="warn">No run manifest (_runs/${esc(model.runId)}.json) was found: whether this run completed is unknown.</p>`);
  else if (m.status !== 'complete') parts.push(`<p class="bad"><strong>Run ${esc(m.status)} — results incomplete:</strong> ${esc(m.problem ?? 'unknown cause')}</p>`);
  for (const b of model.badManifests) {
    parts.push(`<p class="bad"><strong>Data problem: ${esc(b.path)} is not a readable run manifest</strong> (${esc(b.reason)})${b.runId ? `; run ${esc(b.runId)}'s status is unknown and it is not reported` : ''}.</p>`);
  }
  if (model.badLineCount) {
    const rows = model.badLines.map((b) => [b.file, String(b.line), b.reason]);
    parts.push(`<p class="bad"><strong>${num(model.badLineCount)} line${model.badLineCount === 1 ? '' : 's'} at the source could not be read</strong> and ${model.badLineCount === 1 ? 'was' : 'were'} left out; ` +
      `everything else is shown.${model.badLines.length < model.badLineCount ? ` The first ${model.badLines.length} are listed.` : ''}</p>` +
      table(['file', 'line', 'why'], rows, { cls: 'bad-lines' }));
  }
  return parts;
}

function integrityProblems(model: ReportModel): string[] {
  const parts: string[] = [];
  const { broken, findings, didNotFinish } = model.integrity;
  if (broken.length) {
    parts.push('<p class="bad"><strong>Measurements that cannot be trusted</strong> (failed, unverified, or in a step that broke) — left out of every median, counted here:</p>' +
      table(['method', 'workload', 'records', 'failed', 'unverified', 'in failed steps', 'first error'],
        broken.map((b) => [b.method, b.workload, num(b.records), num(b.failed), num(b.unverified), num(b.inFailedSteps), b.firstError ?? ''])));
  }
  if (findings.length) {
    parts.push('<p class="warn"><strong>Findings about methods</strong> — what a method did wrong, caught by its checks; the measurements themselves are sound:</p>' +
      table(['method', 'workload', 'check', 'repetitions', 'what the check found'], findings.map((f) => [f.method, f.workload, f.operation, String(f.repetitions), f.what])));
  }
  if (didNotFinish.length) {
    parts.push('<p class="warn"><strong>Did not finish</strong> — the step\'s time budget ran out; shown as what they reached, never ranked beside finished times:</p>' +
      table(['method', 'workload', 'case', 'repetitions', 'reached'], didNotFinish.map((c) => [methodLabel(c), c.workload, caseLabel(c, model.sizes), `${c.did_not_finish} of ${c.records}`,
        dnfText({ budgetS: c.dnf_budget_s, doneShare: c.dnf_done_share, extrapolatedS: c.dnf_extrapolated_s })])));
  }
  return parts;
}

/** The flagged cells named, up to six: "s3fs fio-seq read 1 MiB (warm); …". */
function flaggedCases(cells: Cell[], model: ReportModel): string {
  return `${esc([...new Set(cells.map((c) => `${methodLabel(c)} ${c.workload} ${caseLabel(c, model.sizes)}`))].slice(0, 6).join('; '))}${cells.length > 6 ? '; …' : ''}`;
}

function flaggedFigures(ctx: PageContext): string[] {
  const { model } = ctx;
  const parts: string[] = [];
  const cached = model.cells.filter((c) => c.served_from_cache > 0);
  if (cached.length) {
    const n = cached.reduce((s, c) => s + c.served_from_cache, 0);
    parts.push(`<p class="warn"><strong>${num(n)} measurement${n === 1 ? '' : 's'} ran faster than the link limit${ctx.linkLimit !== null ? ` (${num(ctx.linkLimit)} MiB/s)` : ''}:</strong> ` +
      `they were served from a cache, not the store, and are marked ${CACHE_FLAG} in tables and with a red diamond in charts (${flaggedCases(cached, model)}).</p>`);
  }
  const capped = model.cells.filter((c) => c.network_capped > 0);
  if (capped.length) {
    const n = capped.reduce((s, c) => s + c.network_capped, 0);
    parts.push(`<p class="warn"><strong>${num(n)} measurement${n === 1 ? '' : 's'} ran at or near the runner's baseline bandwidth${ctx.linkBaseline !== null ? ` (${num(ctx.linkBaseline)} MiB/s sustained)` : ''}:</strong> ` +
      `the network, not the method, may have set ${n === 1 ? 'it' : 'them'} — at the baseline, or above it only while burst credits lasted — and ${n === 1 ? 'it is' : 'they are'} marked ${NET_FLAG} in tables ` +
      `(${flaggedCases(capped, model)}). A runner type with a higher baseline tells the method's own limit.</p>`);
  }
  return parts;
}

function html(ctx: PageContext): string {
  const parts = [...readProblems(ctx.model), ...integrityProblems(ctx.model), ...flaggedFigures(ctx)];
  if (!parts.length) {
    parts.push(`<p class="good">No problems: every line read is a valid record, and all ${num(ctx.model.integrity.records)} measurements of this run succeeded and were verified (checksums, sizes, listings).</p>`);
  }
  return parts.join('\n');
}

/** Workloads some methods cannot run, one line per method and reason: "not applicable on s3-api (needs a file system): fio-seq, metadata". */
function notApplicableLines(model: ReportModel, width: number): string[] {
  const byCase = new Map<string, { method: string; reason: string; workloads: string[] }>();
  const all = new Map<string, Cell[]>();
  for (const c of model.cells) all.set(`${c.workload}\u0000${methodLabel(c)}`, [...(all.get(`${c.workload}\u0000${methodLabel(c)}`) ?? []), c]);
  for (const cells of all.values()) {
    if (!cells.every(notApplicable)) continue;
    const c = cells[0];
    // The reason names the method and the workload ("fio-seq needs a file system; s3-api is an object method"): keep what is about neither.
    const reason = String(c.first_error ?? '').split('; ').filter((part) => !part.includes(c.method)).join('; ').replace(new RegExp(`^${c.workload} `), '');
    const key = `${methodLabel(c)}\n${reason}`;
    const entry = byCase.get(key) ?? { method: methodLabel(c), reason, workloads: [] };
    entry.workloads.push(c.workload);
    byCase.set(key, entry);
  }
  if (!byCase.size) return [];
  return ['', ...[...byCase.values()].flatMap((c) => wrapText(`not applicable on ${c.method}${c.reason ? ` (${c.reason})` : ''}: ${c.workloads.join(', ')}`, width, '    '))];
}

/** What the methods' own checks found, and what did not finish. */
function findingLines(model: ReportModel, width: number): string[] {
  const { findings, didNotFinish } = model.integrity;
  const out: string[] = [];
  if (findings.length) {
    out.push('findings — what a method did wrong, caught by its checks (the measurements themselves are sound):');
    for (const f of findings) out.push(...wrapText(`  ${f.method} ${f.workload} ${f.operation} (${f.repetitions} repetition${f.repetitions === 1 ? '' : 's'}): ${f.what}`, width, '    '));
  }
  if (didNotFinish.length) {
    out.push('did not finish — the step\'s time budget ran out; shown as reached, never ranked:');
    for (const c of didNotFinish) {
      const text = dnfText({ budgetS: c.dnf_budget_s, doneShare: c.dnf_done_share, extrapolatedS: c.dnf_extrapolated_s });
      out.push(...wrapText(`  ${methodLabel(c)} ${c.workload} ${caseLabel(c, model.sizes)}: ${text} (${c.did_not_finish} of ${c.records} repetitions)`, width, '    '));
    }
  }
  return out;
}

/** Integrity: what the methods' own checks found, what did not finish, and — apart — what cannot be trusted. */
function integrityLines(model: ReportModel, width: number): string[] {
  const { broken, records } = model.integrity;
  const out = [''];
  if (!broken.length) out.push(...wrapText(`integrity: all ${records} measurements verified (checksums, sizes, listings); no failed or unverified measurement`, width, '    '));
  out.push(...findingLines(model, width));
  if (broken.length) {
    out.push('PROBLEMS — these measurements cannot be trusted (failed, unverified, or in a step that broke):');
    const columns: Column[] = [
      { head: 'method', wrap: true }, { head: 'workload' }, { head: 'failed', align: 'right' }, { head: 'unverified', align: 'right' },
      { head: 'in failed steps', align: 'right' }, { head: 'first error', wrap: true },
    ];
    out.push(...textTable(columns, broken.map((b) => [b.method, b.workload, num(b.failed), num(b.unverified), num(b.inFailedSteps), b.firstError ?? '']), width));
  }
  return out;
}

function tables(model: ReportModel): DataTable[] {
  const { findings, broken } = model.integrity;
  return [
    { name: 'findings', columns: ['method', 'workload', 'operation', 'repetitions', 'what'], rows: findings.map((f) => [f.method, f.workload, f.operation, f.repetitions, f.what]) },
    {
      name: 'untrusted', columns: ['method', 'workload', 'records', 'failed', 'unverified', 'in_failed_steps', 'first_error'],
      rows: broken.map((b) => [b.method, b.workload, b.records, b.failed, b.unverified, b.inFailedSteps, b.firstError]),
    },
  ];
}

export const problemsSection: ReportSection = {
  id: 'problems',
  title: 'Data problems',
  // Always shown: "no problems" is a finding too.
  hasData: () => true,
  html,
  text: { lines: ({ model, width }: TextContext) => [...notApplicableLines(model, width), ...integrityLines(model, width)], closing: true },
  tables,
};
