import { knobRange } from '../core/knobs';
import type { MethodDescriptor } from '../core/method';

/** Where docs/usage.md holds the knobs table that `npm run gen` writes from the method descriptors. */
export const KNOBS_BLOCK = {
  begin: '<!-- knobs:begin (npm run gen writes this table from the knobs in runner/methods/NAME.ts) -->',
  end: '<!-- knobs:end -->',
};

/** Every method's tunable knobs as a Markdown table: what each changes, its default, its range and where that is documented. */
export function knobsTable(methods: readonly MethodDescriptor[]): string {
  const rows = methods.flatMap((m) => Object.entries(m.knobs ?? {}).map(([name, k]) =>
    `| \`${m.name}\` | \`${name}\` | ${k.summary} | \`${k.default}\` | ${knobRange(k)}${k.bound ? ` (${k.bound})` : ''} | ${k.source} |`));
  return ['| method | knob | what it changes | default | values | documented in |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

export function withKnobsTable(doc: string, table: string): string {
  const begin = doc.indexOf(KNOBS_BLOCK.begin);
  const end = doc.indexOf(KNOBS_BLOCK.end);
  if (begin < 0 || end < begin) throw new Error(`docs/usage.md has no generated knobs block: put ${KNOBS_BLOCK.begin} and ${KNOBS_BLOCK.end} where the table goes`);
  return `${doc.slice(0, begin + KNOBS_BLOCK.begin.length)}\n${table}\n${doc.slice(end)}`;
}
