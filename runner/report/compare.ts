import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { keyDifferences, type ComparableFacts, type KeyField } from '../core/comparability';
import { UserError } from '../core/errors';
import { isRunId, RUN_ID_EXAMPLE, methodLabel } from '../core/vocabulary';
import { measured } from './analysis';
import { dnfText, num } from './format';
import { ChartRenderer, changeSpec } from './html/charts';
import { esc } from './html/format';
import { STYLE } from './html/style';
import { caseLabel } from './labels';
import { ScannedResults } from './load';
import { cellKey, type Cell, type ReportModel } from './model';
import { textTable, wrapText } from './text/table';

/**
 * Two runs side by side (`s3ab report --compare RUN_A RUN_B`): for every cell both runs measured,
 * the change of each metric from A to B in percent, and which facts differ between the runs
 * (instance type, kernel, client versions and options), so a change can be traced to its cause.
 * Cells are matched by the comparability key: equal keys compare; keys that differ only in the
 * client's version or options compare too, labelled with what differs (what such a comparison is
 * for); any other difference (parameters, host class, endpoint, fleet size…) is not comparable,
 * listed with the key's fields that differ.
 * Both runs are report models (model.ts). A measurement that did not finish (its step's time
 * budget ran out) is never compared as a figure: it is listed with what it reached.
 */

interface MetricDef {
  name: string;
  unit: string;
  pick: (c: Cell) => number | null;
  higherIsBetter: boolean;
}

const METRICS: MetricDef[] = [
  { name: 'throughput', unit: 'MiB/s', pick: (c) => c.mib_s_median, higherIsBetter: true },
  { name: 'ops/s', unit: '', pick: (c) => c.ops_s_median, higherIsBetter: true },
  { name: 'mean latency', unit: 'µs', pick: (c) => c.mean_us_median, higherIsBetter: false },
  { name: 'p99 latency', unit: 'µs', pick: (c) => c.p99_us_median, higherIsBetter: false },
  { name: 'time', unit: 'ms', pick: (c) => c.duration_ms_median, higherIsBetter: false },
  { name: 'delay', unit: 'ms', pick: (c) => c.delay_ms_median, higherIsBetter: false },
  { name: 'success rate', unit: '%', pick: (c) => (c.ops && c.not_applicable < c.records ? (100 * c.ok) / c.ops : null), higherIsBetter: true },
];

interface MetricChange {
  workload: string;
  case: string;
  method: string;
  metric: string;
  unit: string;
  a: number;
  b: number;
  /** (b - a) / a in percent; null when a is 0. */
  changePct: number | null;
  better: boolean | null;
  /** The key's fields in which the two cells differ: none, or the client's version and options only. */
  differs: KeyField[];
}

/** The key's fields a comparison across runs may differ in, labelled: what comparing two runs is for. */
const COMPARED_ACROSS: readonly KeyField[] = ['method_version', 'method_options'];

interface FactChange {
  fact: string;
  a: string;
  b: string;
}

export interface Comparison {
  a: ReportModel;
  b: ReportModel;
  changes: MetricChange[];
  /** Cells that did not finish in either run (never compared as figures), with what they reached there. */
  didNotFinish: { case: string; a: string; b: string }[];
  /** Cells both runs measured whose keys differ in more than version or options: not compared, with the fields that differ. */
  notComparable: { case: string; fields: string[] }[];
  /** Cells measured in one run only. */
  onlyA: string[];
  onlyB: string[];
  facts: FactChange[];
}

/** What a cell reached: its DNF text, or 'finished' with its median time. */
const reached = (c: Cell | undefined) => (!c ? 'not measured' : c.did_not_finish && !measured(c)
  ? dnfText({ budgetS: c.dnf_budget_s, doneShare: c.dnf_done_share, extrapolatedS: c.dnf_extrapolated_s }) : measured(c) ? 'finished' : 'failed');

/**
 * The facts a cell's comparability key is made of, from its run's facts (run_facts, workload_facts);
 * null where the run has none for its method or workload.
 */
function keyFactsOf(model: ReportModel, c: Cell): ComparableFacts | null {
  const m = model.methods.find((x) => x.method === c.method && x.method_variant === c.method_variant);
  const w = model.workloads.find((x) => x.workload === c.workload);
  if (!m || !w) return null;
  return {
    method: c.method, method_variant: c.method_variant, method_version: m.method_version, method_options: m.method_options, workload: c.workload,
    workload_params: w.workload_params, cache: c.cache, clients: c.clients ?? 1,
    host: { instance_type: m.instance_type, vcpus: m.vcpus ?? 0, memory_bytes: m.memory_bytes ?? 0, region: m.region } as ComparableFacts['host'],
    endpoint: { kind: m.endpoint_kind as ComparableFacts['endpoint']['kind'], url: m.endpoint_url, server: m.endpoint_server },
  };
}

/** How two cells of one case compare: the key's fields that differ, or why that is not known. */
function cellDifferences(a: ReportModel, ca: Cell, b: ReportModel, cb: Cell): KeyField[] | 'unknown' {
  if (ca.comparable_key !== null && ca.comparable_key === cb.comparable_key) return [];
  const fa = keyFactsOf(a, ca);
  const fb = keyFactsOf(b, cb);
  if (!fa || !fb) return 'unknown';
  return keyDifferences(fa, fb);
}

/** The change of every metric both runs have, and the facts that differ. */
export function compareRuns(a: ReportModel, b: ReportModel): Comparison {
  const caseOf = (c: Cell) => caseLabel(c, a.sizes);
  const describe = (c: Cell) => `${c.workload} ${caseOf(c)} ${methodLabel(c)}`;
  const inA = new Map(a.cells.map((c) => [cellKey(c), c]));
  const inB = new Map(b.cells.map((c) => [cellKey(c), c]));
  const changes: MetricChange[] = [];
  const didNotFinish: Comparison['didNotFinish'] = [];
  const notComparable: Comparison['notComparable'] = [];
  for (const [key, ca] of inA) {
    const cb = inB.get(key);
    if (!cb) continue;
    const differs = cellDifferences(a, ca, b, cb);
    if (differs === 'unknown' || differs.some((f) => !COMPARED_ACROSS.includes(f))) {
      notComparable.push({ case: describe(ca), fields: differs === 'unknown' ? ['comparability key (the run facts that make it are missing)'] : differs.filter((f) => !COMPARED_ACROSS.includes(f)) });
      continue;
    }
    // A measurement that did not finish has no figure to compare: say what each run reached.
    if ((ca.did_not_finish && !measured(ca)) || (cb.did_not_finish && !measured(cb))) {
      didNotFinish.push({ case: describe(ca), a: reached(ca), b: reached(cb) });
      continue;
    }
    for (const m of METRICS) {
      const va = m.pick(ca);
      const vb = m.pick(cb);
      if (va === null || vb === null) continue;
      if (m.name === 'success rate' && va === vb) continue;
      const changePct = va === 0 ? null : ((vb - va) / va) * 100;
      const better = changePct === null || changePct === 0 ? null : (changePct > 0) === m.higherIsBetter;
      changes.push({ workload: ca.workload, case: caseOf(ca), method: methodLabel(ca), metric: m.name, unit: m.unit, a: va, b: vb, changePct, better, differs });
    }
  }
  const facts: FactChange[] = [];
  const fa = a.methods[0];
  const fb = b.methods[0];
  if (fa && fb) {
    const hostFacts: [string, (f: typeof fa) => unknown][] = [
      ['instance type', (f) => f.instance_type], ['vCPUs', (f) => f.vcpus], ['memory', (f) => f.memory_bytes], ['kernel', (f) => f.kernel], ['OS', (f) => f.os],
      ['region', (f) => f.region], ['link limit MiB/s', (f) => f.link_limit_mib_s], ['endpoint', (f) => `${f.endpoint_kind} ${f.endpoint_server ?? ''}`.trim()],
    ];
    for (const [fact, get] of hostFacts) if (String(get(fa)) !== String(get(fb))) facts.push({ fact, a: String(get(fa)), b: String(get(fb)) });
  }
  for (const ma of a.methods) {
    const mb = b.methods.find((x) => methodLabel(x) === methodLabel(ma));
    if (!mb) continue;
    if (ma.method_version !== mb.method_version) facts.push({ fact: `${methodLabel(ma)} version`, a: ma.method_version, b: mb.method_version });
    const keys = [...new Set([...Object.keys(ma.method_options), ...Object.keys(mb.method_options)])].sort();
    for (const k of keys) {
      if (ma.method_options[k] !== mb.method_options[k]) facts.push({ fact: `${methodLabel(ma)} option ${k}`, a: ma.method_options[k] ?? '(unset)', b: mb.method_options[k] ?? '(unset)' });
    }
  }
  const measuredKeys = (cells: Map<string, Cell>) => [...cells].filter(([, c]) => c.repetitions > 0).map(([k]) => k);
  for (const [key, cb] of inB) if (!inA.has(key) && cb.did_not_finish && !measured(cb)) didNotFinish.push({ case: describe(cb), a: 'not measured', b: reached(cb) });
  return {
    a, b, changes, facts, didNotFinish, notComparable,
    onlyA: measuredKeys(inA).filter((k) => !inB.has(k)).map((k) => describe(inA.get(k)!)),
    onlyB: measuredKeys(inB).filter((k) => !inA.has(k)).map((k) => describe(inB.get(k)!)),
  };
}

const metricName = (c: MetricChange) => (c.unit ? `${c.metric} (${c.unit})` : c.metric);
/** The method, labelled where its cells' keys differ in the client's version or options: "s3fs (other version)". */
const methodText = (c: MetricChange) => (c.differs.length ? `${c.method} (other ${c.differs.map((f) => (f === 'method_version' ? 'version' : 'options')).join(', ')})` : c.method);
const notComparableText = (n: Comparison['notComparable'][number]) => `${n.case} (${n.fields.join(', ')} differ)`;
const changeText = (c: MetricChange) => (c.changePct === null ? 'n/a' : `${c.changePct > 0 ? '+' : ''}${num(c.changePct)}%`);
const verdict = (c: MetricChange, threshold: number) =>
  c.changePct === null || Math.abs(c.changePct) < threshold ? 'same' : c.better ? 'better' : 'worse';

/** Prints the comparison in `width` columns: differing facts, counts, every change at or beyond the threshold, what did not finish. */
export function printComparison(cmp: Comparison, out: (line: string) => void, thresholdPct = 5, width = 100): void {
  const say = (text: string) => wrapText(text, width, '    ').forEach(out);
  say(`Comparing run A ${cmp.a.runId} (${cmp.a.source}) with run B ${cmp.b.runId} (${cmp.b.source})`);
  if (cmp.facts.length) textTable([{ head: 'what differs', wrap: true }, { head: 'run A', wrap: true }, { head: 'run B', wrap: true }], cmp.facts.map((f) => [f.fact, f.a, f.b]), width).forEach(out);
  else out('  same host facts, client versions and options');
  const counted = (v: string) => cmp.changes.filter((c) => verdict(c, thresholdPct) === v).length;
  say(`${cmp.changes.length} metrics in both runs: ${counted('better')} better, ${counted('worse')} worse, ${counted('same')} within ±${thresholdPct}%`);
  const shown = cmp.changes.filter((c) => verdict(c, thresholdPct) !== 'same');
  if (shown.length) {
    const columns = [
      { head: 'case', wrap: true }, { head: 'method', wrap: true }, { head: 'metric', wrap: true }, { head: 'run A', align: 'right' as const },
      { head: 'run B', align: 'right' as const }, { head: 'change', align: 'right' as const }, { head: '' },
    ];
    textTable(columns, shown.map((c) => [`${c.workload} ${c.case}`, methodText(c), metricName(c), num(c.a), num(c.b), changeText(c), verdict(c, thresholdPct)]), width).forEach(out);
  }
  if (cmp.changes.length > shown.length) say(`(${cmp.changes.length - shown.length} changes within ±${thresholdPct}% not listed; --threshold 0 lists every metric)`);
  if (cmp.didNotFinish.length) {
    out('did not finish in a run (its step\'s time budget ran out): not compared as figures');
    textTable([{ head: 'case', wrap: true }, { head: 'run A', wrap: true }, { head: 'run B', wrap: true }], cmp.didNotFinish.map((d) => [d.case, d.a, d.b]), width).forEach(out);
  }
  if (cmp.changes.some((c) => c.differs.length)) say('"(other version)", "(other options)": the two runs ran that method with another client version or other options (their comparability keys differ only there); the change may be theirs.');
  if (cmp.notComparable.length) say(`not comparable (their comparability keys differ in more than the client's version or options; not compared): ${cmp.notComparable.length} (${cmp.notComparable.slice(0, 5).map(notComparableText).join('; ')}${cmp.notComparable.length > 5 ? '; …' : ''})`);
  if (cmp.onlyA.length) say(`measured in run A only: ${cmp.onlyA.length} (${cmp.onlyA.slice(0, 5).join('; ')}${cmp.onlyA.length > 5 ? '; …' : ''})`);
  if (cmp.onlyB.length) say(`measured in run B only: ${cmp.onlyB.length} (${cmp.onlyB.slice(0, 5).join('; ')}${cmp.onlyB.length > 5 ? '; …' : ''})`);
}

/** The comparison as one self-contained page: facts, a chart of the largest changes, every metric. */
export async function renderCompareHtml(cmp: Comparison, thresholdPct = 5): Promise<{ html: string; warnings: string[] }> {
  const charts = new ChartRenderer();
  const biggest = cmp.changes.filter((c) => c.changePct !== null && c.better !== null).sort((x, y) => Math.abs(y.changePct!) - Math.abs(x.changePct!)).slice(0, 40);
  const svg = biggest.length
    ? await charts.svg(changeSpec({
      title: `The ${biggest.length} largest changes`,
      points: biggest.map((c) => ({ label: `${c.workload} ${c.case} ${c.method} — ${c.metric}`, change: c.changePct!, better: c.better! })),
    }))
    : '';
  const rows = cmp.changes.map((c) => `<tr><th>${esc(c.workload)}</th><td>${esc(c.case)}</td><td>${esc(methodText(c))}</td><td>${esc(metricName(c))}</td>` +
    `<td>${esc(num(c.a))}</td><td>${esc(num(c.b))}</td><td class="${verdict(c, thresholdPct) === 'better' ? 'supported' : verdict(c, thresholdPct) === 'worse' ? 'unsupported' : ''}">${esc(changeText(c))}</td></tr>`).join('');
  const facts = cmp.facts.length
    ? `<table><thead><tr><th>what differs</th><th>run A</th><th>run B</th></tr></thead><tbody>${cmp.facts.map((f) => `<tr><th>${esc(f.fact)}</th><td>${esc(f.a)}</td><td>${esc(f.b)}</td></tr>`).join('')}</tbody></table>`
    : '<p>Same host facts, client versions and options.</p>';
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>s3-access-bench comparison — ${esc(cmp.a.runId)} vs ${esc(cmp.b.runId)}</title><style>${STYLE}</style></head>
<body><header><h1>s3-access-bench comparison</h1>
<p>Run A <code>${esc(cmp.a.runId)}</code> (${esc(cmp.a.source)}) → run B <code>${esc(cmp.b.runId)}</code> (${esc(cmp.b.source)}). Change = (B − A) / A; green is better, red worse, beyond ±${thresholdPct}%.</p></header>
<main><section id="facts"><h2>What differs between the runs</h2>${facts}</section>
<section id="changes"><h2>Changes</h2>${svg ? `<figure class="chart">${svg}</figure>` : '<p class="nodata">No metric was measured in both runs.</p>'}
<div class="table-wrap"><table><thead><tr><th>workload</th><th>case</th><th>method</th><th>metric</th><th>run A</th><th>run B</th><th>change</th></tr></thead><tbody>${rows}</tbody></table></div>
${cmp.notComparable.length ? `<p>Not comparable (their comparability keys differ in more than the client's version or options; not compared): ${esc(cmp.notComparable.map(notComparableText).join('; '))}</p>` : ''}${cmp.didNotFinish.length ? `<p>Did not finish (never compared as figures): ${esc(cmp.didNotFinish.map((d) => `${d.case}: A ${d.a}, B ${d.b}`).join('; '))}</p>` : ''}${cmp.onlyA.length ? `<p>Measured in run A only: ${esc(cmp.onlyA.join('; '))}</p>` : ''}${cmp.onlyB.length ? `<p>Measured in run B only: ${esc(cmp.onlyB.join('; '))}</p>` : ''}</section></main></body></html>
`;
  return { html, warnings: charts.warnings };
}

/** A run named on the command line: a run id in the results folder, or a results folder (its newest run). */
function resolveRunSpec(spec: string, resultsDir: string): { dir: string; runId?: string } {
  if (existsSync(spec) && statSync(spec).isDirectory()) return { dir: resolve(spec) };
  if (isRunId(spec)) return { dir: resolve(resultsDir), runId: spec };
  throw new UserError(`"${spec}" is neither a run id nor a results folder`, `name a run id from ${resultsDir}/_runs (like ${RUN_ID_EXAMPLE}) or a results folder`);
}

/** Loads both runs (reading a shared folder once) and compares them. */
export async function loadComparison(specA: string, specB: string, resultsDir: string): Promise<Comparison> {
  const a = resolveRunSpec(specA, resultsDir);
  const b = resolveRunSpec(specB, resultsDir);
  const scans = new Map<string, ScannedResults>();
  try {
    const scanOf = (dir: string) => {
      if (!scans.has(dir)) scans.set(dir, ScannedResults.open(dir));
      return scans.get(dir)!;
    };
    const inputA = await scanOf(a.dir).reportModel(scanOf(a.dir).pickRun(a.runId));
    const inputB = await scanOf(b.dir).reportModel(scanOf(b.dir).pickRun(b.runId));
    if (inputA.runId === inputB.runId && a.dir === b.dir) throw new UserError(`run A and run B are the same run (${inputA.runId})`, 'name two different runs or folders');
    return compareRuns(inputA, inputB);
  } finally {
    for (const s of scans.values()) s.dispose();
  }
}
