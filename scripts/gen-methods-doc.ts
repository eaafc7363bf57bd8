// Writes docs/methods.md's methods table from the catalog and the install registry
// (`npm run gen`); with --check, exits 1 when the file is not current instead.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { methodsTable, withMethodsTable } from '../runner/cli/methods-table';
import { METHOD_DESCRIPTORS } from '../runner/methods/catalog';

const file = join(__dirname, '..', 'docs', 'methods.md');
const doc = readFileSync(file, 'utf8');
const current = withMethodsTable(doc, methodsTable(METHOD_DESCRIPTORS));
if (process.argv.includes('--check')) {
  if (current !== doc) {
    process.stderr.write('docs/methods.md: its methods table is not current: run `npm run gen`\n');
    process.exit(1);
  }
} else if (current !== doc) {
  writeFileSync(file, current);
  process.stderr.write('docs/methods.md: methods table written\n');
}
