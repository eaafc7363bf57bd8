#!/usr/bin/env node
// Generates the TypeScript types of the result records, the matrix and the interval series from
// their JSON Schemas (assets/schema/), the single source of each format. `--check` fails when the committed file is stale.
import { compileFromFile } from 'json-schema-to-typescript';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const targets = [
  { schema: 'assets/schema/result.schema.json', out: 'runner/core/record.generated.ts' },
  { schema: 'assets/schema/matrix.schema.json', out: 'runner/core/matrix.generated.ts' },
  { schema: 'assets/schema/interval.schema.json', out: 'runner/core/interval.generated.ts' },
];
const check = process.argv.includes('--check');
let stale = 0;
for (const { schema, out } of targets) {
  const ts = await compileFromFile(join(root, schema), {
    cwd: join(root, 'assets/schema'),
    bannerComment: `/* Generated from ${schema} by scripts/gen-types.mjs. Do not edit: run \`npm run gen\`. */`,
    additionalProperties: false,
    ignoreMinAndMaxItems: true,
    style: { singleQuote: true },
  });
  const path = join(root, out);
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (current === ts) continue;
  if (check) {
    console.error(`${out} is stale: it does not match ${schema}. Run \`npm run gen\` and commit the result.`);
    stale++;
  } else {
    writeFileSync(path, ts);
    console.log(`wrote ${out}`);
  }
}
process.exit(stale ? 1 : 0);
