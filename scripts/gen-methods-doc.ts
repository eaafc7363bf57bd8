// Writes docs/methods.md's methods table from the catalog and the install registry, and
// docs/usage.md's knobs table from the descriptors' knobs (`npm run gen`); with --check, exits 1
// when either file is not current instead.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { knobsTable, withKnobsTable } from '../runner/cli/knobs-table';
import { methodsTable, withMethodsTable } from '../runner/cli/methods-table';
import { METHOD_DESCRIPTORS } from '../runner/methods/catalog';

const generated = [
  { file: join(__dirname, '..', 'docs', 'methods.md'), what: 'methods table', write: (doc: string) => withMethodsTable(doc, methodsTable(METHOD_DESCRIPTORS)) },
  { file: join(__dirname, '..', 'docs', 'usage.md'), what: 'knobs table', write: (doc: string) => withKnobsTable(doc, knobsTable(METHOD_DESCRIPTORS)) },
];
for (const { file, what, write } of generated) {
  const doc = readFileSync(file, 'utf8');
  const current = write(doc);
  const name = `docs/${file.split('/').pop()}`;
  if (process.argv.includes('--check')) {
    if (current !== doc) {
      process.stderr.write(`${name}: its ${what} is not current: run \`npm run gen\`\n`);
      process.exit(1);
    }
  } else if (current !== doc) {
    writeFileSync(file, current);
    process.stderr.write(`${name}: ${what} written\n`);
  }
}
