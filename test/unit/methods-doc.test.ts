import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { methodsTable, METHODS_BLOCK, withMethodsTable } from '../../runner/cli/methods-table';
import { missingRecipes, pinnedVersions } from '../../runner/core/install';
import { resolveMatrix } from '../../runner/core/matrix';
import { METHOD_DESCRIPTORS } from '../../runner/methods/catalog';
import { WORKLOAD_DESCRIPTORS } from '../../runner/workloads/catalog';
import { wanted } from '../../runner/install/setup.mjs';
import { echoFsDescriptor } from '../fixtures/method/echo-fs';
import { registryWithEchoFs } from '../fixtures/method/registry';
import { ROOT } from '../helpers/cli';

const doc = readFileSync(join(ROOT, 'docs', 'methods.md'), 'utf8');

describe('docs/methods.md: the methods table comes from the catalog', () => {
  test('the generated block is current (`npm run gen` writes it)', () => {
    expect(doc).toContain(METHODS_BLOCK.begin);
    expect(withMethodsTable(doc, methodsTable(METHOD_DESCRIPTORS))).toBe(doc);
  });
  test('each method has one row and one short note (two or three sentences, no history)', () => {
    const block = doc.slice(doc.indexOf(METHODS_BLOCK.begin), doc.indexOf(METHODS_BLOCK.end));
    const notes = doc.slice(doc.indexOf('## How each method works'), doc.indexOf('## Versions'));
    for (const m of METHOD_DESCRIPTORS) {
      expect(block.match(new RegExp(`^\\| \`${m.name}\` \\|`, 'gm'))).toHaveLength(1);
      const note = new RegExp(`^- \\*\\*\`${m.name}\`\\*\\*: ([\\s\\S]*?)(?=\\n- |\\n*$)`, 'm').exec(notes);
      expect([m.name, note ? 'has a note' : 'no note']).toEqual([m.name, 'has a note']);
      const sentences = note![1].replace(/\s+/g, ' ').split(/[.:;] (?=[A-Z`])/).length;
      expect([m.name, sentences <= 4]).toEqual([m.name, true]);
    }
    expect(notes).not.toMatch(/\bissue \d+|until issue|seed \d{3}/i);
  });
});

describe('a method in its own files: descriptor, implementation, one catalog line, one install entry', () => {
  // The catalog line: what runner/methods/catalog.ts's METHOD_DESCRIPTORS gains.
  const catalog = { methods: [...METHOD_DESCRIPTORS, echoFsDescriptor], workloads: WORKLOAD_DESCRIPTORS };
  const registry = registryWithEchoFs();

  test('its install entry is whole: a recipe for each place it claims, installed by setup', () => {
    expect(missingRecipes(registry)).toEqual([]);
    expect(wanted(registry, ['echo-fs'], false)).toEqual(['npm', 'versitygw', 'rclone']);
    expect(pinnedVersions('echo-fs', registry)).toEqual(['rclone 1.75.2 (here and on runners)']);
  });
  test('a matrix may name it and the docs table lists it (test/runner/new-method.test.ts runs it)', () => {
    const matrix = resolveMatrix({ methods: ['echo-fs'], workloads: { metadata: {} } }, 'fixture', catalog);
    expect(matrix.methods.map((m) => m.name)).toEqual(['echo-fs']);
    expect(methodsTable(catalog.methods, registry)).toContain('| `echo-fs` | mount | A test-only mount method that shows what adding a method touches. Runs here and on EC2 runners.');
  });
});
