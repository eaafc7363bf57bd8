import type { ResolvedAdvice } from '../../core/matrix';
import { DEFAULT_MAX_DELAY_MS, NEEDS } from '../advice-needs';
import { verdictsText } from '../advice-text';
import { adviceOfRun, figureText, type Advice, type CaseAdvice, type Dimension, type MethodNeeds } from '../advice';
import { durationText } from '../format';
import { esc, slug } from '../html/format';
import { noData, table, workloadHeading, type TCell } from '../html/parts';
import type { ReportModel } from '../model';
import { textTable, wrapText, type TextCell } from '../text/table';
import type { DataTable, PageContext, ReportSection, TextContext } from './section';

/**
 * "Advice": for every workload of the run, the answer `s3ab advise` gives for the needs and limits
 * the matrix names (`advice`): the methods the needs rule out with the probe and its outcome, the
 * Pareto set, the pick and why, each recommendation with its evidence. The model is advice.ts's:
 * the section only lays it out.
 */

const HOW_TO_ASK = 'Add "advice": {"needs": ["rename", "append"]} to the matrix (any of the needs of `s3ab advise --help`; priority, max_cost_per_million, p99_under and max_delay as its options), with the semantics workload on the methods to compare; or ask after the run: s3ab advise --workload W --needs rename,append.';

/** The question as the matrix asked it, in one line. */
function requestText(r: ResolvedAdvice): string {
  const parts = [`needs: ${r.needs.length ? r.needs.join(', ') : 'none (no method ruled out)'}`, `priority: ${r.priority}`];
  if (r.max_cost_per_million !== null) parts.push(`at most $${r.max_cost_per_million} per million operations`);
  if (r.p99_under_us !== null) parts.push(`p99 under ${durationText(r.p99_under_us / 1000)}`);
  if (r.needs.some((n) => NEEDS[n].probes.some((p) => 'delay' in p))) parts.push(`propagation delay at most ${durationText(r.max_delay_ms ?? DEFAULT_MAX_DELAY_MS)}`);
  return parts.join('; ');
}

const DIMENSION_HEAD: Record<Dimension, string> = { throughput: 'throughput', p99: 'p99', cost: '$ per million operations' };

const settingsText = (settings: Record<string, string>) => Object.entries(settings).map(([k, v]) => `${k}=${v}`).join(' ') || 'defaults';

function caseHtml(c: CaseAdvice, a: Advice): string {
  const parts = [`<h4>${esc(c.case)}</h4>`];
  if (c.compared.length) {
    const rows: TCell[][] = c.compared.map((cand) => {
      const dominated = c.dominated.find((d) => d.method === cand.method);
      const standing: TCell = c.pick?.method === cand.method ? { html: '<strong>pick</strong>', cls: 'supported' }
        : dominated ? { html: `dominated by ${esc(dominated.by.join(', '))}`, cls: 'missing', title: dominated.overlapping.length ? `on medians: their ${dominated.overlapping.join(', ')} ranges overlap` : '' }
          : { html: 'Pareto set', cls: 'supported' };
      const e = cand.evidence;
      return [cand.method, standing, ...c.dimensions.map((d) => figureText(d, cand.figures, c.unit)), settingsText(cand.settings),
        { html: `run ${esc(e.runId)}, ${e.repetitions} repetition${e.repetitions === 1 ? '' : 's'}, host class ${esc(e.hostClass)}${e.warning ? ` — ${esc(e.warning)}` : ''}` }];
    });
    parts.push(table(['method', 'standing', ...c.dimensions.map((d) => (d === 'throughput' ? c.unit : DIMENSION_HEAD[d])), 'settings', 'evidence'], rows,
      { cls: 'advice', caption: `Methods that met the needs and limits, best ${a.priority} first; medians over repetitions (throughput with its min–max). The Pareto set: no other method is at least as good on all of ${c.dimensions.join(', ')} and better on one.` }));
  } else {
    parts.push(`<p>No method left to compare${c.notCompared.length || c.overLimit.length ? '' : ': every method measured was ruled out by the needs or not measured for them'}.</p>`);
  }
  const notes = [
    ...(c.pick ? [`<strong>Pick for ${esc(a.priority)}: ${esc(c.pick.method)}</strong> — ${esc(c.pick.why)}`] : []),
    ...(c.noClearWinner ? [`<strong>No clear winner for ${esc(a.priority)}</strong> among ${esc(c.noClearWinner.among.join(', '))}: ${esc(c.noClearWinner.why)}`] : []),
    ...c.settings.map((st) => `Settings of ${esc(st.method)} (${esc(st.variants.join(', '))}): ${st.best ? `${esc(st.best)} is best for ${esc(a.priority)}` : `no clear winner for ${esc(a.priority)}`} — ${esc(st.why)}`),
    ...(c.compared.length ? c.leftOut.map((l) => `${esc(l.dimension)} left out of the comparison: ${esc(l.why)}`) : []),
    ...c.notCompared.map((n) => `Not compared: ${esc(n.method)}: ${esc(n.why)}`),
    ...c.overLimit.map((o) => `Over the limit: ${esc(o.method)}: ${esc(o.why)}`),
  ];
  if (notes.length) parts.push(`<ul class="advice-notes">${notes.map((n) => `<li>${n}</li>`).join('')}</ul>`);
  return parts.join('\n');
}

function workloadHtml(a: Advice): string {
  const parts = [workloadHeading(a.workload, `advice-${slug(a.workload)}`)];
  const standing = [...a.ruledOut.map((s) => ({ s, outcome: 'ruled out' })), ...a.notMeasured.map((s) => ({ s, outcome: 'not measured' }))];
  if (standing.length) {
    const rows: TCell[][] = standing.flatMap(({ s, outcome }) => s.verdicts.map((v): TCell[] =>
      [s.method, { html: esc(outcome), cls: outcome === 'ruled out' ? 'unsupported' : 'missing' }, v.need, v.probe, v.detail]));
    parts.push(table(['method', 'outcome', 'need', 'probe', 'what it measured'], rows,
      { cls: 'advice-needs', caption: 'Methods the needs rule out (a probe unsupported, mixed, or a delay above the threshold), and methods not measured for them (never assumed to meet a need, never recommended).' }));
  }
  parts.push(...a.cases.map((c) => caseHtml(c, a)));
  if (a.checks.length) {
    parts.push(`<p>The workload's checks of what the methods kept, failed or refused (no need decides them):</p><ul>${a.checks.map((k) => `<li>${esc(k.method)}: ${esc(k.check)} ${esc(k.outcome)} in ${esc(k.what)}</li>`).join('')}</ul>`);
  }
  return parts.join('\n');
}

function html(ctx: PageContext): string {
  const run = adviceOfRun(ctx.model);
  if (!run) return noData('the matrix of this run names no needs to advise on.', HOW_TO_ASK);
  const lead = `<p class="lead">Which method for each workload of this run, for ${esc(requestText(run.request))} (the matrix's <code>advice</code>): the same answer as <code>s3ab advise</code>, from this run's measured figures only. Each recommendation names its run, its repetitions and its host class.</p>`;
  const noNeeds = run.request.needs.length ? [] : [`<p>The matrix names no needs, so no method is ruled out. ${esc(HOW_TO_ASK)}</p>`];
  if (!run.advice.length) return `${lead}\n${noData('this run measured no workload to advise on besides the semantics probes.', 'Add the workload your application runs to the matrix.')}`;
  return [lead, ...noNeeds, ...run.advice.map(workloadHtml)].join('\n');
}

/** What each case comes to: the pick, or no clear winner among whom; and why. */
function outcome(c: CaseAdvice): [string, string] {
  if (c.pick) return [c.pick.method, c.pick.why];
  if (c.noClearWinner) return [`no clear winner: ${c.noClearWinner.among.join(', ')}`, c.noClearWinner.why];
  return ['–', c.compared.length ? '' : 'no method left to compare'];
}

/**
 * The summary's form: the methods the needs rule out, once for the run (a method's probes are
 * the run's, whatever the workload), then per case the pick, the Pareto set and the evidence;
 * `s3ab advise --workload W` prints the whole answer of one workload.
 */
function lines({ model, width }: TextContext): string[] {
  const run = adviceOfRun(model);
  // Without a question there is nothing to answer: the page says how to ask it.
  if (!run?.advice.length) return [];
  const out = ['', ...wrapText(`Advice — which method for each workload, for the matrix's ${requestText(run.request)}; from run ${model.runId}'s figures only (evidence: the pick's, else the first of the Pareto set's, good repetitions and host class). The whole answer of a workload: s3ab advise --run ${model.runId} --workload W${run.request.needs.length ? ` --needs ${run.request.needs.join(',')}` : ''}.`, width)];
  const once = (list: (a: Advice) => MethodNeeds[]) => [...new Map(run.advice.flatMap(list).map((s) => [s.method, s])).values()];
  for (const s of once((a) => a.ruledOut)) out.push(...wrapText(`  ruled out: ${s.method}: ${verdictsText(s)}`, width, '      '));
  const unmeasured = once((a) => a.notMeasured);
  if (unmeasured.length) out.push(...wrapText(`  not measured for the needs (never recommended): ${unmeasured.map((s) => s.method).join(', ')}`, width, '      '));
  // Each case's row, then why across the columns after the workload.
  const rows: TextCell[][] = run.advice.flatMap((a) => a.cases.flatMap((c) => {
    const best = c.compared.find((x) => x.method === (c.pick?.method ?? c.pareto[0]));
    const e = best?.evidence;
    const [pick, why] = outcome(c);
    const row: TextCell[] = [a.workload, c.case, pick, c.pareto.join(', ') || '–', e ? `${e.repetitions} rep${e.repetitions === 1 ? '' : 's'}, ${e.hostClass}` : '–'];
    return why ? [row, ['', { text: why, span: 4 }]] : [row];
  }));
  const columns = [{ head: 'workload' }, { head: 'case', wrap: true }, { head: `pick for ${run.request.priority}`, wrap: true }, { head: 'Pareto set', wrap: true }, { head: 'evidence', wrap: true }];
  return [...out, ...textTable(columns, rows, width)];
}

function tables(model: ReportModel): DataTable[] {
  const run = adviceOfRun(model);
  const advice = run?.advice ?? [];
  return [
    {
      name: 'advice_needs',
      columns: ['workload', 'method', 'outcome', 'need', 'probe', 'detail'],
      rows: advice.flatMap((a) => [...a.ruledOut, ...a.notMeasured].flatMap((s) => s.verdicts.map((v) => [a.workload, s.method, s.outcome, v.need, v.probe, v.detail]))),
    },
    {
      name: 'advice_methods',
      columns: ['workload', 'case', 'method', 'unit', 'throughput_median', 'throughput_min', 'throughput_max', 'p99_us', 'cost_per_million_usd', 'pareto', 'dominated_by', 'pick', 'run_id', 'repetitions', 'host_class'],
      rows: advice.flatMap((a) => a.cases.flatMap((c) => c.compared.map((cand) => [
        a.workload, c.case, cand.method, c.unit, cand.figures.throughput?.median ?? null, cand.figures.throughput?.min ?? null, cand.figures.throughput?.max ?? null,
        cand.figures.p99Us, cand.figures.costPerMillion, c.pareto.includes(cand.method), c.dominated.find((d) => d.method === cand.method)?.by.join(' ') ?? null,
        c.pick?.method === cand.method, cand.evidence.runId, cand.evidence.repetitions, cand.evidence.hostClass,
      ]))),
    },
    {
      name: 'advice_picks',
      columns: ['workload', 'case', 'priority', 'pick', 'no_clear_winner_among', 'why'],
      rows: advice.flatMap((a) => a.cases.map((c) => [a.workload, c.case, a.priority, c.pick?.method ?? null, c.noClearWinner?.among.join(' ') ?? null, c.pick?.why ?? c.noClearWinner?.why ?? null])),
    },
  ];
}

export const adviceSection: ReportSection = {
  id: 'advice',
  title: 'Advice',
  hasData: (model) => !!adviceOfRun(model)?.advice.length,
  html,
  text: { lines },
  tables,
};
