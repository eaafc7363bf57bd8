#!/usr/bin/env node
// Generates the TypeScript types of the result records, the matrix and the interval series from
// their JSON Schemas (assets/schema/), the single source of each format, and the names of the
// report model's queries from their folder (assets/queries/model/). `--check` fails when a
// committed file is stale.
import { compileFromFile } from 'json-schema-to-typescript';
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const targets = [
  { schema: 'assets/schema/result.schema.json', out: 'runner/core/record.generated.ts' },
  { schema: 'assets/schema/matrix.schema.json', out: 'runner/core/matrix.generated.ts' },
  { schema: 'assets/schema/interval.schema.json', out: 'runner/core/interval.generated.ts' },
];
const MODEL_QUERY_FOLDER = 'assets/queries/model';
const MODEL_QUERY_OUT = 'runner/report/model-queries.generated.ts';

/** The names of the SQL files the report model reads, as a literal tuple (the Lambda bundles carry no assets folder to list). */
function modelQueriesModule() {
  const names = readdirSync(join(root, MODEL_QUERY_FOLDER)).filter((f) => f.endsWith('.sql')).map((f) => f.replace(/\.sql$/, '')).sort();
  return `/* Generated from ${MODEL_QUERY_FOLDER}/*.sql by scripts/gen-types.mjs. Do not edit: run \`npm run gen\`. */\n\n` +
    `/** The SQL files the report model is built from, one per file in ${MODEL_QUERY_FOLDER}/. */\n` +
    `export const MODEL_QUERIES = [\n${names.map((n) => `  '${n}',\n`).join('')}] as const;\n`;
}

const check = process.argv.includes('--check');
let stale = 0;
const outputs = [
  ...targets.map(({ schema, out }) => ({ source: schema, out, make: () => compileFromFile(join(root, schema), {
    cwd: join(root, 'assets/schema'),
    bannerComment: `/* Generated from ${schema} by scripts/gen-types.mjs. Do not edit: run \`npm run gen\`. */`,
    additionalProperties: false,
    ignoreMinAndMaxItems: true,
    style: { singleQuote: true },
  }) })),
  { source: MODEL_QUERY_FOLDER, out: MODEL_QUERY_OUT, make: async () => modelQueriesModule() },
];
for (const { source: schema, out, make } of outputs) {
  const ts = await make();
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
