import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKLOAD_DESCRIPTORS } from '../../runner/workloads/catalog';
import { ROOT } from '../helpers/cli';

// docs/fleet.md's table of what each workload shares at fleet scale is the descriptors' `fleet`
// facts (one source): this test fails when the page is stale. `UPDATE_DOCS=1 npx jest
// test/unit/fleet-docs.test.ts` rewrites the table.

const PAGE = join(ROOT, 'docs', 'fleet.md');
const MARKERS = ['<!-- fleet-facts: generated from the workload descriptors\' `fleet` field; `UPDATE_DOCS=1 npx jest test/unit/fleet-docs.test.ts` -->', '<!-- /fleet-facts -->'] as const;

export function fleetFactsTable(): string {
  const rows = WORKLOAD_DESCRIPTORS.map((w) => {
    const f = w.fleet;
    return 'notApplicable' in f ? `| ${w.name} | not-applicable: ${f.notApplicable} | |` : `| ${w.name} | ${f.shared} | ${f.own} |`;
  });
  return ['| workload | what the clients share | what each client has to itself |', '|---|---|---|', ...rows].join('\n');
}

test('docs/fleet.md lists every workload\'s fleet facts as the descriptors state them', () => {
  const page = readFileSync(PAGE, 'utf8');
  const [open, close] = MARKERS;
  const start = page.indexOf(open);
  const end = page.indexOf(close);
  expect({ markers: start >= 0 && end > start }).toEqual({ markers: true });
  const current = page.slice(start + open.length, end).trim();
  const wanted = fleetFactsTable();
  if (process.env.UPDATE_DOCS && current !== wanted) writeFileSync(PAGE, `${page.slice(0, start + open.length)}\n${wanted}\n${page.slice(end)}`);
  else expect(current).toBe(wanted);
});
