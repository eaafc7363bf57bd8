// Writes docs/seeds.md's claims table from runner/report/seed-claims.ts (`npm run gen`); with
// --check, exits 1 when the file is not current instead.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claimsTable, withClaimsTable } from '../runner/report/seed-claims-doc';

const file = join(__dirname, '..', 'docs', 'seeds.md');
const doc = readFileSync(file, 'utf8');
const current = withClaimsTable(doc, claimsTable());
if (process.argv.includes('--check')) {
  if (current !== doc) {
    process.stderr.write('docs/seeds.md: its claims table is not current: run `npm run gen`\n');
    process.exit(1);
  }
} else if (current !== doc) {
  writeFileSync(file, current);
  process.stderr.write('docs/seeds.md: claims table written\n');
}
