import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURE_WORKLOADS, writeReportFixture } from '../../scripts/fixtures/report-fixture';
import { WORKLOAD_DESCRIPTORS } from '../../runner/workloads/catalog';
import { s3ab } from '../helpers/cli';

/**
 * Operation and probe orders come from each workload's own declaration (runner/workloads/NAME.ts,
 * `operations`): a probe a workload declares must show in the text summary and the HTML page
 * (once, `attrs-on-open-file` was declared by semantics and missing from the report's own list).
 */
describe('every declared operation shows in the report', () => {
  let dir: string;
  let summary: string;
  let html: string;
  let recorded: Map<string, Set<string>>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3ab-declared-'));
    const results = join(dir, 'results');
    await writeReportFixture(results, { repetitions: 1 });
    recorded = new Map();
    for (const part of readdirSync(results).filter((d) => d.startsWith('dt='))) {
      for (const file of readdirSync(join(results, part))) {
        for (const line of readFileSync(join(results, part, file), 'utf8').trim().split('\n')) {
          const r = JSON.parse(line) as { workload: string; operation: string; status: string };
          if (r.status === 'not-applicable') continue;
          if (!recorded.has(r.workload)) recorded.set(r.workload, new Set());
          recorded.get(r.workload)!.add(r.operation);
        }
      }
    }
    summary = (await s3ab(['report', '--results', results])).stdout;
    const file = join(dir, 'report.html');
    expect((await s3ab(['report', '--results', results, '--html', file])).code).toBe(0);
    html = readFileSync(file, 'utf8');
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the fixture records every workload it names', () => {
    expect([...recorded.keys()].sort()).toEqual([...FIXTURE_WORKLOADS].sort());
  });

  test.each(WORKLOAD_DESCRIPTORS.filter((w) => FIXTURE_WORKLOADS.includes(w.name)).map((w) => [w.name, w] as const))('%s: records name only declared operations', (_name, w) => {
    for (const op of recorded.get(w.name) ?? []) expect(w.operations).toContain(op);
  });

  test.each(['semantics', 'metadata'])('%s: every declared probe or test is in the summary and on the page', (name) => {
    const w = WORKLOAD_DESCRIPTORS.find((d) => d.name === name)!;
    expect(w.operations.length).toBeGreaterThan(5);
    for (const op of w.operations) {
      expect(recorded.get(name)).toContain(op);
      expect(summary).toContain(op);
      expect(html).toContain(op);
    }
  });
});
