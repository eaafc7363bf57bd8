import type { MethodDescriptor } from '../core/method';
import { INSTALL, type InstallRegistry, installCommand, pinnedVersions } from '../core/install';

/** The markers of the generated block in docs/methods.md (`npm run gen` rewrites what lies between). */
export const METHODS_BLOCK = { begin: '<!-- methods:begin (npm run gen writes this table from runner/methods/catalog.ts and assets/install.json) -->', end: '<!-- methods:end -->' };

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * The methods table of docs/methods.md, one row per method of the catalog in its order: the
 * descriptor's summary, where it runs and how it is installed (the install registry), the pinned
 * versions, and its variants.
 */
export function methodsTable(descriptors: readonly MethodDescriptor[], registry: InstallRegistry = INSTALL, install: (name: string) => string | null = installCommand): string {
  const rows = descriptors.map((m) => {
    const runsOn = registry.methods[m.name]?.runsOn ?? [];
    const where = !runsOn.includes('local') ? 'Runs on EC2 runners only (AWS).'
      : runsOn.includes('runner') ? 'Runs here and on EC2 runners.' : 'Runs here only (no runner recipe yet).';
    const how = install(m.name);
    const versions = pinnedVersions(m.name, registry);
    const what = `${m.summary}. ${where}${how ? ` Installed with \`${how}\`.` : ''}`;
    return `| \`${m.name}\` | ${m.kind} | ${cell(what)} | ${cell(versions.join('; ') || '–')} | ${Object.keys(m.variants).map((v) => `\`${v}\``).join(', ')} |`;
  });
  return ['| method | kind | what it is | versions | variants |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** A document with its generated methods block replaced (the markers must be there). */
export function withMethodsTable(doc: string, table: string): string {
  const begin = doc.indexOf(METHODS_BLOCK.begin);
  const end = doc.indexOf(METHODS_BLOCK.end);
  if (begin < 0 || end < begin) throw new Error(`docs/methods.md has no generated block: put ${METHODS_BLOCK.begin} and ${METHODS_BLOCK.end} where the table goes`);
  return `${doc.slice(0, begin + METHODS_BLOCK.begin.length)}\n${table}\n${doc.slice(end)}`;
}
