import { NEEDS } from './advice-needs';
import { figureText, type Advice, type CaseAdvice, type MethodNeeds } from './advice';
import { durationText } from './format';

/** The advice as the terminal prints it (`s3ab advise`); `--format json` prints the Advice itself. */

/** A method's verdicts on the needs, in one line: each need, its probe and what it measured. */
export const verdictsText = (s: MethodNeeds) => s.verdicts.map((v) => `${v.need}: ${v.probe} ${v.detail}`).join('; ');

function settingsText(settings: Record<string, string>): string {
  const parts = Object.entries(settings).map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(' ') : 'defaults';
}

function caseLines(c: CaseAdvice, advice: Advice): string[] {
  const lines = [`${c.case}:`];
  if (!c.compared.length) {
    const why = c.notCompared.length || c.overLimit.length ? '' : ': every method measured was ruled out by your needs or not measured for them (above)';
    lines.push(`  no method left to compare${why}`);
  } else {
    lines.push(`  compared on ${c.dimensions.map((d) => (d === 'throughput' ? c.unit : d === 'cost' ? '$ per million operations' : 'p99')).join(', ')} (medians over repetitions)`);
    lines.push(`  Pareto set (no other method is at least as good on all of these and better on one), best ${advice.priority} first:`);
    for (const cand of c.compared.filter((x) => c.pareto.includes(x.method))) {
      lines.push(`    ${cand.method}: ${c.dimensions.map((d) => figureText(d, cand.figures, c.unit)).join(', ')}`);
      lines.push(`      settings: ${settingsText(cand.settings)}`);
      lines.push(`      evidence: run ${cand.evidence.runId}, ${cand.evidence.repetitions} repetition${cand.evidence.repetitions === 1 ? '' : 's'}, host class ${cand.evidence.hostClass}`);
      if (cand.evidence.warning) lines.push(`      warning: ${cand.evidence.warning}`);
    }
    for (const d of c.dominated) {
      const cand = c.compared.find((x) => x.method === d.method)!;
      const overlap = d.overlapping.length ? `; on medians: their ${d.overlapping.join(', ')} ranges overlap` : '';
      lines.push(`  dominated: ${d.method}: ${c.dimensions.map((dim) => figureText(dim, cand.figures, c.unit)).join(', ')} (by ${d.by.join(', ')}${overlap})`);
    }
  }
  for (const l of c.leftOut) if (c.compared.length) lines.push(`  ${l.dimension} left out of the comparison: ${l.why}`);
  for (const n of c.notCompared) lines.push(`  not compared: ${n.method}: ${n.why}`);
  for (const o of c.overLimit) lines.push(`  over your limit: ${o.method}: ${o.why}`);
  if (c.pick) lines.push(`  pick for ${advice.priority}: ${c.pick.method} — ${c.pick.why}`);
  if (c.noClearWinner) lines.push(`  no clear winner for ${advice.priority} among ${c.noClearWinner.among.join(', ')}: ${c.noClearWinner.why}`);
  for (const st of c.settings) {
    const of = `settings of ${st.method} (variants ${st.variants.join(', ')})`;
    lines.push(st.best ? `  ${of}: ${st.best} is best for ${advice.priority} — ${st.why}` : `  ${of}: no clear winner for ${advice.priority}: ${st.why}`);
  }
  return lines;
}

export function adviceLines(advice: Advice): string[] {
  const needs = advice.needs.length ? advice.needs.join(', ') : 'none given';
  const lines = [
    `Advice for ${advice.workload} from run ${advice.runId}`,
    `  needs: ${needs}; priority: ${advice.priority}${advice.needs.some((n) => NEEDS[n].probes.some((p) => 'delay' in p)) ? `; propagation delay at most ${durationText(advice.maxDelayMs)}` : ''}`
      + `${advice.hostClass ? `; your host class: ${advice.hostClass}` : ''}`,
    '',
  ];
  if (advice.ruledOut.length) {
    lines.push('Ruled out by your needs (the probe and what it measured):');
    for (const s of advice.ruledOut) lines.push(`  ${s.method}: ${verdictsText(s)}`);
    lines.push('');
  }
  if (advice.notMeasured.length) {
    lines.push('Not measured for your needs (never assumed to meet them; run the semantics workload on them):');
    for (const s of advice.notMeasured) lines.push(`  ${s.method}: ${verdictsText(s)}`);
    lines.push('');
  }
  for (const c of advice.cases) lines.push(...caseLines(c, advice), '');
  if (advice.checks.length) {
    lines.push(`The workload's checks of what the methods kept, failed or refused (no need decides them; see whether your application needs them):`);
    for (const k of advice.checks) lines.push(`  ${k.method}: ${k.check} ${k.outcome} in ${k.what}`);
    lines.push('');
  }
  if (!advice.cases.length) lines.push(`No measurements of ${advice.workload} in this run.`);
  return lines;
}
