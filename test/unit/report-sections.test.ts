import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderHtmlReport } from '../../runner/report/html/render';
import type { Cell, ReportModel } from '../../runner/report/model';
import { SECTIONS } from '../../runner/report/sections';
import type { ReportSection } from '../../runner/report/sections/section';
import { modelJson } from '../../runner/report/text/export';
import { summaryLines } from '../../runner/report/text/summary';
import { cell, modelOf } from '../helpers/model';

/**
 * The report's sections are files in runner/report/sections, and the list in its index.ts is the
 * only place that orders them: the page, the text summary and `--format json` follow it, every
 * section file is in it, and nothing else imports a section file to place it.
 */
const ROOT = join(__dirname, '..', '..');
const FOLDER = join(ROOT, 'runner', 'report', 'sections');
const SHELL = ['index.ts', 'section.ts'];
const sectionFiles = () => readdirSync(FOLDER).filter((f) => f.endsWith('.ts') && !SHELL.includes(f));

const speed = (method: string, size: number, mibS: number): Cell => cell({
  method, object_size_bytes: size, mib_s_min: mibS * 0.95, mib_s_median: mibS, mib_s_max: mibS * 1.05,
  ops_s_median: mibS, mean_us_median: 1e6 / mibS, p50_us_median: 900 / mibS, p95_us_median: 1500 / mibS, p99_us_median: 2000 / mibS, duration_ms_median: 10 / mibS,
});
const REQUESTS = { get: 0, get_ranged: 0, put: 10, mpu_create: 0, mpu_part: 0, mpu_complete: 0, mpu_abort: 0, head: 0, list: 0, delete_requests: 0, copy: 0, other: 0, get_bytes: 0, served_from_cache: 0, not_warm: 0 };
/** A run with data for several sections: a size sweep of two methods, and counted requests. */
const model = (): ReportModel => modelOf([1024, 1024 ** 2, 64 * 1024 ** 2].flatMap((s) => [speed('s3-api', s, 100), speed('aws-cli', s, 10)]), {
  requests: [{ ...REQUESTS, run_id: 'r', workload: 'objects', operation: 'upload', object_size_bytes: 1024, method: 's3-api', method_variant: 'default', cache: 'none',
    measurements: 1, not_counted: 0, ops: 10, bytes: 10240, all_ops: 10, all_bytes: 10240, files: null }],
});

describe('the section list is the only place that orders the report\'s sections', () => {
  test('every section file exports one section, and the list holds each once', async () => {
    const exported: ReportSection[] = [];
    for (const file of sectionFiles()) {
      const mod = (await import(join(FOLDER, file))) as Record<string, unknown>;
      const own = Object.values(mod).filter((v): v is ReportSection => typeof v === 'object' && v !== null && 'id' in v && 'hasData' in v);
      expect({ file, sections: own.length }).toEqual({ file, sections: 1 });
      exported.push(...own);
    }
    expect(new Set(SECTIONS.map((s) => s.id)).size).toBe(SECTIONS.length);
    expect([...SECTIONS].sort((a, b) => a.id.localeCompare(b.id))).toEqual(exported.sort((a, b) => a.id.localeCompare(b.id)));
  });

  test('nothing outside the folder imports a section file to place it: only the list does', () => {
    const offenders: string[] = [];
    const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
    const sectionImport = new RegExp(`/sections/(${sectionFiles().map((f) => f.replace(/\.ts$/, '')).join('|')})'`);
    expect(sectionImport.test("import { cacheSection } from '../report/sections/cache';")).toBe(true);
    for (const file of [...walk(join(ROOT, 'runner')), ...walk(join(ROOT, 'lambda'))]) {
      if (file.startsWith(FOLDER)) continue;
      if (sectionImport.test(readFileSync(file, 'utf8'))) offenders.push(file.slice(ROOT.length + 1));
    }
    expect(offenders).toEqual([]);
  });

  test('the page\'s sections appear in the list\'s order: those with an HTML form, a fleet-only one left out without data', async () => {
    const m = model();
    const page = await renderHtmlReport(m);
    const expected = SECTIONS.filter((s) => s.html && (!s.omitWithoutData || s.hasData(m))).map((s) => s.id);
    expect(page.sections.map((s) => s.id)).toEqual(expected);
    expect([...page.html.matchAll(/<section id="([^"]+)"/g)].map((x) => x[1])).toEqual(expected);
    expect(page.sections.filter((s) => s.hasData).map((s) => s.id)).toEqual(expect.arrayContaining(['summary', 'size', 'ratios', 'requests']));
    expect(expected).not.toContain('scaling');
  });

  test('the text summary is its header, then each section\'s text form in the list\'s order, closing ones last', () => {
    const m = model();
    const ctx = { model: m, width: 100, wide: false };
    const texts = SECTIONS.flatMap((s) => (s.text ? [s.text] : []));
    const body = [...texts.filter((t) => !t.closing), ...texts.filter((t) => t.closing)].flatMap((t) => t.lines(ctx));
    const lines = summaryLines(m);
    expect(lines.slice(lines.length - body.length)).toEqual(body);
    // The sections this run has data for are all there, in that order.
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    const order = ['Which method for which workload', 'objects (seed', 'Requests and request cost', 'integrity:'].map(at);
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  test('--format json holds each section\'s tables, in the list\'s order', () => {
    const m = model();
    expect(Object.keys(JSON.parse(modelJson(m)))).toEqual(['run', ...SECTIONS.flatMap((s) => (s.tables?.(m) ?? []).map((t) => t.name))]);
    expect(Object.keys(JSON.parse(modelJson(m)))).toEqual(['run', 'cases', 'verdicts', 'findings', 'untrusted', 'advice_needs', 'advice_methods', 'advice_picks', 'tuning', 'tuning_knobs', 'scaling', 'requests', 'seed_claims', 'methods', 'workloads']);
  });
});
