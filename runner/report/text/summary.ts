import { NEAR_BASELINE } from '../../results/record';
import { caseKey, isSupportCheck, measured, movesPayload, notApplicable, semanticsMatrix, shownCache, tableOf, type ProbeState } from '../analysis';
import { dnfText, durationText, latencyText, num, percentText } from '../format';
import { caseLabel, methodCacheLabel, methodLabel, seedLabel, workloadSummary } from '../labels';
import type { Cell, ReportModel } from '../model';
import { requestsLines } from '../requests';
import { verdicts } from '../verdicts';
import { instanceTypesLines, scalingLines } from './fleet';
import { CACHE_MARK, markOf, NET_MARK } from './marks';
import { textTable, wrapText, type Column, type TextCell } from './table';
import { wideLines } from './wide';

/**
 * The text summary of a run, from the report model only: what `s3ab run` and `s3ab report` print,
 * the report Lambda's summary.txt and `s3ab aws run`'s closing summary. Long format — one row per
 * method (and case), the figures as columns, "vs best" as the comparison — so it fits `width`
 * (100 columns by default) at nine methods; `wide` prints the methods side by side instead.
 */
export interface SummaryOptions {
  /** Columns to fit. @default 100 */
  width?: number;
  /** Methods across (pivoted tables) for wide terminals. @default false */
  wide?: boolean;
}

type Out = string[];

export function summaryLines(model: ReportModel, opts: SummaryOptions = {}): string[] {
  const width = opts.width ?? 100;
  const out: Out = [];
  header(model, width, out);
  if (!model.cells.length && !model.health.length) {
    out.push('  (no readable measurements in this run)');
    return out;
  }
  verdictLines(model, width, out);
  if (opts.wide) out.push(...wideLines(model));
  else {
    for (const workload of [...new Set(model.cells.map((c) => c.workload))]) {
      const table = tableOf(workload);
      if (table === 'semantics') semanticsLines(model, workload, width, out);
      else if (table === 'metadata-suite') metadataLines(model, workload, width, out);
      else measurementLines(model, workload, width, out);
    }
  }
  out.push(...requestsLines(model, width), ...scalingLines(model, width, opts.wide), ...instanceTypesLines(model, width));
  notApplicableLines(model, width, out);
  integrityLines(model, width, out);
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
    const unfinished = m.steps_did_not_finish ? `, ${m.steps_did_not_finish} did not finish within their budget` : '';
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

function verdictLines(model: ReportModel, width: number, out: Out): void {
  const list = verdicts(model);
  if (!list.length) return;
  out.push('', ...wrapText('Which method for which workload — the best median per case, by how much; · what limits the verdict', width, '  '));
  const columns: Column[] = [{ head: 'workload' }, { head: 'case', wrap: true }, { head: 'best', wrap: true }, { head: 'by how much', wrap: true }];
  const rows = list.flatMap((v): TextCell[][] => [[v.workload, v.case, v.best, v.margin], ...(v.notes.length ? [['', { text: `· ${v.notes.join('; ')}`, span: 3 }]] : [])]);
  out.push(...textTable(columns, rows, width));
}

/** A cell's rate in the unit of its case: MiB/s where payload moved, else operations per second. */
const rateOf = (c: Cell): number | null => (movesPayload(c) ? c.mib_s_median : c.ops_s_median);
const unitOf = (c: Cell) => (movesPayload(c) ? 'MiB/s' : 'op/s');

/** "±4%": the largest distance from the median to the min or max over repetitions; '' with one repetition. */
function spread(c: Cell): string {
  const [lo, med, hi] = [c.duration_ms_min, c.duration_ms_median, c.duration_ms_max];
  if (lo === null || med === null || hi === null || !(med > 0) || c.distinct_repetitions < 2) return '';
  return `±${num((100 * Math.max(hi - med, med - lo)) / med, 2)}%`;
}

/** Why a cell has no figures, across the figure columns. */
function notMeasuredText(c: Cell): string {
  if (c.did_not_finish && !measured(c)) return dnfText({ budgetS: c.dnf_budget_s, doneShare: c.dnf_done_share, extrapolatedS: c.dnf_extrapolated_s });
  if (c.unsupported === c.records) return `not supported: ${c.first_error ?? ''}`.trim();
  return `FAILED: ${c.first_error ?? 'no error recorded'}`;
}

/** Drops the columns no row has a figure in (a sustained rate without series, latency of one-operation jobs). */
function withoutEmpty(columns: Column[], rows: TextCell[][], keep: number): [Column[], TextCell[][]] {
  const used = columns.map((_, i) => i < keep || rows.some((r) => r.length === columns.length && r[i] !== '' && r[i] !== '–'));
  return [columns.filter((_, i) => used[i]), rows.map((r) => (r.length === columns.length ? r.filter((_, i) => used[i]) : spanTo(r, used)))];
}

/** A row with a spanning cell, its span shrunk by the dropped columns it covered. */
function spanTo(row: TextCell[], used: boolean[]): TextCell[] {
  const out: TextCell[] = [];
  let col = 0;
  for (const cell of row) {
    const span = typeof cell === 'string' ? 1 : cell.span;
    const kept = used.slice(col, col + span).filter(Boolean).length;
    if (kept) out.push(typeof cell === 'string' ? cell : { text: cell.text, span: kept });
    col += span;
  }
  return out;
}

const MEASUREMENT_COLUMNS: Column[] = [
  { head: 'case', wrap: true }, { head: 'method', wrap: true }, { head: 'time', align: 'right' }, { head: '±', align: 'right' },
  { head: 'rate', align: 'right' }, { head: 'p99', align: 'right' }, { head: 'sustained', align: 'right' }, { head: 'vs best', align: 'right' },
];

/** One case's rows: each method's figures, "vs best" against the best measured rate (or time). */
function caseRows(group: Cell[], showCase: string): TextCell[][] {
  const rates = group.filter(measured).map(rateOf).filter((x): x is number => x !== null && x > 0);
  const best = rates.length ? Math.max(...rates) : null;
  const rows: TextCell[][] = [];
  for (const [i, c] of group.entries()) {
    const kase = i === 0 ? showCase : '';
    if (isSupportCheck(c)) {
      const kept = measured(c) ? 'kept' : c.failed_batches ? `NOT kept: ${c.first_error ?? ''}` : `not kept (${c.unsupported ? 'not supported' : 'failed'})`;
      rows.push([kase, methodLabel(c), { text: kept, span: 6 }]);
      continue;
    }
    if (!measured(c)) {
      rows.push([kase, methodLabel(c), { text: notMeasuredText(c), span: 6 }]);
      continue;
    }
    const rate = rateOf(c);
    rows.push([
      kase, methodLabel(c), durationText(c.duration_ms_median), spread(c), rate !== null ? `${num(rate)} ${unitOf(c)}${markOf(c)}` : '–',
      latencyText(c.p99_us_median), c.series?.sustained !== null && c.series ? `${num(c.series.sustained)} ${c.series.unit === 'MiB/s' ? 'MiB/s' : 'op/s'}` : '',
      best !== null && rate ? `${num(best / rate)}x` : '–',
    ]);
    if (c.did_not_finish) rows.push(['', '', { text: `${c.did_not_finish} of ${c.records} repetitions ${notMeasuredText({ ...c, repetitions: 0 })}; not in the median`, span: 6 }]);
    if (c.failed_batches) rows.push(['', '', { text: `${c.failed_batches} failed repetition${c.failed_batches === 1 ? '' : 's'} left out${c.first_error ? `: ${c.first_error}` : ''}`, span: 6 }]);
  }
  return rows;
}

function measurementLines(model: ReportModel, workload: string, width: number, out: Out): void {
  const cells = model.cells.filter((c) => c.workload === workload && !notApplicable(c));
  if (!cells.length) return;
  const reps = Math.max(...cells.map((c) => c.distinct_repetitions));
  out.push('', ...wrapText(`${workload} (${seedLabel(workload)}): ${workloadSummary(workload)}`, width, '  '));
  out.push(...wrapText(`  medians over ${reps} repetition${reps === 1 ? '' : 's'}; time: per batch, ± the farthest repetition; rate: MiB/s where payload moved, else operations/s; sustained: the median 1 s interval after the first 10%; vs best: the best rate of the case over this one`, width, '  '));
  const rows: TextCell[][] = [];
  const groups = new Map<string, Cell[]>();
  for (const c of cells) groups.set(caseKey(c), [...(groups.get(caseKey(c)) ?? []), c]);
  for (const group of groups.values()) rows.push(...caseRows(group, caseLabel({ ...group[0], cache: shownCache(group) }, model.sizes)));
  const [columns, shown] = withoutEmpty(MEASUREMENT_COLUMNS, rows, 2);
  out.push(...textTable(columns, shown, width));
}

function metadataLines(model: ReportModel, workload: string, width: number, out: Out): void {
  const cells = model.cells.filter((c) => c.workload === workload && !notApplicable(c));
  if (!cells.length) return;
  const perTest = Math.max(...cells.map((c) => (c.records ? c.ops / c.records : 0)));
  out.push('', ...wrapText(`${workload} (${seedLabel(workload)}) — ${num(perTest)} operations per test; medians over repetitions; success rate over all operations`, width, '  '));
  const rows: TextCell[][] = [];
  for (const test of [...new Set(cells.map((c) => c.operation))]) {
    const group = cells.filter((c) => c.operation === test);
    const best = Math.max(0, ...group.filter(measured).map((c) => c.ops_s_median ?? 0));
    for (const [i, c] of group.entries()) {
      const kase = i === 0 ? test : '';
      const refused = c.unsupported > 0 && c.ok === 0;
      if (refused || (c.did_not_finish && !measured(c))) {
        rows.push([kase, methodLabel(c), { text: notMeasuredText(c), span: 5 }]);
        continue;
      }
      const ops = measured(c) ? c.ops_s_median : c.ops_s_partial_median;
      rows.push([
        kase, methodLabel(c), num(ops), latencyText(c.mean_us_median), latencyText(c.p99_us_median),
        `${percentText(c.ops ? c.ok / c.ops : null)}${c.unverified ? ' (unverified!)' : ''}`, measured(c) && best && ops ? `${num(best / ops)}x` : '–',
      ]);
    }
  }
  const columns: Column[] = [
    { head: 'test', wrap: true }, { head: 'method', wrap: true }, { head: 'ops/s', align: 'right' }, { head: 'mean', align: 'right' },
    { head: 'p99', align: 'right' }, { head: 'success', align: 'right' }, { head: 'vs best', align: 'right' },
  ];
  out.push(...textTable(columns, rows, width));
  for (const c of cells.filter((x) => x.ok < x.ops && x.unsupported === 0 && !x.did_not_finish)) out.push(...wrapText(`  ${methodLabel(c)} ${c.operation}: ${c.first_error ?? 'see the records'}`, width, '    '));
}

const PROBE_MARK: Record<ProbeState['kind'], string> = { supported: 'yes', unsupported: 'NO', failed: 'FAILED', mixed: 'mixed', 'not-applicable': 'n/a', missing: '–' };

function semanticsLines(model: ReportModel, workload: string, width: number, out: Out): void {
  const matrix = semanticsMatrix(model.cells, model.methodOrder);
  if (!matrix) return;
  out.push('', ...wrapText(`${workload} (${seedLabel(workload)}) — POSIX semantics: each "yes" verified on the mount and, where files are objects, in the bucket`, width, '  '));
  out.push(...wrapText(`  probes: ${matrix.probes.join(', ')}`, width, '    '));
  const delays = matrix.probes.filter((p) => p.endsWith('-delay'));
  const rows: TextCell[][] = matrix.methods.map((m) => {
    const of = (kind: ProbeState['kind']) => matrix.probes.filter((p) => !p.endsWith('-delay') && matrix.state(p, m).kind === kind);
    const other = [...of('failed').map((p) => `${p} FAILED`), ...of('mixed').map((p) => `${p} mixed`), ...of('not-applicable').map((p) => `${p} n/a`)];
    return [
      m, `${matrix.supportedCount(m)} of ${matrix.probes.length}`, of('unsupported').join(', ') || '–', other.join(', ') || '–',
      ...delays.map((p) => {
        const s = matrix.state(p, m);
        return s.kind === 'supported' ? (s.delayMs === null ? 'yes' : durationText(s.delayMs)) : PROBE_MARK[s.kind];
      }),
    ];
  });
  const columns: Column[] = [
    { head: 'method', wrap: true }, { head: 'supported', align: 'right' }, { head: 'refused (NO)', wrap: true }, { head: 'failed, mixed, n/a', wrap: true },
    ...delays.map((p) => ({ head: p.replace(/-delay$/, '').replace(/-to-/, '→'), align: 'right' as const })),
  ];
  out.push(...textTable(columns, rows, width));
  // Why, per probe: each reason once, with the methods that gave it ("hardlink: refused with ENOSYS (s3fs, mountpoint)").
  out.push('  why not "yes":');
  for (const p of matrix.probes) {
    const reasons = new Map<string, string[]>();
    for (const m of matrix.methods) {
      const s = matrix.state(p, m);
      if (s.kind === 'supported' || s.kind === 'missing') continue;
      const reason = (s.reason ?? 'no reason recorded').replace(new RegExp(`^${p}: `), '');
      const why = `${s.kind === 'unsupported' ? '' : `${PROBE_MARK[s.kind]}: `}${reason}`;
      reasons.set(why, [...(reasons.get(why) ?? []), m]);
    }
    if (reasons.size) out.push(...wrapText(`    ${p}: ${[...reasons].map(([why, ms]) => `${why} (${ms.join(', ')})`).join('; ')}`, width, '      '));
  }
}

/** Workloads some methods cannot run, one line per method and reason: "not applicable on s3-api (needs a file system): fio-seq, metadata". */
function notApplicableLines(model: ReportModel, width: number, out: Out): void {
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
  if (!byCase.size) return;
  out.push('');
  for (const c of byCase.values()) out.push(...wrapText(`not applicable on ${c.method}${c.reason ? ` (${c.reason})` : ''}: ${c.workloads.join(', ')}`, width, '    '));
}

/** Integrity: what the methods' own checks found, what did not finish, and — apart — what cannot be trusted. */
function integrityLines(model: ReportModel, width: number, out: Out): void {
  const { broken, findings, didNotFinish, records } = model.integrity;
  out.push('');
  if (!broken.length) out.push(...wrapText(`integrity: all ${records} measurements verified (checksums, sizes, listings); no failed or unverified measurement`, width, '    '));
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
  if (broken.length) {
    out.push('PROBLEMS — these measurements cannot be trusted (failed, unverified, or in a step that broke):');
    const columns: Column[] = [
      { head: 'method', wrap: true }, { head: 'workload' }, { head: 'failed', align: 'right' }, { head: 'unverified', align: 'right' },
      { head: 'in failed steps', align: 'right' }, { head: 'first error', wrap: true },
    ];
    out.push(...textTable(columns, broken.map((b) => [b.method, b.workload, num(b.failed), num(b.unverified), num(b.inFailedSteps), b.firstError ?? '']), width));
  }
}
